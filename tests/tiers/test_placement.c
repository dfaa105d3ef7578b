/* tiers/placement.c: where stored blocks live and which failures lose
 * them. Exact per RAID level (what each survives, what one failure too
 * many loses), declustered raid5/6 members (distinct, spread evenly,
 * seeded), rebuild progress (stripes a rebuild reached survive), and the
 * model's loss events built on it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "tests/tiers/t_model.h"
#include "tiers/placement.h"

#define BLOCKS 200000u /* pblks checked: ~4000 raid5 stripes of 3 x 64K */

static struct placement t_place(enum profile_raid raid, unsigned drives,
				unsigned width, uint64_t seed)
{
	struct profile_tier t = {.present = true,
				 .drives = drives,
				 .raid = raid,
				 .stripe_width = width,
				 .stripe_unit_bytes = 64 * KIB};
	struct placement pl;

	placement_init(&pl, &t, seed);
	return pl;
}

/* The drives out, whatever the rebuild position. */
struct outset {
	unsigned n, d[8];
};

static bool is_out(void *ctx, unsigned drive, double pos)
{
	const struct outset *o = ctx;

	(void)pos;
	for (unsigned i = 0; i < o->n; i++)
		if (o->d[i] == drive)
			return true;
	return false;
}

/* Members of @pblk's stripe that are out. */
static unsigned members_out(const struct placement *pl, uint64_t pblk,
			    struct outset *o)
{
	unsigned m[PROFILE_MAX_WIDTH], n, k = 0;

	n = placement_members(pl, placement_stripe(pl, pblk), m);
	for (unsigned i = 0; i < n; i++)
		k += is_out(o, m[i], 0);
	return k;
}

static unsigned count_lost(const struct placement *pl, struct outset *o)
{
	unsigned lost = 0;

	for (uint64_t p = 1; p <= BLOCKS; p++)
		lost += placement_lost(pl, p, is_out, o);
	return lost;
}

/* raid5 survives one drive, raid6 two; one more loses exactly the blocks
 * on an out drive whose stripe has parity + 1 members out. */
static void parity_tolerance_exact(void **state)
{
	static const struct {
		enum profile_raid raid;
		unsigned width, tol;
	} cases[] = {{PROFILE_RAID5, 4, 1}, {PROFILE_RAID6, 5, 2}};

	for (unsigned c = 0; c < 2; c++) {
		struct placement pl =
		    t_place(cases[c].raid, 8, cases[c].width, 3);
		struct outset o = {.n = cases[c].tol, .d = {2, 5, 6}};
		unsigned lost = 0;

		assert_int_equal(pl.tolerance, cases[c].tol);
		assert_int_equal(count_lost(&pl, &o), 0);
		o.n++;
		for (uint64_t p = 1; p <= BLOCKS; p++) {
			bool want = is_out(&o, placement_drive(&pl, p), 0) &&
				    members_out(&pl, p, &o) > cases[c].tol;

			assert_int_equal(placement_lost(&pl, p, is_out, &o),
					 want);
			lost += want;
		}
		/* Declustered: the stripes holding all of them (raid5
		 * 4 of 8: C(6,2)/C(8,4); raid6 5 of 8: C(5,3)/C(8,3)), and
		 * there the units on them (2 of 4; 3 of 5): 6/56 both. */
		t_assert_within((double)lost, BLOCKS * 6.0 / 56.0, 0.1);
	}
	(void)state;
}

/* raid0: a drive's units; raid10: a pair's; raid1: only all drives. */
static void mirror_and_stripe_tolerance(void **state)
{
	struct placement r0 = t_place(PROFILE_RAID0, 4, 0, 1);
	struct placement r10 = t_place(PROFILE_RAID10, 8, 0, 1);
	struct placement r1 = t_place(PROFILE_RAID1, 3, 0, 1);
	struct outset one = {.n = 1, .d = {2}};
	struct outset split = {.n = 4, .d = {0, 3, 4, 7}}; /* one per pair */
	struct outset pair = {.n = 2, .d = {4, 5}};
	struct outset two = {.n = 2, .d = {0, 1}},
		      all = {.n = 3, .d = {0, 1, 2}};

	assert_int_equal(count_lost(&r0, &one), BLOCKS / 4);
	for (uint64_t p = 1; p <= BLOCKS; p++)
		assert_int_equal(placement_lost(&r0, p, is_out, &one),
				 p / 16 % 4 == 2);
	assert_int_equal(count_lost(&r10, &split), 0);
	for (uint64_t p = 1; p <= BLOCKS; p++)
		assert_int_equal(placement_lost(&r10, p, is_out, &pair),
				 p / 16 % 4 == 2);
	assert_int_equal(count_lost(&r1, &two), 0);
	assert_int_equal(count_lost(&r1, &all), BLOCKS);
	(void)state;
}

/* Declustered: each stripe on width distinct drives; every drive in
 * width/n of the stripes, every pair in w(w-1)/n(n-1); seeded. */
