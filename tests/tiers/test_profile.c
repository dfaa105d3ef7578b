/* tiers/profile: the parser's errors, one line each naming file, line,
 * section and key; defaults; the --scale grammar.
 *
 * Each error case is the valid base profile with one line changed, so
 * the line numbers in the expected messages are the base's.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/tiers/t_model.h"
#include "tiers/profile.h"
#include "tiers/profile_calc.h"

/* Lines:         1           2             3             4 */
static const char base[] = "[frontend]\nspeed = 10GbE\n[tier flash]\nkind = "
			   "ssd\n"
			   /* 5 */ "drives = 4\n"
			   /* 6 */ "capacity = 1T\n"
			   /* 7 */ "raid = raid5\n"
			   /* 8 */ "read_latency = 100us\n"
			   /* 9 */ "write_latency = 50us\n";

/* @base with the first occurrence of @find replaced by @repl. */
static char *t_with(const char *find, const char *repl)
{
	const char *at = strstr(base, find);
	size_t n = strlen(base) + strlen(repl) + 1;
	char *out = malloc(n);

	assert_non_null(at);
	assert_non_null(out);
	snprintf(out, n, "%.*s%s%s", (int)(at - base), base, repl,
		 at + strlen(find));
	return out;
}

struct t_case {
	const char *find, *repl;
	const char *want; /* the whole message */
};

