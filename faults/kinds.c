/* Every fault kind, one line each, sorted by name (tests/faults/
 * test_kinds.c checks): a new kind is its file and its line here. */
#include "faults/kind.h"

#include <string.h>

extern const struct fault_ops fault_kind_bitrot, fault_kind_cache_device,
    fault_kind_controller, fault_kind_drive, fault_kind_drive_slow,
    fault_kind_error, fault_kind_latency, fault_kind_path,
    fault_kind_power_loss, fault_kind_replica, fault_kind_replication_link,
    fault_kind_thin, fault_kind_torn_write;

const struct fault_ops *const fault_kinds[] = {
    &fault_kind_bitrot,		  /* faults/bitrot.c */
    &fault_kind_cache_device,	  /* faults/cache_device.c */
    &fault_kind_controller,	  /* faults/controller.c */
    &fault_kind_drive,		  /* faults/drive.c */
    &fault_kind_drive_slow,	  /* faults/drive_slow.c */
    &fault_kind_error,		  /* faults/error.c */
    &fault_kind_latency,	  /* faults/latency.c */
    &fault_kind_path,		  /* faults/path.c */
    &fault_kind_power_loss,	  /* faults/power_loss.c */
    &fault_kind_replica,	  /* faults/replication.c */
    &fault_kind_replication_link, /* faults/replication.c */
    &fault_kind_thin,		  /* faults/thin.c */
    &fault_kind_torn_write,	  /* faults/torn_write.c */
};
const size_t fault_kind_count = sizeof(fault_kinds) / sizeof(fault_kinds[0]);

const struct fault_ops *fault_kind_find(const char *name)
{
	size_t lo = 0, hi = fault_kind_count;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		int c = strcmp(name, fault_kinds[mid]->name);

		if (!c)
			return fault_kinds[mid];
		if (c < 0)
			hi = mid;
		else
			lo = mid + 1;
	}
	return NULL;
}

const char *fault_kind_names(char *buf, size_t len)
{
	size_t at = 0;

	if (len)
		buf[0] = '\0';
	for (size_t i = 0; i < fault_kind_count && at < len; i++) {
		int n = snprintf(buf + at, len - at, "%s%s", i ? ", " : "",
				 fault_kinds[i]->name);
		if (n > 0)
			at += (size_t)n;
	}
	return buf;
}

#define HELP_WIDTH 72
#define HELP_INDENT 14

/* @text word by word after what *col columns hold (*sep: a word is there
 * already), wrapped at HELP_WIDTH onto lines indented HELP_INDENT. */
static void put_words(FILE *out, const char *text, unsigned *col, bool *sep)
{
	text += strspn(text, " ");
	while (*text) {
		size_t n = strcspn(text, " ");

		if (*sep && *col + 1 + n > HELP_WIDTH) {
			fprintf(out, "\n%*s", HELP_INDENT, "");
			*col = HELP_INDENT;
		} else if (*sep) {
			fputc(' ', out);
			(*col)++;
		}
		fwrite(text, 1, n, out);
		*col += (unsigned)n;
		*sep = true;
		text += n;
		text += strspn(text, " ");
	}
}

static void help_one(FILE *out, const struct fault_ops *k)
{
	int n = fprintf(out, "  %s", k->name);
	/* Two spaces at least after a name too long for the column. */
	int pad = n + 2 > HELP_INDENT ? 2 : HELP_INDENT - n;
	unsigned col = (unsigned)(n + pad);

	fprintf(out, "%*s", pad, "");
	bool sep = false;

	for (unsigned i = 0; i < FAULT_MAX_KEY_ROWS && k->keys[i].key; i++)
		put_words(out, k->keys[i].help, &col, &sep);
	if (sep) {
		fputc(':', out);
		col++;
	}
	put_words(out, k->help, &col, &sep);
	fputc('\n', out);
}

void fault_kinds_help(FILE *out)
{
	fputs("fault kinds and keys (defaults in brackets):\n", out);
	for (size_t i = 0; i < fault_kind_count; i++)
		if (!fault_kinds[i]->array)
			help_one(out, fault_kinds[i]);
	fputs("array faults (a timed --profile; `fault clear ID` restores):\n",
	      out);
	for (size_t i = 0; i < fault_kind_count; i++)
		if (fault_kinds[i]->array)
			help_one(out, fault_kinds[i]);
}
