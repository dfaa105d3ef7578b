/* The data of one rehearsal run for arraysim report: the samples and the
 * events of one mount, read from STORE/samples.jsonl (common/samples.h)
 * and STORE/events.jsonl (faults/events.h), and what is derived from them:
 * degraded periods (a fault's inject to its clear), markers, stalls, and
 * rebuilds (from the samples of a timed profile).
 *
 * Nothing here knows the kinds of fault: a period is any "inject" with a
 * non-zero id up to the "clear" of that id (or "clear" of id 0, all), or
 * to its "rule_done" (used up), so that faults added later (a controller
 * pull, a drive rebuild) are shaded without a change here. Times are the
 * events' own, never a sample's second where an event says better.
 */
#ifndef ARRAYSIM_TOOLS_REPORT_DATA_H
#define ARRAYSIM_TOOLS_REPORT_DATA_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/* The series of a sample, in the order of rsample_field_names[]. A tier
 * series is one more entry here (and a chart in report_svg.c). */
enum rs_field {
	RS_READ_IOPS,
	RS_WRITE_IOPS,
	RS_READ_MBPS,
	RS_WRITE_MBPS,
	RS_READ_P50,
	RS_READ_P99,
	RS_WRITE_P50,
	RS_WRITE_P99,
	RS_OTHER_OPS,
	RS_ERRORS,
	RS_CHECKSUM_ERRORS,
	RS_DEDUPE_RATIO,
	RS_UNIQUE_BLOCKS,
	RS_LOGICAL_BYTES,
	RS_FAULTS_ACTIVE,
	/* The array model's (tiers/array_samples.h): NAN when a sample
	 * lacks them (the null profile, a tier the profile has not, older
	 * samples), drawn as gaps. */
	RS_TIER_FIRST,
	RS_FLASH_IOPS = RS_TIER_FIRST,
	RS_FLASH_MBPS,
	RS_FLASH_P50,
	RS_FLASH_P99,
	RS_CACHE_IOPS,
	RS_CACHE_MBPS,
	RS_CACHE_P50,
	RS_CACHE_P99,
	RS_BACKING_IOPS,
	RS_BACKING_MBPS,
	RS_BACKING_P50,
	RS_BACKING_P99,
	RS_CACHE_HIT_RATIO,
	RS_REBUILD_RATIO,
	RS_DRIVES_REBUILDING,
	/* The controllers' CPU (%) by the counter the sample names
	 * (rsample.cpu_counter): on average, and the busiest controller's
	 * (or node's). */
	RS_CTL_BUSY_PCT,
	RS_CTL_BUSY_MAX_PCT,
	/* Host-bound (tiers/completer.h): the interval's replies sent
	 * later than modelled, their share and the worst lateness. */
	RS_HOST_LATE_SHARE,
	RS_HOST_WORST_LATE_MS,
	RS_HOST_REPLIES,
	RS_HOST_LATE,
	/* Replication (a mount with --replicate-to; replication/repl.h):
	 * NAN in samples of a mount without it. */
	RS_REPL_LAG_S,
	RS_REPL_LAG_BYTES,
	RS_REPL_BACKLOG,
	RS_REPL_WIRE_BPS,
	RS_NFIELDS
};
extern const char *const rsample_field_names[RS_NFIELDS];

struct rsample {
	double wall;	   /* ts as seconds since the epoch; 0 unknown */
	double t;	   /* seconds since the sampler started */
	double interval_s; /* the span the rates are of, ending at t */
	double v[RS_NFIELDS];
	bool power_lost;
	/* What ctl_busy_pct counts ([controllers] cpu_counter: "usage",
	 * "core", "utilization"); "" in samples that do not say (the null
	 * profile, samples from before the counters). */
	char cpu_counter[16];
};

#define REV_TEXT 256

struct revent {
	double wall, t;
	char event[24];
	uint64_t id;
	char rule[REV_TEXT]; /* inject; scenario name for scenario_*; why a
			      * replication_paused/_resumed */
	char path[REV_TEXT]; /* block_lost, fault_hit */
	uint64_t offset, length;
	int64_t commits_lost; /* -1: not given */
	double in_s, lasts_s; /* stall: from t, s (faults/array_fault.c); NAN */
	uint64_t hits;	      /* fault_hits: the hits it stands for; else 0 */
	double lag_s;	      /* replication_*: the lag then; NAN */
	/* mount: what is emulated; "" / NAN / has_seed false when the event
	 * does not say (an older daemon). */
	char profile[REV_TEXT];
	char version[32];
	double scale, time_scale;
	bool has_seed;
	uint64_t seed;
};

/* A degraded period: a fault from its inject to its clear, or to its
 * last hit when it was used up (its "rule_done" event: a count=N rule
 * matches nothing after its Nth hit, though it stays listed). */