static const struct t_case cases[] = {
    {"[frontend]", "[controllers]\nthreads_per_core = 9\n[frontend]",
     "test.ini:2: [controllers] threads_per_core: '9' is not a whole number "
     "from 1 to 8"},
    {"[frontend]", "[controllers]\nthreads_per_core = 0\n[frontend]",
     "test.ini:2: [controllers] threads_per_core: '0' is not a whole number "
     "from 1 to 8"},
    {"[frontend]",
     "[controllers]\nthreads_per_core = 2\nsmt_yield = 2.5\n[frontend]",
     "test.ini:3: [controllers] smt_yield: 2.5 is not from 1 to "
     "threads_per_core (2)"},
    {"[frontend]", "[controllers]\nsmt_yield = 0.9\n[frontend]",
     "test.ini:2: [controllers] smt_yield: 0.9 is not from 1 to "
     "threads_per_core (1)"},
    {"[frontend]", "[controllers]\nsmt_yield = 1.2x\n[frontend]",
     "test.ini:2: [controllers] smt_yield: '1.2x' is not a decimal number "
     "(1.25)"},
    {"[frontend]", "[controllers]\ncpu_counter = ready\n[frontend]",
     "test.ini:2: [controllers] cpu_counter: unknown CPU counter 'ready' "
     "(known: usage, core, utilization)"},
    {"speed = 10GbE", "speed = 10GbE\nprotocol = smb",
     "test.ini:3: [frontend] protocol: unknown protocol 'smb' (known: nfs, "
     "iscsi, fc, local)"},
    {"speed = 10GbE", "speed = 10GbE\nprotocol = fc",
     "test.ini:3: [frontend] protocol: fc needs an FC speed (4GFC..32GFC) "
     "(speed is 10GbE)"},
    {"speed = 10GbE", "speed = 8GFC\nprotocol = nfs",
     "test.ini:3: [frontend] protocol: nfs needs an Ethernet speed "
     "(1GbE..100GbE) (speed is 8GFC)"},
    {"speed = 10GbE", "speed = 8GFC\nprotocol = iscsi",
     "test.ini:3: [frontend] protocol: iscsi needs an Ethernet speed "
     "(1GbE..100GbE) (speed is 8GFC)"},
    {"speed = 10GbE", "speed = 10GbE\nprotocol = local",
     "test.ini:3: [frontend] protocol: local needs a SATA or SAS speed "
     "(speed is 10GbE)"},
    {"speed = 10GbE", "speed = 8GFC\nprotocol = fc\nwrite_staging = yes",
     "test.ini:4: [frontend] write_staging: only a NAS stages writes "
     "(protocol nfs or iscsi, not fc)"},
    {"speed = 10GbE",
     "speed = SAS-12G\nprotocol = local\nwrite_staging = "
     "yes",
     "test.ini:4: [frontend] write_staging: only a NAS stages writes "
     "(protocol nfs or iscsi, not local)"},
    {"raid = raid5", "raid = raid7",
     "test.ini:7: [tier flash] raid: unknown RAID level 'raid7' (known: "
     "raid0, raid1, raid10, raid5, raid6)"},
    {"kind = ssd\n", "kind = ssd\ncolour = blue\n",
     "test.ini:5: [tier flash] colour: unknown key"},
    {"capacity = 1T", "capacity = 12X",
     "test.ini:6: [tier flash] capacity: '12X' is not a size (4K, 480G)"},
    {"read_latency = 100us", "read_latency = 100 parsecs",
     "test.ini:8: [tier flash] read_latency: '100 parsecs' is not a "
     "latency (100us, or percentiles: p50:90us p99:1ms, at most 8)"},
    {"drives = 4", "drives = 0",
     "test.ini:5: [tier flash] drives: '0' is not a whole number from 1 to "
     "1024"},
    {"drives = 4", "drives = 2",
     "test.ini:7: [tier flash] raid: raid5 needs 3 drives or more per stripe "
     "(has 2)"},
    {"drives = 4", "drives = 4\nstripe_width = 3",
     "test.ini:6: [tier flash] stripe_width: 3 does not divide drives = 4 "
     "into RAID sets"},
    {"drives = 4", "drives = 70",
     "test.ini:7: [tier flash] raid: 70 drives in one raid5 set: more than "
     "64; give stripe_width"},
    {"read_latency = 100us", "read_latency = p50:90us p99:80us",
     "test.ini:8: [tier flash] read_latency: percentiles out of order in "
     "'p50:90us p99:80us' (percentiles and latencies must both ascend)"},
    {"read_latency = 100us", "read_latency = p99:90us p50:100us",
     "test.ini:8: [tier flash] read_latency: percentiles out of order in "
     "'p99:90us p50:100us' (percentiles and latencies must both ascend)"},
    {"raid = raid5", "raid = raid5\nscatter = 6K",
     "test.ini:8: [tier flash] scatter: must be 0 or a multiple of 4K"},
    {"drives = 4\ncapacity = 1T\nraid = raid5",
     "drives = 8\ncapacity = 1T\nraid = raid1\nscatter = 4K",
     "test.ini:8: [tier flash] scatter: too fine for this layout: a 1M I/O "
     "could take more than 2048 drive operations"},
    {"read_latency = 100us", "read_latency = 0",
     "test.ini:8: [tier flash] read_latency: must be above 0"},
    {"[frontend]\n", "[frontends]\n",
     "test.ini:1: unknown section [frontends] (known: [array], "
     "[controllers], [frontend], [tier flash], [tier cache], [tier "
     "backing], [cache], [dedupe], [nodes], [replication])"},
    {"kind = ssd", "kind = ssd\nkind = hdd",
     "test.ini:5: [tier flash] kind: given twice (first on line 4)"},
    {"speed = 10GbE\n", "",
     "test.ini:1: [frontend] speed: missing (no default)"},
    {"speed = 10GbE", "speed = 3GbE",
     "test.ini:2: [frontend] speed: unknown link speed '3GbE' (known: 1GbE, "
     "10GbE, 25GbE, 40GbE, 100GbE, 4GFC, 8GFC, 16GFC, 32GFC, SATA-3G, "
     "SATA-6G, SAS-6G, SAS-12G, IB-QDR, IB-FDR, IB-EDR)"},
    {"speed = 10GbE", "speed = IB-QDR\nprotocol = local",
     "test.ini:2: [frontend] speed: InfiniBand joins nodes ([nodes] "
     "interconnect), not hosts"},
    {"speed = 10GbE", "speed = 10GbE\nread_overhead = 150%",
     "test.ini:3: [frontend] read_overhead: '150%' is not a percentage (8%)"},
    {"speed = 10GbE", "speed = 10GbE\nwrite_overhead = 100%",
     "test.ini:3: [frontend] write_overhead: must be below 100%"},
    {"kind = ssd", "kind = hdd",
     "test.ini:3: [tier flash] rpm: required for kind = hdd"},
    {"kind = ssd", "kind = ssd\nrpm = 7200",
     "test.ini:5: [tier flash] rpm: only for kind = hdd"},
    {"drives = 4\ncapacity = 1T\nraid = raid5",
     "drives = 3\ncapacity = 1T\nraid = raid10",
     "test.ini:7: [tier flash] raid: raid10 needs an even number of drives, 4 "
     "or more (drives = 3)"},
    {"raid = raid5", "raid = raid10\nstripe_width = 3",
     "test.ini:8: [tier flash] stripe_width: only for raid5 and raid6 "
     "(raid10's is 2)"},
    {"[frontend]", "[controllers]\ncount = 2\n[frontend]",
     "test.ini:2: [controllers] count: 2 controllers need mode = "
     "active-standby or active-active (mode is single)"},
    {"[frontend]", "[controllers]\nwrite_cache = mirrored\n[frontend]",
     "test.ini:2: [controllers] write_cache: mirrored needs a partner "
     "controller (count >= 2)"},
    {"[frontend]", "[array]\nmodel = null\n[frontend]",
     "test.ini:3: [frontend]: model = null takes no other section"},
    {"[tier flash]", "[tier cache]",
     "test.ini: [array]: no drives: give [tier flash], or [tier cache] and "
     "[tier backing]"},
    {"write_latency = 50us\n",
     "write_latency = 50us\n[tier cache]\nkind = ssd\n",
     "test.ini:10: [tier cache]: an array has [tier flash] alone, or [tier "
     "cache] over [tier backing]"},
    {"write_latency = 50us\n", "write_latency = 50us\n[cache]\nsize = 1G\n",
     "test.ini:10: [cache]: only with [tier cache] over [tier backing]"},
    {"speed = 10GbE\n", "speed = 10GbE\nthis line has no equals sign\n",
     "test.ini:3: expected [section] or key = value"},
    {"[frontend]\n", "speed = 1GbE\n[frontend]\n",
     "test.ini:1: speed: key outside any known section"},
    /* [nodes] (tiers/model_nodes.c), after the base's 9 lines. */
    {"write_latency = 50us\n", "write_latency = 50us\n[nodes]\ncount = 1\n",
     "test.ini:11: [nodes] count: '1' is not a whole number from 2 to 64"},
    {"write_latency = 50us\n",
     "write_latency = 50us\n[nodes]\ncount = 4\ninterconnect = 25GbE\n",
     "test.ini:10: [nodes] placement: missing (no default)"},
    {"write_latency = 50us\n",
     "write_latency = 50us\n[nodes]\ncount = 4\nplacement = object\n",
     "test.ini:10: [nodes] interconnect: missing (no default)"},
    {"write_latency = 50us\n",
     "write_latency = 50us\n[nodes]\ncount = 4\nplacement = random\n",
     "test.ini:12: [nodes] placement: unknown placement 'random' (known: "
     "fingerprint, object)"},
    {"write_latency = 50us\n",
     "write_latency = 50us\n[nodes]\ncount = 4\nplacement = "
     "fingerprint\nraid = raid1\ninterconnect = IB-QDR\n",
     "test.ini:13: [nodes] raid: only with placement = object (fingerprint "
     "placement protects inside each node, by its tiers' raid)"},
    {"write_latency = 50us\n",
     "write_latency = 50us\n[nodes]\ncount = 5\nplacement = "
     "object\nraid = raid6\ninterconnect = 25GbE\n",
     "test.ini:13: [nodes] raid: raid6 across nodes needs 6 nodes or more "
     "(count = 5)"},
    {"write_latency = 50us\n",
     "write_latency = 50us\n[nodes]\ncount = 8\nplacement = "
     "object\nstripe_unit = 6K\ninterconnect = 25GbE\n",
     "test.ini:13: [nodes] stripe_unit: must be a multiple of 4K"},
    {"write_latency = 50us\n",
     "write_latency = 50us\n[nodes]\ncount = 33\nplacement = "
     "object\ninterconnect = 25GbE\ninterconnect_links = 2\n",
     "test.ini:11: [nodes] count: 33 nodes of 1 controllers, 1 links and 2 "
     "interconnect links: more than 64 of one kind"},
    {"write_latency = 50us\n",
     "write_latency = 50us\n[nodes]\ncount = 4\nplacement = "
     "object\ninterconnect = 25GbE\ninterconnect_latency = soon\n",
     "test.ini:14: [nodes] interconnect_latency: 'soon' is not a duration "
     "(100us, 5ms)"},
    {"write_latency = 50us\n",
     "write_latency = 50us\n[nodes]\ncount = 4\nplacement = "
     "object\ninterconnect = 3GbE\n",
     "test.ini:13: [nodes] interconnect: unknown link speed '3GbE' (known: "
     "1GbE, 10GbE, 25GbE, 40GbE, 100GbE, 4GFC, 8GFC, 16GFC, 32GFC, "
     "SATA-3G, SATA-6G, SAS-6G, SAS-12G, IB-QDR, IB-FDR, IB-EDR)"},
    /* Fault keys (tiers/model_faults.c). */
    {"[frontend]", "[controllers]\nfailover_time = soon\n[frontend]",
     "test.ini:2: [controllers] failover_time: 'soon' is not a duration "
     "(100us, 5ms)"},
    {"[frontend]", "[controllers]\nshutdown = panic\n[frontend]",
     "test.ini:2: [controllers] shutdown: unknown shutdown mode 'panic' "
     "(known: eio, block)"},
    {"speed = 10GbE", "speed = 10GbE\nmultipath_timeout = -5s",
     "test.ini:3: [frontend] multipath_timeout: '-5s' is not a duration "
     "(100us, 5ms)"},
    {"kind = ssd", "kind = ssd\nfill = 101%",
     "test.ini:5: [tier flash] fill: '101%' is not a percentage (8%)"},
    {"kind = ssd", "kind = ssd\nrebuild_rate = fast",
     "test.ini:5: [tier flash] rebuild_rate: 'fast' is not a rate "
     "(550MiB/s, or 0 for none)"},
    {"kind = ssd", "kind = ssd\ndetection_window = 3 days",
     "test.ini:5: [tier flash] detection_window: '3 days' is not a "
     "duration (100us, 5ms)"},
};

