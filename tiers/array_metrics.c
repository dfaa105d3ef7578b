/* The array model's Prometheus series, from one array_snapshot (see
 * tiers/array_metrics.h for the list). Rendered after the snapshot's lock
 * is released: the scrape thread formats, the FUSE workers go on. */
#include "tiers/array_metrics.h"

#include "common/metrics.h"

#ifndef ARRAYSIM_VERSION
#define ARRAYSIM_VERSION "unknown"
#endif

static const char *const op_names[ENGINE_OP_COUNT] = {"read", "write"};

/* Counter @name{tier,op}: @bytes, or operations, of each present tier. */
static void tier_by_op(FILE *out, const struct array_snapshot *s,
		       const char *name, const char *help, bool bytes)
{
	metrics_header(out, name, "counter", help);
	for (unsigned t = 0; t < PROFILE_TIER_COUNT; t++)
		for (int op = 0; s->tier[t].present && op < ENGINE_OP_COUNT;
		     op++)
			fprintf(out, "%s{tier=\"%s\",op=\"%s\"} %llu\n", name,
				array_tier_name(t), op_names[op],
				(unsigned long long)(bytes
							 ? s->tier[t].bytes[op]
							 : s->tier[t].ops[op]));
}

/* @name{tier} of @type: @value of each present tier. */
static void per_tier(FILE *out, const struct array_snapshot *s,
		     const char *name, const char *type, const char *help,
		     double (*value)(const struct array_snap_tier *))
{
	metrics_header(out, name, type, help);
	for (unsigned t = 0; t < PROFILE_TIER_COUNT; t++)
		if (s->tier[t].present)
			fprintf(out, "%s{tier=\"%s\"} %.17g\n", name,
				array_tier_name(t), value(&s->tier[t]));
}

static double queue_s(const struct array_snap_tier *t)
{
	return (double)t->queue_ns / 1e9;
}

static double rebuild_ratio(const struct array_snap_tier *t)
{
	return t->rebuild_bytes
		   ? 1.0 - (double)t->rebuild_left / (double)t->rebuild_bytes
		   : 1.0;
}

static double rebuild_left(const struct array_snap_tier *t)
{
	return (double)t->rebuild_left;
}

static void tier_counters(FILE *out, const struct array_snapshot *s)
{
	tier_by_op(out, s, "arraysim_tier_ops_total",
		   "Drive operations of the tier (foreground, destage, "
		   "rebuild), by operation.",
		   false);
	tier_by_op(out, s, "arraysim_tier_bytes_total",
		   "Bytes the tier's drives moved, by operation.", true);
	per_tier(out, s, "arraysim_tier_queue_seconds_total", "counter",
		 "Time drive operations of the tier spent queued or in "
		 "service; its rate is the tier's mean queue depth.",
		 queue_s);
}

static void tier_latency(FILE *out, const struct array_snapshot *s)
{
	metrics_header(out, "arraysim_tier_drive_latency_seconds", "histogram",
		       "Drive operation times of the tier, arrival at the "
		       "drive to end, queueing included.");
	for (unsigned t = 0; t < PROFILE_TIER_COUNT; t++) {
		char labels[32];

		if (!s->tier[t].present)
			continue;
		snprintf(labels, sizeof(labels), "tier=\"%s\"",
			 array_tier_name(t));
		metrics_histogram(out, "arraysim_tier_drive_latency_seconds",
				  labels, &s->tier[t].hist);
	}
}

static void rebuild(FILE *out, const struct array_snapshot *s)
{
	per_tier(out, s, "arraysim_rebuild_progress_ratio", "gauge",
		 "Share of the tier's running rebuilds done, 0 to 1 (1: "
		 "nothing to rebuild).",
		 rebuild_ratio);
	per_tier(out, s, "arraysim_rebuild_remaining_bytes", "gauge",
		 "Bytes the tier's running rebuilds have still to copy.",
		 rebuild_left);
}

