/* Reconnecting by itself (replication/repl_i.h): a batch that fails
 * because the link did (the replica killed, the network gone) puts
 * replication in REPL_RECONNECTING, not REPL_FAILED; the thread tries
 * again after a bounded backoff, and the first batch that ships again is
 * a full one (the replica may have applied the batch whose answer was
 * lost, or be another store at the same address: a full batch is right
 * against any prior state, and ships no bytes of the blocks it has). */
#include "replication/repl_i.h"

#include <errno.h>
#include <string.h>

#include "common/log.h"
#include "store/store.h"

bool repl_link_lost(int e)
{
	switch (-e) {
	case ECONNREFUSED: /* nothing listens: the replica is down */
	case ECONNRESET:   /* the replica went, or the stream ended */
	case ECONNABORTED:
	case EPIPE:
	case ENOTCONN:
	case ETIMEDOUT: /* a silent peer, connecting or answering */
	case EHOSTUNREACH:
	case EHOSTDOWN:
	case ENETUNREACH:
	case ENETDOWN:
	case ENETRESET:
	case ECANCELED: /* an unmount cut a wait short */
		return true;
	default:
		return false;
	}
}

uint64_t repl_backoff_next(uint64_t prev_ns)
{
	if (prev_ns < REPL_RETRY_MIN_NS)
		return REPL_RETRY_MIN_NS;
	return prev_ns >= REPL_RETRY_MAX_NS / 2 ? REPL_RETRY_MAX_NS
						: 2 * prev_ns;
}

/* Running turns reconnecting: the replica's point is forgotten (the next
 * batch is a full one), the event log told. */
static void lost(struct repl *r, const char *err)
{
	r->state = REPL_RECONNECTING;
	r->fig.link_losses++;
	r->lost_ns = clock_mono_ns();
	log_error("replication", "link lost: %s: reconnecting", err);
	metastore_txn_abort(r->prev);
	r->prev = NULL;
	repl_watch(r);
}

void repl_batch_failed(struct repl *r, int e, const char *err, uint64_t asked)
{
	if (r->state != REPL_RUNNING && r->state != REPL_RECONNECTING)
		return; /* paused or stopped meanwhile */
	if (e == -ECANCELED && r->quit)
		return; /* the unmount cut it short: it says so itself */
	if (!repl_link_lost(e)) {
		r->state = REPL_FAILED;
		snprintf(r->error, sizeof(r->error), "%s", err);
		log_error("replication", "%s", err);
		return;
	}
	bool first = r->state == REPL_RUNNING;
	if (first)
		lost(r, err);
	else if (strcmp(r->error, err)) /* one line per new reason */
		log_info("replication", "still reconnecting: %s", err);
	snprintf(r->error, sizeof(r->error), "%s", err);
	r->tried = asked;
	r->tries++;
	r->backoff_ns = repl_backoff_next(first ? 0 : r->backoff_ns);
	r->retry_ns = clock_mono_ns() + r->backoff_ns;
}

void repl_batch_shipped(struct repl *r, uint64_t asked)
{
	if (asked > r->shipped)
		r->shipped = asked;
	if (r->state != REPL_RECONNECTING)
		return;
	r->state = REPL_RUNNING;
	r->backoff_ns = 0;
	r->error[0] = '\0';
	log_info("replication", "reconnected to %s after %.1f s", r->dest,
		 (double)(clock_mono_ns() - r->lost_ns) / NS_PER_SEC);
	repl_watch(r); /* replication_resumed */
}

bool repl_retry_due(struct repl *r, uint64_t now)
{
	return r->state == REPL_RECONNECTING &&
	       r->held_by == repl_link_lost_why &&
	       (r->asked > r->tried || now >= r->retry_ns);
}

uint64_t repl_retry_left(struct repl *r, uint64_t now, uint64_t left_ns)
{
	if (r->state != REPL_RECONNECTING || r->retry_ns <= now)
		return left_ns;
	return r->retry_ns - now < left_ns ? r->retry_ns - now : left_ns;
}

void repl_link_fault_look(struct repl *r)
{
	if (r->held_by && !strcmp(r->held_by, "replication-link"))
		repl_link_drop(&r->link);
}
