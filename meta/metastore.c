/* The metadata store: LMDB environment, store lock, format check.
 *
 * Why LMDB: one writer at a time with fully isolated readers is exactly
 * what a dedupe datastore needs (refcounts and block maps must change
 * together), readers never block the writer, and a committed transaction
 * survives the death of the process even without an fsync, because its
 * pages are in the host page cache (a shared mapping) once it commits. We
 * open with MDB_NOSYNC and make things durable on demand (metastore_sync),
 * which is what a client's fsync asks for.
 *
 * MDB_WRITEMAP: a transaction writes its pages in place in a shared
 * mapping instead of write(2)-ing each one at commit; a 4 KiB client write
 * dirties about ten metadata pages, and this halves its cost. The price is
 * that the map is a sparse file, and a first write to a page the host has
 * no room for is a SIGBUS, not an error. So the file is kept allocated
 * (fallocate) well ahead of the last page LMDB uses, and a write
 * transaction is refused with ENOSPC when that reserve cannot be kept:
 *
 *   data.mdb  [ pages in use | reserved, allocated | sparse ...... mapsize ]
 *                             ^ last page          ^ reserved_bytes
 *
 * Every transaction the datastore runs is bounded (a write is at most
 * 1 MiB, deletions go in batches), far below the smallest reserve.
 */
#include "meta/metastore.h"
#include "meta/metastore_i.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <sys/wait.h>

#include "common/log.h"

#define MS_DEFAULT_MAP_BYTES (64ull << 30)
#define MS_MAX_READERS 1024
#define RESERVE_MIN (8ull << 20)   /* reserve kept ahead, at least */
#define RESERVE_MAX (128ull << 20) /* ... and at most */
#define RESERVE_FLOOR (2ull << 20) /* below this, writers get ENOSPC */
#define RELEASE_BATCH 4096	   /* pending blocks freed per txn */

void ms_bmap_encode(const uint64_t pblk[BMAP_EXTENT_BLOCKS], uint8_t *v)
{
	for (unsigned i = 0; i < BMAP_EXTENT_BLOCKS; i++)
		ms_put_pblk(v + i * MS_PBLK_BYTES, pblk[i]);
}

void ms_bmap_decode(const uint8_t *v, uint64_t pblk[BMAP_EXTENT_BLOCKS])
{
	for (unsigned i = 0; i < BMAP_EXTENT_BLOCKS; i++)
		pblk[i] = ms_get_pblk(v + i * MS_PBLK_BYTES);
}

/* The lock file holds the owner's pid, so "in use" can say by whom. */
static int take_lock(const char *dir, bool readonly, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/lock", dir);
	int fd = open(
	    path, (readonly ? O_RDONLY : O_RDWR | O_CREAT) | O_CLOEXEC, 0600);
	if (fd < 0 && readonly && errno == ENOENT)
		fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
	if (fd < 0) {
		int e = errno;
		snprintf(err, errlen, "store %s: cannot open lock file: %s",
			 dir, strerror(e));
		return -e;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		int e = errno;
		char pid[32] = "";
		ssize_t n = pread(fd, pid, sizeof(pid) - 1, 0);
		if (n > 0) {
			pid[n] = '\0';
			pid[strcspn(pid, "\n")] = '\0';
		}
		close(fd);
		if (e == EWOULDBLOCK) {
			snprintf(err, errlen,
				 "store %s is in use (mounted by pid %s)", dir,
				 pid[0] ? pid : "?");
			return -EBUSY;
		}
		snprintf(err, errlen, "store %s: cannot lock: %s", dir,
			 strerror(e));
		return -e;
	}
	if (!readonly) {
		char buf[32];
		int n = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
		if (ftruncate(fd, 0) < 0 || pwrite(fd, buf, n, 0) != n) {
			int e = errno;
			close(fd);
			snprintf(err, errlen, "store %s: cannot write lock: %s",
				 dir, strerror(e));
			return -e;
		}
	}
	return fd;
}

