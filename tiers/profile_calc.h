/* Figures derived from a resolved profile (profile_calc.c). */
#ifndef ARRAYSIM_TIERS_PROFILE_CALC_H
#define ARRAYSIM_TIERS_PROFILE_CALC_H

#include "tiers/profile_types.h"

/* Usable bytes of tier @t after RAID (the capacity data can fill). */
uint64_t profile_tier_usable_bytes(const struct profile_tier *t);
/* The tier that holds the data: flash (all-flash), else backing. */
unsigned profile_data_tier(const struct profile *p);
/* Members of one stripe across nodes ([nodes] raid): 1 (none), 2 (raid1,
 * FTT=1), 4 (raid5, 3+1), 6 (raid6, 4+2), vSAN's fixed layouts. */
unsigned profile_node_width(enum profile_node_raid r);
/* One link's data rate in direction @op after protocol overhead. */
double profile_link_bytes_per_s(const struct profile_frontend *fe,
				enum engine_op op);

/* The bytes a request of @length data puts on the wire beyond the
 * overheads' share: iSCSI's further PDU headers. */
uint64_t profile_wire_bytes(const struct profile_frontend *fe, uint64_t length);
/* iSCSI R2T round trips a request waits for (0 but iSCSI writes). */
unsigned profile_r2t_rounds(const struct profile_frontend *fe,
			    enum engine_op op, uint64_t length);
/* The delay the protocol adds to a request beyond request_latency: the
 * software initiator and the R2T round trips (iSCSI only). */
uint64_t profile_protocol_ns(const struct profile_frontend *fe,
			     enum engine_op op, uint64_t length);
/* The protocol family a link speed carries: NFS for Ethernet (nfs or
 * iscsi), FC, LOCAL for SATA and SAS. */
enum profile_protocol profile_link_family(const struct profile_frontend *fe);

/* The replication link (profile_calc.c's assumptions): one way, and the
 * round trip, in ns (unscaled). */
uint64_t profile_repl_one_way_ns(const struct profile_replication *r);
uint64_t profile_repl_rtt_ns(const struct profile_replication *r);
/* The protocol's share of @link's line rate, a percentage: TCP/IP on
 * Ethernet, FCP on FC. */
double profile_repl_overhead_pct(const struct profile_frontend *link);

/* Controllers' CPU figure by @c's cpu_counter, a share of their cores
 * (0..1) over @el_ns, from their engine counters @s summed over @slots
 * (tiers/README.md, "CPU figures"): usage and core, core busy time over
 * cores; utilization, busy threads over threads. */
double profile_cpu_share(const struct profile_controllers *c,
			 const struct engine_resource_stats *s, unsigned slots,
			 double el_ns);
/* The same as busy time a core (usage, core) or a thread (utilization),
 * ns: what the snapshot, the samples and Prometheus count. */
uint64_t profile_cpu_busy_ns(const struct profile_controllers *c,
			     const struct engine_resource_stats *s,
			     unsigned slots);
/* The name of @c's cpu_counter: "usage", "core", "utilization". */
const char *profile_cpu_counter_name(const struct profile_controllers *c);
/* What the counter named @name counts, in a sentence; NULL for a name
 * this arraysim does not know (or NULL). */
const char *profile_cpu_counter_what(const char *name);

#endif
