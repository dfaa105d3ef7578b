/* faults/faults.c: the registry's decisions. A rule fires on the
 * operations it names, as often as its count allows, with its probability
 * drawn from a stream fixed by the seed; path rules ask for the path and
 * match it as a glob; clear removes rules; thin publishes its limit. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "common/clock.h"
#include "faults/events.h"
#include "faults/faults.h"

static uint64_t add(struct faults *f, const char *spec)
{
	struct fault_rule r;
	char err[256];
	if (fault_rule_parse(spec, &r, err, sizeof(err)))
		fail_msg("'%s': %s", spec, err);
	uint64_t id = 0;
	assert_int_equal(faults_add(f, &r, &id), 0);
	return id;
}

struct path_ctx {
	const char *path;
	unsigned asked;
};

static bool path_of(void *ctx, char *buf, size_t len)
{
	struct path_ctx *p = ctx;
	p->asked++;
	if (!p->path)
		return false;
	snprintf(buf, len, "%s", p->path);
	return true;
}

static struct fault_hit check(struct faults *f, unsigned op, const char *path)
{
	struct path_ctx pc = {path, 0};
	struct fault_hit h;
	faults_check(f, op, path_of, &pc, &h);
	return h;
}

static void test_nothing_active(void **state)
{
	struct faults *f;
	assert_int_equal(faults_new(1, &f), 0);
	struct path_ctx pc = {"/x", 0};
	struct fault_hit h;
	faults_check(f, FOP_WRITE, path_of, &pc, &h);
	assert_int_equal(h.err, 0);
	assert_int_equal(h.delay_ns, 0);
	assert_false(h.torn);
	assert_int_equal(pc.asked, 0); /* no path computed for nothing */
	uint64_t blocks;
	assert_false(faults_thin_limit(f, &blocks));
	faults_free(f);
}

static void test_op_and_count(void **state)
{
	struct faults *f;
	assert_int_equal(faults_new(1, &f), 0);
	uint64_t id = add(f, "error op=write errno=ENOSPC count=2");
	assert_int_equal(id, 1);
	assert_int_equal(check(f, FOP_READ, NULL).err, 0);
	struct fault_hit h = check(f, FOP_WRITE, NULL);
	assert_int_equal(h.err, -ENOSPC);
	assert_int_equal(h.rule_id, 1);
	assert_int_equal(check(f, FOP_WRITE, NULL).err, -ENOSPC);
	assert_int_equal(check(f, FOP_WRITE, NULL).err, 0); /* count spent */
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);
	faults_list(f, out);
	fclose(out);
	assert_string_equal(text, "1 error op=write errno=ENOSPC count=2 "
				  "fired=2\n");
	free(text);
	faults_free(f);
}

/* prob=0.3 fires on about 30% of 10,000 operations, and the same seed
 * gives the same sequence of decisions. */
static void test_probability_is_seeded(void **state)
{
	uint8_t seq[2][10000];
	unsigned fired[2] = {0, 0};
	for (int run = 0; run < 2; run++) {
		struct faults *f;
		assert_int_equal(faults_new(42, &f), 0);
		add(f, "error op=read prob=0.3");
		for (int i = 0; i < 10000; i++) {
			seq[run][i] = check(f, FOP_READ, NULL).err != 0;
			fired[run] += seq[run][i];
		}
		faults_free(f);
	}
	assert_memory_equal(seq[0], seq[1], sizeof(seq[0]));
	/* binomial sd = sqrt(10000 * 0.3 * 0.7) = 46: 5 sd either side */
	assert_in_range(fired[0], 3000 - 230, 3000 + 230);

	struct faults *g;
	assert_int_equal(faults_new(43, &g), 0);
	add(g, "error op=read prob=0.3");
	unsigned same = 0;
	for (int i = 0; i < 10000; i++)
		same += (check(g, FOP_READ, NULL).err != 0) == seq[0][i];
	assert_true(same < 10000); /* another seed, another sequence */
	faults_free(g);
}

