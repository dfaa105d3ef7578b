/* Array profiles: defaults and the checks that span keys.
 *
 * After parsing, every key of every section that applies is either given
 * or takes its default from pkeys[] (parsed like a value); a required key
 * missing is an error naming the section. Then the checks no single value
 * can make: RAID layouts against drive counts, a cache no larger than its
 * tier, an HDD with a spindle speed, and so on. Each error names the line
 * of the key that is wrong (or of its section when the key is missing).
 *
 * Which sections apply:
 *   model = null     [array] only
 *   all-flash        [controllers] [frontend] [tier flash] [dedupe]
 *   hybrid           [controllers] [frontend] [tier cache] [tier backing]
 *                    [cache] [dedupe]
 *   either, and      [nodes] when given (else one node)
 */
#include "tiers/profile_check_i.h"

#include <errno.h>
#include <string.h>

#include "common/block.h"
#include "tiers/drive.h"
#include "tiers/profile_calc.h"
#include "tiers/raid.h"

/* The line to name for key @name of (@sec, @slot): its own, else its
 * section's (0 if neither was given). */
static int key_line(const struct pstate *st, enum psec sec, unsigned slot,
		    const char *name)
{
	int i = pkey_find(sec, name);

	if (i >= 0 && st->key_line[i][slot])
		return st->key_line[i][slot];
	return st->sec_line[sec][slot];
}

#define FAIL(st, sec, slot, key, ...)                                          \
	do {                                                                   \
		pstate_error(st, key_line(st, sec, slot, key), sec, slot, key, \
			     __VA_ARGS__);                                     \
		return -EINVAL;                                                \
	} while (0)

/* Fill the unset keys of section (@sec, @slot) from their defaults. */
static int fill_defaults(struct pstate *st, enum psec sec, unsigned slot)
{
	for (unsigned i = 0; i < n_pkeys; i++) {
		const struct pkey *k = &pkeys[i];

		if (k->sec != sec || st->key_line[i][slot])
			continue;
		if (!k->deflt)
			FAIL(st, sec, slot, k->key, "missing (no default)");
		/* Defaults are ours and parse; a failure is a table bug. */
		if (pkey_set(st, k, slot, pkey_field(st->p, k, slot), k->deflt))
			return -EINVAL;
	}
	return 0;
}

static int check_controllers(struct pstate *st)
{
	const struct profile_controllers *c = &st->p->ctl;
	enum psec s = PSEC_CONTROLLERS;

	if (c->ha == PROFILE_HA_SINGLE && c->count != 1)
		FAIL(st, s, 0, "count",
		     "%u controllers need mode = active-standby or "
		     "active-active (mode is single)",
		     c->count);
	if (c->ha != PROFILE_HA_SINGLE && c->count < 2)
		FAIL(st, s, 0, "mode", "needs count >= 2, or mode = single");
	if (c->write_cache == PROFILE_WCACHE_MIRRORED && c->count < 2)
		FAIL(st, s, 0, "write_cache",
		     "mirrored needs a partner controller (count >= 2)");
	if (c->write_cache != PROFILE_WCACHE_MIRRORED && c->mirror_ns)
		FAIL(st, s, 0, "mirror_latency",
		     "only with write_cache = mirrored");
	if (!(c->smt_yield >= 1.0 && c->smt_yield <= c->threads_per_core))
		FAIL(st, s, 0, "smt_yield",
		     "%g is not from 1 to threads_per_core (%u)", c->smt_yield,
		     c->threads_per_core);
	return 0;
}

static const char *const link_family_names[] = {
    [PROFILE_PROTO_NFS] = "an Ethernet speed (1GbE..100GbE)",
    [PROFILE_PROTO_ISCSI] = "an Ethernet speed (1GbE..100GbE)",
    [PROFILE_PROTO_FC] = "an FC speed (4GFC..32GFC)",
    [PROFILE_PROTO_LOCAL] = "a SATA or SAS speed",
};

/* The protocol against the link that carries it (profile_calc.c). Not
 * given, it is the link's own (nfs on Ethernet, fc, local on SATA and
 * SAS): what every profile assumed before the key existed. */
