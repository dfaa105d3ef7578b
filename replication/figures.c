/* Replication's figures, one set read four ways: `replication status`,
 * stats --json's "replication", the samples and the Prometheus series
 * (replication/repl.h). */
#include "replication/repl_i.h"

#include <inttypes.h>
#include <stdatomic.h>

#include "common/clock.h"
#include "common/metrics.h"
#include "common/stats.h"
#include "store/store.h"
#include "tiers/array.h"
#include "tiers/model_repl.h"

const char *const repl_state_names[] = {
    [REPL_RUNNING] = "running",
    [REPL_PAUSED] = "paused",
    [REPL_STOPPED] = "stopped",
    [REPL_FAILED] = "failed",
    /* the link was lost: the thread tries it again by itself */
    [REPL_RECONNECTING] = "reconnecting",
};

struct repl_lag repl_lag_of(struct repl *r)
{
	MDB_envinfo info;
	mdb_env_info(metastore_env(r->ms), &info);
	uint64_t last = info.me_last_txnid;
	uint64_t wb = atomic_load(&r->stats->op[STATS_OP_WRITE].bytes);
	const struct repl_figures *f = &r->fig;
	int64_t now = clock_mono_ns();
	if (!f->have_point)
		return (struct repl_lag){
		    (double)(now - r->started_ns) / NS_PER_SEC, wb, last};
	if (last <= f->rep_txnid)
		return (struct repl_lag){0, 0, 0};
	return (struct repl_lag){
	    (double)(now - f->rep_mono_ns) / NS_PER_SEC,
	    wb > f->rep_write_bytes ? wb - f->rep_write_bytes : 0,
	    last - f->rep_txnid};
}

#define FIGURES(X)                                                             \
	X(batches)                                                             \
	X(wire_bytes)                                                          \
	X(block_bytes)                                                         \
	X(logical_bytes)                                                       \
	X(saved_bytes)                                                         \
	X(blocks_shipped)                                                      \
	X(blocks_local)                                                        \
	X(blocks_have)                                                         \
	X(meta_ops)                                                            \
	X(link_losses)

/* "" while batches may ship; else what holds them back. */
static const char *held(struct repl *r)
{
	return r->held_by ? r->held_by : "";
}

/* The model's figures of the link (nothing without a timed model):
 * its round trip, rate, and what sync mode adds to a 4 KiB write on
 * idle arrays. */
static void link_figures(struct repl *r, FILE *out, bool json)
{
	struct model_repl_figures f;

	if (!r->array || array_repl_figures(r->array, &f))
		return;
	double add = (double)(f.rtt_ns + f.transfer_ns + f.ack_ns) / 1e3;
	if (json) {
		fprintf(out,
			",\"link_rtt_us\":%.1f,\"link_mb_s\":%.1f,"
			"\"sync_write_4k_us\":%.1f",
			(double)f.rtt_ns / 1e3, f.bytes_per_s / 1e6, add);
		return;
	}
	fprintf(out,
		"link_rtt_us %.1f\nlink_mb_s %.1f\nsync_write_4k_us %.1f "
		"(round trip %.1f + transfer %.1f + replica ack %.1f)\n",
		(double)f.rtt_ns / 1e3, f.bytes_per_s / 1e6, add,
		(double)f.rtt_ns / 1e3, (double)f.transfer_ns / 1e3,
		(double)f.ack_ns / 1e3);
}

static const char *mode_name(const struct repl *r)
{
	return r->sync ? "synchronous" : "asynchronous";
}

void repl_print_text(struct repl *r, FILE *out)
{
	struct repl_lag l = repl_lag_of(r);
	fprintf(out, "state %s\nreplica %s\nmode %s\nrpo %.3f s\n",
		repl_state_names[r->state], r->dest, mode_name(r),
		(double)r->rpo_ns / NS_PER_SEC);
	link_figures(r, out, false);
	if (r->held_by)
		fprintf(out, "held_by %s\n", r->held_by);
	fprintf(out,
		"lag %.3f s\nlag_bytes %" PRIu64 "\nbacklog %" PRIu64
		" transactions\n",
		l.secs, l.bytes, l.txns);
#define X(n) fprintf(out, #n " %" PRIu64 "\n", r->fig.n);
	FIGURES(X)
#undef X
	fprintf(out, "last_batch %.3f ms\n",
		(double)r->fig.last_batch_ns / 1e6);
	if (r->state == REPL_FAILED || r->state == REPL_RECONNECTING)
		fprintf(out, "error %s\n", r->error);
}