static int check_dir(const char *dir, bool readonly, char *err, size_t errlen)
{
	struct stat st;
	if (stat(dir, &st) < 0) {
		int e = errno;
		snprintf(err, errlen, "store %s: %s", dir, strerror(e));
		return -e;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "store %s is not a directory", dir);
		return -ENOTDIR;
	}
	if (access(dir, readonly ? R_OK | X_OK : R_OK | W_OK | X_OK) < 0) {
		int e = errno;
		snprintf(err, errlen, "store %s is not %s: %s", dir,
			 readonly ? "readable" : "writable", strerror(e));
		return -e;
	}
	return 0;
}

/* A directory is a new store when it holds nothing, or only what a failed
 * first mount may have left (the lock and the log). */
static bool dir_is_blank(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return false;
	bool blank = true;
	struct dirent *de;
	while ((de = readdir(d))) {
		const char *n = de->d_name;
		if (!strcmp(n, ".") || !strcmp(n, "..") || !strcmp(n, "lock") ||
		    !strcmp(n, "arraysim.log"))
			continue;
		blank = false;
		break;
	}
	closedir(d);
	return blank;
}

static int format_new(struct metastore *ms, MDB_txn *txn)
{
	struct ms_format f = {.magic = MS_MAGIC,
			      .version = MS_FORMAT_VERSION,
			      .block_size = BLOCK_BYTES};
	MDB_val k = {sizeof("format") - 1, "format"};
	int r = metastore_put_sealed(ms, txn, MS_META, &k, &f, sizeof(f),
				     MDB_NOOVERWRITE);
	if (r)
		return r;
	/* ino 1 is the root (FUSE_ROOT_ID); the fs layer creates it. */
	struct ms_counters c = {.next_ino = 1, .next_pblk = 1};
	return metastore_counters_put(ms, txn, &c);
}

static int check_format(struct metastore *ms, MDB_txn *txn, const char *dir,
			char *err, size_t errlen)
{
	MDB_val k = {sizeof("format") - 1, "format"}, v;
	int rc = mdb_get(txn, ms->dbi[MS_META], &k, &v);
	if (rc == MDB_NOTFOUND || (rc == 0 && v.mv_size < 8)) {
		snprintf(err, errlen, "store %s: metadata has no format record",
			 dir);
		return -EIO;
	}
	if (rc) {
		snprintf(err, errlen, "store %s: metadata unreadable: %s", dir,
			 mdb_strerror(rc));
		return metastore_errno(rc);
	}
	struct ms_format f = {0};
	memcpy(&f, v.mv_data, v.mv_size < sizeof(f) ? v.mv_size : sizeof(f));
	if (f.magic != MS_MAGIC) {
		snprintf(err, errlen, "store %s: not an arraysim store", dir);
		return -EINVAL;
	}
	if (f.version < MS_FORMAT_VERSION) {
		snprintf(err, errlen,
			 "store format %u: made by an older arraysim; this one "
			 "reads format %u only (copy the files out with the "
			 "older version, into a new store): %s",
			 f.version, MS_FORMAT_VERSION, dir);
		return -EPROTO;
	}
	if (f.version != MS_FORMAT_VERSION) {
		snprintf(err, errlen,
			 "store %s has format version %u, this arraysim reads "
			 "version %u",
			 dir, f.version, MS_FORMAT_VERSION);
		return -EPROTO;
	}
	if (v.mv_size != sizeof(f) + MS_SEAL_LEN ||
	    !ms_sealed(MS_META, &k, &v) || f.block_size != BLOCK_BYTES) {
		snprintf(err, errlen,
			 "store %s: metadata is damaged (the format record "
			 "fails its checksum)",
			 dir);
		return -EIO;
	}
	return 0;
}

