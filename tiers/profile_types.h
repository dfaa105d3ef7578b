/* struct profile: an array profile resolved, every field set (the
 * parser, tiers/profile.h, fills it; tiers/profiles/README.md describes
 * each key). Types only, so that what reads a profile need not see
 * the parser.
 */
#ifndef ARRAYSIM_TIERS_PROFILE_TYPES_H
#define ARRAYSIM_TIERS_PROFILE_TYPES_H

#include <stdbool.h>
#include <stdint.h>

#include "tiers/engine.h"

#define PROFILE_ERR_LEN 256
#define PROFILE_TEXT_LEN 160
#define PROFILE_MAX_DRIVES 1024 /* per tier */
#define PROFILE_MAX_WIDTH 64	/* members of a raid5/6 set */

enum profile_model { PROFILE_MODEL_NULL, PROFILE_MODEL_TIMED };

enum profile_ha {
	PROFILE_HA_SINGLE,	   /* one controller */
	PROFILE_HA_ACTIVE_STANDBY, /* one serves, the others wait */
	PROFILE_HA_ACTIVE_ACTIVE,  /* all serve, requests spread */
};

enum profile_write_cache {
	PROFILE_WCACHE_NONE,	   /* writes ack after the drives */
	PROFILE_WCACHE_UNMIRRORED, /* ack from controller RAM */
	PROFILE_WCACHE_MIRRORED,   /* ack once copied to a partner too */
};

/* What the array does with I/O while too few controllers (or no
 * front-end path) are left: fail it, or hold it until they return. */
enum profile_shutdown { PROFILE_SHUTDOWN_EIO, PROFILE_SHUTDOWN_BLOCK };

/* The front end's protocol (tiers/profile_calc.c says what each costs). */
enum profile_protocol {
	PROFILE_PROTO_NFS,   /* NFSv3 over TCP: the [frontend] keys' baseline */
	PROFILE_PROTO_ISCSI, /* software iSCSI over TCP */
	PROFILE_PROTO_FC,    /* FCP through an HBA */
	PROFILE_PROTO_LOCAL, /* direct attached: no network protocol */
};

enum profile_kind { PROFILE_KIND_NVME, PROFILE_KIND_SSD, PROFILE_KIND_HDD };

enum profile_raid {
	PROFILE_RAID0,
	PROFILE_RAID1,
	PROFILE_RAID10,
	PROFILE_RAID5,
	PROFILE_RAID6,
};

enum profile_policy {
	PROFILE_POLICY_WRITE_BACK,    /* writes land in flash, destaged */
	PROFILE_POLICY_WRITE_THROUGH, /* writes go to both tiers */
	PROFILE_POLICY_WRITE_AROUND,  /* writes go to the backing tier */
};

enum profile_eviction { PROFILE_EVICT_LRU, PROFILE_EVICT_ARC };

/* Which drive groups an array has: index into profile.tier. */
enum profile_tier_id {
	PROFILE_TIER_FLASH,   /* all-flash: the one tier */
	PROFILE_TIER_CACHE,   /* hybrid: the flash cache tier */
	PROFILE_TIER_BACKING, /* hybrid: the tier behind the cache */
	PROFILE_TIER_COUNT,
};

/* Which CPU figure a controller's busy % is (tiers/README.md, "CPU
 * figures"): vCenter's default cpu.usage, core busy time, or busy
 * hardware threads (ESXi's cpu.utilization). */
enum profile_cpu_counter {
	PROFILE_CPU_USAGE,
	PROFILE_CPU_CORE,
	PROFILE_CPU_UTILIZATION,
};

struct profile_controllers {
	unsigned count;
	enum profile_ha ha;
	unsigned cores;		   /* operations processed in parallel, each */
	unsigned threads_per_core; /* SMT: hardware threads a core, 1..8 */
	/* A core's work with all its threads busy, over one thread's:
	 * 1..threads_per_core (engine.h, struct engine_resource_conf). */
	double smt_yield;
	enum profile_cpu_counter cpu_counter;
	uint64_t frontend_op_ns; /* CPU per front-end (host) operation */
	uint64_t backend_op_ns;	 /* CPU per back-end (drive) operation */
	enum profile_write_cache write_cache;
	uint64_t mirror_ns; /* copying a write to the partner's cache */
	/* How far the drives may lag behind acknowledged writes before a
	 * write waits for them (the write cache's depth, in time). */
	uint64_t write_backlog_ns;
	/* Faults (tiers/model_faults.c): I/O stalls this long when a
	 * serving controller fails; a restored one serves again after
	 * recovery_ns; shutdown when too few are left. */
	uint64_t failover_ns;
	uint64_t recovery_ns;
	enum profile_shutdown shutdown;
};

