/* Value grammars shared by options, profiles and control commands.
 *
 * Sizes: "4096", "4K", "4k", "4KiB", "1M", "2G", "1T" (binary multiples;
 * "KB"/"MB" are accepted as the same binary multiples, as fio does).
 * Durations: "250us", "10ms", "5s", "2m", "1h", bare numbers are seconds.
 * Booleans: on/off, yes/no, true/false, 1/0.
 * All return 0 or -EINVAL (-ERANGE on overflow) and leave *out untouched on
 * error.
 */
#ifndef ARRAYSIM_COMMON_UNITS_H
#define ARRAYSIM_COMMON_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

int units_parse_size(const char *s, uint64_t *out_bytes);
int units_parse_duration_ns(const char *s, uint64_t *out_ns);
int units_parse_bool(const char *s, bool *out);
int units_parse_u64(const char *s, uint64_t *out);
/* Format @bytes as "1.5 GiB" into @buf; returns @buf. */
char *units_format_size(uint64_t bytes, char *buf, size_t len);

#endif