/* Issue 13, point 7: a rebuild_rate the tier's drives cannot do is
 * refused with the tier's limit; the limit itself loads. 6 SSDs in one
 * raid5 set at 500M/s read and 400M/s write: 5 left, reading 5 MiB and
 * writing 1 per MiB rebuilt, (6 - 1) / (5 / 500M + 1 / 400M) = 400M/s
 * (32 slots: the wire is the limit). */
static void test_rebuild_rate_beyond_drives(void **state)
{
	static const char *const rates[] = {"160G/s", "400100000/s",
					    "400000000/s"};
	char err[PROFILE_ERR_LEN];
	struct profile p;

	for (unsigned i = 0; i < 3; i++) {
		char repl[256];
		char *text;
		int rc;

		snprintf(
		    repl, sizeof(repl),
		    "drives = 6\nslots = 32\nread_bandwidth = 500000000/s\n"
		    "write_bandwidth = 400000000/s\nrebuild_rate = %s",
		    rates[i]);
		text = t_with("drives = 4", repl);
		err[0] = '\0';
		rc = profile_parse_string(text, "test.ini", &p, err,
					  sizeof(err));
		free(text);
		if (i == 2) {
			assert_int_equal(rc, 0);
			continue;
		}
		assert_int_equal(rc, -EINVAL);
		print_message("# %s\n", err);
		assert_non_null(strstr(err, "test.ini:9: [tier flash] "
					    "rebuild_rate: "));
		assert_non_null(
		    strstr(err, "is above what this tier's drives can rebuild "
				"at, 400.0 MB/s (5 drives left, reading 5 MiB "
				"and writing 1 per MiB rebuilt, at a drive's "
				"sequential rate)"));
		assert_null(strchr(err, '\n'));
	}
}

