/* Logging: one line per event, "arraysim[component]: message".
 *
 * An error is logged once, where it is first known, naming the component
 * and the offending value. The daemon logs to stderr in the foreground and
 * to STORE/arraysim.log once it has detached.
 */
#ifndef ARRAYSIM_COMMON_LOG_H
#define ARRAYSIM_COMMON_LOG_H

#include <stddef.h>
#include <stdio.h>

enum log_level { LOG_ERROR, LOG_WARN, LOG_INFO, LOG_DEBUG };

/* Send log lines to @f (not owned); NULL means stderr. */
void log_set_stream(FILE *f);
/* Now, UTC, to the microsecond: "2026-11-30T07:15:00.123456Z" into @buf
 * (at least 28 bytes), as the event log and the samples stamp lines. */
void log_utc_now(char *buf, size_t len);
/* Drop lines less severe than @lvl (default LOG_INFO). */
void log_set_level(enum log_level lvl);
/* Write one line; a timestamp is added when the stream is not a tty. */
void log_msg(enum log_level lvl, const char *component, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

#define log_error(comp, ...) log_msg(LOG_ERROR, comp, __VA_ARGS__)
#define log_warn(comp, ...) log_msg(LOG_WARN, comp, __VA_ARGS__)
#define log_info(comp, ...) log_msg(LOG_INFO, comp, __VA_ARGS__)
#define log_debug(comp, ...) log_msg(LOG_DEBUG, comp, __VA_ARGS__)

#endif
