/* Array profiles printed back: `arraysim profile show`.
 *
 * Every key of every section that applies, in pkeys[] order, each value
 * in the exact form it parses from (sizes and durations in the largest
 * unit that divides them), so the output is itself a profile that loads
 * to the same struct. Derived figures (usable capacity, effective link
 * rate) follow as comments, in human units.
 */
#include "tiers/profile_value_i.h"

#include <inttypes.h>
#include <string.h>

#include "common/units.h"
#include "tiers/profile_calc.h"

/* @v in the largest unit of @units (ascending multiples) dividing it. */
static void format_exact(uint64_t v, const uint64_t *mult,
			 const char *const *name, unsigned n, char *buf,
			 size_t len)
{
	unsigned i = n - 1;

	if (v == 0) {
		snprintf(buf, len, "0");
		return;
	}
	while (i > 0 && v % mult[i])
		i--;
	snprintf(buf, len, "%" PRIu64 "%s", v / mult[i], name[i]);
}

static void format_size(uint64_t v, char *buf, size_t len)
{
	static const uint64_t mult[] = {1, 1ull << 10, 1ull << 20, 1ull << 30,
					1ull << 40};
	static const char *const name[] = {"", "K", "M", "G", "T"};

	format_exact(v, mult, name, 5, buf, len);
}

static void format_duration(uint64_t v, char *buf, size_t len)
{
	static const uint64_t mult[] = {1, 1000, 1000000, 1000000000};
	static const char *const name[] = {"ns", "us", "ms", "s"};

	format_exact(v, mult, name, 4, buf, len);
}

/* A percentage without trailing zeros: 99.9, 8, 0.05. */
static void format_pct(double v, char *buf, size_t len)
{
	char *dot;
	size_t n;

	snprintf(buf, len, "%.6f", v);
	dot = strchr(buf, '.');
	if (!dot)
		return;
	n = strlen(buf);
	while (n > 0 && buf[n - 1] == '0')
		buf[--n] = '\0';
	if (buf[n - 1] == '.')
		buf[n - 1] = '\0';
}

static void format_dist(const struct engine_dist *d, char *buf, size_t len)
{
	size_t used = 0;

	if (d->n_points == 0) {
		format_duration(d->fixed_ns, buf, len);
		return;
	}
	buf[0] = '\0';
	for (unsigned i = 0; i < d->n_points && used < len; i++) {
		char pct[32], dur[32];

		format_pct(d->points[i].pct, pct, sizeof(pct));
		format_duration(d->points[i].ns, dur, sizeof(dur));
		used += (size_t)snprintf(buf + used, len - used, "%sp%s:%s",
					 i ? " " : "", pct, dur);
	}
}

/* Format key @k's value from @field into @buf (the form it parses from). */
static void pkey_format(const struct pkey *k, const void *field, char *buf,
			size_t len)
{
	switch (k->type) {
	case PK_STRING:
		snprintf(buf, len, "%s", (const char *)field);
		break;
	case PK_BOOL:
		snprintf(buf, len, "%s", *(const bool *)field ? "yes" : "no");
		break;
	case PK_UINT:
		snprintf(buf, len, "%u", *(const unsigned *)field);
		break;
	case PK_U64:
		snprintf(buf, len, "%" PRIu64, *(const uint64_t *)field);
		break;
	case PK_SIZE:
		format_size(*(const uint64_t *)field, buf, len);
		break;
	case PK_DURATION:
		format_duration(*(const uint64_t *)field, buf, len);
		break;
	case PK_RATE:
		format_size(*(const uint64_t *)field, buf, len);
		if (*(const uint64_t *)field)
			strncat(buf, "/s", len - strlen(buf) - 1);
		break;
	case PK_PERCENT:
		format_pct(*(const double *)field, buf, len);
		strncat(buf, "%", len - strlen(buf) - 1);
		break;
	case PK_DECIMAL:
		format_pct(*(const double *)field, buf, len);
		break;
	case PK_ENUM:
		snprintf(buf, len, "%s", k->names[*(const int *)field]);
		break;
	case PK_LINK:
		snprintf(buf, len, "%s",
			 ((const struct profile_frontend *)field)->speed);
		break;
	case PK_DIST:
		format_dist(field, buf, len);
		break;
	}
}

/* Section @sec (slot @slot) with every key, or with @mount_only only the
 * keys a null profile has. */
static void print_section(FILE *f, const struct profile *p, enum psec sec,
			  unsigned slot, bool mount_only)
{
	if (sec == PSEC_TIER)
		fprintf(f, "\n[tier %s]\n", ptier_names[slot]);
	else
		fprintf(f, "%s[%s]\n", sec == PSEC_ARRAY ? "" : "\n",
			psec_names[sec]);
	for (unsigned i = 0; i < n_pkeys; i++) {
		char buf[PROFILE_MAX_VALUE];

		if (pkeys[i].sec != sec ||
		    (mount_only && !pkey_mount_only(&pkeys[i])))
			continue;
		pkey_format(&pkeys[i],
			    pkey_field((struct profile *)p, &pkeys[i], slot),
			    buf, sizeof(buf));
		fprintf(f, "%s = %s\n", pkeys[i].key, buf);
	}
}

/* Figures derived from the keys, as comments: what the model will use. */
static void print_tier_notes(FILE *f, const struct profile_tier *t)
{
	char buf[32];

	fprintf(
	    f, "; usable after RAID: %s\n",
	    units_format_size(profile_tier_usable_bytes(t), buf, sizeof(buf)));
}

void profile_print(FILE *f, const struct profile *p)
{
	fprintf(f, "; profile %s, fully resolved\n", p->name);
	print_section(f, p, PSEC_ARRAY, 0, false);
	if (p->model == PROFILE_MODEL_NULL) {
		if (p->dedupe.compression != PROFILE_COMPRESS_NONE)
			print_section(f, p, PSEC_DEDUPE, 0, true);
		return;
	}
	print_section(f, p, PSEC_CONTROLLERS, 0, false);
	print_section(f, p, PSEC_FRONTEND, 0, false);
	fprintf(f,
		"; per link, after overhead: %.1f MB/s reads, %.1f MB/s "
		"writes\n",
		profile_link_bytes_per_s(&p->fe, ENGINE_OP_READ) / 1e6,
		profile_link_bytes_per_s(&p->fe, ENGINE_OP_WRITE) / 1e6);
	for (unsigned slot = 0; slot < PROFILE_TIER_COUNT; slot++) {
		if (!p->tier[slot].present)
			continue;
		print_section(f, p, PSEC_TIER, slot, false);
		print_tier_notes(f, &p->tier[slot]);
	}
	if (p->tier[PROFILE_TIER_CACHE].present)
		print_section(f, p, PSEC_CACHE, 0, false);
	print_section(f, p, PSEC_DEDUPE, 0, false);
	/* One node is the array without [nodes]: printed as it was. */
	if (p->nodes.count >= 2) {
		print_section(f, p, PSEC_NODES, 0, false);
		fprintf(
		    f, "; per interconnect link: %.1f MB/s each way\n",
		    profile_link_bytes_per_s(&p->nodes.net, ENGINE_OP_READ) /
			1e6);
	}
	print_section(f, p, PSEC_REPLICATION, 0, false);
	fprintf(f,
		"; replication round trip %.1f us, %.1f MB/s each way after "
		"overhead\n",
		(double)profile_repl_rtt_ns(&p->repl) / 1e3,
		profile_link_bytes_per_s(&p->repl.link, ENGINE_OP_WRITE) / 1e6);
}
