/* Data reduction at destage ([dedupe] reduce_at) and the write-buffer
 * throttle ([cache] throttle_start), in emulated time: the timed array's
 * steps (tiers/array_timed.c timed()) driven here without its clock and
 * completer: residency, the destager, the throttle, the model. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "common/block.h"
#include "tests/tiers/t_model.h"
#include "tiers/array_io.h"
#include "tiers/cache.h"
#include "tiers/cache_destager.h"
#include "tiers/cache_residency.h"
#include "tiers/engine.h"

/* A hybrid whose one controller core is the bottleneck for dedupe work:
 * 4 KiB fingerprinted in 10 us and compressed in 10 us exactly (409.6
 * MB/s), a 2 us lookup. %s: the [cache] size and extra keys, the
 * hash rate and reduce_at. */
static const char hybrid[] =
    "[controllers]\ncores = 1\nfrontend_op_cost = 5us\n"
    "backend_op_cost = 1us\n"
    "[frontend]\nspeed = 25GbE\n"
    "[tier cache]\nkind = nvme\ndrives = 1\ncapacity = 100G\n"
    "raid = raid0\nread_latency = 20us\nwrite_latency = 20us\n"
    "[tier backing]\nkind = nvme\ndrives = 4\ncapacity = 1T\n"
    "raid = raid0\nread_latency = 80us\nwrite_latency = 30us\n"
    "[cache]\nsize = %s\ndestage_start = 20%%\ndestage_stop = 10%%\n"
    "destage_rate = 20M/s\n%s"
    "[dedupe]\nenabled = yes\ncpu_cost = 2us\nhash_rate = %s\n"
    "compression = lz4\ncompress_rate = 409600000/s\nreduce_at = %s\n";

static struct profile *hybrid_hash(const char *size, const char *cache_keys,
				   const char *hash, const char *reduce_at)
{
	char text[2048];

	snprintf(text, sizeof(text), hybrid, size, cache_keys, hash, reduce_at);
	return t_profile(text);
}

static struct profile *hybrid_profile(const char *size, const char *cache_keys,
				      const char *reduce_at)
{
	return hybrid_hash(size, cache_keys, "409600000/s", reduce_at);
}

static struct engine_resource_stats res_stats(const struct model *m,
					      const char *name)
{
	const struct engine *e = model_engine(m);
	struct engine_resource_stats st = {0};

	for (unsigned id = 0; id < engine_resources(e); id++)
		if (!strcmp(engine_resource_name(e, (int)id), name))
			engine_resource_stats(e, (int)id, &st);
	return st;
}

static uint64_t backing_bytes_written(const struct model *m)
{
	uint64_t b = 0;

	for (unsigned i = 0; i < 4; i++) {
		char name[16];

		snprintf(name, sizeof(name), "backing%u", i);
		b += res_stats(m, name).bytes[ENGINE_OP_WRITE];
	}
	return b;
}

/* The timed array in emulated time: one write of 4 KiB at @off arriving
 * at @now, each block kept @kept bytes by reduction; its completion. */
struct rig {
	struct profile *p;
	struct model *m;
	struct cache *c;
	struct cache_destager d;
};

static void rig_new(struct rig *r, struct profile *p)
{
	r->p = p;
	r->m = t_model(p, 1.0, 1);
	assert_int_equal(cache_new(p->cache.size_bytes / BLOCK_BYTES, &r->c),
			 0);
	cache_destager_init(&r->d, p, 1.0);
}

static void rig_free(struct rig *r)
{
	cache_free(r->c);
	model_free(r->m);
	free(r->p);
}

