/* The JSON-lines event log; see faults/events.h. */
#include "faults/events.h"

#include "common/clock.h"
#include "common/log.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

struct events {
	FILE *f;
	pthread_mutex_t lock;
	uint64_t start_ns; /* clock_mono_ns() at open */
};

int events_open(const char *path, struct events **out)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0600);
	if (fd < 0)
		return -errno;
	struct events *ev = calloc(1, sizeof(*ev));
	FILE *f = ev ? fdopen(fd, "a") : NULL;
	if (!f) {
		close(fd);
		free(ev);
		return -ENOMEM;
	}
	/* Whole lines: a reader tailing the log never sees half of one. */
	setvbuf(f, NULL, _IOLBF, 0);
	ev->f = f;
	pthread_mutex_init(&ev->lock, NULL);
	ev->start_ns = clock_mono_ns();
	*out = ev;
	return 0;
}

void events_close(struct events *ev)
{
	if (!ev)
		return;
	fclose(ev->f);
	pthread_mutex_destroy(&ev->lock);
	free(ev);
}

/* One line stamped @mono_ns; the body of events_emit and events_emit_at. */
static void emit(struct events *ev, uint64_t mono_ns, const char *event,
		 const char *fmt, va_list ap)
    __attribute__((format(printf, 4, 0)));
static void emit(struct events *ev, uint64_t mono_ns, const char *event,
		 const char *fmt, va_list ap)
{
	char ts[40];
	log_utc_now(ts, sizeof(ts));
	/* Formatted first: a format that makes nothing ("%s" of "", which
	 * callers use since an empty format draws -Wformat-zero-length) must
	 * not leave a comma before the brace, which no JSON reader takes. */
	char *members = NULL;
	if (vasprintf(&members, fmt, ap) < 0)
		members = NULL;
	/* Signed: a time from before the open reads as negative, not huge. */
	double t = ((double)mono_ns - (double)ev->start_ns) / 1e9;
	pthread_mutex_lock(&ev->lock);
	fprintf(ev->f, "{\"ts\":\"%s\",\"t\":%.6f,\"event\":\"%s\"", ts, t,
		event);
	if (members && members[0])
		fprintf(ev->f, ",%s", members);
	free(members);
	fputs("}\n", ev->f);
	pthread_mutex_unlock(&ev->lock);
}

void events_emit(struct events *ev, const char *event, const char *fmt, ...)
{
	if (!ev)
		return;
	uint64_t now = clock_mono_ns();
	va_list ap;
	va_start(ap, fmt);
	emit(ev, now, event, fmt, ap);
	va_end(ap);
}

void events_emit_at(struct events *ev, uint64_t mono_ns, const char *event,
		    const char *fmt, ...)
{
	if (!ev)
		return;
	va_list ap;
	va_start(ap, fmt);
	emit(ev, mono_ns, event, fmt, ap);
	va_end(ap);
}

char *events_json_escape(const char *s, char *buf, size_t len)
{
	size_t at = 0;
	for (; *s && at + 7 < len; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			buf[at++] = '\\';
			buf[at++] = (char)c;
		} else if (c < 0x20) {
			at +=
			    (size_t)snprintf(buf + at, len - at, "\\u%04x", c);
		} else {
			buf[at++] = (char)c;
		}
	}
	if (len)
		buf[at < len ? at : len - 1] = '\0';
	return buf;
}
