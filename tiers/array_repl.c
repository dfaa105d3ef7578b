/* The array's side of replication: the [replication] link joins the
 * timed model (tiers/model_repl.h), sync writes wait for the replica
 * there (array_timed.c's timed()), and a batch's reads and transfer are
 * booked for the replication thread, all under the array's lock. The
 * null model times nothing: it has no link. */
#include "tiers/array_i.h"

#include <errno.h>

#include "common/clock.h"
#include "tiers/model_repl.h"

int array_replication(struct array *a, bool sync)
{
	int rc;

	if (!a->model)
		return -ENOTSUP;
	pthread_mutex_lock(&a->lock);
	rc = a->repl ? -EALREADY : model_repl_new(a->model, sync, &a->repl);
	pthread_mutex_unlock(&a->lock);
	return rc;
}

int array_repl_figures(struct array *a, struct model_repl_figures *f)
{
	int rc = -ENOTSUP;

	pthread_mutex_lock(&a->lock);
	if (a->repl)
		rc = model_repl_figures(a->repl, f);
	pthread_mutex_unlock(&a->lock);
	return rc;
}

uint64_t array_repl_batch(struct array *a, const struct array_extent *ext,
			  size_t n, uint64_t wire_bytes)
{
	uint64_t now = clock_mono_ns(), read = now;

	if (!a->model)
		return now;
	pthread_mutex_lock(&a->lock);
	if (!a->repl || a->paused) {
		pthread_mutex_unlock(&a->lock);
		return now;
	}
	/* The model's clock never runs back past a fault change. */
	if (now < a->fault_ns)
		now = read = a->fault_ns;
	for (size_t i = 0; i < n; i++) {
		uint64_t t =
		    model_repl_read(a->repl, now, ext[i].offset, ext[i].length);

		read = t > read ? t : read;
	}
	now = model_repl_ship(a->repl, read, wire_bytes);
	pthread_mutex_unlock(&a->lock);
	return now;
}
