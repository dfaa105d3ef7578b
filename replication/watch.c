/* What holds replication back (a replication-link or replica fault, a
 * pause, a lost link being reconnected) and how far behind it is, told to the
 * event log once per change, not once per look (replication/repl_i.h:
 * repl_watch). */
#include "replication/repl_i.h"

#include <inttypes.h>

#include "common/clock.h"
#include "faults/events.h"
#include "faults/faults.h"

static const char *const held_kinds[] = {"replication-link", "replica"};
const char repl_link_lost_why[] = "link-lost";

const char *repl_fault_now(struct repl *r, uint64_t *id)
{
	for (unsigned i = 0; r->faults && i < 2; i++)
		if ((*id = faults_active_kind(r->faults, held_kinds[i])))
			return held_kinds[i];
	*id = 0;
	return NULL;
}

static void watch_held(struct repl *r)
{
	if (r->state == REPL_STOPPED || r->state == REPL_FAILED) {
		r->held_by = NULL; /* not held back: not shipping at all */
		return;
	}
	uint64_t id = 0;
	const char *by = repl_fault_now(r, &id);
	if (!by && r->state == REPL_PAUSED)
		by = "pause";
	if (!by && r->state == REPL_RECONNECTING)
		by = repl_link_lost_why;
	if (by == r->held_by)
		return;
	struct repl_lag l = repl_lag_of(r);
	if (by)
		events_emit(r->events, "replication_paused",
			    "\"why\":\"%s\",\"fault_id\":%" PRIu64
			    ",\"lag_s\":%.3f,\"backlog_txns\":%" PRIu64,
			    by, id, l.secs, l.txns);
	else
		events_emit(
		    r->events, "replication_resumed",
		    "\"why\":\"%s\",\"lag_s\":%.3f,\"lag_bytes\":%" PRIu64
		    ",\"backlog_txns\":%" PRIu64,
		    r->held_by, l.secs, l.bytes, l.txns);
	r->held_by = by;
}

static void watch_lag(struct repl *r)
{
	if (r->state == REPL_STOPPED || r->state == REPL_FAILED) {
		r->lagging_ns = 0; /* stopped: nothing to be behind on */
		return;
	}
	double limit = REPL_LAG_RPOS * (double)r->rpo_ns / NS_PER_SEC;
	struct repl_lag l = repl_lag_of(r);
	int64_t now = clock_mono_ns();
	if (!r->lagging_ns && l.secs > limit) {
		r->lagging_ns = now;
		events_emit(r->events, "replication_lag",
			    "\"lag_s\":%.3f,\"lag_bytes\":%" PRIu64
			    ",\"backlog_txns\":%" PRIu64
			    ",\"threshold_s\":%.3f",
			    l.secs, l.bytes, l.txns, limit);
	} else if (r->lagging_ns && l.secs <= limit) {
		events_emit(r->events, "replication_caught_up",
			    "\"lag_s\":%.3f,\"backlog_txns\":%" PRIu64
			    ",\"behind_s\":%.3f",
			    l.secs, l.txns,
			    (double)(now - r->lagging_ns) / NS_PER_SEC);
		r->lagging_ns = 0;
	}
}

void repl_watch(struct repl *r)
{
	watch_held(r);
	watch_lag(r);
}
