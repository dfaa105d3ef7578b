/* Bit rot injected on purpose (fault inject bitrot ...): see store/bitrot.c. */
#ifndef ARRAYSIM_STORE_BITROT_H
#define ARRAYSIM_STORE_BITROT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "faults/events.h"
#include "faults/rule.h"
#include "store/store.h"

/* Corrupt the blocks @rule names (rule->blocks random blocks in use, drawn
 * from @rng, or the block under rule->path at rule->offset), then write the
 * report to @out: "repairable block N" for each block the array can
 * rebuild from redundancy now, a line "lost PATH offset OFF length 4096
 * block N" per reference to each other one, then "corrupted N blocks
 * referenced M times" (M: the lost references), and "repairable K of
 * them: ..." when K > 0. Each goes to the event log too (block_rotted,
 * block_lost). 0, or -errno with a reason in @err. */
int bitrot_inject(struct store *st, const struct fault_rule *rule,
		  uint64_t *rng, FILE *out, char *err, size_t errlen);

/* The loss report of the @nbad stored blocks @bad (sorted here): a line
 * "lost PATH offset OFF length 4096 block N" on @out for every file and
 * offset that references one, as of @txn, and, when @cause is not NULL,
 * a block_lost event with that cause for each; *refs is how many. Scans
 * every block map and directory entry: for stores the size of a test or
 * a rehearsal. 0 or -errno. */
int bitrot_report(struct store *st, MDB_txn *txn, uint64_t *bad, size_t nbad,
		  const char *cause, FILE *out, uint64_t *refs);

/* @buf holds stored block @pblk, which failed its checksum @xxh3: if the
 * array keeps redundancy for it now, undo the damage bitrot_inject did (the
 * mask it applied: the stand-in for a rebuild from parity, which is not
 * stored) and, when the result matches @xxh3, count a repaired read and
 * return true; else leave @buf as it was and return false. */
bool bitrot_undo_injected(struct store *st, uint64_t pblk, uint8_t *buf,
			  uint64_t xxh3);
#endif
