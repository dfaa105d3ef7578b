/* Figures derived from a resolved profile: its data tier, a tier's usable
 * capacity by RAID level, a link's payload rate, what the front-end
 * protocol adds to a request. Pure functions of
 * struct profile, used by the checks, the RAID expansion, the model and
 * `profile show` alike; they call nothing else of tiers/.
 */
#include "tiers/profile_calc.h"

#include <string.h>

unsigned profile_data_tier(const struct profile *p)
{
	return p->tier[PROFILE_TIER_FLASH].present ? PROFILE_TIER_FLASH
						   : PROFILE_TIER_BACKING;
}

uint64_t profile_tier_usable_bytes(const struct profile_tier *t)
{
	uint64_t sets = t->stripe_width ? t->drives / t->stripe_width : 0;

	switch (t->raid) {
	case PROFILE_RAID0:
		return t->capacity_bytes * t->drives;
	case PROFILE_RAID1:
		return t->capacity_bytes;
	case PROFILE_RAID10:
		return t->capacity_bytes * (t->drives / 2);
	case PROFILE_RAID5:
		return t->capacity_bytes * sets * (t->stripe_width - 1);
	case PROFILE_RAID6:
		return t->capacity_bytes * sets * (t->stripe_width - 2);
	}
	return 0;
}

unsigned profile_node_width(enum profile_node_raid r)
{
	static const unsigned w[] = {1, 2, 4, 6};

	return w[r];
}

double profile_link_bytes_per_s(const struct profile_frontend *fe,
				enum engine_op op)
{
	return (double)fe->line_bytes_per_s *
	       (1.0 - fe->overhead_pct[op] / 100.0);
}

/* ---- the front-end protocol ----------------------------------------------
 *
 * What each protocol costs, from its wire format, with the assumptions
 * stated once here (tiers/README.md refers to this table).
 *
 * nfs (NFSv3 over TCP, ESXi's client) is the baseline the [frontend] keys
 * describe: one RPC round trip per request (request_latency), the RPC,
 * TCP, IP and Ethernet headers in the per-direction overheads, and
 * ESXi's stable writes (FILE_SYNC: acknowledged once on the write cache
 * or, with write_cache = none, on the drives, as the model does). It adds
 * nothing to them.
 *
 * iscsi (a software initiator, over the same TCP) differs from NFS in
 * three ways, each charged on top of the keys:
 *   - PDUs: data moves in PDUs of at most MaxRecvDataSegmentLength, 8 KiB
 *     (RFC 3720's default; neither side's setting is in any report),
 *     each with a 48-byte basic header segment, header and data digests
 *     off. The command and status PDUs stand where NFS's call and reply
 *     headers stand; every further data PDU is 48 bytes more on the wire.
 *   - R2T: RFC 3720's defaults InitialR2T = Yes, ImmediateData = Yes,
 *     MaxBurstLength 256 KiB, MaxOutstandingR2T 1: a write sends at most
 *     one PDU of data with its command, and each further burst of up to
 *     256 KiB waits for the target's R2T, one more round trip
 *     (request_latency) each, one at a time. NFS sends a write's data
 *     with its call.
 *   - the initiator: ESXi's software initiator builds the PDUs on the
 *     host's cores, 20 us per I/O more than NFS's client (an assumption:
 *     VMware's protocol comparisons found software iSCSI's host CPU per
 *     I/O above NFS's, without a figure we could carry). It delays each
 *     I/O; the host has cores enough that it binds nothing.
 * fc (FCP through an HBA): frames of up to 2 KiB of payload with 36
 * bytes of header, CRC and delimiters, and idles between frames: 2.9% of
 * the line, what the FC profiles' 3% overheads are; the HBA does the
 * work, and the XFER_RDY of a write is a fabric turnaround inside
 * request_latency. It adds nothing to the keys.
 * local (a direct-attached drive, the datastore-on-file case): no network
 * protocol; the link is a SATA or SAS port. It adds nothing.
 *
 * Which links carry which protocol (checked at load): nfs and iscsi an
 * Ethernet speed, fc an FC speed, local SATA or SAS; write_staging (a
 * NAS taking a whole request off the wire) only nfs and iscsi.
 */
#define ISCSI_PDU_DATA (8u * 1024)
#define ISCSI_BHS 48u
#define ISCSI_BURST (256u * 1024)
#define ISCSI_INITIATOR_NS 20000u

uint64_t profile_wire_bytes(const struct profile_frontend *fe, uint64_t length)
{
	uint64_t pdus = (length + ISCSI_PDU_DATA - 1) / ISCSI_PDU_DATA;

	if (fe->protocol != PROFILE_PROTO_ISCSI || pdus < 2)
		return length;
	return length + (pdus - 1) * ISCSI_BHS;
}

unsigned profile_r2t_rounds(const struct profile_frontend *fe,
			    enum engine_op op, uint64_t length)
{
	if (fe->protocol != PROFILE_PROTO_ISCSI || op != ENGINE_OP_WRITE ||
	    length <= ISCSI_PDU_DATA)
		return 0;
	return (unsigned)((length - ISCSI_PDU_DATA + ISCSI_BURST - 1) /
			  ISCSI_BURST);
}

uint64_t profile_protocol_ns(const struct profile_frontend *fe,
			     enum engine_op op, uint64_t length)
{
	if (fe->protocol != PROFILE_PROTO_ISCSI)
		return 0;
	return ISCSI_INITIATOR_NS +
	       profile_r2t_rounds(fe, op, length) * fe->request_ns;
}

