/* The durable state, kept at hand for an emulated power loss.
 *
 * A power loss keeps what the last sync made durable and nothing after it.
 * The host this runs on keeps its page cache when the daemon dies, so that
 * state has to be kept on purpose: right after each sync, a read
 * transaction is (re)opened on it, and LMDB then leaves its pages alone
 * until the next sync. That is not free: between syncs every page a
 * transaction changes is a new page (measured: 4 KiB random writes took
 * 4-6x the CPU), so it is on only for mounts that ask (--power-loss). Freed
 * data blocks are not reused before a sync either (the `pending` table), so
 * every block that state points at still holds its bytes.
 *
 * When a power loss is injected, metastore_durable_save() copies that
 * state, table by table, into STORE/meta.next/ and marks it complete; the
 * next open of the store (metastore_durable_adopt()) makes it the metadata.
 * Until then the mounted store refuses everything (fs/), as a dead array
 * would.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "meta/metastore_i.h"

#define NEXT_DIR "meta.next"
#define COMPLETE "complete"
#define COPY_BATCH 65536 /* entries per transaction of the copy */

int metastore_track_durable(struct metastore *ms)
{
	if (ms->readonly)
		return -EROFS;
	ms->track_durable = true;
	metastore_durable_pin(ms);
	return ms->durable ? 0 : -EAGAIN;
}

void metastore_durable_pin(struct metastore *ms)
{
	if (!ms->track_durable)
		return;
	if (ms->durable) {
		mdb_txn_reset(ms->durable);
		if (mdb_txn_renew(ms->durable) == 0)
			return;
		mdb_txn_abort(ms->durable);
		ms->durable = NULL;
	}
	/* Without a reader slot no power loss can be emulated; the store
	 * itself is unaffected, so this is not an error here. */
	if (mdb_txn_begin(ms->env, NULL, MDB_RDONLY, &ms->durable))
		ms->durable = NULL;
}

void metastore_durable_unpin(struct metastore *ms)
{
	if (ms->durable)
		mdb_txn_abort(ms->durable);
	ms->durable = NULL;
}

/* Remove directory @path and the plain files in it. */
static void remove_dir(const char *path)
{
	DIR *d = opendir(path);
	if (!d)
		return;
	struct dirent *e;
	char f[4200];
	while ((e = readdir(d)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, "..")) {
			snprintf(f, sizeof(f), "%s/%s", path, e->d_name);
			unlink(f);
		}
	closedir(d);
	rmdir(path);
}

static int sync_path(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	int r = fsync(fd) ? -errno : 0;
	close(fd);
	return r;
}

/* Copy table @t from @from into the env of @to, committing every
 * COPY_BATCH entries. Keys come out sorted, so they go in appended. */
static int copy_table(const struct metastore *ms, enum ms_table t, MDB_env *to)
{
	unsigned flags = metastore_table_flags(t);
	unsigned put = flags & MDB_DUPSORT ? MDB_APPENDDUP : MDB_APPEND;
	MDB_cursor *cur;
	int rc = mdb_cursor_open(ms->durable, ms->dbi[t], &cur);
	MDB_txn *txn = NULL;
	MDB_dbi dbi;
	if (!rc)
		rc = mdb_txn_begin(to, NULL, 0, &txn);
	if (!rc)
		rc = mdb_dbi_open(txn, metastore_table_name(t),
				  flags | MDB_CREATE, &dbi);
	MDB_val k, v;
	unsigned n = 0;
	while (!rc && (rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0) {
		rc = mdb_put(txn, dbi, &k, &v, put);
		if (!rc && ++n % COPY_BATCH == 0) {
			rc = mdb_txn_commit(txn);
			txn = NULL;
			if (!rc)
				rc = mdb_txn_begin(to, NULL, 0, &txn);
		}
	}
	if (rc == MDB_NOTFOUND)
		rc = txn ? mdb_txn_commit(txn) : 0;
	else if (txn)
		mdb_txn_abort(txn);
	mdb_cursor_close(cur);
	return metastore_errno(rc);
}

static int copy_all(const struct metastore *ms, const char *next)
{
	MDB_env *to;
	int rc = mdb_env_create(&to);
	if (rc)
		return -ENOMEM;
	MDB_envinfo info;
	mdb_env_info(ms->env, &info);
	mdb_env_set_maxdbs(to, MS_NTABLES);
	mdb_env_set_mapsize(to, info.me_mapsize);
	rc = mdb_env_open(to, next, MDB_NOSYNC, 0600);
	int r = metastore_errno(rc);
	for (int t = 0; !r && t < MS_NTABLES; t++)
		r = copy_table(ms, t, to);
	if (!r)
		r = metastore_errno(mdb_env_sync(to, 1));
	mdb_env_close(to);
	return r;
}

int metastore_durable_save(struct metastore *ms, char *err, size_t errlen)
{
	if (!ms->durable) {
		snprintf(err, errlen,
			 "power loss needs the last synced state kept: mount "
			 "with --power-loss");
		return -ENOTSUP;
	}
	char next[4200], mark[4300];
	snprintf(next, sizeof(next), "%s/" NEXT_DIR, ms->dir);
	snprintf(mark, sizeof(mark), "%s/" COMPLETE, next);
	remove_dir(next);
	int r = mkdir(next, 0700) ? -errno : copy_all(ms, next);
	int fd = r ? -1 : open(mark, O_WRONLY | O_CREAT | O_CLOEXEC, 0600);
	if (!r && (fd < 0 || fsync(fd)))
		r = -errno;
	if (fd >= 0)
		close(fd);
	if (!r)
		r = sync_path(next);
	if (!r)
		r = sync_path(ms->dir);
	if (r) {
		snprintf(err, errlen, "saving the durable state in %s: %s",
			 next, strerror(-r));
		remove_dir(next);
	}
	return r;
}

int metastore_durable_adopt(const char *dir, char *err, size_t errlen)
{
	char next[4200], mark[4300], meta[4200], old[4200];
	snprintf(next, sizeof(next), "%s/" NEXT_DIR, dir);
	snprintf(mark, sizeof(mark), "%s/" COMPLETE, next);
	snprintf(meta, sizeof(meta), "%s/meta", dir);
	snprintf(old, sizeof(old), "%s/meta.old", dir);
	if (access(next, F_OK))
		return 0;
	if (access(mark, F_OK)) {
		remove_dir(next); /* the save did not finish: no power loss */
		return 0;
	}
	/* meta -> meta.old, meta.next -> meta: a crash in between finds
	 * meta.next complete and no meta, and does the second step. */
	remove_dir(old);
	if ((rename(meta, old) && errno != ENOENT) || rename(next, meta) ||
	    sync_path(dir)) {
		int e = errno;
		snprintf(err, errlen,
			 "store %s: cannot restore the state saved at a power "
			 "loss: %s",
			 dir, strerror(e));
		return -e;
	}
	snprintf(mark, sizeof(mark), "%s/" COMPLETE, meta);
	unlink(mark);
	remove_dir(old);
	return 0;
}