static uint64_t rig_write(struct rig *r, uint64_t now, uint64_t off,
			  uint16_t kept)
{
	struct array_io io = {.kind = ARRAY_IO_WRITE,
			      .ino = 1,
			      .offset = off,
			      .length = BLOCK_BYTES,
			      .blocks_stored = kept ? 1 : 0,
			      .blocks_deduped = kept ? 0 : 1,
			      .kept = &kept};
	struct model_io mio = {.op = ENGINE_OP_WRITE,
			       .offset = off,
			       .length = BLOCK_BYTES,
			       .blocks_deduped = io.blocks_deduped};
	uint64_t wait;

	mio.cache_hit =
	    cache_residency_update(r->c, &r->p->cache, r->m, now, &io);
	cache_destager_run(&r->d, r->c, r->m, now);
	wait = cache_destager_throttle(&r->d, r->c);
	return model_submit(r->m, now, &mio) + wait;
}

/* Every dirty block destaged from @now, as the destager moves each. */
static void rig_drain(struct rig *r, uint64_t now)
{
	struct cache_key k;
	uint16_t kept;

	while (cache_destage_next_kept(r->c, &k, &kept))
		model_destage_reduced(r->m, now, k.block * BLOCK_BYTES, kept);
}

/* QD1 writes of @n unique blocks (half of them compressing to 1 KiB),
 * spaced 1 ms apart (low load), then drained: the mean write latency
 * (us) and the controller's busy time (ns) in all. */
static void run_low_load(const char *reduce_at, double *lat_us,
			 uint64_t *busy_ns, uint64_t *reduce_ns,
			 uint64_t *backing_bytes)
{
	struct rig r;
	struct model_counts mc;
	uint64_t sum = 0, n = 200;

	rig_new(&r, hybrid_profile("1G", "", reduce_at));
	for (uint64_t i = 0; i < n; i++) {
		uint64_t now = i * MS;

		sum += rig_write(&r, now, i * BLOCK_BYTES,
				 i % 2 ? 1024 : BLOCK_BYTES) -
		       now;
	}
	rig_drain(&r, n * MS);
	*lat_us = (double)sum / (double)n / 1e3;
	*busy_ns = res_stats(r.m, "ctl0").busy_ns;
	model_counts(r.m, &mc);
	*reduce_ns = mc.reduce_cpu_ns;
	*backing_bytes = backing_bytes_written(r.m);
	rig_free(&r);
}

/* Reduction at destage takes the fingerprint and compression off the
 * write: 22 us less a write on an idle one-core controller; the same
 * controller time in all for the same blocks, now booked by the
 * destager. */
static void test_reduce_moves_cpu(void **state)
{
	double lat_in, lat_de;
	uint64_t busy_in, busy_de, red_in, red_de, back_in, back_de;

	run_low_load("inline", &lat_in, &busy_in, &red_in, &back_in);
	run_low_load("destage", &lat_de, &busy_de, &red_de, &back_de);
	print_message("# write latency inline %.1f us, destage %.1f us; "
		      "ctl0 busy %llu ns, %llu ns (%llu at destage)\n",
		      lat_in, lat_de, (unsigned long long)busy_in,
		      (unsigned long long)busy_de, (unsigned long long)red_de);
	/* 2 us lookup + 10 us SHA-1 + 10 us LZ4 per unique block. */
	t_assert_within(lat_in - lat_de, 22.0, 0.01);
	assert_int_equal(red_in, 0);
	assert_int_equal(red_de, 200 * 22 * US);
	assert_int_equal(busy_in, busy_de);
	/* Half the blocks kept at 1 KiB by the data path, through the
	 * residency to the destager: only at destage do they shrink. */
	assert_int_equal(back_in, 200 * BLOCK_BYTES);
	assert_int_equal(back_de, 100 * 1024 + 100 * BLOCK_BYTES);
	(void)state;
}

/* A block dedupe found writes nothing to the backing tier at destage,
 * a compressed one its size in sectors, others 4 KiB; the reduction CPU
 * compresses only what dedupe did not find. Inline, every destage
 * writes the whole block and books no CPU. */