static void test_errors(void **state)
{
	for (size_t i = 0; i < sizeof(cases) / sizeof(*cases); i++) {
		char *text = t_with(cases[i].find, cases[i].repl);
		char err[PROFILE_ERR_LEN] = "";
		struct profile p;
		int rc = profile_parse_string(text, "test.ini", &p, err,
					      sizeof(err));

		if (rc != -EINVAL || strcmp(err, cases[i].want)) {
			print_message(
			    "# case %zu: rc %d\n#  got  '%s'\n#  want "
			    "'%s'\n",
			    i, rc, err, cases[i].want);
			fail();
		}
		free(text);
	}
}

/* A hybrid whose cache cannot fit on its tier. */
static void test_cache_too_big(void **state)
{
	static const char text[] =
	    "[frontend]\nspeed = 10GbE\n"
	    "[tier cache]\nkind = ssd\ndrives = 4\ncapacity = 100G\n"
	    "raid = raid10\nread_latency = 100us\nwrite_latency = 50us\n"
	    "[tier backing]\nkind = hdd\ndrives = 6\ncapacity = 4T\n"
	    "raid = raid6\nread_latency = 0\nwrite_latency = 0\nrpm = 7200\n"
	    "[cache]\nsize = 201G\ndestage_rate = 100M/s\n"
	    "destage_start = 50%\ndestage_stop = 60%\n";
	char err[PROFILE_ERR_LEN];
	struct profile p;

	assert_int_equal(
	    profile_parse_string(text, "h.ini", &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "h.ini:19: [cache] size: must be above 0 and "
				 "at most [tier cache]'s usable capacity "
				 "(214748364800 bytes)");
}

static void test_line_too_long(void **state)
{
	char text[512];
	char err[PROFILE_ERR_LEN];
	struct profile p;

	snprintf(text, sizeof(text), "[array]\ndescription = %0300d\n", 7);
	assert_int_equal(
	    profile_parse_string(text, "l.ini", &p, err, sizeof(err)), -EINVAL);
	assert_string_equal(err, "l.ini:2: line longer than 198 characters");
}

static void test_defaults(void **state)
{
	char err[PROFILE_ERR_LEN];
	struct profile p;
	const struct profile_tier *t = &p.tier[PROFILE_TIER_FLASH];

	assert_int_equal(
	    profile_parse_string(base, "d.ini", &p, err, sizeof(err)), 0);
	assert_string_equal(p.name, "d");
	assert_int_equal(p.model, PROFILE_MODEL_TIMED);
	assert_int_equal(p.ctl.count, 1);
	assert_int_equal(p.ctl.ha, PROFILE_HA_SINGLE);
	assert_int_equal(p.ctl.write_backlog_ns, 100000000);
	assert_int_equal(p.fe.links, 1);
	assert_int_equal(p.fe.line_bytes_per_s, 1250000000);
	assert_true(t->present);
	assert_false(p.tier[PROFILE_TIER_CACHE].present);
	assert_int_equal(t->stripe_width, 4);
	assert_int_equal(t->stripe_unit_bytes, 65536);
	assert_int_equal(t->slots, 1);
	assert_int_equal(t->latency[ENGINE_OP_READ].fixed_ns, 100000);
	assert_int_equal(profile_tier_usable_bytes(t), 3ull << 40);
	assert_false(p.dedupe.enabled);
	/* Fault defaults: Infinidat's figures (arrays.md). */
	assert_int_equal(p.ctl.failover_ns, 10000000000ull);
	assert_int_equal(p.ctl.recovery_ns, 0);
	assert_int_equal(p.ctl.shutdown, PROFILE_SHUTDOWN_EIO);
	assert_int_equal(p.fe.multipath_timeout_ns, 5000000000ull);
	assert_true(t->fill_pct == 70.0);
	assert_int_equal(t->detection_ns, 30000000000ull);
	/* One hour for 70% of 1T. */
	assert_int_equal(t->rebuild_bytes_per_s,
			 (uint64_t)((double)(1ull << 40) * 0.7 / 3600));
	/* The protocol, not given, is the link's own. */
	assert_int_equal(p.fe.protocol, PROFILE_PROTO_NFS);
	assert_int_equal(p.dedupe.compression, PROFILE_COMPRESS_NONE);
	assert_int_equal(p.dedupe.compression_keep, PROFILE_KEEP_ANY);
	static const struct {
		const char *speed;
		enum profile_protocol want;
	} links[] = {{"speed = 16GFC", PROFILE_PROTO_FC},
		     {"speed = SATA-6G", PROFILE_PROTO_LOCAL},
		     {"speed = SAS-12G", PROFILE_PROTO_LOCAL}};
	for (size_t i = 0; i < sizeof(links) / sizeof(*links); i++) {
		char *text = t_with("speed = 10GbE", links[i].speed);

		assert_int_equal(
		    profile_parse_string(text, "d.ini", &p, err, sizeof(err)),
		    0);
		assert_int_equal(p.fe.protocol, links[i].want);
		free(text);
	}
}

static void test_values(void **state)
{
	static const char text[] =
	    "[frontend]\nspeed = 8gfc\nprotocol = FC\nread_overhead = 99.9%\n"
	    "[tier flash]\nkind = NVMe\ndrives = 1\ncapacity = 1.5T\n"
	    "raid = raid0\nread_latency = p0:10us, p99.9:1.5ms p100:2ms\n"
	    "write_latency = 0.5ms\nread_bandwidth = 2.5G/s\n"
	    "[dedupe]\nenabled = on\n";
	char err[PROFILE_ERR_LEN];
	struct profile p;
	const struct profile_tier *t = &p.tier[PROFILE_TIER_FLASH];

	assert_int_equal(
	    profile_parse_string(text, "v.ini", &p, err, sizeof(err)), 0);
	assert_string_equal(p.fe.speed, "8GFC");
	assert_int_equal(p.fe.protocol, PROFILE_PROTO_FC);
	assert_int_equal(p.fe.line_bytes_per_s, 800000000);
	assert_true(p.fe.overhead_pct[ENGINE_OP_READ] == 99.9);
	assert_int_equal(t->kind, PROFILE_KIND_NVME);
	assert_int_equal(t->capacity_bytes, 3ull << 39);
	assert_int_equal(t->latency[ENGINE_OP_READ].n_points, 3);
	assert_true(t->latency[ENGINE_OP_READ].points[1].pct == 99.9);
	assert_int_equal(t->latency[ENGINE_OP_READ].points[1].ns, 1500000);
	assert_int_equal(t->latency[ENGINE_OP_WRITE].fixed_ns, 500000);
	assert_int_equal(t->bandwidth_bytes_per_s[ENGINE_OP_READ], 5ull << 29);
	assert_true(p.dedupe.enabled);
}

/* [dedupe] compression and compression_keep; a null model takes them
 * (the mount compresses, not the model) and nothing else of [dedupe]. */
static void test_compression_keys(void **state)
{
	char err[PROFILE_ERR_LEN];
	struct profile p;

	assert_int_equal(profile_parse_string(
			     "[array]\nmodel = null\n[dedupe]\n"
			     "compression = zstd\ncompression_keep = half\n",
			     "c.ini", &p, err, sizeof(err)),
			 0);
	assert_int_equal(p.dedupe.compression, PROFILE_COMPRESS_ZSTD);
	assert_int_equal(p.dedupe.compression_keep, PROFILE_KEEP_HALF);
	/* profile show prints them, and what it prints parses back. */
	char *shown = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&shown, &len);
	assert_non_null(f);
	profile_print(f, &p);
	assert_int_equal(fclose(f), 0);
	assert_non_null(strstr(shown, "[dedupe]\ncompression = zstd\n"
				      "compression_keep = half\n"));
	assert_null(strstr(shown, "hash_rate"));
	struct profile q;
	assert_int_equal(
	    profile_parse_string(shown, "c.ini", &q, err, sizeof(err)), 0);
	assert_int_equal(q.dedupe.compression, PROFILE_COMPRESS_ZSTD);
	assert_int_equal(q.dedupe.compression_keep, PROFILE_KEEP_HALF);
	free(shown);
	assert_int_equal(
	    profile_parse_string("[array]\nmodel = null\n[dedupe]\n"
				 "compression = lz4\nenabled = yes\n",
				 "c.ini", &p, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "model = null takes no other section"));
	assert_int_equal(
	    profile_parse_string("[array]\nmodel = null\n[dedupe]\n"
				 "compression_keep = most\n",
				 "c.ini", &p, err, sizeof(err)),
	    -EINVAL);
	assert_non_null(strstr(err, "most"));
	(void)state;
}