struct profile_frontend {
	enum profile_protocol protocol;
	unsigned links;
	char speed[24];		   /* the name given: "10GbE", "8GFC" */
	uint64_t line_bytes_per_s; /* that speed's data rate, per direction */
	/* Share of the line rate lost to the protocol, per direction:
	 * [READ] array to host, [WRITE] host to array. */
	double overhead_pct[ENGINE_OP_COUNT];
	/* A write's data is received whole before the controller starts
	 * (a NAS taking an NFS or iSCSI request); else it streams through
	 * to the drives (SATA, FC DMA). */
	bool write_staging;
	uint64_t request_ns; /* protocol round trip each request pays */
	/* The host's multipath layer notices a dead path after this long;
	 * I/O in flight on it stalls until then. */
	uint64_t multipath_timeout_ns;
};

struct profile_tier {
	bool present;
	enum profile_kind kind;
	unsigned drives;
	uint64_t capacity_bytes; /* per drive */
	enum profile_raid raid;
	unsigned stripe_width;	    /* drives per RAID set (raid5/6) */
	uint64_t stripe_unit_bytes; /* contiguous bytes per member */
	/* Write-anywhere layout: each piece of this many bytes of a host
	 * I/O lies at its own place in the tier (0: host offsets map
	 * straight onto the RAID layout). */
	uint64_t scatter_bytes;
	struct engine_dist latency[ENGINE_OP_COUNT]; /* per drive */
	unsigned slots; /* commands a drive runs in parallel */
	uint64_t bandwidth_bytes_per_s[ENGINE_OP_COUNT]; /* 0: no cap */
	uint64_t iops[ENGINE_OP_COUNT];			 /* 0: no cap */
	/* Booked on the iops gate per byte, beside 1 / iops (a full SSD's
	 * garbage collection per byte written); 0: none. */
	uint64_t media_bytes_per_s[ENGINE_OP_COUNT];
	unsigned rpm;			      /* hdd only */
	uint64_t track_seek_ns, full_seek_ns; /* hdd only */
	/* Faults: a failed drive is rebuilt at rebuild_bytes_per_s (per
	 * drive; resolved from fill when 0: one hour for the used part)
	 * for capacity x fill_pct; a pull shorter than detection_ns is
	 * not noticed. */
	uint64_t rebuild_bytes_per_s;
	double fill_pct;
	uint64_t detection_ns;
};

enum profile_destage_from { PROFILE_DESTAGE_CACHE, PROFILE_DESTAGE_MEMORY };

struct profile_cache {
	enum profile_policy policy;
	uint64_t size_bytes;
	enum profile_eviction eviction;
	bool promote_on_read_miss;
	bool mirrored; /* dirty blocks survive a cache device failure */
	double destage_start_pct; /* dirty share that starts destaging */
	double destage_stop_pct;  /* ... and that stops it */
	uint64_t destage_bytes_per_s;
	/* A destage of every dirty block at least this often (ZFS's txg
	 * timeout); 0: the dirty share alone starts one. */
	uint64_t destage_interval_ns;
	/* Where a destage reads its block: the cache tier, or RAM (ZFS: a
	 * transaction group is written from memory; the intent log on the
	 * SSDs is written, read only to recover). */
	enum profile_destage_from destage_from;
	/* Dirty share above which each write waits for the destager's lag
	 * (cache_throttle.c); 0: never (no throttle). */
	double throttle_start_pct;
};

/* Compression of each unique block as it is stored (values match
 * dedupe/compress.h's enum dedupe_compress). */
enum profile_compress {
	PROFILE_COMPRESS_NONE,
	PROFILE_COMPRESS_LZ4,
	PROFILE_COMPRESS_ZSTD,
};

