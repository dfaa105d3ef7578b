/* The metadata-cache trim (store/store.h: store_trim_meta_cache): LMDB's
 * map keeps every page the daemon touched mapped, so RSS would grow with
 * the data; past cfg.meta_cache_bytes the map's pages leave the process. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include "common/log.h"
#include "store/store_i.h"

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
void store_trim_meta_cache(struct store *st)
{
	uint64_t limit = st->cfg.meta_cache_bytes;
	if (!limit || rss_file_bytes() <= limit)
		return;
	void *addr;
	size_t len;
	if (find_meta_map(st->dir, &addr, &len) ||
	    madvise(addr, len, MADV_DONTNEED))
		log_warn("fs", "cannot trim the metadata cache: %s",
			 strerror(errno));
}