/* [nodes]: its defaults, `profile show` printing it (and only with more
 * than one node) in a form that parses back to the same profile. */
static void test_nodes(void **state)
{
	char *text =
	    t_with("write_latency = 50us\n",
		   "write_latency = 50us\n[nodes]\ncount = 4\n"
		   "placement = object\nraid = raid1\n"
		   "interconnect = IB-QDR\ninterconnect_latency = 2us\n");
	char err[PROFILE_ERR_LEN], *once, *twice;
	struct profile p, q;

	assert_int_equal(
	    profile_parse_string(base, "n.ini", &p, err, sizeof(err)), 0);
	assert_int_equal(p.nodes.count, 1);
	once = t_print(&p);
	assert_null(strstr(once, "[nodes]"));
	free(once);
	assert_int_equal(
	    profile_parse_string(text, "n.ini", &p, err, sizeof(err)), 0);
	assert_int_equal(p.nodes.count, 4);
	assert_int_equal(p.nodes.placement, PROFILE_PLACE_OBJECT);
	assert_int_equal(p.nodes.raid, PROFILE_NRAID_RAID1);
	assert_int_equal(p.nodes.stripe_unit_bytes, 1 << 20);
	assert_int_equal(p.nodes.net.links, 1);
	assert_int_equal(p.nodes.net.line_bytes_per_s, 4000000000ull);
	assert_int_equal(p.nodes.net.request_ns, 2000);
	once = t_print(&p);
	assert_non_null(strstr(once, "\n[nodes]\ncount = 4\nplacement = "
				     "object\nraid = raid1\nstripe_unit = "
				     "1M\ninterconnect = IB-QDR\n"
				     "interconnect_links = 1\n"
				     "interconnect_latency = 2us\n"));
	assert_int_equal(
	    profile_parse_string(once, "n.ini", &q, err, sizeof(err)), 0);
	twice = t_print(&q);
	assert_string_equal(once, twice);
	free(once);
	free(twice);
	free(text);
	assert_int_equal(profile_parse_string("[array]\nmodel = null\n"
					      "[nodes]\ncount = 2\n",
					      "n.ini", &p, err, sizeof(err)),
			 -EINVAL);
	assert_string_equal(err,
			    "n.ini:3: [nodes]: model = null takes no other "
			    "section");
	(void)state;
}

