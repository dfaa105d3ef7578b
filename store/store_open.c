/* Opening and closing the datastore, gauges, the accessors of
 * store/store.h, and the transaction's commit as callers see it.
 * Syncs and the power cut are store/sync.c; the metadata-cache trim
 * store/meta_cache.c; orphans (store_trim, store_reap_orphans)
 * store/orphans.c. */
#include "store/store.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/block.h"
#include "common/log.h"
#include "dedupe/csize.h"
#include "store/datapath.h"
#include "store/caps.h"
#include "store/loss.h"
#include "store/namespace.h"
#include "store/store_i.h"

/* The transaction's commit, above both the data path and the orphans: a
 * truncation too big for one transaction left blocks to drop, and they
 * are dropped here, after the commit, a bounded transaction at a time
 * (store_trim). */
int store_txn_commit(struct store_txn *t)
{
	struct store *st = t->st;
	uint64_t trim = 0;
	int r = store_txn_commit_one(t, &trim);
	return r || !trim ? r : store_trim(st, trim);
}

static int init_root(struct store *st)
{
	struct store_txn t;
	int r = store_txn_begin(st, &t);
	if (r)
		return r;
	r = ns_ensure_root(st->ms, t.txn, &t.c, st->owner, getgid());
	if (r) {
		store_txn_abort(&t);
		return r;
	}
	return store_txn_commit(&t);
}

/* The inodes a write must strip of capabilities (store/caps.h). */
static int load_caps(struct store *st)
{
	MDB_txn *txn;
	int r = metastore_txn_begin(st->ms, false, &txn);
	if (r)
		return r;
	r = caps_load(&st->caps, st->ms, txn);
	metastore_txn_abort(txn);
	return r;
}

static struct store *store_new(const struct store_config *cfg)
{
	struct store *st = calloc(1, sizeof(*st));
	if (!st)
		return NULL;
	st->cfg = *cfg;
	snprintf(st->dir, sizeof(st->dir), "%s", cfg->dir);
	st->cfg.dir = st->dir;
	st->stats = cfg->stats ? cfg->stats : &st->own_stats;
	st->owner = getuid();
	pthread_mutex_init(&st->sync_lock, NULL);
	group_commit_init(&st->gc);
	caps_init(&st->caps);
	return st;
}

static void store_free(struct store *st)
{
	group_commit_destroy(&st->gc);
	caps_destroy(&st->caps);
	pthread_mutex_destroy(&st->sync_lock);
	free(st);
}

/* The engine, the backing store, the array model, the lost blocks. */
static int open_parts(struct store *st, char *err, size_t errlen)
{
	const struct store_config *cfg = &st->cfg;
	int r = metastore_open(st->dir, cfg->meta_map_bytes, true, false,
			       &st->ms, err, errlen);
	if (r)
		return r;
	metastore_count_damage(st->ms, &st->stats->dedupe.meta_checksum_errors);
	r = metastore_check(st->ms, err, errlen);
	if (r)
		goto out_close_ms;
	r = backing_open(st->dir, &st->backing, err, errlen);
	if (r)
		goto out_close_ms;
	st->dev = backing_dev(st->backing);
	struct array_conf ac = {.profile = cfg->profile ? cfg->profile : "null",
				.scale = cfg->scale > 0 ? cfg->scale : 1.0,
				.time_scale = cfg->time_scale,
				.seed = cfg->seed};
	r = array_open(&ac, &st->array);
	if (r) {
		snprintf(err, errlen, "array model: %s", strerror(-r));
		goto out_close_backing;
	}
	const struct profile_dedupe *pd = &array_profile(st->array)->dedupe;
	st->compress =
	    (struct dedupe_compression){(enum dedupe_compress)pd->compression,
					(enum dedupe_keep)pd->compression_keep};
	char path[4200];
	snprintf(path, sizeof(path), "%s/lost.blocks", st->dir);
	r = loss_open(st, path, err, errlen);
	if (r)
		goto out_free_array;
	return 0;

out_free_array:
	array_free(st->array);
out_close_backing:
	backing_close(st->backing);
out_close_ms:
	metastore_close(st->ms);
	return r;
}