static void test_path_glob(void **state)
{
	struct faults *f;
	assert_int_equal(faults_new(1, &f), 0);
	add(f, "error op=write path=/db/*.log");
	assert_int_equal(check(f, FOP_WRITE, "/db/a.log").err, -EIO);
	assert_int_equal(check(f, FOP_WRITE, "/db/sub/b.log").err, -EIO);
	assert_int_equal(check(f, FOP_WRITE, "/db/a.dat").err, 0);
	assert_int_equal(check(f, FOP_WRITE, NULL).err, 0); /* unknown */
	faults_free(f);
}

static void test_latency_adds_and_torn(void **state)
{
	struct faults *f;
	assert_int_equal(faults_new(1, &f), 0);
	add(f, "latency latency=2ms op=read,write");
	add(f, "latency latency=3ms op=write");
	add(f, "torn-write");
	struct fault_hit h = check(f, FOP_WRITE, NULL);
	assert_int_equal(h.delay_ns, 5000000);
	assert_true(h.torn);
	assert_int_equal(h.err, 0);
	h = check(f, FOP_WRITE, NULL);
	assert_false(h.torn); /* torn-write defaults to count=1 */
	assert_int_equal(check(f, FOP_READ, NULL).delay_ns, 2000000);
	faults_free(f);
}

static void test_clear(void **state)
{
	struct faults *f;
	assert_int_equal(faults_new(1, &f), 0);
	uint64_t a = add(f, "error op=read");
	uint64_t b = add(f, "error op=write");
	assert_int_equal(faults_clear(f, 99), -ENOENT);
	assert_int_equal(faults_clear(f, a), 0);
	assert_int_equal(check(f, FOP_READ, NULL).err, 0);
	assert_int_equal(check(f, FOP_WRITE, NULL).err, -EIO);
	assert_int_equal(faults_count(f), 1);
	assert_int_equal(faults_clear(f, 0), 0);
	assert_int_equal(check(f, FOP_WRITE, NULL).err, 0);
	assert_int_equal(faults_count(f), 0);
	assert_true(add(f, "error") > b); /* ids are not reused */
	faults_free(f);
}

static void test_thin(void **state)
{
	struct faults *f;
	assert_int_equal(faults_new(1, &f), 0);
	uint64_t id = add(f, "thin capacity=1M");
	uint64_t blocks = 0;
	assert_true(faults_thin_limit(f, &blocks));
	assert_int_equal(blocks, 256);
	struct fault_rule r;
	char err[64];
	assert_int_equal(fault_rule_parse("thin capacity=2M", &r, err, 64), 0);
	uint64_t id2;
	assert_int_equal(faults_add(f, &r, &id2), -EEXIST);
	assert_int_equal(check(f, FOP_WRITE, NULL).err, 0); /* not an op rule */
	assert_int_equal(faults_clear(f, id), 0);
	assert_false(faults_thin_limit(f, &blocks));
	add(f, "thin capacity=100"); /* less than a block: nothing fits */
	assert_true(faults_thin_limit(f, &blocks));
	assert_int_equal(blocks, 0);
	faults_free(f);
}

static void test_rule_limit(void **state)
{
	struct faults *f;
	assert_int_equal(faults_new(1, &f), 0);
	for (int i = 0; i < FAULTS_MAX_RULES; i++)
		add(f, "error op=rename");
	struct fault_rule r;
	char err[64];
	assert_int_equal(fault_rule_parse("error", &r, err, 64), 0);
	uint64_t id;
	assert_int_equal(faults_add(f, &r, &id), -ENOSPC);
	faults_free(f);
}

/* A registry logging to a new file made from the template @path. */
static struct faults *logged_faults(char *path, struct events **ev)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	assert_int_equal(events_open(path, ev), 0);
	struct faults *f;
	assert_int_equal(faults_new(1, &f), 0);
	faults_set_events(f, *ev);
	return f;
}

/* A used-up count=N rule says so in the event log, once, at its last hit:
 * without it a report shaded it as active until its clear. */
