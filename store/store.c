/* Opening and closing the datastore, syncs, the metadata-cache trim and
 * gauges. Orphans (fs_trim, fs_reap_orphans) are store/orphans.c. */
#include "fs/fs.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/block.h"
#include "common/log.h"
#include "store/datapath.h"
#include "fs/fault_gate.h"
#include "fs/scenario_run.h"
#include "fs/inode_table.h"
#include "store/namespace.h"

static int init_root(struct fs *fs)
{
	struct store_txn t;
	int r = store_txn_begin(fs, &t);
	if (r)
		return r;
	r = ns_ensure_root(fs->ms, t.txn, &t.c, fs->owner, getgid());
	if (r) {
		store_txn_abort(&t);
		return r;
	}
	return store_txn_commit(&t);
}

int fs_open(struct fs *fs, const struct fs_config *cfg, char *err,
	    size_t errlen)
{
	memset(fs, 0, sizeof(*fs));
	fs->cfg = *cfg;
	snprintf(fs->store, sizeof(fs->store), "%s", cfg->store);
	fs->cfg.store = fs->store;
	fs->owner = getuid();
	pthread_mutex_init(&fs->sync_lock, NULL);
	fs->opened_ns = stats_now_ns();
	int r = metastore_open(fs->store, cfg->meta_map_bytes, true, false,
			       &fs->ms, err, errlen);
	if (r)
		goto out;
	r = backing_open(fs->store, &fs->backing, err, errlen);
	if (r)
		goto out_close_ms;
	fs->dev = backing_dev(fs->backing);
	r = array_new(cfg->profile ? cfg->profile : "null",
		      cfg->scale > 0 ? cfg->scale : 1.0, cfg->seed, &fs->array);
	if (r) {
		snprintf(err, errlen, "array model: %s", strerror(-r));
		goto out_close_backing;
	}
	fs->itab = inode_table_new();
	if (!fs->itab) {
		r = -ENOMEM;
		snprintf(err, errlen, "out of memory");
		goto out_free_array;
	}
	r = fault_gate_open(fs, err, errlen);
	if (r)
		goto out_free_itab;
	if (cfg->power_loss && (r = metastore_track_durable(fs->ms))) {
		snprintf(err, errlen,
			 "--power-loss: cannot keep the synced "
			 "state: %s",
			 strerror(-r));
		goto out_close_faults;
	}
	r = init_root(fs);
	if (!r)
		r = fs_reap_orphans(fs);
	if (!r)
		r = fs_sync(fs); /* release blocks a killed run left pending */
	if (r) {
		snprintf(err, errlen, "store %s: cannot initialise: %s",
			 fs->store, strerror(-r));
		goto out_close_faults;
	}
	return 0;

out_close_faults:
	fault_gate_close(fs);
out_free_itab:
	inode_table_free(fs->itab);
out_free_array:
	array_free(fs->array);
out_close_backing:
	backing_close(fs->backing);
out_close_ms:
	metastore_close(fs->ms);
out:
	pthread_mutex_destroy(&fs->sync_lock);
	return r;
}

void fs_close(struct fs *fs)
{
	int r = fs_sync(fs);
	if (r)
		log_error("fs", "final sync of %s failed: %s", fs->store,
			  strerror(-r));
	scenario_run_close(fs);
	fault_gate_close(fs); /* replies it delays are sent first */
	inode_table_free(fs->itab);
	array_free(fs->array);
	backing_close(fs->backing);
	metastore_close(fs->ms);
	pthread_mutex_destroy(&fs->sync_lock);
}

int fs_sync(struct fs *fs)
{
	if (atomic_load(&fs->powered_off))
		return -EIO; /* nothing more becomes durable */
	pthread_mutex_lock(&fs->sync_lock);
	if (atomic_load(&fs->powered_off)) { /* it happened while we waited */
		pthread_mutex_unlock(&fs->sync_lock);
		return -EIO;
	}
	uint64_t commits = atomic_load(&fs->commits);
	/* Data first: a durable map must never point at bytes that are not. */
	int r = fs->dev.ops->sync(fs->dev.ctx);
	if (!r)
		r = metastore_sync(fs->ms);
	if (!r)
		fs->synced_commits = commits;
	pthread_mutex_unlock(&fs->sync_lock);
	return r;
}

/* Bytes of files mapped into this process (RssFile): with LMDB's shared
 * writable map, that is the metadata pages the daemon has touched. */
static uint64_t rss_file_bytes(void)
{
	FILE *f = fopen("/proc/self/status", "re");
	char line[256];
	unsigned long long kb = 0;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "RssFile: %llu kB", &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb * 1024;
}

/* Where LMDB mapped STORE/meta/data.mdb (LMDB does not say, unless the
 * map is fixed): from /proc/self/maps. 0, or -1 with errno set. */
static int find_meta_map(const char *store, void **addr, size_t *len)
{
	char want[4200], line[4400];
	snprintf(want, sizeof(want), "%s/meta/data.mdb", store);
	FILE *f = fopen("/proc/self/maps", "re");
	int r = -1;
	errno = ENOENT;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long lo, hi;
		char *path = strchr(line, '/');
		if (!path || sscanf(line, "%lx-%lx", &lo, &hi) != 2)
			continue;
		path[strcspn(path, "\n")] = '\0';
		if (strcmp(path, want))
			continue;
		*addr = (void *)lo;
		*len = hi - lo;
		r = 0;
		break;
	}
	if (f)
		fclose(f);
	return r;
}

/* The metadata map would otherwise make RSS grow with the data: every
 * page touched stays mapped. Past the configured cache, drop the whole
 * map's page-table entries; the pages stay in the host page cache (dirty
 * ones included), so the next touch is a minor fault, not a read. */
void fs_trim_meta_cache(struct fs *fs)
{
	uint64_t limit = fs->cfg.meta_cache_bytes;
	if (!limit || rss_file_bytes() <= limit)
		return;
	void *addr;
	size_t len;
	if (find_meta_map(fs->store, &addr, &len) ||
	    madvise(addr, len, MADV_DONTNEED))
		log_warn("fs", "cannot trim the metadata cache: %s",
			 strerror(errno));
}

static uint64_t du_bytes(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
}

void fs_gauges(struct fs *fs, struct stats_gauges *g)
{
	memset(g, 0, sizeof(*g));
	MDB_txn *txn;
	struct ms_counters c = {0};
	if (metastore_txn_begin(fs->ms, false, &txn) == 0) {
		metastore_counters_get(fs->ms, txn, &c);
		metastore_txn_abort(txn);
	}
	char path[4200];
	g->logical_bytes_held = c.logical_bytes;
	g->live_blocks = c.live_blocks;
	g->unique_blocks = c.unique_blocks;
	g->physical_bytes_used = c.unique_blocks * BLOCK_BYTES;
	g->store_bytes_on_disk = backing_bytes_on_disk(fs->backing);
	snprintf(path, sizeof(path), "%s/meta/data.mdb", fs->store);
	g->meta_bytes_on_disk = du_bytes(path);
	g->seed = fs->cfg.seed;
	g->dedupe_verify = fs->cfg.verify;
}