static void test_destage_writes_what_is_kept(void **state)
{
	static const uint16_t kept[] = {0, 1000, BLOCK_BYTES};
	static const uint64_t bytes[] = {0, 1024, BLOCK_BYTES};
	static const uint64_t cpu[] = {12 * US, 22 * US, 22 * US};

	for (unsigned i = 0; i < 3; i++) {
		struct profile *p = hybrid_profile("1G", "", "destage");
		struct model *m = t_model(p, 1.0, 1);
		struct model_counts mc;

		model_destage_reduced(m, 0, 0, kept[i]);
		model_counts(m, &mc);
		assert_int_equal(backing_bytes_written(m), bytes[i]);
		assert_int_equal(mc.reduce_kept_bytes, bytes[i]);
		assert_int_equal(mc.reduce_cpu_ns, cpu[i]);
		assert_int_equal(res_stats(m, "ctl0").busy_ns, cpu[i]);
		model_free(m);
		free(p);

		p = hybrid_profile("1G", "", "inline");
		m = t_model(p, 1.0, 1);
		model_destage_reduced(m, 0, 0, kept[i]);
		model_counts(m, &mc);
		assert_int_equal(backing_bytes_written(m), BLOCK_BYTES);
		assert_int_equal(mc.reduce_cpu_ns, 0);
		model_free(m);
		free(p);
	}
	(void)state;
}

/* On several nodes, each node that holds a block reduces it on its own
 * cores (vSAN: each disk group dedupes its own components): the nodes
 * whose cache tier the destage reads are those whose CPU it books. */
static void test_reduce_on_holding_nodes(void **state)
{
	/* The profile's own [dedupe] (reduce_at = destage, no compression),
	 * turned on, at round costs. */
	char *text = t_builtin_with(
	    "vsan-dell-r740xd", "\nenabled = no\nhash_rate = 756000000/s\n",
	    "\nenabled = yes\ncpu_cost = 2us\nhash_rate = 409600000/s\n");
	struct profile *p = t_profile(text);
	struct model *m = t_model(p, 1.0, 1);
	struct model_counts mc;
	unsigned holders = 0;

	model_destage_reduced(m, 0, 5 * MIB, 0);
	for (unsigned n = 0; n < p->nodes.count; n++) {
		char name[16];
		uint64_t reads = 0, busy;

		for (unsigned d = 0; d < 2; d++) {
			snprintf(name, sizeof(name), "cache%u", 2 * n + d);
			reads += res_stats(m, name).ops[ENGINE_OP_READ];
		}
		snprintf(name, sizeof(name), "ctl%u", n);
		busy = res_stats(m, name).busy_ns;
		assert_int_equal(busy, reads ? 12 * US : 0);
		holders += reads > 0;
	}
	model_counts(m, &mc);
	print_message("# %u nodes reduced the block\n", holders);
	assert_true(holders >= 2);
	assert_int_equal(mc.reduce_cpu_ns, holders * 12 * US);
	assert_int_equal(mc.reduce_kept_bytes, 0);
	model_free(m);
	free(p);
	free(text);
	(void)state;
}

/* The cache entry carries what reduction keeps to its destage; a block
 * still dirty from a unique write keeps its data when a dedupe hit
 * rewrites it. */
static void test_cache_carries_kept(void **state)
{
	struct cache *c;
	struct cache_key k = {.block = 7}, v;
	uint16_t kept = 1, vk;

	assert_int_equal(cache_new(2, &c), 0);
	assert_false(cache_insert_kept(c, k, true, 1500, &v, &vk));
	assert_false(cache_insert_kept(c, k, true, 0, &v, &vk));
	assert_true(cache_destage_next_kept(c, &k, &kept));
	assert_int_equal(kept, 1500);
	/* Clean now: a dedupe hit makes it dirty with nothing to write. */
	assert_false(cache_insert_kept(c, k, true, 0, &v, &vk));
	assert_true(cache_destage_next_kept(c, &k, &kept));
	assert_int_equal(kept, 0);
	/* A dirty victim reports its own. */
	cache_insert_kept(c, (struct cache_key){.block = 1}, true, 300, &v,
			  &vk);
	cache_insert_kept(c, (struct cache_key){.block = 2}, false, 0, &v, &vk);
	assert_true(cache_insert_kept(c, (struct cache_key){.block = 3}, false,
				      0, &v, &vk));
	assert_int_equal(vk, 300);
	cache_free(c);
	(void)state;
}