void repl_status_json(struct repl *r, FILE *out)
{
	pthread_mutex_lock(&r->lock);
	struct repl_lag l = repl_lag_of(r);
	fprintf(out,
		"{\"state\":\"%s\",\"mode\":\"%s\",\"rpo_s\":%.3f,"
		"\"held_by\":\"%s\",\"lag_s\":%.3f,\"lag_bytes\":%" PRIu64
		",\"backlog_txns\":%" PRIu64,
		repl_state_names[r->state], mode_name(r),
		(double)r->rpo_ns / NS_PER_SEC, held(r), l.secs, l.bytes,
		l.txns);
	link_figures(r, out, true);
#define X(n) fprintf(out, ",\"" #n "\":%" PRIu64, r->fig.n);
	FIGURES(X)
#undef X
	fprintf(out, ",\"last_batch_ms\":%.3f}",
		(double)r->fig.last_batch_ns / 1e6);
	pthread_mutex_unlock(&r->lock);
}

void repl_sample_write(struct repl *r, FILE *out, double interval_s)
{
	pthread_mutex_lock(&r->lock);
	struct repl_lag l = repl_lag_of(r);
	struct repl_figures f = r->fig;
	const char *state = repl_state_names[r->state];
	const char *by = held(r);
	pthread_mutex_unlock(&r->lock);
	double dt = interval_s > 0 ? interval_s : 1;
	fprintf(
	    out,
	    ",\"repl_state\":\"%s\",\"repl_held_by\":\"%s\","
	    "\"repl_lag_s\":%.3f,\"repl_lag_bytes\":%" PRIu64
	    ",\"repl_backlog_txns\":%" PRIu64
	    ",\"repl_wire_bytes_per_s\":%.0f,\"repl_block_bytes_per_s\":%.0f"
	    ",\"repl_saved_bytes\":%" PRIu64 ",\"repl_batches\":%" PRIu64,
	    state, by, l.secs, l.bytes, l.txns,
	    (double)(f.wire_bytes - r->sample_wire) / dt,
	    (double)(f.block_bytes - r->sample_block) / dt, f.saved_bytes,
	    f.batches);
	r->sample_wire = f.wire_bytes;
	r->sample_block = f.block_bytes;
}

static void gauge(FILE *out, const char *name, const char *help, double v)
{
	metrics_header(out, name, "gauge", help);
	fprintf(out, "%s %.6g\n", name, v);
}

static void counter(FILE *out, const char *name, const char *help, uint64_t v)
{
	metrics_header(out, name, "counter", help);
	fprintf(out, "%s %" PRIu64 "\n", name, v);
}

void repl_metrics_write(struct repl *r, FILE *out)
{
	pthread_mutex_lock(&r->lock);
	struct repl_lag l = repl_lag_of(r);
	struct repl_figures f = r->fig;
	bool up = r->state == REPL_RUNNING && !r->held_by;
	pthread_mutex_unlock(&r->lock);
	gauge(out, "arraysim_replication_up",
	      "1 while batches ship (running, no pause or fault)", up);
	gauge(out, "arraysim_replication_lag_seconds",
	      "seconds since the cut the replica holds", l.secs);
	gauge(out, "arraysim_replication_lag_bytes",
	      "bytes written since the cut the replica holds", (double)l.bytes);
	gauge(out, "arraysim_replication_backlog_transactions",
	      "source transactions the replica lacks", (double)l.txns);
	counter(out, "arraysim_replication_batches_total", "batches applied",
		f.batches);
	counter(out, "arraysim_replication_wire_bytes_total",
		"every message's bytes, both ways", f.wire_bytes);
	counter(out, "arraysim_replication_block_bytes_total",
		"block payloads shipped", f.block_bytes);
	counter(out, "arraysim_replication_logical_bytes_total",
		"logical bytes the batches changed", f.logical_bytes);
	counter(out, "arraysim_replication_saved_bytes_total",
		"logical bytes changed not shipped (dedupe in transit)",
		f.saved_bytes);
	counter(out, "arraysim_replication_link_losses_total",
		"times the link to the replica was lost (then reconnected by "
		"itself)",
		f.link_losses);
}