struct rperiod {
	uint64_t id;
	char rule[REV_TEXT];
	double start, end; /* run time, s */
	bool cleared;	   /* false: still active at the end of the run */
	bool used_up;	   /* ended at its rule_done, not at a clear */
	uint64_t hits;	   /* the times it acted: report_event_hits() */
};

/* A stall: a span in which I/O waited, from the events' own times (a
 * "stall" event of the array model: t + in_s, lasting lasts_s) or from
 * the samples: consecutive samples that offered load and got under a
 * fraction of the run's unfaulted median IOPS. A sample offered load
 * when it completed I/O, or when the I/O that next completes waited
 * through it (its p99 latency spans half the gap): an idle workload, or
 * one that exited (fio on EIO), offers none. Spans that touch merge. */
struct rstall {
	double start, end; /* run time, s */
	double min_iops;   /* over the samples it spans; NAN: none */
	bool from_events;  /* the array model said so (a stall event) */
	bool no_fault;	   /* no fault was active in it: a hang to explain */
};

/* How far the host kept pace with the model over a run (samples of a
 * timed profile). */
struct rhost {
	bool known;	       /* some sample has the figures */
	double replies, late;  /* summed over the run's samples */
	double worst_ms;       /* the most a reply went out late */
	unsigned seconds_over; /* samples whose late share passed the mark */
};

/* The late share past which a second is host-bound: shaded, warned. */
#define REPORT_LATE_WARN 0.05

/* A rebuild: consecutive samples with a drive's data being rebuilt. */
struct rspan {
	double start, end; /* run time, s */
};

/* A file as read: its lines and how many were refused. */
struct rfile {
	struct rsample *s;
	size_t ns;
	struct revent *e;
	size_t ne;
	size_t bad_lines;
	bool tier_fields; /* some sample has a tier* key */
};

/* One run: a mount, from its "mount" event to the next one. */
struct rrun {
	unsigned index, nruns; /* 1-based */
	const struct rsample *s;
	size_t ns;
	const struct revent *e;
	size_t ne;
	double length; /* s: the last sample, or the unmount */
	struct rperiod *periods;
	size_t nperiods;
	struct rstall *stalls;
	size_t nstalls;
	double baseline_iops; /* median of unfaulted samples; 0 unknown */
	struct rspan *rebuilds;
	size_t nrebuilds;
};

/* The fraction of the baseline under which a faulted sample stalls. */
#define REPORT_STALL_FRACTION 0.05

/* Parse one line into @s / @e. 0, or -1 if it is not a sample / event. */
int rsample_parse(const char *line, size_t len, struct rsample *s,
		  bool *tier_fields);
int revent_parse(const char *line, size_t len, struct revent *e);

/* Append what @f holds (samples if @samples, else events); a missing file
 * is empty. 0 or -errno. */
int rfile_read(FILE *f, bool samples, struct rfile *out);
void rfile_free(struct rfile *f);

/* How many runs @f holds: its "mount" events (1 if none, then all of it
 * is one run). */
unsigned rfile_runs(const struct rfile *f);
/* Select run @index (1-based; REPORT_RUN_LAST: the last) of @f into @r
 * and derive its periods and stalls. 0, -ERANGE if there is no such run
 * (0 included), -ENOMEM. */
#define REPORT_RUN_LAST 0xffffffffu
int rrun_select(const struct rfile *f, unsigned index, struct rrun *r);
void rrun_free(struct rrun *r);

/* Derivations, exposed for tests. Periods are in run time (events' t). */
int rrun_periods(struct rrun *r);
int rrun_stalls(struct rrun *r, double fraction);
int rrun_rebuilds(struct rrun *r);
/* @r's host-bound figures. Samples without host_replies (older ones)
 * count their share of their read and write operations. */
void rrun_host(const struct rrun *r, struct rhost *out);
/* Whether sample @s is host-bound: late share past REPORT_LATE_WARN. */
bool rsample_host_bound(const struct rsample *s);
/* The CPU counter @r's samples name (the first that names one), NULL if
 * none does. */
const char *rrun_cpu_counter(const struct rrun *r);
/* The run's mount event, NULL if it has none. */
const struct revent *rrun_mount(const struct rrun *r);
/* How many hits of its id event @e stands for (0: it is not a fault
 * acting): an operation a rule failed, delayed or tore (fault_hit, its
 * first; then fault_hits, the count of those since, at most once a
 * second: faults/faults.h), or an effect the array model gave it (stall,
 * shutdown, rebuild). A thin rule's refusal (thin_full, logged without an
 * id) counts for the open thin rule. */
uint64_t report_event_hits(const struct revent *e);
/* ISO 8601 UTC "2026-11-30T07:15:01.000123Z" to seconds since the epoch;
 * 0 if it is not one. */
double report_parse_ts(const char *ts);

#endif
