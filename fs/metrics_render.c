/* The exposition of a mounted array; see fs/metrics_render.h. */
#include "fs/metrics_render.h"

#include <string.h>

#include "common/metrics.h"
#include "faults/faults.h"
#include "replication/repl.h"
#include "tiers/array_metrics.h"

static void fill_state(struct fs *fs, const struct array_snapshot *as,
		       struct metrics_state *st)
{
	memset(st, 0, sizeof(*st));
	store_gauges(fs->st, &st->g);
	st->faults_active = faults_count(fs->faults);
	st->power_lost = store_powered_off(fs->st);
	if (as->has_cache) {
		st->has_cache = true;
		st->cache_blocks = as->cache.resident;
		st->cache_dirty_blocks = as->cache.dirty;
		st->cache_hits = as->cache.hits;
		st->cache_misses = as->cache.misses;
		st->cache_destaged = as->cache.destaged;
	}
}

void metrics_render(struct fs *fs, struct array_snapshot *scratch, FILE *out)
{
	struct metrics_state st;

	/* One pass under the model's lock, rendered after it is released. */
	array_snapshot(fs->array, scratch);
	fill_state(fs, scratch, &st);
	metrics_write(out, &fs->stats, &st);
	array_metrics_write(out, scratch);
	array_metrics_info(out, array_conf_get(fs->array));
	if (fs->repl)
		repl_metrics_write(fs->repl, out);
	array_snapshot_free(scratch);
}