static void test_load(void **state)
{
	char err[PROFILE_ERR_LEN];
	struct profile p;

	assert_int_equal(profile_load("null", &p, err, sizeof(err)), 0);
	assert_int_equal(p.model, PROFILE_MODEL_NULL);
	assert_int_equal(profile_load("nonesuch", &p, err, sizeof(err)),
			 -ENOENT);
	assert_string_equal(err, "unknown profile 'nonesuch' (see: arraysim "
				 "profiles; a file needs a '/' or .ini)");
	assert_int_equal(
	    profile_load("/nonexistent/x.ini", &p, err, sizeof(err)), -ENOENT);
	assert_string_equal(err, "profile /nonexistent/x.ini: No such file or "
				 "directory");
}

static void test_scale(void **state)
{
	static const char *const bad[] = {"0",	  "",	 "abc", "-1", "1e3",
					  "1001", "0.0", "1.",	" 1", "1 "};
	double f = 0;

	assert_int_equal(profile_parse_scale("0.5", &f), 0);
	assert_true(f == 0.5);
	assert_int_equal(profile_parse_scale("1000", &f), 0);
	assert_true(f == 1000.0);
	assert_int_equal(profile_parse_scale("0.001", &f), 0);
	assert_true(f == 0.001);
	for (size_t i = 0; i < sizeof(bad) / sizeof(*bad); i++)
		assert_int_equal(profile_parse_scale(bad[i], &f), -EINVAL);
	assert_int_equal(profile_parse_scale(NULL, &f), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_errors),
	    cmocka_unit_test(test_rebuild_rate_beyond_drives),
	    cmocka_unit_test(test_cache_too_big),
	    cmocka_unit_test(test_line_too_long),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_values),
	    cmocka_unit_test(test_load),
	    cmocka_unit_test(test_nodes),
	    cmocka_unit_test(test_compression_keys),
	    cmocka_unit_test(test_scale),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