/* What a sustained write did over its last second. */
struct sustained {
	double fill_pct;      /* dirty share of the cache at the end */
	double write_mb_s;    /* over the last second */
	uint64_t dirty_evict; /* dirty blocks evicted (the cliff) */
	uint64_t throttled;
	double lat_us; /* mean write latency, last second */
};

/* 8 writers, closed loop, unique 4 KiB blocks for @secs s of emulated
 * time against a 64 MiB write buffer destaging at 20 MB/s (the cache
 * drive alone would take some 40 times that). */
static struct sustained run_sustained_on(struct profile *p, unsigned secs)
{
	struct rig r;
	uint64_t ready[8] = {0}, next = 0, end = secs * S, bytes = 0, lat = 0,
		 n = 0;
	struct cache_stats cs;
	struct sustained out;

	rig_new(&r, p);
	for (;;) {
		unsigned w = 0;

		for (unsigned i = 1; i < 8; i++)
			w = ready[i] < ready[w] ? i : w;
		if (ready[w] >= end)
			break;
		uint64_t done =
		    rig_write(&r, ready[w], next++ * BLOCK_BYTES, BLOCK_BYTES);
		if (ready[w] >= end - S) {
			bytes += BLOCK_BYTES;
			lat += done - ready[w];
			n++;
		}
		ready[w] = done;
	}
	cache_stats(r.c, &cs);
	out = (struct sustained){
	    .fill_pct = (double)cs.dirty * BLOCK_BYTES * 100.0 /
			(double)r.p->cache.size_bytes,
	    .write_mb_s = (double)bytes / 1e6,
	    .dirty_evict = cs.dirty_evictions,
	    .throttled = r.d.throttled,
	    .lat_us = n ? (double)lat / (double)n / 1e3 : 0,
	};
	rig_free(&r);
	return out;
}

static struct sustained run_sustained(const char *cache_keys, unsigned secs)
{
	return run_sustained_on(hybrid_profile("64M", cache_keys, "inline"),
				secs);
}

/* With the throttle, writing flat out settles the buffer just above
 * throttle_start and the writes at the destage rate; without it the
 * buffer fills and writes evict dirty blocks. */
static void test_throttle_settles(void **state)
{
	struct sustained on = run_sustained("throttle_start = 50%\n", 4);
	struct sustained off = run_sustained("", 4);

	print_message("# throttle 50%%: fill %.2f%%, %.2f MB/s, %.1f us, "
		      "%llu delayed, %llu dirty evictions\n",
		      on.fill_pct, on.write_mb_s, on.lat_us,
		      (unsigned long long)on.throttled,
		      (unsigned long long)on.dirty_evict);
	print_message("# no throttle: fill %.2f%%, %.2f MB/s, %.1f us, "
		      "%llu dirty evictions\n",
		      off.fill_pct, off.write_mb_s, off.lat_us,
		      (unsigned long long)off.dirty_evict);
	assert_true(on.fill_pct > 50.0 && on.fill_pct < 51.0);
	t_assert_within(on.write_mb_s, 20.0 * 1.048576, 0.03);
	assert_int_equal(on.dirty_evict, 0);
	assert_true(on.throttled > 0);
	assert_true(off.fill_pct > 99.0);
	assert_true(off.dirty_evict > 0);
	assert_int_equal(off.throttled, 0);
	(void)state;
}

/* throttle_start = 0% is no throttle: the very same run as without the
 * key, write for write. */