static void test_used_up_rule_logs_rule_done(void **state)
{
	(void)state;
	char path[] = "/tmp/test_faults_events.XXXXXX", line[512];
	struct events *ev;
	struct faults *f = logged_faults(path, &ev);
	uint64_t id = add(f, "error op=write errno=EIO count=2");
	add(f, "error op=read errno=EIO"); /* no count: never used up */
	for (int i = 0; i < 4; i++) {
		check(f, FOP_WRITE, NULL);
		check(f, FOP_READ, NULL);
	}
	faults_free(f);
	events_close(ev);
	FILE *in = fopen(path, "r");
	assert_non_null(in);
	unsigned done = 0;
	char want[64];
	snprintf(want, sizeof(want),
		 "\"event\":\"rule_done\",\"id\":%llu,\"hits\":2,",
		 (unsigned long long)id);
	while (fgets(line, sizeof(line), in))
		if (strstr(line, "rule_done")) {
			done++;
			assert_non_null(strstr(line, want));
		}
	fclose(in);
	unlink(path);
	assert_int_equal(done, 1);
}

/* Sums the "hits" of @id's fault_hits lines in @path; *lines: how many. */
static uint64_t logged_hits(const char *path, uint64_t id, unsigned *lines)
{
	char line[512], want[64];
	uint64_t sum = 0;
	snprintf(want, sizeof(want), "\"event\":\"fault_hits\",\"id\":%llu,",
		 (unsigned long long)id);
	FILE *in = fopen(path, "r");
	assert_non_null(in);
	*lines = 0;
	while (fgets(line, sizeof(line), in)) {
		const char *h = strstr(line, want);
		if (!h)
			continue;
		(*lines)++;
		h = strstr(h, "\"hits\":");
		assert_non_null(h);
		sum += strtoull(h + 7, NULL, 10);
	}
	fclose(in);
	return sum;
}

/* A rule hit on every operation logs its first hit (the caller's
 * fault_hit) and then one fault_hits line a second, not a line a hit (a
 * latency rule wrote 690 KB in 2 min); the hits logged sum to the times
 * it fired, for a second rule on the same operations too (never the
 * caller's: the first rule decided), once clear flushes the rest. */
static void test_hot_rule_logs_a_line_a_second(void **state)
{
	(void)state;
	char path[] = "/tmp/test_faults_hot.XXXXXX";
	struct events *ev;
	struct faults *f = logged_faults(path, &ev);
	uint64_t lat = add(f, "latency latency=1us op=read");
	uint64_t err = add(f, "error op=read errno=EIO");
	uint64_t n = 0, first = 0, t0 = clock_mono_ns(), t;
	do { /* a time-bounded run of hits: 2.5 s of them */
		struct fault_hit h = check(f, FOP_READ, NULL);
		assert_int_equal(h.rule_id, lat);
		first += h.log_first;
		n++;
		t = clock_mono_ns();
	} while (t - t0 < 2500000000ull);
	assert_int_equal(faults_clear(f, 0), 0);
	faults_free(f);
	events_close(ev);
	double secs = (double)(t - t0) / 1e9;
	unsigned lines_lat, lines_err;
	assert_int_equal(first, 1);
	assert_int_equal(logged_hits(path, lat, &lines_lat) + first, n);
	assert_int_equal(logged_hits(path, err, &lines_err), n);
	/* Once a second while hit, and once at the clear. */
	assert_in_range(lines_lat, 2, (unsigned)secs + 2);
	assert_in_range(lines_err, 2, (unsigned)secs + 3);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_nothing_active),
	    cmocka_unit_test(test_op_and_count),
	    cmocka_unit_test(test_probability_is_seeded),
	    cmocka_unit_test(test_path_glob),
	    cmocka_unit_test(test_latency_adds_and_torn),
	    cmocka_unit_test(test_clear),
	    cmocka_unit_test(test_thin),
	    cmocka_unit_test(test_rule_limit),
	    cmocka_unit_test(test_used_up_rule_logs_rule_done),
	    cmocka_unit_test(test_hot_rule_logs_a_line_a_second),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