static void close_parts(struct store *st)
{
	loss_close(st);
	array_free(st->array);
	backing_close(st->backing);
	metastore_close(st->ms);
}

int store_open(const struct store_config *cfg, struct store **out, char *err,
	       size_t errlen)
{
	struct store *st = store_new(cfg);
	if (!st) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	int r = open_parts(st, err, errlen);
	if (r)
		goto out_free;
	/* Before the first sync: a replica may still use what is pending. */
	metastore_hold_pending(st->ms, cfg->hold_pending);
	if (cfg->power_loss && (r = metastore_track_durable(st->ms))) {
		snprintf(err, errlen,
			 "--power-loss: cannot keep the synced "
			 "state: %s",
			 strerror(-r));
		goto out_close;
	}
	r = init_root(st);
	if (!r)
		r = load_caps(st);
	if (!r)
		r = store_reap_orphans(st);
	if (!r)
		r = store_sync(
		    st); /* release blocks a killed run left pending */
	if (r) {
		snprintf(err, errlen, "store %s: cannot initialise: %s",
			 st->dir, strerror(-r));
		goto out_close;
	}
	*out = st;
	return 0;

out_close:
	close_parts(st);
out_free:
	store_free(st);
	return r;
}

void store_close(struct store *st)
{
	if (!st)
		return;
	int r = store_sync(st);
	if (r)
		log_error("fs", "final sync of %s failed: %s", st->dir,
			  strerror(-r));
	close_parts(st);
	store_free(st);
}

struct metastore *store_ms(struct store *st)
{
	return st->ms;
}

struct array *store_array(struct store *st)
{
	return st->array;
}

struct stats *store_stats(struct store *st)
{
	return st->stats;
}

const char *store_dir(struct store *st)
{
	return st->dir;
}

void store_set_events(struct store *st, struct events *ev)
{
	st->events = ev;
}

static uint64_t du_bytes(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
}

static const char *const compress_names[] = {"none", "lz4", "zstd"};

struct store_commits store_commits(struct store *st)
{
	return (struct store_commits){.groups = atomic_load(&st->gc.groups),
				      .writes = atomic_load(&st->gc.entries),
				      .by_leader = atomic_load(&st->gc.called)};
}

void store_gauges(struct store *st, struct stats_gauges *g)
{
	memset(g, 0, sizeof(*g));
	MDB_txn *txn;
	struct ms_counters c = {0};
	struct dedupe_csize_total ct = {0};
	if (metastore_txn_begin(st->ms, false, &txn) == 0) {
		metastore_counters_get(st->ms, txn, &c);
		if (dedupe_csize_total(st->ms, txn, &ct))
			ct = (struct dedupe_csize_total){0};
		metastore_txn_abort(txn);
	}
	char path[4200];
	g->logical_bytes_held = c.logical_bytes;
	g->live_blocks = c.live_blocks;
	g->unique_blocks = c.unique_blocks;
	g->physical_bytes_used = c.unique_blocks * BLOCK_BYTES;
	/* Blocks stored while compression was off count whole. */
	g->compressed_bytes =
	    ct.bytes +
	    (c.unique_blocks > ct.blocks ? c.unique_blocks - ct.blocks : 0) *
		BLOCK_BYTES;
	g->compression = compress_names[st->compress.kind];
	g->compression_keep = st->compress.keep ? "half" : "any";
	g->store_bytes_on_disk = backing_bytes_on_disk(st->backing);
	snprintf(path, sizeof(path), "%s/meta/data.mdb", st->dir);
	g->meta_bytes_on_disk = du_bytes(path);
	const struct array_conf *ac = array_conf_get(st->array);
	g->seed = st->cfg.seed;
	g->dedupe_verify = st->cfg.verify;
	g->profile = ac->profile;
	g->scale = ac->scale;
	g->time_scale = ac->time_scale;
}