static int check_protocol(struct pstate *st)
{
	struct profile_frontend *fe = &st->p->fe;

	if (!st->key_line[pkey_find(PSEC_FRONTEND, "protocol")][0])
		fe->protocol = profile_link_family(fe);
	enum profile_protocol want = fe->protocol == PROFILE_PROTO_ISCSI
					 ? PROFILE_PROTO_NFS
					 : fe->protocol;

	if (!strncmp(fe->speed, "IB-", 3))
		FAIL(st, PSEC_FRONTEND, 0, "speed",
		     "InfiniBand joins nodes ([nodes] interconnect), not "
		     "hosts");
	if (profile_link_family(fe) != want)
		FAIL(st, PSEC_FRONTEND, 0, "protocol",
		     "%s needs %s (speed is %s)", protocol_names[fe->protocol],
		     link_family_names[fe->protocol], fe->speed);
	if (fe->write_staging && fe->protocol != PROFILE_PROTO_NFS &&
	    fe->protocol != PROFILE_PROTO_ISCSI)
		FAIL(st, PSEC_FRONTEND, 0, "write_staging",
		     "only a NAS stages writes (protocol nfs or iscsi, not "
		     "%s)",
		     protocol_names[fe->protocol]);
	return 0;
}

static int check_frontend(struct pstate *st)
{
	for (int op = 0; op < ENGINE_OP_COUNT; op++)
		if (st->p->fe.overhead_pct[op] >= 100.0)
			FAIL(st, PSEC_FRONTEND, 0,
			     op == ENGINE_OP_READ ? "read_overhead"
						  : "write_overhead",
			     "must be below 100%%");
	return check_protocol(st);
}

/* RAID layout against the drive count; resolves stripe_width. */
static int check_raid(struct pstate *st, unsigned slot)
{
	struct profile_tier *t = &st->p->tier[slot];
	bool parity = t->raid == PROFILE_RAID5 || t->raid == PROFILE_RAID6;
	unsigned min_width = t->raid == PROFILE_RAID6 ? 4 : 3;

	unsigned given = t->stripe_width;

	switch (t->raid) {
	case PROFILE_RAID0:
	case PROFILE_RAID1:
		t->stripe_width = t->drives;
		break;
	case PROFILE_RAID10:
		t->stripe_width = 2;
		break;
	default:
		if (!t->stripe_width)
			t->stripe_width = t->drives;
		break;
	}
	/* Other layouts fix their width; `profile show` prints it, so the
	 * value it resolves to is accepted back. */
	if (!parity && given && given != t->stripe_width)
		FAIL(st, PSEC_TIER, slot, "stripe_width",
		     "only for raid5 and raid6 (%s's is %u)",
		     t->raid == PROFILE_RAID10 ? "raid10" : "this layout",
		     t->stripe_width);
	if (t->raid == PROFILE_RAID1 && t->drives < 2)
		FAIL(st, PSEC_TIER, slot, "raid",
		     "raid1 needs 2 drives or more");
	if (t->raid == PROFILE_RAID10 && (t->drives < 4 || t->drives % 2))
		FAIL(st, PSEC_TIER, slot, "raid",
		     "raid10 needs an even number of drives, 4 or more "
		     "(drives = %u)",
		     t->drives);
	if (parity && t->stripe_width < min_width)
		FAIL(st, PSEC_TIER, slot,
		     st->key_line[pkey_find(PSEC_TIER, "stripe_width")][slot]
			 ? "stripe_width"
			 : "raid",
		     "%s needs %u drives or more per stripe (has %u)",
		     t->raid == PROFILE_RAID6 ? "raid6" : "raid5", min_width,
		     t->stripe_width);
	/* The default (all the drives in one set) can exceed what a set
	 * may hold: say so here, or `profile show` prints a width that
	 * does not load back. */
	if (parity && !given && t->stripe_width > PROFILE_MAX_WIDTH)
		FAIL(st, PSEC_TIER, slot, "raid",
		     "%u drives in one %s set: more than %u; give "
		     "stripe_width",
		     t->drives, t->raid == PROFILE_RAID6 ? "raid6" : "raid5",
		     PROFILE_MAX_WIDTH);
	if (parity &&
	    (t->stripe_width > t->drives || t->drives % t->stripe_width))
		FAIL(st, PSEC_TIER, slot, "stripe_width",
		     "%u does not divide drives = %u into RAID sets",
		     t->stripe_width, t->drives);
	if (t->stripe_unit_bytes < BLOCK_BYTES ||
	    t->stripe_unit_bytes % BLOCK_BYTES)
		FAIL(st, PSEC_TIER, slot, "stripe_unit",
		     "must be a multiple of 4K");
	if (t->scatter_bytes % BLOCK_BYTES)
		FAIL(st, PSEC_TIER, slot, "scatter",
		     "must be 0 or a multiple of 4K");
	if (t->scatter_bytes && raid_scatter_max_ops(t) > RAID_PLAN_MAX)
		FAIL(st, PSEC_TIER, slot, "scatter",
		     "too fine for this layout: a 1M I/O could take more "
		     "than %u drive operations",
		     RAID_PLAN_MAX);
	return 0;
}