/* Gauge @name{@key="i"} of @n up/down flags. */
static void up_gauges(FILE *out, const char *name, const char *help,
		      const char *key, const bool *up, unsigned n)
{
	metrics_header(out, name, "gauge", help);
	for (unsigned i = 0; i < n; i++)
		fprintf(out, "%s{%s=\"%u\"} %d\n", name, key, i, up[i] ? 1 : 0);
}

/* One series per drive and state, 1 for the state it is in: the
 * convention for an enumeration (sum by state counts the drives). */
static void drive_states(FILE *out, const struct array_snapshot *s)
{
	metrics_header(out, "arraysim_drive_state", "gauge",
		       "1 for the state each drive is in: ok, slow "
		       "(fail-slow), rebuilding (its data being rebuilt), "
		       "failed (pulled).");
	for (unsigned i = 0; i < s->nres; i++) {
		const struct array_snap_res *r = &s->res[i];

		for (int st = 0;
		     r->kind == ARRAY_RES_DRIVE && st < MODEL_DRIVE_STATES;
		     st++)
			fprintf(
			    out,
			    "arraysim_drive_state{tier=\"%s\",drive=\"%u\","
			    "state=\"%s\"} %d\n",
			    array_tier_name(r->tier), r->id,
			    array_drive_state_name((enum model_drive_state)st),
			    (int)r->state == st);
	}
}

static const char *kind_name(enum array_res_kind k)
{
	return k == ARRAY_RES_LINK  ? "link"
	       : k == ARRAY_RES_CTL ? "controller"
				    : "drive";
}

static void queues(FILE *out, const struct array_snapshot *s)
{
	metrics_header(out, "arraysim_resource_queue_seconds_total", "counter",
		       "Time operations spent queued or in service at each "
		       "link direction, controller and drive; its rate is "
		       "the mean queue depth (Little's law).");
	for (unsigned i = 0; i < s->nres; i++)
		fprintf(out,
			"arraysim_resource_queue_seconds_total{kind=\"%s\","
			"resource=\"%s\"} %.9f\n",
			kind_name(s->res[i].kind), s->res[i].name,
			(double)s->res[i].queue_ns / 1e9);
	metrics_header(out, "arraysim_resource_busy_slots", "gauge",
		       "Service slots of each resource taken now (serving, or "
		       "booked for work queued behind).");
	for (unsigned i = 0; i < s->nres; i++)
		fprintf(out,
			"arraysim_resource_busy_slots{kind=\"%s\",resource="
			"\"%s\"} %u\n",
			kind_name(s->res[i].kind), s->res[i].name,
			s->res[i].busy_slots);
}

/* How full each resource was: a counter per part, whose rate is that
 * part's utilisation (0 to 1); the fullest part is the one that
 * saturates (stats --array's busy%). A controller's slots are its CPU by
 * the profile's cpu_counter, a different figure for each with
 * hyper-threading: the series names it in a counter label, so that a
 * query or a dashboard sees which it plots. */
static void busy(FILE *out, const struct array_snapshot *s)
{
	metrics_header(out, "arraysim_resource_busy_seconds_total", "counter",
		       "Busy time of each resource's parts: slots (service "
		       "time over the slots; a controller's is its CPU by "
		       "the profile's cpu_counter, named in its counter "
		       "label: usage, core or utilization), gate (its ops/s "
		       "limit), wire (its bandwidth); the rate of each is its "
		       "utilisation.");
	for (unsigned i = 0; i < s->nres; i++) {
		const struct array_snap_res *r = &s->res[i];
		const uint64_t part_ns[] = {r->busy_ns, r->gate_ns, r->wire_ns};
		static const char *const part[] = {"slots", "gate", "wire"};
		for (unsigned p = 0; p < 3; p++) {
			fprintf(out,
				"arraysim_resource_busy_seconds_total{kind=\"%s"
				"\",resource=\"%s\",part=\"%s\"",
				kind_name(r->kind), r->name, part[p]);
			if (r->kind == ARRAY_RES_CTL && p == 0)
				fprintf(out, ",counter=\"%s\"", s->cpu_counter);
			fprintf(out, "} %.9f\n", (double)part_ns[p] / 1e9);
		}
	}
}

