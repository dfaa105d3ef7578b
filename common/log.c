/* Logging: one line per event.
 *
 *   2024-05-01T12:00:00.123Z arraysim[dedupe]: warn: verify mismatch at pblk 42
 *   arraysim[fs]: mounted /mnt/a (store /srv/a)         (stream is a tty)
 *
 * A line is formatted into a local buffer first and written with one
 * fwrite under flockfile(), so lines from FUSE workers never interleave.
 * The timestamp (ISO-8601, UTC, milliseconds) is only added when the stream
 * is not a terminal: a log file needs it, a person watching does not.
 */
#include "common/log.h"

#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "common/clock.h"

static _Atomic(FILE *) log_stream; /* NULL: stderr */
static _Atomic int log_level = LOG_INFO;

void log_set_stream(FILE *f)
{
	atomic_store(&log_stream, f);
}

void log_set_level(enum log_level lvl)
{
	atomic_store(&log_level, (int)lvl);
}

static const char *log_level_tag(enum log_level lvl)
{
	switch (lvl) {
	case LOG_ERROR:
		return "error: ";
	case LOG_WARN:
		return "warning: ";
	case LOG_INFO:
		return "";
	case LOG_DEBUG:
		return "debug: ";
	}
	return "";
}

void log_msg(enum log_level lvl, const char *component, const char *fmt, ...)
{
	char line[2048];
	size_t n = 0;
	FILE *f;
	va_list ap;
	int rc;

	if ((int)lvl > atomic_load_explicit(&log_level, memory_order_relaxed))
		return;
	f = atomic_load(&log_stream);
	if (!f)
		f = stderr;

	if (!isatty(fileno(f))) {
		int64_t now = clock_wall_ns();
		time_t sec = (time_t)(now / (int64_t)NS_PER_SEC);
		struct tm tm;

		gmtime_r(&sec, &tm);
		n = strftime(line, sizeof(line), "%Y-%m-%dT%H:%M:%S", &tm);
		rc = snprintf(line + n, sizeof(line) - n, ".%03ldZ ",
			      (long)(now % (int64_t)NS_PER_SEC) / 1000000);
		if (rc > 0)
			n += (size_t)rc;
	}
	rc = snprintf(line + n, sizeof(line) - n, "arraysim[%s]: %s",
		      component ? component : "?", log_level_tag(lvl));
	if (rc > 0)
		n += (size_t)rc;
	if (n < sizeof(line)) {
		va_start(ap, fmt);
		rc = vsnprintf(line + n, sizeof(line) - n, fmt, ap);
		va_end(ap);
		if (rc > 0)
			n += (size_t)rc;
	}
	/* Truncated lines keep room for the newline; "..." marks the cut. */
	if (n >= sizeof(line) - 1) {
		n = sizeof(line) - 1;
		memcpy(line + n - 4, "...", 3);
		n--;
	}
	while (n > 0 && line[n - 1] == '\n')
		n--;
	line[n++] = '\n';

	flockfile(f);
	fwrite_unlocked(line, 1, n, f);
	fflush_unlocked(f);
	funlockfile(f);
}

void log_utc_now(char *buf, size_t len)
{
	int64_t now = clock_wall_ns();
	time_t sec = (time_t)(now / (int64_t)NS_PER_SEC);
	struct tm tm;
	char day[24];
	gmtime_r(&sec, &tm);
	strftime(day, sizeof(day), "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf, len, "%s.%06ldZ", day,
		 (long)(now % (int64_t)NS_PER_SEC) / 1000);
}
