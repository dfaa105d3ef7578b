/* Array profiles: the key table. One row per key drives the parser, the
 * defaults, the error messages and `profile show` (profile.c,
 * profile_check.c, profile_print.c); tiers/profiles/README.md documents
 * the same keys. */
#include "tiers/profile_i.h"

#include <stddef.h>
#include <string.h>

const char *const psec_names[PSEC_COUNT] = {
    "array", "controllers", "frontend", "tier",
    "cache", "dedupe",	    "nodes",	"replication",
};
const char *const ptier_names[PROFILE_TIER_COUNT] = {"flash", "cache",
						     "backing"};

static const char *const model_names[] = {"null", "timed", NULL};
static const char *const counter_names[] = {"usage", "core", "utilization",
					    NULL};
static const char *const ha_names[] = {"single", "active-standby",
				       "active-active", NULL};
static const char *const wcache_names[] = {"none", "unmirrored", "mirrored",
					   NULL};
static const char *const shutdown_names[] = {"eio", "block", NULL};
const char *const protocol_names[] = {"nfs", "iscsi", "fc", "local", NULL};
static const char *const kind_names[] = {"nvme", "ssd", "hdd", NULL};
static const char *const raid_names[] = {"raid0", "raid1", "raid10",
					 "raid5", "raid6", NULL};
static const char *const policy_names[] = {"write-back", "write-through",
					   "write-around", NULL};
static const char *const evict_names[] = {"lru", "arc", NULL};
static const char *const compress_names[] = {"none", "lz4", "zstd", NULL};
static const char *const keep_names[] = {"any", "half", NULL};
static const char *const reduce_names[] = {"inline", "destage", NULL};
static const char *const from_names[] = {"cache", "memory", NULL};
static const char *const placement_names[] = {"fingerprint", "object", NULL};
static const char *const nraid_names[] = {"none", "raid1", "raid5", "raid6",
					  NULL};

/* One key: section, name, type, field, default (NULL: required), then
 * the optional fields by name. */
#define KEY(s, k, t, off, def, ...)                                            \
	{                                                                      \
		.sec = s, .key = k, .type = t, .offset = off, .deflt = def,    \
		__VA_ARGS__                                                    \
	}
