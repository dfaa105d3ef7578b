/* fs_open/fs_close (fs/fs_open.h), and the store hooks the front end
 * answers: the kernel's lookup counts, the thin-provisioning limit. */
#include "fs/fs_open.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "fs/fault_gate.h"
#include "fs/inode_table.h"
#include "fs/scenario_run.h"

static bool hook_held(void *ctx, uint64_t ino)
{
	struct fs *fs = ctx;
	return inode_table_lookups(fs->itab, ino) != 0;
}

static bool hook_thin_full(void *ctx, uint64_t unique)
{
	return fault_gate_thin_full(ctx, unique);
}

static struct store_config store_config_of(struct fs *fs)
{
	const struct fs_config *c = &fs->cfg;
	return (struct store_config){
	    .dir = fs->store,
	    .seed = c->seed,
	    .verify = c->verify,
	    .meta_map_bytes = c->meta_map_bytes,
	    .meta_cache_bytes = c->meta_cache_bytes,
	    .power_loss = c->power_loss,
	    .hold_pending = c->hold_pending,
	    .profile = c->profile,
	    .scale = c->scale,
	    .time_scale = c->time_scale,
	    .stats = &fs->stats,
	    .hooks = {.ctx = fs,
		      .held = hook_held,
		      .thin_full = hook_thin_full},
	};
}

int fs_open(struct fs *fs, const struct fs_config *cfg, char *err,
	    size_t errlen)
{
	memset(fs, 0, sizeof(*fs));
	fs->cfg = *cfg;
	snprintf(fs->store, sizeof(fs->store), "%s", cfg->store);
	fs->cfg.store = fs->store;
	fs->opened_ns = stats_now_ns();
	fs->itab = inode_table_new();
	if (!fs->itab) {
		snprintf(err, errlen, "out of memory");
		return -ENOMEM;
	}
	struct store_config sc = store_config_of(fs);
	int r = store_open(&sc, &fs->st, err, errlen);
	if (r)
		goto out_free_itab;
	fs->array = store_array(fs->st);
	r = fault_gate_open(fs, err, errlen);
	if (r)
		goto out_close_store;
	return 0;

out_close_store:
	store_close(fs->st);
out_free_itab:
	inode_table_free(fs->itab);
	return r;
}

void fs_close(struct fs *fs)
{
	scenario_run_close(fs);
	fault_gate_close(fs); /* replies it delays are sent first */
	store_close(fs->st);
	inode_table_free(fs->itab);
}