/* A distribution's largest value: it must be more than zero, or the
 * drive would serve infinitely fast. */
static int check_drive(struct pstate *st, unsigned slot)
{
	const struct profile_tier *t = &st->p->tier[slot];
	const char *key = NULL, *what;

	if (t->capacity_bytes < 1024 * 1024)
		FAIL(st, PSEC_TIER, slot, "capacity", "must be 1M or more");
	what = drive_ops_of(t->kind)->check(t, &key);
	if (what)
		FAIL(st, PSEC_TIER, slot, key, "%s", what);
	return 0;
}

/* rebuild_rate 0: the Infinidat figure (arrays.md), one hour for the
 * used part of a drive, at least 1 byte/s so a rebuild always ends. */
static void resolve_rebuild(struct profile_tier *t)
{
	if (t->rebuild_bytes_per_s)
		return;
	t->rebuild_bytes_per_s = (uint64_t)((double)t->capacity_bytes *
					    t->fill_pct / 100.0 / 3600.0);
	if (!t->rebuild_bytes_per_s)
		t->rebuild_bytes_per_s = 1;
}

/* One drive's sequential rate for 1 MiB operations of @op, bytes/s:
 * its slots each serving one (the kind's sequential service time, then
 * the transfer on the one wire), capped by the wire and by its ops/s
 * gate. */
static double seq_rate(const struct profile_tier *t, enum engine_op op)
{
	const double chunk = 1024.0 * 1024.0;
	double bw = (double)t->bandwidth_bytes_per_s[op];
	double svc = (double)drive_ops_of(t->kind)->seq_service_ns(t, op) / 1e9;
	double xfer = bw > 0 ? chunk / bw : 0;
	double rate = svc + xfer > 0
			  ? (t->slots ? t->slots : 1) * chunk / (svc + xfer)
			  : 1e300;

	if (bw > 0 && bw < rate)
		rate = bw;
	/* The ops/s gate: 1 / iops and the media's cost of the bytes. */
	double gate =
	    (t->iops[op] ? 1.0 / (double)t->iops[op] : 0) +
	    (t->media_bytes_per_s[op] ? chunk / (double)t->media_bytes_per_s[op]
				      : 0);

	if (gate > 0 && chunk / gate < rate)
		rate = chunk / gate;
	return rate;
}

/* The fastest rebuild of one failed drive the tier's drives can do
 * (tiers/profiles/README.md): each rebuilt MiB is read from `need`
 * members (raid5: width - 1, raid6: width - 2, mirrors: 1) and written
 * once, declustered over the drives - 1 left, so
 *   limit = (drives - 1) / (need / read rate + 1 / write rate)
 * with each rate a drive's sequential one (seq_rate). 0: no rebuild
 * (raid0, or a single drive). */
static double rebuild_limit(const struct profile_tier *t, unsigned *need)
{
	if (t->raid == PROFILE_RAID0 || t->drives < 2)
		return 0;
	*need = t->raid == PROFILE_RAID5   ? t->stripe_width - 1
		: t->raid == PROFILE_RAID6 ? t->stripe_width - 2
					   : 1;
	return (double)(t->drives - 1) /
	       ((double)*need / seq_rate(t, ENGINE_OP_READ) +
		1.0 / seq_rate(t, ENGINE_OP_WRITE));
}

static int check_rebuild(struct pstate *st, unsigned slot)
{
	const struct profile_tier *t = &st->p->tier[slot];
	unsigned need = 0;
	double limit = rebuild_limit(t, &need);

	if (limit > 0 && (double)t->rebuild_bytes_per_s > limit)
		FAIL(st, PSEC_TIER, slot, "rebuild_rate",
		     "%.1f MB/s is above what this tier's drives can "
		     "rebuild at, %.1f MB/s (%u drives left, reading %u MiB "
		     "and writing 1 per MiB rebuilt, at a drive's sequential "
		     "rate)",
		     (double)t->rebuild_bytes_per_s / 1e6, limit / 1e6,
		     t->drives - 1, need);
	return 0;
}

