/* libFuzzer harness for the array profile parser (tiers/profile*.c), and
 * the model built from what it accepts.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_profile
 *   ./build-fuzz/tests/fuzz/fuzz_profile -max_len=2048 tiers/profiles
 *
 * Beyond "does not crash": an error is one line naming the file; a
 * profile that parses prints back (profile show) to text that parses to
 * a profile printing the same; and a small enough accepted profile
 * builds a model and its replication link that time a few I/Os (and
 * their sync copies, a batch) without going back in time.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tiers/model.h"
#include "tiers/model_repl.h"
#include "tiers/profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char *fuzz_print(const struct profile *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (!f)
		abort();
	profile_print(f, p);
	fclose(f);
	return buf;
}

/* Engine slots the model would allocate: keep each run small. */
static uint64_t fuzz_slots(const struct profile *p)
{
	uint64_t n = 0;

	for (unsigned t = 0; t < PROFILE_TIER_COUNT; t++)
		if (p->tier[t].present)
			n += (uint64_t)p->tier[t].drives * p->tier[t].slots;
	/* [nodes]: each node a copy of the controllers and drives. */
	return (p->nodes.count > 1 ? p->nodes.count : 1) *
	       (n + (uint64_t)p->ctl.count * p->ctl.cores);
}

/* Set or clear an array fault chosen by @b (tiers/model_faults.c): any
 * answer is fine but a crash; one that succeeds says what it did. */
static void fuzz_fault(struct model *m, uint8_t b, uint64_t now)
{
	struct model_fault f = {
	    .kind = (enum model_fault_kind)(b % 4),
	    .tier = (b >> 2) % 4,
	    .id = (b >> 4) % 8,
	    .factor = 1.0 + (b % 7),
	};
	struct model_fault_effect eff;
	int rc = model_fault(m, now, &f, !(b & 0x80), &eff);

	if (rc && rc != -EINVAL && rc != -ENOTSUP && rc != -EALREADY)
		abort();
	if (!rc && eff.stall_until && eff.stall_until < now)
		abort();
}

static void fuzz_model(const struct profile *p, const uint8_t *data,
		       size_t size)
{
	struct model *m;
	struct model_repl *r;
	uint64_t now = 0;

	if (p->model != PROFILE_MODEL_TIMED || fuzz_slots(p) > 20000)
		return;
	if (model_new(p, 1.0, size, &m))
		abort(); /* a profile that parses must build */
	/* Its replication link, sync or not (a replica model of its own). */
	if (model_repl_new(m, data[0] & 1, &r))
		abort();
	for (size_t i = 0; i < 16; i++) {
		uint8_t b = data[i % size];
		struct model_io io = {
		    .op = b & 1 ? ENGINE_OP_WRITE : ENGINE_OP_READ,
		    .offset = (uint64_t)b << (b % 40),
		    .length = 512ull << (b % 12),
		    .cache_hit = b & 2,
		};
		uint64_t done;

		if (i % 4 == 3)
			fuzz_fault(m, b, now);
		done = model_submit(m, now, &io);
		if (done < now || model_repl_write(r, done, &io) < done)
			abort();
		if (i % 8 == 7 && model_repl_ship(r, now, io.length) < now)
			abort();
		now += b * 1000ull;
	}
	model_repl_free(r);
	model_free(m);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[PROFILE_ERR_LEN], *text, *once, *twice;
	struct profile *p;

	if (size == 0 || size > 8192)
		return 0;
	text = malloc(size + 1);
	p = malloc(sizeof(*p));
	if (!text || !p)
		abort();
	memcpy(text, data, size);
	text[size] = '\0';
	err[0] = '\0';
	if (profile_parse_string(text, "fuzz.ini", p, err, sizeof(err))) {
		if (strncmp(err, "fuzz.ini", 8) || strchr(err, '\n'))
			abort();
		goto out;
	}
	once = fuzz_print(p);
	if (profile_parse_string(once, "fuzz.ini", p, err, sizeof(err)))
		abort(); /* show printed what the parser refuses */
	twice = fuzz_print(p);
	if (strcmp(once, twice))
		abort();
	free(once);
	free(twice);
	fuzz_model(p, data, size);
out:
	free(p);
	free(text);
	return 0;
}
