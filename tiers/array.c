/* The array model: decides when each request completes.
 *
 * Only the `null` model exists so far: every request completes at once, in
 * the submitting thread, with the data path's result untouched.
 *
 * Where the timing models will slot in: a profile (hdd, ssd, hybrid, ...)
 * becomes an entry of struct array_model with its own submit; array_new
 * looks the name up in one sorted table, and a timed model queues @io with
 * its emulated completion time for a completer thread to call
 * io->complete. The FUSE worker never waits either way.
 */
#include "tiers/array.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct array {
	uint64_t seed; /* PRNG seed for timed models; unused by null */
};

int array_new(const char *profile, uint64_t seed, struct array **out)
{
	struct array *a;

	*out = NULL;
	/* Timing models: look @profile up in the model table here. */
	if (!profile || strcmp(profile, "null") != 0)
		return -EINVAL;
	a = calloc(1, sizeof(*a));
	if (!a)
		return -ENOMEM;
	a->seed = seed;
	*out = a;
	return 0;
}

void array_free(struct array *a)
{
	free(a);
}

void array_submit(struct array *a, struct array_io *io)
{
	/* null model: complete now. A timed model computes the emulated
	 * completion time from a's profile and queues @io instead. */
	(void)a;
	io->complete(io);
}