#define P(f) offsetof(struct profile, f)
#define T(f) offsetof(struct profile_tier, f)
#define R ENGINE_OP_READ
#define W ENGINE_OP_WRITE
/* Sorted by section, then in the order `profile show` prints them. */
const struct pkey pkeys[] = {
    KEY(PSEC_ARRAY, "description", PK_STRING, P(description), "",
	.help = "one line"),
    KEY(PSEC_ARRAY, "model", PK_ENUM, P(model), "timed", .names = model_names,
	.what = "model",
	.help = "null: no timing at all; timed: the sections below"),
    KEY(PSEC_CONTROLLERS, "count", PK_UINT, P(ctl.count), "1", .min = 1,
	.max = 64),
    KEY(PSEC_CONTROLLERS, "mode", PK_ENUM, P(ctl.ha), "single",
	.names = ha_names, .what = "controller mode"),
    KEY(PSEC_CONTROLLERS, "cores", PK_UINT, P(ctl.cores), "1", .min = 1,
	.max = 1024,
	.help = "physical cores: operations each controller processes at "
		"once (times threads_per_core)"),
    KEY(PSEC_CONTROLLERS, "threads_per_core", PK_UINT, P(ctl.threads_per_core),
	"1", .min = 1, .max = 8,
	.help = "hardware threads a core (SMT, hyper-threading)"),
    KEY(PSEC_CONTROLLERS, "smt_yield", PK_DECIMAL, P(ctl.smt_yield), "1",
	.help = "a core's work with all its threads busy, over one "
		"thread's: 1 to threads_per_core"),
    KEY(PSEC_CONTROLLERS, "cpu_counter", PK_ENUM, P(ctl.cpu_counter), "usage",
	.names = counter_names, .what = "CPU counter",
	.help = "the CPU figure printed: usage, core or utilization"),
    KEY(PSEC_CONTROLLERS, "frontend_op_cost", PK_DURATION,
	P(ctl.frontend_op_ns), "0", .help = "CPU per host operation"),
    KEY(PSEC_CONTROLLERS, "backend_op_cost", PK_DURATION, P(ctl.backend_op_ns),
	"0", .help = "CPU per drive operation"),
    KEY(PSEC_CONTROLLERS, "write_cache", PK_ENUM, P(ctl.write_cache), "none",
	.names = wcache_names, .what = "write cache"),
    KEY(PSEC_CONTROLLERS, "mirror_latency", PK_DURATION, P(ctl.mirror_ns), "0",
	.help = "copying a write to the partner controller"),
    KEY(PSEC_CONTROLLERS, "write_backlog", PK_DURATION, P(ctl.write_backlog_ns),
	"100ms", .help = "how far drives may lag acknowledged writes"),
    KEY(PSEC_CONTROLLERS, "failover_time", PK_DURATION, P(ctl.failover_ns),
	"10s", .help = "I/O stall when a serving controller fails"),
    KEY(PSEC_CONTROLLERS, "recovery_time", PK_DURATION, P(ctl.recovery_ns), "0",
	.help = "a restored controller serves again after this"),
    KEY(PSEC_CONTROLLERS, "shutdown", PK_ENUM, P(ctl.shutdown), "eio",
	.names = shutdown_names, .what = "shutdown mode",
	.help = "I/O while too few controllers are up: eio or block"),
    KEY(PSEC_FRONTEND, "protocol", PK_ENUM, P(fe.protocol), "nfs",
	.names = protocol_names, .what = "protocol",
	.help = "nfs, iscsi (software), fc or local; not given: the "
		"link's own (profile_check.c)"),
    KEY(PSEC_FRONTEND, "links", PK_UINT, P(fe.links), "1", .min = 1, .max = 64),
    KEY(PSEC_FRONTEND, "speed", PK_LINK, P(fe), NULL),
    KEY(PSEC_FRONTEND, "read_overhead", PK_PERCENT, P(fe.overhead_pct[R]), "0%",
	.help = "line rate lost to protocol, array to host"),
    KEY(PSEC_FRONTEND, "write_overhead", PK_PERCENT, P(fe.overhead_pct[W]),
	"0%", .help = "line rate lost to protocol, host to array"),
    KEY(PSEC_FRONTEND, "write_staging", PK_BOOL, P(fe.write_staging), "no",
	.help = "yes: a write arrives whole before the controller starts"),
    KEY(PSEC_FRONTEND, "request_latency", PK_DURATION, P(fe.request_ns), "0",
	.help = "protocol round trip per request"),
    KEY(PSEC_FRONTEND, "multipath_timeout", PK_DURATION,
	P(fe.multipath_timeout_ns), "5s",
	.help = "I/O stall when a front-end path is lost"),
    KEY(PSEC_TIER, "kind", PK_ENUM, T(kind), NULL, .names = kind_names,
	.what = "drive kind"),
    KEY(PSEC_TIER, "drives", PK_UINT, T(drives), NULL, .min = 1,
	.max = PROFILE_MAX_DRIVES),
    KEY(PSEC_TIER, "capacity", PK_SIZE, T(capacity_bytes), NULL,
	.help = "per drive"),
    KEY(PSEC_TIER, "raid", PK_ENUM, T(raid), NULL, .names = raid_names,
	.what = "RAID level"),
    KEY(PSEC_TIER, "stripe_width", PK_UINT, T(stripe_width), "0",
	.max = PROFILE_MAX_WIDTH,
	.help = "drives per RAID set (raid5/6; 0: all)"),
    KEY(PSEC_TIER, "stripe_unit", PK_SIZE, T(stripe_unit_bytes), "64K"),
    KEY(PSEC_TIER, "scatter", PK_SIZE, T(scatter_bytes), "0",
	.help = "write-anywhere: each piece of this size lies apart (0: off)"),
    KEY(PSEC_TIER, "read_latency", PK_DIST, T(latency[R]), NULL),
    KEY(PSEC_TIER, "write_latency", PK_DIST, T(latency[W]), NULL),
    KEY(PSEC_TIER, "slots", PK_UINT, T(slots), "1", .min = 1, .max = 1024,
	.help = "commands a drive serves at once"),
    KEY(PSEC_TIER, "read_bandwidth", PK_RATE, T(bandwidth_bytes_per_s[R]), "0"),
    KEY(PSEC_TIER, "write_bandwidth", PK_RATE, T(bandwidth_bytes_per_s[W]),
	"0"),
    KEY(PSEC_TIER, "read_iops", PK_U64, T(iops[R]), "0"),
    KEY(PSEC_TIER, "write_iops", PK_U64, T(iops[W]), "0"),
    KEY(PSEC_TIER, "read_media_rate", PK_RATE, T(media_bytes_per_s[R]), "0",
	.help = "per drive: read bytes' cost beside 1/read_iops; 0: none"),
    KEY(PSEC_TIER, "write_media_rate", PK_RATE, T(media_bytes_per_s[W]), "0",
	.help = "per drive: written bytes' cost beside 1/write_iops "
		"(garbage collection); 0: none"),
    KEY(PSEC_TIER, "rpm", PK_UINT, T(rpm), "0", .max = 30000),
    KEY(PSEC_TIER, "track_seek", PK_DURATION, T(track_seek_ns), "0"),
    KEY(PSEC_TIER, "full_seek", PK_DURATION, T(full_seek_ns), "0"),
    KEY(PSEC_TIER, "fill", PK_PERCENT, T(fill_pct), "70%",
	.help = "used share of each drive: what a rebuild copies"),
    KEY(PSEC_TIER, "rebuild_rate", PK_RATE, T(rebuild_bytes_per_s), "0",
	.help = "per failed drive; 0: fill x capacity in one hour"),
    KEY(PSEC_TIER, "detection_window", PK_DURATION, T(detection_ns), "30s",
	.help = "a drive back within this was never missed"),
    KEY(PSEC_CACHE, "policy", PK_ENUM, P(cache.policy), "write-back",
	.names = policy_names, .what = "cache policy"),
    KEY(PSEC_CACHE, "size", PK_SIZE, P(cache.size_bytes), NULL),
    KEY(PSEC_CACHE, "eviction", PK_ENUM, P(cache.eviction), "lru",
	.names = evict_names, .what = "eviction"),
    KEY(PSEC_CACHE, "promote_on_read_miss", PK_BOOL,
	P(cache.promote_on_read_miss), "yes"),
    KEY(PSEC_CACHE, "mirrored", PK_BOOL, P(cache.mirrored), "no",
	.help = "dirty blocks kept on a second device: survive a cache "
		"device failure"),
    KEY(PSEC_CACHE, "destage_start", PK_PERCENT, P(cache.destage_start_pct),
	"60%", .help = "dirty share of the cache that starts destaging"),
    KEY(PSEC_CACHE, "destage_stop", PK_PERCENT, P(cache.destage_stop_pct),
	"40%", .help = "dirty share at which destaging pauses"),
    KEY(PSEC_CACHE, "destage_rate", PK_RATE, P(cache.destage_bytes_per_s),
	NULL),
    KEY(PSEC_CACHE, "destage_interval", PK_DURATION,
	P(cache.destage_interval_ns), "0",
	.help = "every dirty block destaged at least this often, whatever "
		"the dirty share (ZFS's txg timeout); 0: never by time"),
    KEY(PSEC_CACHE, "destage_from", PK_ENUM, P(cache.destage_from), "cache",
	.names = from_names, .what = "destage_from",
	.help = "cache: a destage reads the block from the cache tier; "
		"memory: from RAM (ZFS's transaction group; the log on the "
		"cache tier is only written)"),
    KEY(PSEC_CACHE, "throttle_start", PK_PERCENT, P(cache.throttle_start_pct),
	"0%",
	.help = "dirty share above which writes wait for the destager "
		"(0%: never)"),
    KEY(PSEC_DEDUPE, "enabled", PK_BOOL, P(dedupe.enabled), "no"),
    KEY(PSEC_DEDUPE, "cpu_cost", PK_DURATION, P(dedupe.cpu_ns), "0",
	.help = "controller CPU per 4 KiB block (index lookup)"),
    KEY(PSEC_DEDUPE, "hash_rate", PK_RATE, P(dedupe.hash_bytes_per_s), "0",
	.help = "fingerprinting per core, bytes/s (0: free)"),
    KEY(PSEC_DEDUPE, "compression", PK_ENUM, P(dedupe.compression), "none",
	.names = compress_names, .what = "compression",
	.help = "each unique block compressed as it is stored"),
    KEY(PSEC_DEDUPE, "compression_keep", PK_ENUM, P(dedupe.compression_keep),
	"any", .names = keep_names, .what = "compression_keep",
	.help = "any: kept compressed when it shrinks; half: only when it "
		"halves (vSAN)"),
    KEY(PSEC_DEDUPE, "compress_rate", PK_RATE, P(dedupe.compress_bytes_per_s),
	"0",
	.help = "compression per core, bytes/s, of each unique block "
		"(0: free)"),
    KEY(PSEC_DEDUPE, "after_ack", PK_BOOL, P(dedupe.after_ack), "no",
	.help = "yes: with a write cache, dedupe runs after the ack"),
    KEY(PSEC_DEDUPE, "reduce_at", PK_ENUM, P(dedupe.reduce_at), "inline",
	.names = reduce_names, .what = "reduce_at",
	.help = "inline: on the write; destage: on the way from the cache "
		"tier to the backing tier (vSAN)"),
    /* [nodes]: only when given (profile_check.c); else one node. */
    KEY(PSEC_NODES, "count", PK_UINT, P(nodes.count), NULL, .min = 2, .max = 64,
	.help = "nodes, each a copy of the controllers, links "
		"and drives"),
    KEY(PSEC_NODES, "placement", PK_ENUM, P(nodes.placement), NULL,
	.names = placement_names, .what = "placement",
	.help = "fingerprint: each 4K block by its fingerprint; object: "
		"stripes over consecutive nodes"),
    KEY(PSEC_NODES, "raid", PK_ENUM, P(nodes.raid), "none",
	.names = nraid_names, .what = "RAID level across nodes",
	.help = "object placement: raid1 (2 copies), raid5 (3+1), raid6 "
		"(4+2), each member on its own node"),
    KEY(PSEC_NODES, "stripe_unit", PK_SIZE, P(nodes.stripe_unit_bytes), "1M",
	.help = "object placement: bytes per member per stripe"),
    KEY(PSEC_NODES, "interconnect", PK_LINK, P(nodes.net), NULL,
	.help = "the link speed between nodes"),
    KEY(PSEC_NODES, "interconnect_links", PK_UINT, P(nodes.net.links), "1",
	.min = 1, .max = 64, .help = "interconnect ports per node"),
    KEY(PSEC_NODES, "interconnect_latency", PK_DURATION,
	P(nodes.net.request_ns), "0",
	.help = "one hop between nodes, beside the transfer"),
    KEY(PSEC_NODES, "interconnect_cpu", PK_DURATION, P(nodes.hop_cpu_ns), "0",
	.help = "CPU per message between nodes, on each end (0: RDMA)"),
    KEY(PSEC_NODES, "repair_delay", PK_DURATION, P(nodes.repair_delay_ns),
	"60m",
	.help = "object placement: a node down this long has its "
		"components rebuilt on the others (vSAN: 60 minutes)"),
    /* The replication link (profile_calc.c: the assumptions). */
    KEY(PSEC_REPLICATION, "speed", PK_LINK, P(repl.link), "10GbE",
	.help = "the replication link: an Ethernet or FC speed"),
    KEY(PSEC_REPLICATION, "overhead", PK_PERCENT, P(repl.link.overhead_pct[W]),
	"0%",
	.help = "line rate lost to the protocol; not given: TCP/IP's "
		"on Ethernet, FCP's on FC"),
    KEY(PSEC_REPLICATION, "distance_km", PK_UINT, P(repl.distance_km), "0",
	.max = 20000, .help = "the fibre route, one way (5 us/km)"),
    KEY(PSEC_REPLICATION, "hops", PK_UINT, P(repl.hops), "2", .max = 64,
	.help = "switches and routers on the way"),
    KEY(PSEC_REPLICATION, "hop_latency", PK_DURATION, P(repl.hop_ns), "5us",
	.help = "each hop, each way"),
    KEY(PSEC_REPLICATION, "stack_latency", PK_DURATION, P(repl.stack_ns),
	"15us", .help = "both ends' network stacks and NICs, each way"),
};
#undef P
#undef T
#undef R
#undef W
#undef KEY
const unsigned n_pkeys = sizeof(pkeys) / sizeof(pkeys[0]);

_Static_assert(sizeof(pkeys) / sizeof(pkeys[0]) <= PROFILE_MAX_KEYS,
	       "pstate.key_line");

bool pkey_mount_only(const struct pkey *k)
{
	return k->sec == PSEC_DEDUPE && (!strcmp(k->key, "compression") ||
					 !strcmp(k->key, "compression_keep"));
}
