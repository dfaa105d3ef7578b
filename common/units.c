/* Value grammars: sizes, durations, booleans, plain integers.
 *
 *   size      := number [ws] [ mult [ "i" ] [ "B" ] | "B" ]
 *   mult      := K | M | G | T | P | E          (binary: K = 1024)
 *   duration  := number [ws] [ "ns" | "us" | "ms" | "s" | "m" | "h" ]
 *   number    := digits [ "." digits ]          (no sign, no exponent)
 *
 * Suffixes are case-insensitive; a bare duration is seconds. A decimal is
 * scaled exactly (integer arithmetic, then truncated to whole bytes or ns),
 * so "1.5G" and "1.5s" mean what they say. Leading or trailing space, signs,
 * empty strings and unknown suffixes are -EINVAL; a value that does not fit
 * in 64 bits is -ERANGE. "4.0 KiB", as units_format_size() prints it, parses
 * back.
 */
#include "common/units.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

#define UNITS_MAX_FRAC_DIGITS 18 /* 10^18 < 2^64: the denominator fits */

/* A parsed "digits[.digits]": value = whole + frac_num / frac_den. */
struct units_number {
	uint64_t whole;
	uint64_t frac_num;
	uint64_t frac_den; /* 10^(fraction digits), 1 without a fraction */
};

static bool units_is_digit(char c)
{
	return c >= '0' && c <= '9';
}

/* Parse the number at the start of @s; *@end is set past it. */
static int units_parse_number(const char *s, struct units_number *n,
			      const char **end)
{
	const char *p = s;
	int frac_digits = 0;

	n->whole = 0;
	n->frac_num = 0;
	n->frac_den = 1;
	if (!units_is_digit(*p))
		return -EINVAL; /* empty, sign, space or junk */
	for (; units_is_digit(*p); p++) {
		unsigned d = (unsigned)(*p - '0');

		if (n->whole > (UINT64_MAX - d) / 10)
			return -ERANGE;
		n->whole = n->whole * 10 + d;
	}
	if (*p == '.') {
		p++;
		if (!units_is_digit(*p))
			return -EINVAL; /* "1." */
		for (; units_is_digit(*p); p++) {
			/* Digits past 10^-18 cannot change a 64-bit result
			 * once multiplied by at most 2^62; drop them. */
			if (frac_digits == UNITS_MAX_FRAC_DIGITS)
				continue;
			n->frac_num = n->frac_num * 10 + (uint64_t)(*p - '0');
			n->frac_den *= 10;
			frac_digits++;
		}
	}
	*end = p;
	return 0;
}

/* *out = n * mult, truncated; -ERANGE if it does not fit. */
static int units_scale(const struct units_number *n, uint64_t mult,
		       uint64_t *out)
{
	unsigned __int128 v = (unsigned __int128)n->whole * mult;

	v += (unsigned __int128)n->frac_num * mult / n->frac_den;
	if (v > UINT64_MAX)
		return -ERANGE;
	*out = (uint64_t)v;
	return 0;
}

/* Skip the spaces between a number and its suffix; NULL if only spaces
 * follow ("5 " is junk, "5 KiB" is not). */
static const char *units_skip_spaces(const char *p)
{
	const char *q = p;

	while (*q == ' ')
		q++;
	return (q != p && !*q) ? NULL : q;
}

int units_parse_size(const char *s, uint64_t *out_bytes)
{
	static const char mults[] = "KMGTPE";
	struct units_number n;
	const char *p, *m;
	uint64_t mult = 1;
	int rc;

	if (!s)
		return -EINVAL;
	rc = units_parse_number(s, &n, &p);
	if (rc)
		return rc;
	p = units_skip_spaces(p);
	if (!p)
		return -EINVAL;
	if (*p && (m = strchr(mults, toupper((unsigned char)*p))) != NULL) {
		mult = 1ULL << (10 * (m - mults + 1));
		p++;
		if (*p == 'i' || *p == 'I')
			p++;
	}
	if (*p == 'b' || *p == 'B')
		p++;
	if (*p)
		return -EINVAL;
	/* "1.5" bytes is not a size; a fraction needs a multiplier. */
	if (n.frac_num && mult == 1)
		return -EINVAL;
	return units_scale(&n, mult, out_bytes);
}

int units_parse_duration_ns(const char *s, uint64_t *out_ns)
{
	static const struct {
		const char *suffix;
		uint64_t ns;
	} table[] = {
	    {"", 1000000000ULL},
	    {"ns", 1ULL},
	    {"us", 1000ULL},
	    {"ms", 1000000ULL},
	    {"s", 1000000000ULL},
	    {"m", 60ULL * 1000000000ULL},
	    {"h", 3600ULL * 1000000000ULL},
	};
	struct units_number n;
	const char *p;
	int rc;

	if (!s)
		return -EINVAL;
	rc = units_parse_number(s, &n, &p);
	if (rc)
		return rc;
	p = units_skip_spaces(p);
	if (!p)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(table) / sizeof(table[0]); i++)
		if (!strcasecmp(p, table[i].suffix))
			return units_scale(&n, table[i].ns, out_ns);
	return -EINVAL;
}

int units_parse_bool(const char *s, bool *out)
{
	static const char *const yes[] = {"1", "on", "yes", "true"};
	static const char *const no[] = {"0", "off", "no", "false"};

	if (!s)
		return -EINVAL;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		if (!strcasecmp(s, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(s, no[i])) {
			*out = false;
			return 0;
		}
	}
	return -EINVAL;
}

int units_parse_u64(const char *s, uint64_t *out)
{
	struct units_number n;
	const char *p;
	int rc;

	if (!s)
		return -EINVAL;
	rc = units_parse_number(s, &n, &p);
	if (rc)
		return rc;
	if (*p || n.frac_den != 1)
		return -EINVAL;
	*out = n.whole;
	return 0;
}

char *units_format_size(uint64_t bytes, char *buf, size_t len)
{
	static const char *const names[] = {"KiB", "MiB", "GiB",
					    "TiB", "PiB", "EiB"};
	double v = (double)bytes;
	size_t i = 0;

	if (!len)
		return buf;
	if (bytes < 1024) {
		snprintf(buf, len, "%u B", (unsigned)bytes);
		return buf;
	}
	v /= 1024;
	/* Move up a unit when "%.1f" would round to 1024.0. */
	while (v >= 1023.95 && i + 1 < sizeof(names) / sizeof(names[0])) {
		v /= 1024;
		i++;
	}
	snprintf(buf, len, "%.1f %s", v, names[i]);
	return buf;
}