static int check_tier(struct pstate *st, unsigned slot)
{
	st->p->tier[slot].present = true;
	if (fill_defaults(st, PSEC_TIER, slot))
		return -EINVAL;
	if (check_raid(st, slot) || check_drive(st, slot))
		return -EINVAL;
	resolve_rebuild(&st->p->tier[slot]);
	return check_rebuild(st, slot);
}

/* Flash alone, or cache over backing: nothing else. */
static int check_layout(struct pstate *st)
{
	bool flash = st->sec_line[PSEC_TIER][PROFILE_TIER_FLASH];
	bool cache = st->sec_line[PSEC_TIER][PROFILE_TIER_CACHE];
	bool backing = st->sec_line[PSEC_TIER][PROFILE_TIER_BACKING];

	if (flash && (cache || backing))
		FAIL(st, PSEC_TIER,
		     cache ? PROFILE_TIER_CACHE : PROFILE_TIER_BACKING, NULL,
		     "an array has [tier flash] alone, or [tier cache] over "
		     "[tier backing]");
	if (!flash && !(cache && backing))
		FAIL(st, PSEC_ARRAY, 0, NULL,
		     "no drives: give [tier flash], or [tier cache] and "
		     "[tier backing]");
	if (flash && st->sec_line[PSEC_CACHE][0])
		FAIL(st, PSEC_CACHE, 0, NULL,
		     "only with [tier cache] over [tier backing]");
	return 0;
}

static int check_cache(struct pstate *st)
{
	const struct profile_cache *c = &st->p->cache;
	uint64_t usable =
	    profile_tier_usable_bytes(&st->p->tier[PROFILE_TIER_CACHE]);

	if (fill_defaults(st, PSEC_CACHE, 0))
		return -EINVAL;
	if (c->size_bytes == 0 || c->size_bytes > usable)
		FAIL(st, PSEC_CACHE, 0, "size",
		     "must be above 0 and at most [tier cache]'s usable "
		     "capacity (%llu bytes)",
		     (unsigned long long)usable);
	if (c->destage_stop_pct >= c->destage_start_pct)
		FAIL(st, PSEC_CACHE, 0, "destage_stop",
		     "must be below destage_start");
	if (!c->destage_bytes_per_s)
		FAIL(st, PSEC_CACHE, 0, "destage_rate", "must be above 0");
	if (c->throttle_start_pct > 0.0 &&
	    c->throttle_start_pct <= c->destage_start_pct)
		FAIL(st, PSEC_CACHE, 0, "throttle_start",
		     "must be above destage_start, or 0%% (no throttle)");
	return 0;
}

/* reduce_at = destage: the writes must land in a write-back cache tier
 * for a destager to reduce them on their way to the backing tier, and the
 * work cannot run both after the ack and at destage. */
static int check_reduce(struct pstate *st)
{
	const struct profile *p = st->p;

	if (p->dedupe.reduce_at != PROFILE_REDUCE_DESTAGE)
		return 0;
	if (!p->tier[PROFILE_TIER_CACHE].present ||
	    p->cache.policy != PROFILE_POLICY_WRITE_BACK)
		FAIL(st, PSEC_DEDUPE, 0, "reduce_at",
		     "destage needs [tier cache] with [cache] policy = "
		     "write-back");
	if (p->dedupe.after_ack)
		FAIL(st, PSEC_DEDUPE, 0, "reduce_at",
		     "destage and after_ack = yes exclude each other");
	return 0;
}

/* Only what the mount does itself, not the model: [dedupe] compression
 * and compression_keep. */
static bool null_may_give(const struct pstate *st, unsigned s)
{
	if (s != PSEC_DEDUPE)
		return false;
	for (unsigned i = 0; i < n_pkeys; i++)
		if (pkeys[i].sec == PSEC_DEDUPE && st->key_line[i][0] &&
		    !pkey_mount_only(&pkeys[i]))
			return false;
	return true;
}

/* model = null: nothing but [array] may be given (and the mount's own
 * compression, above). */