static int open_tables(struct metastore *ms, bool create, const char *dir,
		       char *err, size_t errlen)
{
	MDB_txn *txn;
	int rc =
	    mdb_txn_begin(ms->env, NULL, ms->readonly ? MDB_RDONLY : 0, &txn);
	if (rc) {
		snprintf(err, errlen, "store %s: metadata: %s", dir,
			 mdb_strerror(rc));
		return metastore_errno(rc);
	}
	for (int t = 0; t < MS_NTABLES; t++) {
		unsigned fl =
		    metastore_table_flags(t) | (create ? MDB_CREATE : 0);
		rc =
		    mdb_dbi_open(txn, metastore_table_name(t), fl, &ms->dbi[t]);
		if (rc == MDB_NOTFOUND && !create) {
			snprintf(err, errlen,
				 "store %s: metadata has no table '%s'", dir,
				 metastore_table_name(t));
			mdb_txn_abort(txn);
			return -EIO;
		}
		if (rc) {
			snprintf(err, errlen, "store %s: metadata table %s: %s",
				 dir, metastore_table_name(t),
				 mdb_strerror(rc));
			mdb_txn_abort(txn);
			return metastore_errno(rc);
		}
	}
	int r = create ? format_new(ms, txn)
		       : check_format(ms, txn, dir, err, errlen);
	if (r) {
		if (create)
			snprintf(err, errlen, "store %s: cannot format: %s",
				 dir, strerror(-r));
		mdb_txn_abort(txn);
		return r;
	}
	rc = mdb_txn_commit(txn);
	if (rc) {
		snprintf(err, errlen, "store %s: metadata: %s", dir,
			 mdb_strerror(rc));
		return metastore_errno(rc);
	}
	return 0;
}

/* Read every page of every table, values included, so that damage LMDB
 * would trip over shows up now. Returns 0 or 1; may crash on damage. */
/* Runs in the probe child only. On a damaged file LMDB can hand out
 * values that point anywhere; reading them is the point of the probe (a
 * crash tells the parent the metadata is damaged), so AddressSanitizer,
 * which would report those reads from the child, is off here. */
__attribute__((no_sanitize("address"))) static int walk_all(MDB_env *env)
{
	MDB_txn *txn;
	MDB_dbi dbi;
	if (mdb_txn_begin(env, NULL, MDB_RDONLY, &txn))
		return 1;
	unsigned sum = 0;
	int bad = 0;
	for (int t = 0; t < MS_NTABLES && !bad; t++) {
		MDB_cursor *cur;
		MDB_val k, v;
		int rc = mdb_dbi_open(txn, metastore_table_name(t),
				      metastore_table_flags(t), &dbi);
		if (rc == MDB_NOTFOUND)
			continue; /* open_tables reports a missing table */
		if (rc || mdb_cursor_open(txn, dbi, &cur)) {
			bad = 1;
			break;
		}
		while ((rc = mdb_cursor_get(cur, &k, &v, MDB_NEXT)) == 0)
			for (size_t i = 0; i < v.mv_size; i += 512)
				sum += ((const unsigned char *)v.mv_data)[i];
		bad = rc != MDB_NOTFOUND;
		mdb_cursor_close(cur);
	}
	mdb_txn_abort(txn);
	/* The sum is never used: the volatile store keeps the value reads. */
	*(volatile unsigned *)&sum = sum;
	return bad;
}

static void die_quietly(int sig)
{
	_exit(1);
}

/* LMDB trusts its pages: a damaged one can make it crash rather than
 * fail. So before the store is used, a child process walks all of it; if
 * the child fails or dies, the metadata is damaged, and the parent says so
 * in one line instead of crashing later. The walk costs a read of the
 * metadata (about 60 MB per 4 GiB of unique data). */
/* Seconds the probe may take: 30, plus one per 50 MB of metadata. */
static unsigned walk_limit_s(const char *dir)
{
	char file[4200];
	struct stat st;
	snprintf(file, sizeof(file), "%s/data.mdb", dir);
	uint64_t bytes =
	    stat(file, &st) == 0 ? (uint64_t)st.st_blocks * 512 : 0;
	return 30u + (unsigned)(bytes / (50u << 20));
}