/* Host-bound: replies the host could not send at the model's time. */
static void host_bound(FILE *out, const struct array_snapshot *s)
{
	const struct array_snap_host *h = &s->host;

	metrics_header(out, "arraysim_replies_total", "counter",
		       "Timed replies sent.");
	fprintf(out, "arraysim_replies_total %llu\n",
		(unsigned long long)h->completed);
	metrics_header(out, "arraysim_late_replies_total", "counter",
		       "Replies the host sent later than the model's time by "
		       "more than a tenth of their latency: host-bound.");
	fprintf(out, "arraysim_late_replies_total %llu\n",
		(unsigned long long)h->late);
	metrics_header(out, "arraysim_late_seconds_total", "counter",
		       "The late replies' lateness, summed.");
	fprintf(out, "arraysim_late_seconds_total %.9f\n",
		(double)h->late_ns / 1e9);
	metrics_header(out, "arraysim_late_share", "gauge",
		       "Share of the last 10 s's replies sent late (a warning "
		       "is logged above 0.05).");
	fprintf(out, "arraysim_late_share %.6f\n",
		h->completed_10s
		    ? (double)h->late_10s / (double)h->completed_10s
		    : 0.0);
	metrics_header(out, "arraysim_worst_lateness_seconds", "gauge",
		       "The most a reply of the last second went out after "
		       "its modelled time.");
	fprintf(out, "arraysim_worst_lateness_seconds %.9f\n",
		(double)h->worst_1s_ns / 1e9);
}

void array_metrics_write(FILE *out, const struct array_snapshot *s)
{
	if (!s->timed)
		return;
	metrics_header(out, "arraysim_array_up", "gauge",
		       "0 while the array is shut down (controllers or paths "
		       "beyond what it survives), else 1.");
	fprintf(out, "arraysim_array_up %d\n", s->down ? 0 : 1);
	metrics_header(out, "arraysim_requests_in_flight", "gauge",
		       "Requests the array holds: arrived and not yet replied "
		       "to (the hosts' queue depth at the array).");
	fprintf(out, "arraysim_requests_in_flight %u\n", s->in_flight);
	tier_counters(out, s);
	tier_latency(out, s);
	rebuild(out, s);
	up_gauges(out, "arraysim_controller_up",
		  "1 while the controller serves (not failed or recovering).",
		  "controller", s->ctl_up, s->nctl);
	up_gauges(out, "arraysim_path_up", "1 while the front-end path is up.",
		  "path", s->path_up, s->npath);
	drive_states(out, s);
	queues(out, s);
	busy(out, s);
	host_bound(out, s);
}

/* A label value as the exposition format wants it: \\, \" and \n
 * escaped. A profile file's path is the user's, with any bytes. */
static void label_value(FILE *out, const char *v)
{
	for (; v && *v; v++) {
		if (*v == '\\' || *v == '"')
			fputc('\\', out);
		if (*v == '\n')
			fputs("\\n", out);
		else
			fputc(*v, out);
	}
}

void array_metrics_info(FILE *out, const struct array_conf *c)
{
	double ts = c->time_scale > 0.0 ? c->time_scale : c->scale;

	metrics_header(out, "arraysim_info", "gauge",
		       "What is emulated: the profile, its rate and fault "
		       "time scales, the model's seed, and this arraysim's "
		       "version. Always 1.");
	fputs("arraysim_info{profile=\"", out);
	label_value(out, c->profile ? c->profile : "null");
	fprintf(out,
		"\",scale=\"%g\",time_scale=\"%g\",seed=\"%llu\","
		"version=\"",
		c->scale, ts, (unsigned long long)c->seed);
	label_value(out, ARRAYSIM_VERSION);
	fputs("\"} 1\n", out);
}