static int check_null(struct pstate *st)
{
	for (unsigned s = PSEC_CONTROLLERS; s < PSEC_COUNT; s++)
		for (unsigned slot = 0; slot < PROFILE_SLOTS; slot++)
			if (st->sec_line[s][slot] && !null_may_give(st, s))
				FAIL(st, (enum psec)s, slot, NULL,
				     "model = null takes no other section");
	return 0;
}

/* [nodes]: given, each node copies the controllers, links and drives, so
 * their totals must fit the model's tables; raid only with object
 * placement, and no wider than the cluster. */
static int check_nodes(struct pstate *st)
{
	struct profile *p = st->p;
	struct profile_nodes *n = &p->nodes;
	enum psec s = PSEC_NODES;

	if (!st->sec_line[s][0]) {
		n->count = 1;
		return 0;
	}
	if (fill_defaults(st, s, 0))
		return -EINVAL;
	n->net.overhead_pct[0] = n->net.overhead_pct[1] = 0;
	if (n->count * p->ctl.count > 64 || n->count * p->fe.links > 64 ||
	    n->count * n->net.links > 64)
		FAIL(st, s, 0, "count",
		     "%u nodes of %u controllers, %u links and %u "
		     "interconnect links: more than 64 of one kind",
		     n->count, p->ctl.count, p->fe.links, n->net.links);
	if (n->placement == PROFILE_PLACE_FINGERPRINT &&
	    n->raid != PROFILE_NRAID_NONE)
		FAIL(st, s, 0, "raid",
		     "only with placement = object (fingerprint placement "
		     "protects inside each node, by its tiers' raid)");
	if (profile_node_width(n->raid) > n->count)
		FAIL(st, s, 0, "raid",
		     "%s across nodes needs %u nodes or more (count = %u)",
		     pkeys[pkey_find(s, "raid")].names[n->raid],
		     profile_node_width(n->raid), n->count);
	if (n->stripe_unit_bytes < BLOCK_BYTES ||
	    n->stripe_unit_bytes % BLOCK_BYTES)
		FAIL(st, s, 0, "stripe_unit", "must be a multiple of 4K");
	return 0;
}

/* The replication link: Ethernet or FC, its overhead the protocol's
 * when not given (profile_calc.c), the same both ways. */
static int check_replication(struct pstate *st)
{
	struct profile_frontend *l = &st->p->repl.link;
	enum profile_protocol fam = profile_link_family(l);

	if (fam == PROFILE_PROTO_LOCAL || !strncmp(l->speed, "IB-", 3))
		FAIL(st, PSEC_REPLICATION, 0, "speed",
		     "a replication link is Ethernet or FC (%s is %s)",
		     l->speed,
		     strncmp(l->speed, "IB-", 3)
			 ? "a drive's port"
			 : "an interconnect between nodes");
	if (!st->key_line[pkey_find(PSEC_REPLICATION, "overhead")][0])
		l->overhead_pct[ENGINE_OP_WRITE] = profile_repl_overhead_pct(l);
	if (l->overhead_pct[ENGINE_OP_WRITE] >= 100.0)
		FAIL(st, PSEC_REPLICATION, 0, "overhead",
		     "must be below 100%%");
	l->overhead_pct[ENGINE_OP_READ] = l->overhead_pct[ENGINE_OP_WRITE];
	l->links = 1;
	return 0;
}

int profile_resolve(struct pstate *st)
{
	static const enum psec always[] = {PSEC_CONTROLLERS, PSEC_FRONTEND,
					   PSEC_DEDUPE, PSEC_REPLICATION};

	if (fill_defaults(st, PSEC_ARRAY, 0))
		return -EINVAL;
	if (st->p->model == PROFILE_MODEL_NULL)
		return check_null(st);
	for (unsigned i = 0; i < sizeof(always) / sizeof(*always); i++)
		if (fill_defaults(st, always[i], 0))
			return -EINVAL;
	if (check_controllers(st) || check_frontend(st) || check_layout(st) ||
	    check_replication(st))
		return -EINVAL;
	for (unsigned slot = 0; slot < PROFILE_TIER_COUNT; slot++)
		if (st->sec_line[PSEC_TIER][slot] && check_tier(st, slot))
			return -EINVAL;
	if (st->p->tier[PROFILE_TIER_CACHE].present && check_cache(st))
		return -EINVAL;
	if (check_reduce(st))
		return -EINVAL;
	return check_nodes(st);
}
