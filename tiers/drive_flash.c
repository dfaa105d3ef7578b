/* A flash drive (kind nvme or ssd): service times sampled from the
 * profile's read_latency and write_latency distributions, which must be
 * above 0; the HDD keys (rpm, track_seek, full_seek) are refused.
 */
#include "tiers/drive_ops.h"

#include <stddef.h>

static uint64_t dist_max_ns(const struct engine_dist *d)
{
	return d->n_points ? d->points[d->n_points - 1].ns : d->fixed_ns;
}

static const char *flash_check(const struct profile_tier *t, const char **key)
{
	if (!dist_max_ns(&t->latency[ENGINE_OP_READ]))
		return *key = "read_latency", "must be above 0";
	if (!dist_max_ns(&t->latency[ENGINE_OP_WRITE]))
		return *key = "write_latency", "must be above 0";
	if (t->rpm || t->track_seek_ns || t->full_seek_ns) {
		*key = t->rpm ? "rpm"
			      : (t->track_seek_ns ? "track_seek" : "full_seek");
		return "only for kind = hdd";
	}
	return NULL;
}

/* The sampled distributions model.c already set are the whole story. */
static void flash_engine_conf(const struct profile_tier *t, double scale,
			      struct engine_resource_conf *c)
{
}

/* The slowest of the sampled service times: a rebuild's limit is then
 * one the drive keeps however the samples fall. */
static uint64_t flash_seq_service_ns(const struct profile_tier *t,
				     enum engine_op op)
{
	return dist_max_ns(&t->latency[op]);
}

const struct drive_ops drive_flash = {
    .name = "flash",
    .check = flash_check,
    .engine_conf = flash_engine_conf,
    .seq_service_ns = flash_seq_service_ns,
};
