/* Running a scenario (faults/scenario.h) against the mounted array: one
 * thread sleeps until each step falls due on the monotonic clock, then
 * injects or clears through fs/fault_gate.c like a control command would.
 * A time scale divides the timeline, so a 30-minute rehearsal can run in
 * 30 seconds in CI. One scenario at a time; stopping it leaves the faults
 * it injected in place (clear them with `fault clear`). */
#include "fs/scenario_run.h"
#include "tiers/array.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/log.h"
#include "common/clock.h"
#include "faults/events.h"
#include "replication/repl.h"
#include "fs/fault_gate.h"

struct scenario_runner {
	struct fs *fs;
	struct scenario sc;
	char path[1024];
	double scale;
	uint64_t start_ns;
	unsigned next; /* the step due next */
	uint64_t *ids; /* fault id each inject step got (0: none) */
	pthread_mutex_t lock;
	pthread_cond_t wake;
	pthread_t thread;
	bool stopping, done, joined;
};

static uint64_t due_ns(const struct scenario_runner *r, unsigned i)
{
	return r->start_ns +
	       (uint64_t)((double)r->sc.steps[i].at_ns / r->scale);
}

/* The id a clear step's label names: the latest inject under it. */
static uint64_t id_of(const struct scenario_runner *r, unsigned upto,
		      const char *label)
{
	for (unsigned j = upto; j-- > 0;)
		if (r->sc.steps[j].action == SCENARIO_INJECT &&
		    !strcmp(r->sc.steps[j].label, label))
			return r->ids[j];
	return 0;
}

static void take_step(struct scenario_runner *r, unsigned i, FILE *sink)
{
	const struct scenario_step *st = &r->sc.steps[i];
	char err[256] = "";
	uint64_t id = 0;
	int rc;
	if (st->action == SCENARIO_INJECT) {
		rc = fault_gate_inject(r->fs, &st->rule, sink, &id, err,
				       sizeof(err));
		r->ids[i] = id;
	} else if (st->action == SCENARIO_REPLICATION) {
		/* The daemon closes replication only after this thread. */
		rc =
		    repl_control(r->fs->repl, st->verb, sink, err, sizeof(err));
	} else {
		id = strcmp(st->label, "all") ? id_of(r, i, st->label) : 0;
		rc = id || !strcmp(st->label, "all")
			 ? fault_gate_clear(r->fs, id, err, sizeof(err))
			 : 0; /* its inject failed or acted at once */
	}
	char esc[600];
	events_emit(r->fs->events, "scenario_step",
		    "\"step\":%u,\"at_s\":%.3f,\"action\":\"%s\","
		    "\"label\":\"%s\",\"verb\":\"%s\",\"id\":%llu,"
		    "\"error\":\"%s\"",
		    i, (double)st->at_ns / 1e9,
		    scenario_action_name(st->action), st->label, st->verb,
		    (unsigned long long)id,
		    events_json_escape(err, esc, sizeof(esc)));
	if (rc)
		log_warn("scenario", "step %u (line order %u): %s", i,
			 st->order, err);
}

static void *run(void *arg)
{
	struct scenario_runner *r = arg;
	FILE *sink = fopen("/dev/null", "w");
	pthread_mutex_lock(&r->lock);
	while (!r->stopping && r->next < r->sc.n) {
		uint64_t due = due_ns(r, r->next);
		if (clock_mono_ns() < due) {
			struct timespec ts = {(time_t)(due / NS_PER_SEC),
					      (long)(due % NS_PER_SEC)};
			pthread_cond_timedwait(&r->wake, &r->lock, &ts);
			continue;
		}
		unsigned i = r->next++;
		pthread_mutex_unlock(&r->lock);
		take_step(r, i, sink ? sink : stderr);
		pthread_mutex_lock(&r->lock);
	}
	r->done = true;
	bool stopped = r->stopping;
	pthread_mutex_unlock(&r->lock);
	events_emit(r->fs->events, stopped ? "scenario_stop" : "scenario_end",
		    "\"name\":\"%s\",\"steps_taken\":%u", r->sc.name, r->next);
	if (sink)
		fclose(sink);
	return NULL;
}

static void runner_free(struct scenario_runner *r)
{
	pthread_cond_destroy(&r->wake);
	pthread_mutex_destroy(&r->lock);
	scenario_free(&r->sc);
	free(r->ids);
	free(r);
}