static int verify_in_child(const char *path, uint64_t map_bytes)
{
	pid_t pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		/* LMDB's assertion text is not the one line the user gets. */
		int devnull = open("/dev/null", O_WRONLY);
		if (devnull >= 0)
			dup2(devnull, STDERR_FILENO);
		/* A crash here is the answer, not a bug to report (nor, in a
		 * sanitizer build, a report to write). */
		static const int fatal[] = {SIGSEGV, SIGBUS, SIGABRT,
					    SIGFPE,  SIGILL, SIGALRM};
		struct sigaction sa = {.sa_handler = die_quietly};
		for (size_t i = 0; i < sizeof(fatal) / sizeof(*fatal); i++)
			sigaction(fatal[i], &sa, NULL);
		/* Damaged branch pages can send a walk round in a loop: a
		 * sound store is read in well under a second per 50 MB. */
		alarm(walk_limit_s(path));
		MDB_env *env;
		if (mdb_env_create(&env))
			_exit(1);
		mdb_env_set_maxdbs(env, MS_NTABLES);
		mdb_env_set_mapsize(env, map_bytes);
		if (mdb_env_open(env, path,
				 MDB_RDONLY | MDB_NOLOCK | MDB_NOTLS |
				     MDB_NORDAHEAD,
				 0600))
			_exit(1);
		_exit(walk_all(env));
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -errno;
	return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : -EIO;
}

static int open_env(struct metastore *ms, const char *dir, uint64_t map_bytes,
		    bool create, char *err, size_t errlen)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/meta", dir);
	if (create && mkdir(path, 0700) < 0 && errno != EEXIST) {
		int e = errno;
		snprintf(err, errlen, "store %s: cannot create %s: %s", dir,
			 path, strerror(e));
		return -e;
	}
	int rc = mdb_env_create(&ms->env);
	if (rc) {
		snprintf(err, errlen, "metadata: %s", mdb_strerror(rc));
		return -ENOMEM;
	}
	mdb_env_set_userctx(ms->env, ms);
	mdb_env_set_maxdbs(ms->env, MS_NTABLES);
	mdb_env_set_maxreaders(ms->env, MS_MAX_READERS);
	mdb_env_set_mapsize(ms->env,
			    map_bytes ? map_bytes : MS_DEFAULT_MAP_BYTES);
	unsigned flags = MDB_NOTLS | MDB_NOSYNC | MDB_NORDAHEAD;
	flags |= ms->readonly ? MDB_RDONLY : MDB_WRITEMAP;
	if (!create &&
	    verify_in_child(path,
			    map_bytes ? map_bytes : MS_DEFAULT_MAP_BYTES)) {
		snprintf(err, errlen,
			 "store %s: metadata is damaged (%s/data.mdb fails a "
			 "full read)",
			 dir, path);
		return -EIO;
	}
	rc = mdb_env_open(ms->env, path, flags, 0600);
	if (rc) {
		if (rc == ENOENT)
			snprintf(err, errlen,
				 "store %s is not an arraysim store (no meta/)",
				 dir);
		else
			snprintf(err, errlen,
				 "store %s: metadata is damaged or unreadable: "
				 "%s",
				 dir, mdb_strerror(rc));
		return rc == ENOENT ? -EINVAL : metastore_errno(rc);
	}
	MDB_stat st;
	mdb_env_get_fd(ms->env, &ms->data_fd);
	mdb_env_stat(ms->env, &st);
	ms->page_bytes = st.ms_psize;
	return 0;
}

/* Is @dir an existing store (has meta/), or blank enough to become one?
 * Asked before anything is created in it, so that pointing --store at the
 * wrong directory leaves that directory as it was. */
