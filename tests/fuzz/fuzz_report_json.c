/* libFuzzer harness for the JSON-lines reader of arraysim report
 * (tools/report_json.c) and the sample and event parsers on top of it.
 *
 *   CC=clang meson setup build-fuzz -Dfuzz=true
 *   ninja -C build-fuzz tests/fuzz/fuzz_report_json
 *   ./build-fuzz/tests/fuzz/fuzz_report_json -max_len=512
 *
 * Beyond "does not crash": the input is not NUL-terminated (a read past it
 * is an ASan report), a refused line records no member, every recorded
 * span lies inside the input, strings come back NUL-terminated within the
 * buffer given, and numbers are finite; only a fault_hits event counts
 * more than one hit of its rule. Then the input, read as both
 * files of a store, makes a whole page (to /dev/null), with the input
 * also read as a --curve file: what the lines hold cannot hang or crash
 * the charts. A curve read has a step, each finite and not negative.
 */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/report.h"
#include "tools/report_curve.h"
#include "tools/report_data.h"
#include "tools/report_json.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_spans(const struct rj_obj *o, const char *p, size_t size)
{
	for (unsigned i = 0; i < o->n; i++) {
		const struct rj_span *s[2] = {&o->key[i], &o->val[i]};
		for (int k = 0; k < 2; k++)
			if (s[k]->len &&
			    (s[k]->p < p || s[k]->p + s[k]->len > p + size))
				abort();
	}
}

static void check_values(const struct rj_obj *o)
{
	static const char *const keys[] = {"t", "ts", "event", "rule", "a"};
	char buf[9];
	double d;
	for (size_t i = 0; i < sizeof(keys) / sizeof(*keys); i++) {
		memset(buf, 'x', sizeof(buf));
		if (rj_str(o, keys[i], buf, sizeof(buf)) &&
		    !memchr(buf, '\0', sizeof(buf)))
			abort();
		if (rj_num(o, keys[i], &d) && !isfinite(d))
			abort();
	}
}

/* The input as a curve.sh file; the curve, if it is one. */
static size_t as_curve(const char *p, size_t size, struct rcurve *c)
{
	FILE *in = fmemopen((void *)p, size, "r");
	size_t line;
	if (!in)
		abort();
	int r = rcurve_read(in, c, &line);
	fclose(in);
	if (r)
		return 0;
	for (size_t i = 0; i < c->n; i++) {
		const struct rcurve_step *s = &c->steps[i];
		if (!(s->iops >= 0 && s->lat_mean_us >= 0 && s->pct >= 0) ||
		    !isfinite(s->iops) || !isfinite(s->lat_mean_us))
			abort();
	}
	return c->n ? 1 : (abort(), 0);
}

static void whole_page(const char *p, size_t size)
{
	static FILE *null;
	if (!null)
		null = fopen("/dev/null", "w");
	struct rfile f = {0};
	FILE *in = fmemopen((void *)p, size, "r");
	if (!in || !null)
		abort();
	rfile_read(in, true, &f);
	rewind(in);
	rfile_read(in, false, &f);
	fclose(in);
	struct rcurve c;
	size_t nc = as_curve(p, size, &c);
	struct rrun r;
	/* The last run, then the first two by number (0 is refused). */
	unsigned runs[] = {REPORT_RUN_LAST, 1, 2};
	for (unsigned i = 0; i < 3 && (i == 0 || runs[i] <= rfile_runs(&f));
	     i++)
		if (!rrun_select(&f, runs[i], &r)) {
			struct report_page page = {"fuzz", &f, &r, &c, nc};
			report_html_write(null, &page);
			rrun_free(&r);
		}
	if (nc)
		rcurve_free(&c);
	rfile_free(&f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* An exact-size copy, so that reading one byte past is caught. */
	char *p = malloc(size ? size : 1);
	if (!p)
		return 0;
	memcpy(p, data, size);
	struct rj_obj o;
	if (rj_parse(p, size, &o)) {
		if (o.n)
			abort();
	} else {
		check_spans(&o, p, size);
		check_values(&o);
	}
	struct rsample s;
	struct revent e;
	bool tiers = false;
	rsample_parse(p, size, &s, &tiers);
	/* Only a fault_hits line stands for more than one hit; one that is
	 * not an event stands for none. */
	if (revent_parse(p, size, &e)
		? report_event_hits(&e) != 0
		: (strcmp(e.event, "fault_hits") && report_event_hits(&e) > 1))
		abort();
	if (size)
		whole_page(p, size);
	free(p);
	return 0;
}