/* Which compressed blocks are kept compressed: any that shrinks, or (the
 * vSAN rule) only those that shrink to half or less. */
enum profile_compress_keep { PROFILE_KEEP_ANY, PROFILE_KEEP_HALF };

/* Where the dedupe work (fingerprint, lookup, compression) runs: on the
 * write, or (vSAN) on each block's way from the cache tier to the
 * backing tier, which then writes only what reduction leaves. */
enum profile_reduce_at { PROFILE_REDUCE_INLINE, PROFILE_REDUCE_DESTAGE };

struct profile_dedupe {
	bool enabled;
	enum profile_compress compression;
	enum profile_compress_keep compression_keep;
	uint64_t cpu_ns; /* index lookup and metadata, per 4 KiB block */
	/* Per-byte work on written data, per core (0: none): the
	 * fingerprint (SHA-1) of each byte, and the compression of each
	 * byte of a unique block when compression is not none. */
	uint64_t hash_bytes_per_s, compress_bytes_per_s;
	/* With a write cache: the dedupe work runs after the ack, on the
	 * write's way to the drives (NVRAM first), not before it. */
	bool after_ack;
	enum profile_reduce_at reduce_at;
};

/* How a request's data is spread over the nodes ([nodes] placement). */
enum profile_placement {
	/* Each 4 KiB block on the node its content fingerprint picks,
	 * uniformly over all nodes (XtremIO); protection inside the node. */
	PROFILE_PLACE_FINGERPRINT,
	/* Each stripe of an object on consecutive nodes, its members (copies
	 * or EC data and parity) on different nodes (vSAN components). */
	PROFILE_PLACE_OBJECT,
};

/* Protection across nodes (object placement): the object's members on
 * different nodes, vSAN's layouts (laid out as raid.c lays out the
 * enum profile_raid level of the same name; none as raid0). */
enum profile_node_raid {
	PROFILE_NRAID_NONE,  /* each stripe unit on one node */
	PROFILE_NRAID_RAID1, /* FTT=1: two copies on two nodes */
	PROFILE_NRAID_RAID5, /* 3 data + 1 parity on four nodes */
	PROFILE_NRAID_RAID6, /* 4 data + 2 parity on six nodes */
};

/* Several nodes (X-Bricks, hosts), each a copy of [controllers], the
 * [frontend] links and the tiers, joined by an interconnect. count 1: one
 * node, no interconnect (the array as before [nodes] existed). */
struct profile_nodes {
	unsigned count;
	enum profile_placement placement;
	enum profile_node_raid raid;
	uint64_t stripe_unit_bytes; /* object placement: bytes per member */
	/* The interconnect, each node's ports: links, speed and line rate,
	 * and request_ns as one hop's latency (the other fields unused). */
	struct profile_frontend net;
	/* CPU per message over the interconnect, on each end (a TCP stack's
	 * work; 0: RDMA, the adapters move the data). */
	uint64_t hop_cpu_ns;
	/* Object placement with [nodes] raid: how long a node is down
	 * before its components are rebuilt on the others. */
	uint64_t repair_delay_ns;
};

/* The link to a replica (a mount with --replicate-to): its speed and
 * protocol overhead, and the way there, from which the round trip is
 * computed (profile_calc.c states the assumptions). */
struct profile_replication {
	/* speed, line_bytes_per_s and overhead_pct (both directions the
	 * same) only: a link as the front end's are. */
	struct profile_frontend link;
	unsigned distance_km; /* fibre route, one way */
	unsigned hops;	      /* switches or routers on the way */
	uint64_t hop_ns;      /* each hop, each way */
	uint64_t stack_ns;    /* both ends' network stacks, each way */
};

struct profile {
	char name[64]; /* file stem or built-in name */
	char description[PROFILE_TEXT_LEN];
	enum profile_model model; /* null: no timing, nothing else applies */
	struct profile_controllers ctl;
	struct profile_frontend fe;
	struct profile_tier tier[PROFILE_TIER_COUNT];
	struct profile_cache cache; /* hybrid only */
	struct profile_dedupe dedupe;
	struct profile_nodes nodes;
	struct profile_replication repl;
};

struct profile_builtin {
	const char *name;
	const char *text; /* the .ini file's contents */
};

#endif