static void test_throttle_off_unchanged(void **state)
{
	struct sustained a = run_sustained("throttle_start = 0%\n", 1);
	struct sustained b = run_sustained("", 1);

	assert_memory_equal(&a, &b, sizeof(a));
	assert_int_equal(a.throttled, 0);
	(void)state;
}

/* A CPU-bound controller destages slower with reduction at destage: at
 * 250 us a block (SHA-1 at 16.4 MB/s) its one core cannot reduce 20 MB/s
 * as well as take the writes, so the writes settle at what the CPU
 * leaves, not at destage_rate (queued behind the destager's CPU work
 * they slow down before the buffer reaches the throttle); with the hash
 * free they reach it. */
static void test_cpu_bound_destages_slower(void **state)
{
	struct sustained slow =
	    run_sustained_on(hybrid_hash("64M", "throttle_start = 50%\n",
					 "16384000/s", "destage"),
			     4);
	struct sustained fast = run_sustained_on(
	    hybrid_hash("64M", "throttle_start = 50%\n", "0", "destage"), 4);

	print_message("# reduce at destage, throttle 50%%: SHA-1 16.4 MB/s "
		      "%.2f MB/s (fill %.2f%%, %.0f us), free %.2f MB/s\n",
		      slow.write_mb_s, slow.fill_pct, slow.lat_us,
		      fast.write_mb_s);
	assert_true(slow.write_mb_s < 0.8 * 20.0 * 1.048576);
	t_assert_within(fast.write_mb_s, 20.0 * 1.048576, 0.03);
	assert_int_equal(slow.dirty_evict, 0);
	(void)state;
}

/* Blocks dirty in the cache, far below destage_start: @n written 1 ms
 * apart from t = 0, then the destager run once at @at; the bytes it
 * has written to the backing tier by then. */
static uint64_t destaged_by(const char *cache_keys, unsigned n, uint64_t at)
{
	struct rig r;
	uint64_t b;

	rig_new(&r, hybrid_profile("1G", cache_keys, "inline"));
	for (unsigned i = 0; i < n; i++)
		rig_write(&r, i * MS, (uint64_t)i * BLOCK_BYTES, BLOCK_BYTES);
	cache_destager_run(&r.d, r.c, r.m, at);
	b = backing_bytes_written(r.m);
	rig_free(&r);
	return b;
}

/* [cache] destage_interval (ZFS's transaction group timeout): a little
 * dirty data, far under the dirty share that starts a destage, waits
 * for the interval, then all of it goes (down to no dirty block, not to
 * destage_stop); without the key it stays in the cache. */
static void test_destage_interval(void **state)
{
	const char *every5 = "destage_interval = 5s\n";

	assert_int_equal(destaged_by(every5, 100, 4900 * MS), 0);
	assert_int_equal(destaged_by(every5, 100, 5100 * MS),
			 100 * BLOCK_BYTES);
	assert_int_equal(destaged_by("", 100, 5100 * MS), 0);
	assert_int_equal(destaged_by("", 100, 3600000 * MS), 0);
	(void)state;
}

/* [cache] destage_from = memory (ZFS): a destage writes the backing tier
 * as before and reads nothing from the cache tier; by default it reads
 * each block there first. */
static void test_destage_from_memory(void **state)
{
	static const char *const keys[] = {"", "destage_from = memory\n"};
	static const uint64_t cache_reads[] = {100 * BLOCK_BYTES, 0};

	for (unsigned k = 0; k < 2; k++) {
		struct rig r;
		char with[64];

		snprintf(with, sizeof(with), "%sdestage_interval = 5s\n",
			 keys[k]);
		rig_new(&r, hybrid_profile("1G", with, "inline"));
		for (unsigned i = 0; i < 100; i++)
			rig_write(&r, i * MS, (uint64_t)i * BLOCK_BYTES,
				  BLOCK_BYTES);
		cache_destager_run(&r.d, r.c, r.m, 5100 * MS);
		assert_int_equal(backing_bytes_written(r.m), 100 * BLOCK_BYTES);
		assert_int_equal(res_stats(r.m, "cache0").bytes[ENGINE_OP_READ],
				 cache_reads[k]);
		rig_free(&r);
	}
	(void)state;
}