static int check_store(const char *dir, bool create, bool *fresh, char *err,
		       size_t errlen)
{
	char meta[4096];
	snprintf(meta, sizeof(meta), "%s/meta", dir);
	*fresh = access(meta, F_OK) < 0;
	if (*fresh && !(create && dir_is_blank(dir))) {
		snprintf(err, errlen,
			 create ? "store %s is not empty and not an arraysim "
				  "store"
				: "store %s is not an arraysim store",
			 dir);
		return -EINVAL;
	}
	return 0;
}

/* Below MS_MIN_MAP_BYTES LMDB cannot even hold the schema of a new store
 * (its MDB_MAP_FULL says nothing of the option that caused it), or the
 * first file write fails. Refused before anything is made in the store. */
static int check_map_bytes(uint64_t map_bytes, char *err, size_t errlen)
{
	if (!map_bytes || map_bytes >= MS_MIN_MAP_BYTES)
		return 0;
	snprintf(err, errlen,
		 "--meta-max too small for the metadata store (%llu bytes): "
		 "the smallest that works is %lluM",
		 (unsigned long long)map_bytes,
		 (unsigned long long)(MS_MIN_MAP_BYTES >> 20));
	return -EINVAL;
}

int metastore_open(const char *dir, uint64_t map_bytes, bool create,
		   bool readonly, struct metastore **out, char *err,
		   size_t errlen)
{
	bool fresh;
	int r = check_map_bytes(map_bytes, err, errlen);
	if (!r)
		r = check_dir(dir, readonly, err, errlen);
	if (!r)
		r = check_store(dir, create, &fresh, err, errlen);
	if (r)
		return r;
	struct metastore *ms = calloc(1, sizeof(*ms));
	if (!ms) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	ms->readonly = readonly;
	ms->data_fd = -1;
	ms->damage = calloc(1, sizeof(*ms->damage));
	if (!ms->damage) {
		free(ms);
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	pthread_mutex_init(&ms->damage->lock, NULL);
	pthread_mutex_init(&ms->reserve_lock, NULL);
	ms->lock_fd = take_lock(dir, readonly, err, errlen);
	if (ms->lock_fd < 0) {
		r = ms->lock_fd;
		goto out_free;
	}
	/* Again under the lock: another mount may have formatted it. */
	r = check_store(dir, create, &fresh, err, errlen);
	if (r)
		goto out_unlock;
	snprintf(ms->dir, sizeof(ms->dir), "%s", dir);
	if (!readonly && !fresh)
		r = metastore_durable_adopt(dir, err, errlen);
	if (!r)
		r = open_env(ms, dir, map_bytes, fresh, err, errlen);
	if (r)
		goto out_unlock;
	r = open_tables(ms, fresh, dir, err, errlen);
	if (r)
		goto out_close_env;
	*out = ms;
	return 0;

out_close_env:
	mdb_env_close(ms->env);
	ms->env = NULL;
out_unlock:
	if (ms->env)
		mdb_env_close(ms->env); /* created, but open failed */
	close(ms->lock_fd);
out_free:
	pthread_mutex_destroy(&ms->reserve_lock);
	pthread_mutex_destroy(&ms->damage->lock);
	free(ms->damage);
	free(ms);
	return r;
}

/* A closed store needs no reserve: give its space back to the host, so
 * that an unmounted store takes only the pages it uses. The next open
 * allocates it again before the first write transaction. */
static void release_reserve(struct metastore *ms)
{
	MDB_envinfo info;
	mdb_env_info(ms->env, &info);
	uint64_t used = ((uint64_t)info.me_last_pgno + 1) * ms->page_bytes;
	if (ms->data_fd >= 0 && ms->reserved_bytes > used)
		(void)fallocate(
		    ms->data_fd, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
		    (off_t)used, (off_t)(ms->reserved_bytes - used));
}

void metastore_close(struct metastore *ms)
{
	if (!ms)
		return;
	metastore_durable_unpin(ms);
	if (!ms->readonly) {
		mdb_env_sync(ms->env, 1);
		release_reserve(ms);
	}
	mdb_env_close(ms->env);
	close(ms->lock_fd);
	pthread_mutex_destroy(&ms->reserve_lock);
	pthread_mutex_destroy(&ms->damage->lock);
	free(ms->damage);
	free(ms);
}

MDB_env *metastore_env(const struct metastore *ms)
{
	return ms->env;
}

MDB_dbi metastore_dbi(const struct metastore *ms, enum ms_table t)
{
	return ms->dbi[t];
}

/* Keep the allocated reserve ahead of LMDB's last page (see the top of
 * this file). 0, or -ENOSPC when even the floor cannot be kept. */
static int reserve_ahead(struct metastore *ms)
{
	MDB_envinfo info;
	mdb_env_info(ms->env, &info);
	uint64_t used = ((uint64_t)info.me_last_pgno + 1) * ms->page_bytes;
	uint64_t ahead = used / 8;
	ahead = ahead < RESERVE_MIN   ? RESERVE_MIN
		: ahead > RESERVE_MAX ? RESERVE_MAX
				      : ahead;
	pthread_mutex_lock(&ms->reserve_lock);
	int r = 0;
	if (ms->reserved_bytes < used + ahead) {
		uint64_t from = ms->reserved_bytes, want = used + ahead;
		if (fallocate(ms->data_fd, 0, (off_t)from,
			      (off_t)(want - from)) == 0)
			ms->reserved_bytes = want;
		else if (ms->reserved_bytes < used + RESERVE_FLOOR)
			r = -ENOSPC;
	}
	pthread_mutex_unlock(&ms->reserve_lock);
	return r;
}

/* A write transaction, after every transaction that ended before it
 * (see struct metastore's counters). */
static int writer_begin(struct metastore *ms, MDB_txn **out)
{
	atomic_load_explicit(&ms->ends, memory_order_acquire);
	return metastore_errno(mdb_txn_begin(ms->env, NULL, 0, out));
}

int metastore_txn_begin(struct metastore *ms, bool write, MDB_txn **out)
{
	if (write) {
		int r = reserve_ahead(ms);
		if (r)
			return r;
		ms_seal_drop(NULL); /* this thread's last one has ended */
		return writer_begin(ms, out);
	}
	int r = metastore_errno(mdb_txn_begin(ms->env, NULL, MDB_RDONLY, out));
	if (!r)
		atomic_load_explicit(&ms->commits, memory_order_acquire);
	return r;
}

/* The metastore of @txn's environment (metastore_open sets it). */
static struct metastore *ms_of(MDB_txn *txn)
{
	return mdb_env_get_userctx(mdb_txn_env(txn));
}

int metastore_txn_commit(MDB_txn *txn)
{
	int r = ms_seal_flush(txn);
	if (r) {
		mdb_txn_abort(txn);
		return r;
	}
	struct metastore *ms = ms_of(txn);
	if (ms) {
		atomic_fetch_add_explicit(&ms->commits, 1,
					  memory_order_release);
		atomic_fetch_add_explicit(&ms->ends, 1, memory_order_release);
	}
	return metastore_errno(mdb_txn_commit(txn));
}

void metastore_txn_abort(MDB_txn *txn)
{
	if (txn) {
		struct metastore *ms = ms_of(txn);
		if (ms)
			atomic_fetch_add_explicit(&ms->ends, 1,
						  memory_order_release);
		ms_seal_drop(txn);
		mdb_txn_abort(txn);
	}
}

int metastore_get_exact(MDB_txn *txn, MDB_dbi dbi, MDB_val *key, void *out,
			size_t size)
{
	MDB_val v;
	int rc = mdb_get(txn, dbi, key, &v);
	if (rc)
		return metastore_errno(rc);
	if (v.mv_size != size)
		return -EIO;
	memcpy(out, v.mv_data, size);
	return 0;
}

int metastore_counters_get(const struct metastore *ms, MDB_txn *txn,
			   struct ms_counters *out)
{
	MDB_val k = {sizeof("counters") - 1, "counters"};
	return metastore_get_sealed(ms, txn, MS_META, &k, out, sizeof(*out));
}

int metastore_counters_put(const struct metastore *ms, MDB_txn *txn,
			   const struct ms_counters *c)
{
	MDB_val k = {sizeof("counters") - 1, "counters"};
	return metastore_put_sealed(ms, txn, MS_META, &k, c, sizeof(*c), 0);
}

/* Move up to RELEASE_BATCH pending blocks to the free map. Called with the
 * write transaction open right after the environment was synced: no writer
 * can have freed a block in between, so every pending block's freeing is
 * durable, and no durable state of the store still points at it. */
static int release_pending(struct metastore *ms, MDB_txn *txn, unsigned *moved)
{
	MDB_cursor *cur;
	int rc = mdb_cursor_open(txn, ms->dbi[MS_PENDING], &cur);
	MDB_val k, v, empty = {0, NULL};
	while (!rc && *moved < RELEASE_BATCH &&
	       !(rc = mdb_cursor_get(cur, &k, &v, MDB_FIRST))) {
		MDB_val fk = {k.mv_size, k.mv_data};
		rc = mdb_put(txn, ms->dbi[MS_FREEMAP], &fk, &empty, 0);
		if (!rc)
			rc = mdb_cursor_del(cur, 0);
		(*moved)++;
	}
	return rc == MDB_NOTFOUND ? 0 : metastore_errno(rc);
}

/* The writer lock (a write transaction) is taken directly, not through
 * metastore_txn_begin: a sync must go through on a full disk, and its
 * batches are small. */
int metastore_sync(struct metastore *ms)
{
	unsigned moved;
	do {
		MDB_txn *txn;
		int r = writer_begin(ms, &txn);
		if (r)
			return r;
		/* LMDB hands every write transaction the same MDB_txn: no
		 * deferred seal of an earlier one may pass for this one's. */
		ms_seal_drop(NULL);
		r = metastore_errno(mdb_env_sync(ms->env, 1));
		if (!r)
			metastore_durable_pin(ms);
		moved = 0;
		if (!r && !atomic_load(&ms->hold_pending))
			r = release_pending(ms, txn, &moved);
		if (r || !moved) {
			metastore_txn_abort(txn);
			return r;
		}
		r = metastore_txn_commit(txn);
		if (r)
			return r;
	} while (moved == RELEASE_BATCH);
	return 0;
}

void metastore_hold_pending(struct metastore *ms, bool hold)
{
	atomic_store(&ms->hold_pending, hold);
}

/* The caller has made the frees of @pblk[] durable (a sync after the
 * commits that freed them); those still pending become reusable. */
int metastore_release_listed(struct metastore *ms, const uint64_t *pblk,
			     size_t n)
{
	int commits = 0;
	for (size_t at = 0; at < n; commits++) {
		MDB_txn *txn;
		int r = writer_begin(ms, &txn);
		if (r)
			return r;
		ms_seal_drop(NULL);
		size_t end = at + RELEASE_BATCH < n ? at + RELEASE_BATCH : n;
		for (; !r && at < end; at++) {
			MDB_val k = {sizeof(pblk[at]), (void *)&pblk[at]};
			MDB_val empty = {0, NULL};
			int rc = mdb_del(txn, ms->dbi[MS_PENDING], &k, NULL);
			if (!rc)
				rc = mdb_put(txn, ms->dbi[MS_FREEMAP], &k,
					     &empty, 0);
			r = rc == MDB_NOTFOUND ? 0 : metastore_errno(rc);
		}
		if (r) {
			metastore_txn_abort(txn);
			return r;
		}
		if ((r = metastore_txn_commit(txn)))
			return r;
	}
	return commits;
}