enum profile_protocol profile_link_family(const struct profile_frontend *fe)
{
	size_t n = strlen(fe->speed);

	if (n > 3 && !strcmp(fe->speed + n - 3, "GbE"))
		return PROFILE_PROTO_NFS;
	if (n > 3 && !strcmp(fe->speed + n - 3, "GFC"))
		return PROFILE_PROTO_FC;
	return PROFILE_PROTO_LOCAL;
}

/* ---- the replication link ------------------------------------------------
 *
 * [replication] says what the link to a replica is made of; the round
 * trip follows from it, each assumption stated once here:
 *   - light in fibre covers 1 km in 5 us (a refractive index of about
 *     1.47: 4.9 us/km, rounded up since routes bend and splice);
 *   - each hop (a switch or router) holds each message hop_latency per
 *     direction: store and forward, a 1500-byte frame's serialisation
 *     (1.2 us at 10 Gb/s) and the forwarding (5 us by default);
 *   - both ends' TCP/IP stacks and NICs take stack_latency per direction
 *     (15 us by default: netperf's TCP_RR between two Linux hosts on
 *     back-to-back 10GbE is about 30 us a round trip);
 *   - the overhead, when not given, is the protocol's: TCP/IPv4 over
 *     Ethernet at a 1500-byte MTU carries 1448 bytes (the IP header and
 *     TCP's with timestamps, 52 bytes, taken out) in 1538 on the wire
 *     (Ethernet's header, FCS, preamble and inter-frame gap, 38 bytes,
 *     added): 5.85%; FCP on FC, 2.9% (as the front end's above).
 * So round trip = 2 x (distance_km x 5 us + hops x hop_latency +
 * stack_latency). A profile without the section gets 10GbE, 0 km, 2
 * hops: a replica in the same site (the evaluation's array pair stood
 * in one lab), on a switch of each array's, over the 10 GbE ports
 * arrays of the time replicate on.
 */
#define FIBRE_NS_PER_KM 5000u
#define TCP_ETH_OVERHEAD_BP 585u /* basis points: (1538 - 1448) / 1538 */
#define FCP_OVERHEAD_BP 290u

uint64_t profile_repl_one_way_ns(const struct profile_replication *r)
{
	return (uint64_t)r->distance_km * FIBRE_NS_PER_KM +
	       (uint64_t)r->hops * r->hop_ns + r->stack_ns;
}

uint64_t profile_repl_rtt_ns(const struct profile_replication *r)
{
	return 2 * profile_repl_one_way_ns(r);
}

double profile_repl_overhead_pct(const struct profile_frontend *link)
{
	return (profile_link_family(link) == PROFILE_PROTO_FC
		    ? FCP_OVERHEAD_BP
		    : TCP_ETH_OVERHEAD_BP) /
	       100.0;
}

/* The counters (Broadcom KB 431027; VMware's esxtop documentation):
 * vCenter's default cpu.usage is each core's busy time at its clock over
 * the base clock, summed over cores (a core with both threads busy
 * counts once); core utilisation is the same by time; cpu.utilization
 * (PCPU UTIL) is busy hardware threads over all threads. The model has
 * no turbo, every core runs at its base clock, so usage and core read
 * the same here; they would differ by the all-core turbo ratio, which
 * no profile has a figure for. Without SMT the three are one figure,
 * busy cores over cores. */
double profile_cpu_share(const struct profile_controllers *c,
			 const struct engine_resource_stats *s, unsigned slots,
			 double el_ns)
{
	if (!slots || !(el_ns > 0))
		return 0;
	if (c->cpu_counter == PROFILE_CPU_UTILIZATION)
		return (double)s->busy_ns / el_ns / slots;
	return (double)s->core_busy_ns / el_ns /
	       ((double)slots / c->threads_per_core);
}

uint64_t profile_cpu_busy_ns(const struct profile_controllers *c,
			     const struct engine_resource_stats *s,
			     unsigned slots)
{
	unsigned cores = slots / c->threads_per_core;

	if (c->cpu_counter == PROFILE_CPU_UTILIZATION)
		return slots ? s->busy_ns / slots : 0;
	return cores ? s->core_busy_ns / cores : 0;
}

/* Each cpu_counter's name and what it counts (tiers/README.md, "CPU
 * figures"). */
static const struct {
	const char *name, *what;
} cpu_counters[] = {
    [PROFILE_CPU_USAGE] = {"usage",
			   "vCenter's default cpu.usage: each core's busy "
			   "time at its clock over its base clock, over the "
			   "physical cores (a core with both threads busy "
			   "counts once); the model has no turbo, so busy "
			   "cores / cores"},
    [PROFILE_CPU_CORE] = {"core",
			  "core utilisation by time (esxtop's CORE UTIL): "
			  "busy cores / cores, a core busy while any of its "
			  "threads is"},
    [PROFILE_CPU_UTILIZATION] = {"utilization",
				 "ESXi's cpu.utilization (PCPU UTIL): busy "
				 "hardware threads / all threads, 50% with one "
				 "thread busy on every core"},
};

const char *profile_cpu_counter_name(const struct profile_controllers *c)
{
	return cpu_counters[c->cpu_counter].name;
}

const char *profile_cpu_counter_what(const char *name)
{
	for (size_t i = 0;
	     name && i < sizeof(cpu_counters) / sizeof(*cpu_counters); i++)
		if (!strcmp(name, cpu_counters[i].name))
			return cpu_counters[i].what;
	return NULL;
}
