/* The data path's counters, declared once.
 *
 * One row a counter drives everything that names it: the member of
 * struct dedupe_stats (common/stats.h), stats_reset, the text and JSON of
 * `arraysim stats` (common/stats.c), the Prometheus exposition
 * (common/metrics.c) and the per-second samples (common/samples.c).
 * Adding a counter is adding a row here; nothing else spells it.
 *
 *   X(field, group, prom_rank, prom_name, sampled, help)
 *
 *   field      member name; also its key in text and JSON output
 *   group      where `stats` shows it: COUNTER_CAPACITY (a byte count in
 *              the capacity section, before the store's gauges), or
 *              COUNTER_BLOCKS / COUNTER_CHECKS (block counts in the dedupe
 *              section, before and after the dedupe ratio in JSON)
 *   prom_rank  1-based place in the Prometheus exposition, 0 = not
 *              exported (the order scrapers have always seen)
 *   prom_name  series name, without "arraysim_" and "_total"
 *   sampled    1: its per-interval delta is in every sample line
 *   help       what it counts (the Prometheus HELP text)
 *
 * Rows are in `stats` output order. */
#ifndef ARRAYSIM_COMMON_COUNTERS_H
#define ARRAYSIM_COMMON_COUNTERS_H

enum counter_group { COUNTER_CAPACITY, COUNTER_BLOCKS, COUNTER_CHECKS };

/* clang-format off */
#define DEDUPE_COUNTERS(X)                                                   \
	X(logical_bytes_written, COUNTER_CAPACITY, 1, "logical_written_bytes",\
	  0, "Bytes clients wrote.")                                         \
	X(blocks_written, COUNTER_BLOCKS, 0, "blocks_written", 0,            \
	  "4 KiB blocks written, after read-modify-write.")                  \
	X(unique_writes, COUNTER_BLOCKS, 3, "unique_block_writes", 0,        \
	  "4 KiB blocks written that stored new bytes.")                     \
	X(duplicate_hits, COUNTER_BLOCKS, 2, "duplicate_blocks", 0,          \
	  "4 KiB blocks written that took a reference to a stored one.")     \
	X(zero_blocks, COUNTER_BLOCKS, 4, "zero_blocks", 0,                  \
	  "4 KiB blocks of zeros written (kept as holes).")                  \
	X(verify_reads, COUNTER_CHECKS, 0, "verify_reads", 0,                \
	  "Dedupe candidates read back and compared.")                       \
	X(verify_mismatches, COUNTER_CHECKS, 5, "verify_mismatches", 0,      \
	  "Fingerprint matches whose bytes differed (SHA-1 collisions).")    \
	X(checksum_errors, COUNTER_CHECKS, 6, "checksum_errors", 1,          \
	  "Stored blocks that failed their checksum when read.")             \
	X(blocks_freed, COUNTER_CHECKS, 7, "blocks_freed", 0,                \
	  "Stored blocks whose last reference was dropped.")                 \
	X(lost_reads, COUNTER_CHECKS, 8, "lost_reads", 0,                    \
	  "Reads that failed on a block the array model lost.")              \
	X(repaired_reads, COUNTER_CHECKS, 9, "repaired_reads", 0,            \
	  "Blocks that failed their checksum and were rebuilt from the "     \
	  "array's redundancy.")                                             \
	X(meta_checksum_errors, COUNTER_CHECKS, 10, "meta_checksum_errors", \
	  1, "Metadata records that failed their checksum when read.")
/* clang-format on */

#define COUNTER_ONE_(...) +1
enum { DEDUPE_COUNTER_COUNT = 0 DEDUPE_COUNTERS(COUNTER_ONE_) };

#endif
