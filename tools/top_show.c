/* arraysim top's screen, from one sample and the mount event (see
 * tools/top.c), apart from the loop so that a unit test can format
 * hand-made samples (tests/tools/test_top_show.c). */
#include <stdio.h>

#include "tools/report_json.h"
#include "tools/top.h"

/* A sample's number under @key; 0 when absent (no sample yet). */
static double num(const struct rj_obj *o, const char *key)
{
	double v = 0;
	return rj_num(o, key, &v) ? v : 0;
}

/* The tiers the sample has (timed profiles): drive operations, their
 * MB/s and times, and queue depth, under the table of host I/O. */
static void show_tiers(FILE *out, const struct rj_obj *line)
{
	static const char *const tiers[] = {"flash", "cache", "backing"};
	for (int i = 0; i < 3; i++) {
		char k[5][40];
		snprintf(k[0], 40, "tier_%s_iops", tiers[i]);
		double v;
		if (!rj_num(line, k[0], &v))
			continue;
		snprintf(k[1], 40, "tier_%s_mbps", tiers[i]);
		snprintf(k[2], 40, "tier_%s_p50_us", tiers[i]);
		snprintf(k[3], 40, "tier_%s_p99_us", tiers[i]);
		snprintf(k[4], 40, "tier_%s_qd", tiers[i]);
		fprintf(out, "%-8s %10.0f %10.2f %12.1f %12.1f  QD %.2f\n",
			tiers[i], v, num(line, k[1]), num(line, k[2]),
			num(line, k[3]), num(line, k[4]));
	}
}

/* The array model's state: cache hit ratio, rebuild, what is out. */
static void show_array(FILE *out, const struct rj_obj *line)
{
	double v;
	if (!rj_num(line, "array_up", &v))
		return; /* the null profile: no model */
	if (rj_num(line, "cache_hit_ratio", &v))
		fprintf(out, "cache hit ratio %.3f\n", v);
	else if (rj_has_prefix(line, "tier_cache"))
		fprintf(out, "cache hit ratio -  (no reads this second)\n");
	fprintf(out,
		"rebuild %.1f%% done, %.3f GB left  drives failed %.0f "
		"rebuilding %.0f slow %.0f\n",
		num(line, "rebuild_ratio") * 100,
		num(line, "rebuild_left_bytes") / 1e9,
		num(line, "drives_failed"), num(line, "drives_rebuilding"),
		num(line, "drives_slow"));
	fprintf(out, "controllers down %.0f  paths down %.0f  array %s",
		num(line, "ctls_down"), num(line, "paths_down"),
		num(line, "array_up") ? "up" : "DOWN");
	if (rj_num(line, "ctl_busy_pct", &v)) {
		char counter[16] = "usage";

		rj_str(line, "ctl_cpu_counter", counter, sizeof(counter));
		fprintf(out, "  controller CPU (%s) %.1f%%", counter, v);
	}
	if (rj_num(line, "ctl_busy_max_pct", &v))
		fprintf(out, " (busiest %.1f%%)", v);
	fputc('\n', out);
}

/* What is emulated, from the mount event (faults/events.h; its profile,
 * scale, time_scale, seed and version members): one line under the
 * title, so a screenshot of top says what it shows. */
static void show_what(FILE *out, const struct rj_obj *mount)
{
	char profile[256] = "?", version[64] = "";
	double v;

	rj_str(mount, "profile", profile, sizeof(profile));
	fprintf(out, "profile %s", profile);
	if (rj_num(mount, "scale", &v))
		fprintf(out, "  scale %g", v);
	if (rj_num(mount, "time_scale", &v))
		fprintf(out, "  time scale %g", v);
	if (rj_num(mount, "seed", &v))
		fprintf(out, "  seed %.0f", v);
	if (rj_str(mount, "version", version, sizeof(version)))
		fprintf(out, "  arraysim %s", version);
	fputc('\n', out);
}

/* Host-bound (tiers/completer.h): replies of the last second the host
 * sent later than the model's time. Past TOP_LATE_WARN the figures are
 * the host's, not the array's, and the line says so. */
static void show_host(FILE *out, const struct rj_obj *line)
{
	double share;

	if (!rj_num(line, "host_late_share", &share))
		return; /* the null profile, or older samples */
	fprintf(out, "host late %.1f%% of replies, worst %.3f ms late%s\n",
		share * 100, num(line, "host_worst_late_ms"),
		share > TOP_LATE_WARN ? "  !! HOST-BOUND: the host, not the "
					"model, sets these figures"
				      : "");
}

/* Replication (a mount with --replicate-to): how far behind, what holds
 * it back, how fast it ships and what dedupe saves in transit. */
static void show_replication(FILE *out, const struct rj_obj *line)
{
	char state[16] = "", held[32] = "";
	if (!rj_str(line, "repl_state", state, sizeof(state)))
		return;
	rj_str(line, "repl_held_by", held, sizeof(held));
	fprintf(out,
		"replication %s%s%s  lag %.3f s %.3f MB  backlog %.0f txns  "
		"%.2f MB/s  saved %.3f MB\n",
		state, *held ? ", held by " : "", held, num(line, "repl_lag_s"),
		num(line, "repl_lag_bytes") / 1e6,
		num(line, "repl_backlog_txns"),
		num(line, "repl_wire_bytes_per_s") / 1e6,
		num(line, "repl_saved_bytes") / 1e6);
}

void top_show(FILE *out, const char *mnt, const struct rj_obj *line,
	      const struct rj_obj *mount, const char *faults)
{
	char power[16] = "";
	rj_str(line, "power", power, sizeof(power));
	fprintf(out, "arraysim %s  t=%.0fs  power %s\n", mnt, num(line, "t"),
		power);
	show_what(out, mount);
	fprintf(out, "         %10s %10s %12s %12s\n", "IOPS", "MB/s", "p50 us",
		"p99 us");
	static const char *const ops[] = {"read", "write"};
	for (int i = 0; i < 2; i++) {
		char k[4][32];
		snprintf(k[0], 32, "%s_iops", ops[i]);
		snprintf(k[1], 32, "%s_mbps", ops[i]);
		snprintf(k[2], 32, "%s_p50_us", ops[i]);
		snprintf(k[3], 32, "%s_p99_us", ops[i]);
		fprintf(out, "%-8s %10.0f %10.2f %12.1f %12.1f\n", ops[i],
			num(line, k[0]), num(line, k[1]), num(line, k[2]),
			num(line, k[3]));
	}
	show_tiers(out, line);
	fprintf(out, "dedupe ratio %.3f  unique blocks %.0f  errors/s %.0f\n",
		num(line, "dedupe_ratio"), num(line, "unique_blocks"),
		num(line, "errors"));
	show_array(out, line);
	show_host(out, line);
	show_replication(out, line);
	fprintf(out, "faults active %.0f\n%s", num(line, "faults_active"),
		faults);
}