/* Stop the runner's thread; the runner stays for `scenario status`. */
static void runner_stop(struct scenario_runner *r)
{
	if (r->joined)
		return;
	pthread_mutex_lock(&r->lock);
	r->stopping = true;
	pthread_cond_signal(&r->wake);
	pthread_mutex_unlock(&r->lock);
	pthread_join(r->thread, NULL);
	r->joined = true;
}

static void runner_end(struct scenario_runner *r)
{
	runner_stop(r);
	runner_free(r);
}

/* Array faults need a timed model: say so before anything runs, rather
 * than as failed steps later. */
static int check_array_steps(const struct fs *fs, const struct scenario *sc,
			     const char *path, char *err, size_t errlen)
{
	if (!fs->repl && scenario_replicates(sc)) {
		snprintf(err, errlen,
			 "%s: its replication steps need a mount with "
			 "--replicate-to DEST",
			 path);
		return -ENOTSUP;
	}
	if (array_timed(fs->array))
		return 0;
	for (unsigned i = 0; i < sc->n; i++)
		if (sc->steps[i].action == SCENARIO_INJECT &&
		    fault_rule_is_array(&sc->steps[i].rule)) {
			snprintf(err, errlen,
				 "%s: %s is an array fault: it needs a timed "
				 "array profile (mount --profile NAME)",
				 path, fault_kind_name(sc->steps[i].rule.kind));
			return -ENOTSUP;
		}
	return 0;
}

static int start(struct fs *fs, const char *path, double scale, FILE *out,
		 char *err, size_t errlen)
{
	struct scenario_runner *r = calloc(1, sizeof(*r));
	if (!r)
		return -ENOMEM;
	int rc = scenario_parse_file(path, &r->sc, err, errlen);
	if (!rc)
		rc = check_array_steps(fs, &r->sc, path, err, errlen);
	if (rc) {
		scenario_free(&r->sc);
		free(r);
		return rc;
	}
	r->ids = calloc(r->sc.n, sizeof(*r->ids));
	pthread_mutex_init(&r->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&r->wake, &ca);
	pthread_condattr_destroy(&ca);
	r->fs = fs;
	r->scale = scale;
	snprintf(r->path, sizeof(r->path), "%s", path);
	r->start_ns = clock_mono_ns();
	if (!r->ids || pthread_create(&r->thread, NULL, run, r)) {
		runner_free(r);
		snprintf(err, errlen, "cannot start the scenario thread");
		return -ENOMEM;
	}
	fs->scenario = r;
	char esc[2100];
	/* Stamped with start_ns itself: every step is due at start_ns plus
	 * its scaled time, so its event is never before that on the log. */
	events_emit_at(fs->events, r->start_ns, "scenario_start",
		       "\"name\":\"%s\",\"file\":\"%s\",\"time_scale\":%g,"
		       "\"steps\":%u",
		       r->sc.name, events_json_escape(path, esc, sizeof(esc)),
		       scale, r->sc.n);
	fprintf(out, "running %s: %u steps over %.3f s\n",
		r->sc.name[0] ? r->sc.name : path, r->sc.n,
		(double)r->sc.steps[r->sc.n - 1].at_ns / 1e9 / scale);
	return 0;
}

int scenario_run_start(struct fs *fs, const char *path, double time_scale,
		       FILE *out, char *err, size_t errlen)
{
	if (fs->scenario && !fs->scenario->done) {
		snprintf(err, errlen,
			 "a scenario is running (scenario stop first)");
		return -EBUSY;
	}
	if (fs->scenario)
		runner_end(fs->scenario);
	fs->scenario = NULL;
	return start(fs, path, time_scale, out, err, errlen);
}

void scenario_run_status(struct fs *fs, FILE *out)
{
	struct scenario_runner *r = fs->scenario;
	if (!r) {
		fprintf(out, "none\n");
		return;
	}
	pthread_mutex_lock(&r->lock);
	double el = (double)(clock_mono_ns() - r->start_ns) / 1e9;
	fprintf(out, "%s %s step %u/%u elapsed %.3f s (scenario time %.3f s)\n",
		r->done ? "finished" : "running",
		r->sc.name[0] ? r->sc.name : r->path, r->next, r->sc.n, el,
		el * r->scale);
	pthread_mutex_unlock(&r->lock);
}

void scenario_run_stop(struct fs *fs)
{
	if (fs->scenario)
		runner_stop(fs->scenario);
}

void scenario_run_close(struct fs *fs)
{
	if (fs->scenario)
		runner_end(fs->scenario);
	fs->scenario = NULL;
}
