/* micro_datapath: the data path's own cost, in process, without FUSE.
 *
 *   micro_datapath STORE_DIR [MIB] [BS]
 *
 * Opens a fresh store in STORE_DIR (must be empty), creates one file and
 * times datapath_write / datapath_read with requests of BS bytes (default
 * 4096) over MIB MiB (default 256), in phases:
 *   fill       sequential writes of unique data into an empty file
 *   dup        random-order rewrites of the bytes each block already holds
 *              (every block a dedupe hit, verified byte for byte)
 *   overwrite  random-order writes of new unique data over it (each frees
 *              a block and allocates one: the steady state of a busy array)
 *   read       random-order reads
 * plus SHA-1+XXH3 of the same blocks alone, so the remainder is metadata and
 * store I/O. One thread: this is the cost of one request, not throughput.
 * MICRO_META_MAP_MIB=N bounds the metadata map (for valgrind).
 * MICRO_GROUP=N queues N writes before waiting (store/group_commit.h): the
 * cost per write when N writers share one commit.
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "common/block.h"
#include "common/clock.h"
#include "common/prng.h"
#include "dedupe/fingerprint.h"
#include "store/datapath.h"
#include "fs/fs_open.h"
#include "store/namespace.h"

static void fill_random(uint8_t *buf, size_t len, uint64_t *s)
{
	for (size_t i = 0; i + 8 <= len; i += 8) {
		uint64_t v = prng_next(s);
		memcpy(buf + i, &v, 8);
	}
}

static void report(const char *phase, uint64_t ns, uint64_t nreq, size_t bs)
{
	double us = (double)ns / 1e3 / (double)nreq;
	double mbs = (double)nreq * (double)bs / ((double)ns / 1e9) / 1e6;
	printf("%-10s %8.1f us/request %9.1f MB/s  (%llu x %zu B)\n", phase, us,
	       mbs, (unsigned long long)nreq, bs);
}

static uint64_t new_file(struct fs *fs)
{
	struct store_txn x;
	struct ms_inode in, root;
	uint64_t ino;
	if (store_txn_begin(fs->st, &x) ||
	    ns_inode_new(store_ms(fs->st), x.txn, &x.c, S_IFREG | 0644, 0, 0, 0,
			 1, &ino, &in) ||
	    ns_inode_get(store_ms(fs->st), x.txn, 1, &root) ||
	    ns_dirent_add(store_ms(fs->st), x.txn, 1, &root, "f", ino) ||
	    ns_inode_put(store_ms(fs->st), x.txn, 1, &root) ||
	    store_txn_commit(&x)) {
		fprintf(stderr, "micro_datapath: cannot create the file\n");
		exit(1);
	}
	return ino;
}

struct run {
	struct fs *fs;
	uint64_t ino;
	size_t bs;
	uint64_t nreq;
	uint8_t *buf; /* group buffers of bs bytes */
	uint64_t seed;
	unsigned group;
	struct dp_write *w;
};

static void check(int e, const char *what)
{
	if (e) {
		fprintf(stderr, "micro_datapath: %s: %s\n", what, strerror(-e));
		exit(1);
	}
}

/* The writes queued in r->w[0..n), waited for together. */
static void wait_group(struct run *r, unsigned n)
{
	for (unsigned g = 0; g < n; g++) {
		check(datapath_write_wait(&r->w[g]), "write");
		datapath_write_free(&r->w[g]);
	}
}

/* Requests in order, or in a random order when @shuffle; @fresh: new
 * random bytes per request (else the bytes of the fill phase again). */
static uint64_t write_phase(struct run *r, bool shuffle, bool fresh)
{
	uint64_t t0 = clock_mono_ns(), order = 7, data = r->seed;
	for (uint64_t i = 0; i < r->nreq; i++) {
		uint64_t at = shuffle ? prng_next(&order) % r->nreq : i;
		unsigned g = (unsigned)(i % r->group);
		uint8_t *b = r->buf + g * r->bs; /* queued ones are borrowed */
		if (fresh)
			fill_random(b, r->bs, &r->seed);
		else {
			data = PRNG_GOLDEN * (at + 1);
			fill_random(b, r->bs, &data);
		}
		bool setid = false;
		check(datapath_write_prep(&r->w[g], at * r->bs, b, r->bs),
		      "write");
		check(datapath_write_queue(r->fs->st, &r->w[g], r->ino, &setid,
					   NULL),
		      "write");
		if (g == r->group - 1 || i == r->nreq - 1)
			wait_group(r, g + 1);
	}
	return clock_mono_ns() - t0;
}

static uint64_t read_phase(struct run *r)
{
	uint64_t t0 = clock_mono_ns(), order = 11;
	for (uint64_t i = 0; i < r->nreq; i++) {
		uint64_t at = prng_next(&order) % r->nreq;
		size_t got;
		int e = datapath_read(r->fs->st, r->ino, at * r->bs, r->bs,
				      r->buf, &got);
		if (e) {
			fprintf(stderr, "micro_datapath: read: %s\n",
				strerror(-e));
			exit(1);
		}
	}
	return clock_mono_ns() - t0;
}

static uint64_t hash_phase(struct run *r)
{
	uint64_t t0 = clock_mono_ns();
	for (uint64_t i = 0; i < r->nreq; i++)
		for (size_t o = 0; o < r->bs; o += BLOCK_BYTES) {
			struct fingerprint fp;
			fingerprint_block(r->buf + o, &fp);
		}
	return clock_mono_ns() - t0;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: micro_datapath STORE_DIR [MIB] [BS]\n");
		return 2;
	}
	uint64_t mib = argc > 2 ? strtoull(argv[2], NULL, 10) : 256;
	size_t bs = argc > 3 ? strtoull(argv[3], NULL, 10) : BLOCK_BYTES;
	if (!mib || !bs || bs % BLOCK_BYTES || bs > (1u << 20)) {
		fprintf(stderr, "micro_datapath: MIB > 0, BS a multiple of "
				"4096 up to 1 MiB\n");
		return 2;
	}
	struct fs fs;
	struct fs_config cfg = {.store = argv[1], .seed = 1, .verify = true};
	/* A smaller metadata map lets valgrind (callgrind counts
	 * instructions, repeatable on a busy machine) map it. */
	const char *map_mib = getenv("MICRO_META_MAP_MIB");
	if (map_mib)
		cfg.meta_map_bytes = strtoull(map_mib, NULL, 10) << 20;
	char err[512];
	if (fs_open(&fs, &cfg, err, sizeof(err))) {
		fprintf(stderr, "micro_datapath: %s\n", err);
		return 2;
	}
	const char *grp = getenv("MICRO_GROUP");
	unsigned group = grp && atoi(grp) > 0 ? (unsigned)atoi(grp) : 1;
	struct run r = {&fs,
			new_file(&fs),
			bs,
			(mib << 20) / bs,
			aligned_alloc(BLOCK_BYTES, group * bs),
			1,
			group,
			calloc(group, sizeof(struct dp_write))};
	report("fill", write_phase(&r, false, false), r.nreq, bs);
	store_sync(fs.st);
	report("dup", write_phase(&r, true, false), r.nreq, bs);
	report("overwrite", write_phase(&r, true, true), r.nreq, bs);
	store_sync(fs.st);
	report("read", read_phase(&r), r.nreq, bs);
	report("sha1+xxh3", hash_phase(&r), r.nreq, bs);
	free(r.buf);
	free(r.w);
	fs_close(&fs);
	return 0;
}
