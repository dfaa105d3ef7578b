/* The Prometheus exposition as Carbon's plaintext protocol: the same
 * series, so that a Graphite/Grafana setup (what the seed evaluations fed)
 * sees exactly what a Prometheus scrape does.
 *
 * A sample line `name{k1="v1",k2="v2"} value` becomes
 *
 *   PREFIX.name.k1.v1.k2.v2 value TIMESTAMP
 *
 * keeping the labels' names, so the path reads without a legend, in the
 * exposition's label order (fixed by our writers, so each series has one
 * path). Graphite cuts paths at dots and its globs treat other bytes
 * specially, so every byte of a label value outside [A-Za-z0-9_-] becomes
 * '_' (le="0.001" is le.0_001, le="+Inf" le._Inf). Non-finite values
 * (NaN, +Inf) have no Carbon form and are left out. Comment and blank
 * lines are skipped; a line that is not a sample is skipped and counted.
 */
#ifndef ARRAYSIM_COMMON_GRAPHITE_H
#define ARRAYSIM_COMMON_GRAPHITE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* Translate the exposition @text (@len bytes, need not end in '\n') into
 * Carbon lines on @out, each stamped @ts_s (Unix seconds), each path
 * under @prefix (a dotted path, no trailing dot; "" for none). Returns the
 * number of lines written; *@bad (may be NULL) gets the count of sample
 * lines that could not be read. */
size_t graphite_from_exposition(const char *text, size_t len,
				const char *prefix, uint64_t ts_s, FILE *out,
				size_t *bad);

/* Where to push: `mount --graphite HOST:PORT[,prefix=P]`. */
struct graphite_target {
	char host[256]; /* a name or an address, as getaddrinfo takes it */
	char port[6];
	char prefix[201];
};

/* Parse @spec into @t. HOST may be a bracketed IPv6 address ([::1]:2003).
 * 0, or -1 with a one-line reason in @err. */
int graphite_parse_target(const char *spec, struct graphite_target *t,
			  char *err, size_t errlen);

/* Is @p usable as a prefix: dot-separated components of [A-Za-z0-9_-],
 * none empty, at most 200 bytes? */
int graphite_prefix_ok(const char *p);

#endif