/* The interval counts from when the last destage began: a second one
 * comes 5 s after the first, not sooner. */
static void test_destage_interval_repeats(void **state)
{
	struct rig r;

	rig_new(&r, hybrid_profile("1G", "destage_interval = 5s\n", "inline"));
	rig_write(&r, 0, 0, BLOCK_BYTES);
	cache_destager_run(&r.d, r.c, r.m, 5000 * MS);
	assert_int_equal(backing_bytes_written(r.m), BLOCK_BYTES);
	rig_write(&r, 6000 * MS, BLOCK_BYTES, BLOCK_BYTES);
	cache_destager_run(&r.d, r.c, r.m, 9900 * MS);
	assert_int_equal(backing_bytes_written(r.m), BLOCK_BYTES);
	cache_destager_run(&r.d, r.c, r.m, 10000 * MS);
	assert_int_equal(backing_bytes_written(r.m), 2 * BLOCK_BYTES);
	rig_free(&r);
	(void)state;
}

/* The keys print back (profile show) and bad values fail on one line. */
static void test_keys(void **state)
{
	struct profile *p =
	    hybrid_profile("1G", "throttle_start = 70%\n", "destage");
	char *shown = t_print(p);
	static const struct {
		const char *from, *to, *err;
	} bad[] = {
	    {"reduce_at = destage", "reduce_at = later",
	     "reduce_at: unknown reduce_at 'later'"},
	    {"destage_rate = 20M/s\n",
	     "destage_rate = 20M/s\nthrottle_start = 15%\n",
	     "throttle_start: must be above destage_start"},
	    {"size = 1G", "size = 1G\npolicy = write-through",
	     "reduce_at: destage needs [tier cache]"},
	    {"reduce_at = destage", "reduce_at = destage\nafter_ack = yes",
	     "reduce_at: destage and after_ack = yes exclude each other"},
	};

	assert_non_null(strstr(shown, "\nthrottle_start = 70%\n"));
	assert_non_null(strstr(shown, "\nreduce_at = destage\n"));
	struct profile *back = t_profile(shown);
	assert_int_equal(back->cache.throttle_start_pct, 70);
	assert_int_equal(back->dedupe.reduce_at, PROFILE_REDUCE_DESTAGE);
	for (unsigned i = 0; i < sizeof(bad) / sizeof(*bad); i++) {
		char text[2048], err[256] = "", *at;
		struct profile q;

		snprintf(text, sizeof(text), hybrid, "1G", "", "409600000/s",
			 "destage");
		at = strstr(text, bad[i].from);
		assert_non_null(at);
		char out[2200];
		snprintf(out, sizeof(out), "%.*s%s%s", (int)(at - text), text,
			 bad[i].to, at + strlen(bad[i].from));
		assert_int_equal(
		    profile_parse_string(out, "t.ini", &q, err, sizeof(err)),
		    -EINVAL);
		print_message("# %s\n", err);
		assert_non_null(strstr(err, bad[i].err));
		assert_null(strchr(err, '\n'));
	}
	free(back);
	free(shown);
	free(p);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_reduce_moves_cpu),
	    cmocka_unit_test(test_destage_writes_what_is_kept),
	    cmocka_unit_test(test_reduce_on_holding_nodes),
	    cmocka_unit_test(test_cache_carries_kept),
	    cmocka_unit_test(test_throttle_settles),
	    cmocka_unit_test(test_throttle_off_unchanged),
	    cmocka_unit_test(test_cpu_bound_destages_slower),
	    cmocka_unit_test(test_destage_interval),
	    cmocka_unit_test(test_destage_interval_repeats),
	    cmocka_unit_test(test_destage_from_memory),
	    cmocka_unit_test(test_keys),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
