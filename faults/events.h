/* The event log: one JSON object per line, appended to STORE/events.jsonl,
 * for every fault injected or cleared and every effect one had, so that a
 * run can be lined up against the workload's own log.
 *
 *   {"ts":"2026-11-30T07:15:00.123456Z","t":12.345678,"event":"inject",
 *    "id":1,"rule":"error op=write errno=EIO"}
 *
 * ts is wall-clock UTC; t is seconds since the log was opened (the mount),
 * on the monotonic clock. The fields after "event" are the caller's.
 */
#ifndef ARRAYSIM_FAULTS_EVENTS_H
#define ARRAYSIM_FAULTS_EVENTS_H

#include <stddef.h>
#include <stdint.h>

struct events;

/* Open (append to, create 0600) @path. 0 or -errno. */
int events_open(const char *path, struct events **out);
void events_close(struct events *ev);
/* Append one line: @event, then the JSON members @fmt makes (without
 * braces; "" for none), e.g. events_emit(ev, "inject", "\"id\":%d", 3).
 * Thread-safe; a NULL @ev is a no-op. */
void events_emit(struct events *ev, const char *event, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* As events_emit, stamped @mono_ns (clock_mono_ns) instead of now: for an
 * event whose time its caller took first and measures other times from
 * (a scenario's start, which its steps are due after). */
void events_emit_at(struct events *ev, uint64_t mono_ns, const char *event,
		    const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* @s as a JSON string body (quotes not included) into @buf; returns @buf,
 * truncated to fit. */
char *events_json_escape(const char *s, char *buf, size_t len);

#endif
