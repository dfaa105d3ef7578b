/* RAID back-end expansion: which drive operations one host I/O implies.
 *
 * raid_plan() maps a read or write of a drive group (struct
 * profile_tier) to member operations in phases: phase 0 runs first (the
 * pre-reads of a read-modify-write), phase 1 after all of phase 0 (the
 * writes). Within a phase the operations run in parallel on their drives.
 * See raid.c for the layouts and the write-penalty rules.
 */
#ifndef ARRAYSIM_TIERS_RAID_H
#define ARRAYSIM_TIERS_RAID_H

#include <stdint.h>

#include "tiers/engine.h"
#include "tiers/profile_types.h"

#define RAID_PLAN_MAX 2048 /* ops: a 1 MiB I/O in 4K units on raid6 */
#define RAID_IO_MAX (1u << 20)

struct raid_op {
	unsigned drive; /* member index in the tier, 0 .. drives-1 */
	enum engine_op op;
	uint64_t offset; /* bytes, on the drive */
	uint64_t bytes;
	unsigned phase; /* 0 or 1 */
};

struct raid_plan {
	unsigned n;
	unsigned reads, writes; /* counts of ops by kind */
	unsigned phases;	/* 1 or 2 */
	struct raid_op ops[RAID_PLAN_MAX];
};

/* The most drive operations a scattered I/O of RAID_IO_MAX bytes can
 * plan on @t: each piece touches at most the units it spans, each unit
 * at most its RMW's reads and writes, or every raid1 member. */
uint64_t raid_scatter_max_ops(const struct profile_tier *t);

/* Fill @plan with the member operations of a host @op of @len bytes at
 * tier offset @off (taken modulo the tier's usable capacity). @len is at
 * most RAID_IO_MAX. 0, or -EINVAL (len 0 or too long). */
int raid_plan(const struct profile_tier *t, enum engine_op op, uint64_t off,
	      uint64_t len, struct raid_plan *plan);

#endif
