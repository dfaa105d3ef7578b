/* Where the front end meets faults/: the questions fs/ops_*.c ask before an
 * operation runs, the control commands that inject and clear faults, and
 * the hooks through which fault kinds act on the store and its array.
 *
 *   op_write ──> fault_gate_io ──> faults_check ──> error | latency | torn
 *   op_mkdir ──> fault_gate_meta ─┘        (event log: a rule's first hit,
 *                                            then its hits once a second)
 *   ctl "fault inject ..." ──> fault_gate_inject ──> fault_inject (faults/)
 *                                   ──> kind ──> hooks filled here ──> store,
 *                                                array model
 */
#ifndef ARRAYSIM_FS_FAULT_GATE_H
#define ARRAYSIM_FS_FAULT_GATE_H

#include <stdint.h>
#include <stdio.h>

#include "faults/faults.h"
#include "fs/fs.h"

/* Create the registry (seeded from --seed), the event log
 * (STORE/events.jsonl) and the delay queue. 0, or -errno with a reason. */
int fault_gate_open(struct fs *fs, char *err, size_t errlen);
/* Complete delayed replies, close the log, drop the rules. */
void fault_gate_close(struct fs *fs);

/* A metadata operation @op on inode @ino, or on entry @name of directory
 * @parent when @name is not NULL: the error to fail it with (0: none),
 * after sleeping any injected latency in the calling worker. @op 0 (an
 * operation no rule names) only asks whether the power is lost. After a
 * power loss every operation gets EIO. */
int fault_gate_meta(struct fs *fs, unsigned op, uint64_t ino, uint64_t parent,
		    const char *name);
/* A read or write of [@off, @off+@len) of @ino: what the rules decided.
 * hit->keep is how much of a write persists: all of it, or a torn
 * write's prefix (faults/torn_write.c), whose event is logged here. */
void fault_gate_io(struct fs *fs, unsigned op, uint64_t ino, uint64_t off,
		   size_t len, struct fault_hit *hit);
/* Is a new unique block refused by thin provisioning, with @unique blocks
 * stored? Logs the first refusal after each change of the limit. */
bool fault_gate_thin_full(struct fs *fs, uint64_t unique);

/* Inject @rule as `fault inject` does (faults/hooks.h: fault_inject),
 * answering on @out; *id is the new fault's (0 for faults that act at
 * once: bitrot, power-loss, cache-device). */
int fault_gate_inject(struct fs *fs, const struct fault_rule *rule, FILE *out,
		      uint64_t *id, char *err, size_t errlen);
/* Clear fault @id, or every fault when @id is 0. */
int fault_gate_clear(struct fs *fs, uint64_t id, char *err, size_t errlen);

#endif