static void declustered_counts(void **state)
{
	struct placement pl = t_place(PROFILE_RAID6, 8, 4, 11);
	struct placement other = t_place(PROFILE_RAID6, 8, 4, 12);
	unsigned per[8] = {0}, both = 0, same = 0, stripes = 56000;

	for (uint64_t g = 0; g < stripes; g++) {
		unsigned m[4], m2[4], in01 = 0;

		assert_int_equal(placement_members(&pl, g, m), 4);
		for (unsigned i = 0; i < 4; i++) {
			assert_true(m[i] < 8);
			for (unsigned j = 0; j < i; j++)
				assert_true(m[i] != m[j]);
			per[m[i]]++;
			in01 += m[i] < 2;
		}
		both += in01 == 2;
		placement_members(&other, g, m2);
		same += !memcmp(m, m2, sizeof(m));
		placement_members(&pl, g, m2);
		assert_memory_equal(m, m2, sizeof(m));
	}
	for (unsigned d = 0; d < 8; d++)
		t_assert_within((double)per[d], stripes * 4.0 / 8.0, 0.03);
	t_assert_within((double)both, stripes * 12.0 / 56.0, 0.05);
	assert_true(same < stripes / 100); /* another seed, other stripes */
	(void)state;
}

/* A rebuild reached the stripes with pos below its progress: with drive
 * 2 half rebuilt and drive 5 out, only stripes at pos >= 0.5 lose. */
static bool half_rebuilt(void *ctx, unsigned drive, double pos)
{
	(void)ctx;
	return drive == 5 || (drive == 2 && pos >= 0.5);
}

static void rebuilt_stripes_survive(void **state)
{
	struct placement pl = t_place(PROFILE_RAID5, 8, 4, 3);
	struct outset o = {.n = 2, .d = {2, 5}};
	unsigned lost = 0, before = 0;

	for (uint64_t p = 1; p <= BLOCKS; p++) {
		bool full = placement_lost(&pl, p, is_out, &o);
		double pos =
		    placement_rebuild_pos(&pl, placement_stripe(&pl, p));

		assert_true(pos >= 0.0 && pos < 1.0);
		assert_int_equal(placement_lost(&pl, p, half_rebuilt, NULL),
				 full && pos >= 0.5);
		before += full;
		lost += full && pos >= 0.5;
	}
	t_assert_within((double)lost, before / 2.0, 0.2);
	(void)state;
}

/* The model: a second raid5 pull is taken (not refused) as a loss
 * event; what it lost is what the placement says at that moment, and it
 * stays lost after the drives come back. */
static void model_loss_events(void **state)
{
	static const char text[] =
	    "[controllers]\ncount = 2\nmode = active-active\ncores = 4\n"
	    "[frontend]\nlinks = 1\nspeed = 10GbE\n"
	    "[tier flash]\nkind = ssd\ndrives = 8\ncapacity = 1G\n"
	    "raid = raid5\nstripe_width = 4\nread_latency = 100us\n"
	    "write_latency = 50us\nslots = 4\nfill = 50%\n"
	    "rebuild_rate = 100M/s\ndetection_window = 0\n";
	struct profile *p = t_profile(text);
	struct model *m = t_model(p, 1.0, 9);
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE, .id = 2};
	struct model_fault_effect e1, e2, e3;
	struct placement pl;
	uint64_t half;
	unsigned lost = 0;

	placement_init(&pl, &p->tier[PROFILE_TIER_FLASH], 9);
	assert_int_equal(model_fault(m, 1 * S, &f, true, &e1), 0);
	assert_int_equal(e1.loss, 0);
	half = e1.fail_ns + (e1.rebuild_end_ns - e1.fail_ns) / 2;
	f.id = 5;
	assert_int_equal(model_fault(m, half, &f, true, &e2), 0);
	assert_int_equal(e2.loss, 1);
	for (uint64_t b = 1; b <= BLOCKS; b++) {
		bool l = model_block_lost(m, e2.loss, b);

		assert_int_equal(l, placement_lost(&pl, b, half_rebuilt, NULL));
		lost += l;
	}
	assert_true(lost > 0);
	/* Back again: the loss stands. */
	assert_int_equal(model_fault(m, half + S, &f, false, &e3), 0);
	f.id = 2;
	assert_int_equal(model_fault(m, half + S, &f, false, &e3), 0);
	for (uint64_t b = 1; b <= BLOCKS; b++)
		assert_int_equal(model_block_lost(m, e2.loss, b),
				 placement_lost(&pl, b, half_rebuilt, NULL));
	assert_false(model_block_lost(m, 2, 1));
	model_free(m);
	free(p);
	(void)state;
}

/* raid0: a pull loses its drive's units at once and starts no
 * rebuild (there is nothing to rebuild from). */
static void model_raid0_loss(void **state)
{
	static const char text[] =
	    "[controllers]\ncount = 1\n[frontend]\nlinks = 1\n"
	    "speed = 10GbE\n[tier flash]\nkind = ssd\ndrives = 4\n"
	    "capacity = 1G\nraid = raid0\nread_latency = 100us\n"
	    "write_latency = 50us\nfill = 50%\ndetection_window = 0\n";
	struct profile *p = t_profile(text);
	struct model *m = t_model(p, 1.0, 9);
	struct model_fault f = {.kind = MODEL_FAULT_DRIVE, .id = 1};
	struct model_fault_effect e;

	assert_int_equal(model_fault(m, 1 * S, &f, true, &e), 0);
	assert_int_equal(e.loss, 1);
	assert_int_equal(e.rebuild_bytes, 0);
	for (uint64_t b = 1; b <= BLOCKS; b++)
		assert_int_equal(model_block_lost(m, e.loss, b),
				 b / 16 % 4 == 1);
	model_free(m);
	free(p);
	(void)state;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(parity_tolerance_exact),
	    cmocka_unit_test(mirror_and_stripe_tolerance),
	    cmocka_unit_test(declustered_counts),
	    cmocka_unit_test(rebuilt_stripes_survive),
	    cmocka_unit_test(model_loss_events),
	    cmocka_unit_test(model_raid0_loss),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
