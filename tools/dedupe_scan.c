/* arraysim dedupe-scan: what inline dedupe and compression would save on
 * a tree of files, with the filesystem's own chunking and fingerprints.
 * The engine is dedupe/scan.c; this file is options and reports. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "meta/metastore.h"
#include "common/units.h"
#include "dedupe/scan.h"
#include "tools/commands.h"
#include "tools/options.h"

#define MAX_PATHS 256
#define ZFS_DDT_ENTRY 320 /* the usual rule of thumb for ZFS's in-core DDT */

struct scan_opts {
	const char *block;
	const char *compress, *compress_keep;
	bool json, csv;
	uint64_t threads;
	uint64_t max_memory;
	bool cross_mounts;
	uint64_t top;
};

#define O(f) offsetof(struct scan_opts, f)
static const struct opt_def scan_defs[] = {
    {"block", 0, OPT_STRING, O(block), "SIZES",
     "block sizes, powers of two 512 to 1M, comma-separated (default 4K)"},
    {"compress", 0, OPT_STRING, O(compress), "lz4|zstd",
     "also compress the unique blocks, as arrays do after dedupe"},
    {"compress-keep", 0, OPT_STRING, O(compress_keep), "any|half",
     "a block counts compressed when it shrinks at all, or only when it "
     "halves (vSAN's rule; a profile's compression_keep) (default any)"},
    {"json", 0, OPT_FLAG, O(json), NULL, "one JSON object"},
    {"csv", 0, OPT_FLAG, O(csv), NULL,
     "one CSV row per block size, with a header"},
    {"threads", 0, OPT_U64, O(threads), "N",
     "reading and hashing threads (default: online cores)"},
    {"max-memory", 0, OPT_SIZE, O(max_memory), "SIZE",
     "bound the fingerprint indexes (all block sizes together); past it "
     "fingerprints are sampled by hash, unique blocks estimated and a 95% "
     "error bound printed (default: no bound, exact)"},
    {"cross-mounts", 0, OPT_FLAG, O(cross_mounts), NULL,
     "descend into other file systems (default: stay on each PATH's)"},
    {"top", 0, OPT_U64, O(top), "N",
     "directories and extensions listed where duplicates are (default 10)"},
    {0},
};
#undef O

static const char synopsis[] =
    "PATH... [--block 4K[,8K,...]] [--compress lz4|zstd] "
    "[--compress-keep any|half] [--json|--csv] "
    "[--threads N] [--max-memory SIZE]";

/* ---- progress on a terminal ------------------------------------------- */

static void progress(const struct scan_progress *p, void *ctx)
{
	char done[32], total[32], rate[32];
	double bps = p->seconds > 0 ? (double)p->bytes_done / p->seconds : 0;
	units_format_size(p->bytes_done, done, sizeof(done));
	units_format_size(p->bytes_found, total, sizeof(total));
	units_format_size((uint64_t)bps, rate, sizeof(rate));
	fprintf(stderr, "\r\033[K%s of %s%s, %s/s", done, total,
		p->walk_done ? "" : " found so far", rate);
	if (p->walk_done && bps > 0 && p->bytes_found > p->bytes_done)
		fprintf(stderr, ", ETA %.0f s",
			(double)(p->bytes_found - p->bytes_done) / bps);
	if (p->finished)
		fputs("\r\033[K", stderr);
	fflush(stderr);
}

/* ---- figures derived from a result ----------------------------------- */

static double ratio(uint64_t num, uint64_t den)
{
	return den ? (double)num / (double)den : 1.0;
}

/* Compression of the unique blocks: their bytes over what they shrink to. */
static double compress_ratio(const struct scan_size_result *z)
{
	return ratio(z->unique_blocks * z->block_size, z->compressed_bytes);
}

/* fio's dedupe_percentage P gives a ratio of 1 / (1 - P/100); its
 * buffer_compress_percentage C a compression of about 1 / (1 - C/100). */
static int fio_percentage(double r)
{
	int p = (int)lround(100.0 * (1.0 - 1.0 / r));
	return p < 0 ? 0 : p > 100 ? 100 : p;
}

static const char *compress_name(enum scan_compress c)
{
	return c == SCAN_COMPRESS_LZ4	 ? "lz4"
	       : c == SCAN_COMPRESS_ZSTD ? "zstd"
					 : "none";
}

struct group_order {
	const struct scan_group *g;
	int k;
};

static int by_dup(const void *a, const void *b, void *ctx)
{
	const struct group_order *o = ctx;
	const struct scan_group *x = &o->g[*(const size_t *)a];
	const struct scan_group *y = &o->g[*(const size_t *)b];
	if (x->dup[o->k] != y->dup[o->k])
		return x->dup[o->k] < y->dup[o->k] ? 1 : -1;
	return strcmp(x->name, y->name);
}

/* Indices of the groups with the most duplicate blocks at size @k. */

static size_t top_groups(const struct scan_group *g, size_t n, int k,
			 size_t top, size_t *idx)
{
	size_t m = 0;
	for (size_t i = 0; i < n; i++)
		if (g[i].dup[k])
			idx[m++] = i;
	struct group_order o = {g, k};
	qsort_r(idx, m, sizeof(*idx), by_dup, &o);
	return m < top ? m : top;
}

/* ---- JSON ------------------------------------------------------------- */

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_hist(FILE *f, const struct scan_size_result *z)
{
	fputs(",\"histogram\":[", f);
	bool first = true;
	for (int r = 0; r < SCAN_HIST_ROWS; r++) {
		const struct scan_hist_row *h = &z->hist[r];
		if (!h->blocks)
			continue;
		fprintf(f,
			"%s{\"refcnt\":%" PRIu64 ",\"blocks\":%" PRIu64
			",\"lsize\":%" PRIu64 ",\"psize\":%" PRIu64
			",\"ref_blocks\":%" PRIu64 ",\"ref_lsize\":%" PRIu64
			",\"ref_psize\":%" PRIu64 "}",
			first ? "" : ",", (uint64_t)1 << r, h->blocks,
			h->blocks * z->block_size, h->csize, h->refs,
			h->refs * z->block_size, h->ref_csize);
		first = false;
	}
	fputc(']', f);
}

static void json_groups(FILE *f, const char *key, const struct scan_group *g,
			size_t n, int k, size_t top)
{
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));
	size_t m = idx ? top_groups(g, n, k, top, idx) : 0;
	fprintf(f, ",\"%s\":[", key);
	for (size_t i = 0; i < m; i++) {
		fputs(i ? ",{\"name\":" : "{\"name\":", f);
		json_str(f, g[idx[i]].name);
		fprintf(f,
			",\"blocks\":%" PRIu64 ",\"dup_blocks\":%" PRIu64 "}",
			g[idx[i]].blocks[k], g[idx[i]].dup[k]);
	}
	fputc(']', f);
	free(idx);
}

static void json_size(FILE *f, const struct scan_result *res, int k,
		      const struct scan_opts *o, enum scan_compress c)
{
	const struct scan_size_result *z = &res->size[k];
	double dr = ratio(z->data_blocks, z->unique_blocks);
	fprintf(f,
		"%s{\"block_size\":%" PRIu32 ",\"logical_bytes\":%" PRIu64
		",\"blocks\":%" PRIu64 ",\"zero_blocks\":%" PRIu64
		",\"data_blocks\":%" PRIu64 ",\"unique_blocks\":%" PRIu64
		",\"dedupe_ratio\":%.6f"
		",\"sampled\":%s,\"sample_rate\":%.10g"
		",\"sampled_unique_blocks\":%" PRIu64 ",\"unique_err95\":%.6f",
		k ? "," : "", z->block_size, res->logical_bytes, z->blocks,
		z->zero_blocks, z->data_blocks, z->unique_blocks, dr,
		z->sample_shift ? "true" : "false",
		ldexp(1.0, -(int)z->sample_shift), z->sampled_unique,
		z->unique_err95);
	fprintf(f, ",\"compression\":\"%s\"", compress_name(c));
	if (c)
		fprintf(
		    f,
		    ",\"compression_keep\":\"%s\""
		    ",\"compressed_bytes\":%" PRIu64 ",\"compress_ratio\":%.6f"
		    ",\"data_reduction_ratio\":%.6f",
		    o->compress_keep ? o->compress_keep : "any",
		    z->compressed_bytes, compress_ratio(z),
		    ratio(z->data_blocks * z->block_size, z->compressed_bytes));
	fprintf(f,
		",\"index_bytes_arraysim\":%" PRIu64
		",\"index_bytes_zfs_ddt\":%" PRIu64
		",\"scan_index_bytes\":%" PRIu64,
		z->unique_blocks * MS_FP_ITEM_LEN,
		z->unique_blocks * ZFS_DDT_ENTRY, z->index_peak_bytes);
	fprintf(f, ",\"fio\":{\"bs\":%" PRIu32 ",\"dedupe_percentage\":%d",
		z->block_size, fio_percentage(dr));
	if (c)
		fprintf(f, ",\"buffer_compress_percentage\":%d",
			fio_percentage(compress_ratio(z)));
	fputc('}', f);
	json_hist(f, z);
	json_groups(f, "top_dirs", res->dirs_g, res->n_dirs_g, k, o->top);
	json_groups(f, "top_exts", res->exts, res->n_exts, k, o->top);
	fputc('}', f);
}

static void print_json(FILE *f, const struct scan_result *res,
		       const struct scan_opts *o, enum scan_compress c)
{
	fprintf(f,
		"{\"files\":%" PRIu64 ",\"dirs\":%" PRIu64
		",\"logical_bytes\":%" PRIu64 ",\"hard_links_skipped\":%" PRIu64
		",\"symlinks_skipped\":%" PRIu64 ",\"special_skipped\":%" PRIu64
		",\"other_fs_skipped\":%" PRIu64 ",\"changed_files\":%" PRIu64
		",\"threads\":%d,\"seconds\":%.3f,\"unreadable\":%" PRIu64
		",\"unreadable_paths\":[",
		res->files, res->dirs, res->logical_bytes, res->hard_links,
		res->symlinks, res->special, res->other_fs, res->changed,
		res->threads, res->seconds, res->unreadable);
	for (size_t i = 0; i < res->n_unreadable_paths; i++) {
		if (i)
			fputc(',', f);
		json_str(f, res->unreadable_paths[i]);
	}
	fputs("],\"sizes\":[", f);
	for (int k = 0; k < res->nsizes; k++)
		json_size(f, res, k, o, c);
	fputs("]}\n", f);
}

/* ---- CSV -------------------------------------------------------------- */

static void print_csv(FILE *f, const struct scan_result *res,
		      enum scan_compress c)
{
	fputs("block_size,logical_bytes,blocks,zero_blocks,data_blocks,"
	      "unique_blocks,dedupe_ratio,sample_rate,unique_err95,"
	      "compression,compressed_bytes,compress_ratio,"
	      "index_bytes_arraysim\n",
	      f);
	for (int k = 0; k < res->nsizes; k++) {
		const struct scan_size_result *z = &res->size[k];
		fprintf(f,
			"%" PRIu32 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
			",%" PRIu64 ",%" PRIu64 ",%.6f,%.10g,%.6f,%s,%" PRIu64
			",%.6f,%" PRIu64 "\n",
			z->block_size, res->logical_bytes, z->blocks,
			z->zero_blocks, z->data_blocks, z->unique_blocks,
			ratio(z->data_blocks, z->unique_blocks),
			ldexp(1.0, -(int)z->sample_shift), z->unique_err95,
			compress_name(c), c ? z->compressed_bytes : 0,
			c ? compress_ratio(z) : 1.0,
			z->unique_blocks * MS_FP_ITEM_LEN);
	}
}

/* ---- text ------------------------------------------------------------- */

static void text_row(FILE *f, const char *label, uint64_t v)
{
	fprintf(f, "  %-24s %14" PRIu64 "\n", label, v);
}

static void text_bytes(FILE *f, const char *label, uint64_t v)
{
	char buf[32];
	fprintf(f, "  %-24s %14s  (%" PRIu64 " bytes)\n", label,
		units_format_size(v, buf, sizeof(buf)), v);
}

static void text_hist(FILE *f, const struct scan_size_result *z, bool comp)
{
	char a[5][16];
	fprintf(f, "\n  refcount histogram (as zdb -S)\n");
	fprintf(f, "  %6s  %12s %10s %10s  %12s %10s %10s\n", "refcnt",
		"blocks", "LSIZE", "PSIZE", "ref blocks", "ref LSIZE",
		"ref PSIZE");
	struct scan_hist_row t = {0};
	for (int r = 0; r <= SCAN_HIST_ROWS; r++) {
		const struct scan_hist_row *h =
		    r < SCAN_HIST_ROWS ? &z->hist[r] : &t;
		if (r < SCAN_HIST_ROWS && !h->blocks)
			continue;
		if (r < SCAN_HIST_ROWS) {
			t.blocks += h->blocks, t.refs += h->refs;
			t.csize += h->csize, t.ref_csize += h->ref_csize;
			snprintf(a[0], sizeof(a[0]), "%" PRIu64,
				 (uint64_t)1 << r);
		} else {
			snprintf(a[0], sizeof(a[0]), "total");
		}
		units_format_size(h->blocks * z->block_size, a[1], 16);
		units_format_size(comp ? h->csize : h->blocks * z->block_size,
				  a[2], 16);
		units_format_size(h->refs * z->block_size, a[3], 16);
		units_format_size(comp ? h->ref_csize : h->refs * z->block_size,
				  a[4], 16);
		fprintf(f,
			"  %6s  %12" PRIu64 " %10s %10s  %12" PRIu64
			" %10s %10s\n",
			a[0], h->blocks, a[1], a[2], h->refs, a[3], a[4]);
	}
}

static void text_groups(FILE *f, const char *title, const struct scan_group *g,
			size_t n, int k, size_t top)
{
	size_t *idx = calloc(n ? n : 1, sizeof(*idx));
	size_t m = idx ? top_groups(g, n, k, top, idx) : 0;
	fprintf(f, "\n  %s (data blocks found again / data blocks)\n", title);
	if (!m)
		fprintf(f, "    (no duplicates)\n");
	for (size_t i = 0; i < m; i++)
		fprintf(f, "    %12" PRIu64 " / %-12" PRIu64 " %s\n",
			g[idx[i]].dup[k], g[idx[i]].blocks[k], g[idx[i]].name);
	free(idx);
}

static void text_estimate(FILE *f, const struct scan_size_result *z)
{
	if (!z->sample_shift)
		return;
	fprintf(f,
		"  %-24s 1 in %.0f fingerprints kept (%" PRIu64
		"); unique blocks within +-%.2f%% (95%%)\n",
		"sampled (--max-memory)", ldexp(1.0, (int)z->sample_shift),
		z->sampled_unique, 100 * z->unique_err95);
}

static void text_size(FILE *f, const struct scan_result *res, int k,
		      const struct scan_opts *o, enum scan_compress c)
{
	const struct scan_size_result *z = &res->size[k];
	double dr = ratio(z->data_blocks, z->unique_blocks);
	char bs[16];
	fprintf(f, "\nblock size %s\n",
		units_format_size(z->block_size, bs, sizeof(bs)));
	text_bytes(f, "logical bytes", res->logical_bytes);
	text_row(f, "blocks", z->blocks);
	text_row(f, "zero blocks", z->zero_blocks);
	text_row(f, "data blocks", z->data_blocks);
	text_row(f, "unique blocks", z->unique_blocks);
	text_estimate(f, z);
	fprintf(f, "  %-24s %14.2f:1\n", "dedupe ratio", dr);
	if (c) {
		fprintf(f, "  %-24s %14.2f:1  (%s, of the unique blocks)\n",
			"compression", compress_ratio(z), compress_name(c));
		fprintf(f, "  %-24s %14.2f:1\n", "dedupe x compression",
			dr * compress_ratio(z));
	}
	text_bytes(f, "index, arraysim", z->unique_blocks * MS_FP_ITEM_LEN);
	text_bytes(f, "index, ZFS DDT (~320 B)",
		   z->unique_blocks * ZFS_DDT_ENTRY);
	text_bytes(f, "this scan's index", z->index_peak_bytes);
	fprintf(f, "  %-24s --bs=%" PRIu32 " --dedupe_percentage=%d", "fio",
		z->block_size, fio_percentage(dr));
	if (c)
		fprintf(f, " --buffer_compress_percentage=%d",
			fio_percentage(compress_ratio(z)));
	fprintf(f, " --refill_buffers\n");
	text_hist(f, z, c != SCAN_COMPRESS_NONE);
	text_groups(f, "where: directories", res->dirs_g, res->n_dirs_g, k,
		    o->top);
	text_groups(f, "where: extensions", res->exts, res->n_exts, k, o->top);
}

static void print_text(FILE *f, const struct scan_result *res,
		       const struct scan_opts *o, enum scan_compress c)
{
	char lb[32];
	fprintf(f,
		"scanned %" PRIu64 " files in %" PRIu64
		" directories: %s in %.2f s, %d threads\n",
		res->files, res->dirs,
		units_format_size(res->logical_bytes, lb, sizeof(lb)),
		res->seconds, res->threads);
	fprintf(f,
		"skipped: %" PRIu64 " hard links (data counted once), %" PRIu64
		" symlinks, %" PRIu64 " special files, %" PRIu64
		" other file systems\n",
		res->hard_links, res->symlinks, res->special, res->other_fs);
	if (res->changed)
		fprintf(f, "changed during the scan: %" PRIu64 " files\n",
			res->changed);
	fprintf(f, "unreadable: %" PRIu64 "\n", res->unreadable);
	for (size_t i = 0; i < res->n_unreadable_paths; i++)
		fprintf(f, "  %s\n", res->unreadable_paths[i]);
	if (res->unreadable > res->n_unreadable_paths)
		fprintf(f, "  (and %" PRIu64 " more)\n",
			res->unreadable - res->n_unreadable_paths);
	for (int k = 0; k < res->nsizes; k++)
		text_size(f, res, k, o, c);
}

/* ---- the command ------------------------------------------------------ */

static int parse_compress(const char *s, enum scan_compress *out)
{
	if (!s)
		*out = SCAN_COMPRESS_NONE;
	else if (!strcmp(s, "lz4"))
		*out = SCAN_COMPRESS_LZ4;
	else if (!strcmp(s, "zstd"))
		*out = SCAN_COMPRESS_ZSTD;
	else
		return -1;
	return 0;
}

/* Everything that makes the scan pointless to start, said in one line. */
static int check_opts(const struct scan_opts *o, struct scan_config *cfg,
		      const char **pos, int npos)
{
	if (!npos) {
		tool_error("dedupe-scan: no PATH given");
		return -1;
	}
	if (o->json && o->csv) {
		tool_error("dedupe-scan: --json and --csv exclude each other");
		return -1;
	}
	if (scan_parse_block_sizes(o->block ? o->block : "4K", cfg->block_size,
				   &cfg->nsizes)) {
		tool_error("dedupe-scan: --block: '%s' is not a list of "
			   "powers of two from 512 to 1M (at most %d)",
			   o->block, SCAN_MAX_SIZES);
		return -1;
	}
	if (parse_compress(o->compress, &cfg->compress)) {
		tool_error("dedupe-scan: --compress: '%s' is not lz4 or zstd",
			   o->compress);
		return -1;
	}
	if (o->compress_keep && strcmp(o->compress_keep, "any") &&
	    strcmp(o->compress_keep, "half")) {
		tool_error("dedupe-scan: --compress-keep: '%s' is not any or "
			   "half",
			   o->compress_keep);
		return -1;
	}
	if (o->compress_keep && !o->compress) {
		tool_error("dedupe-scan: --compress-keep needs --compress");
		return -1;
	}
	cfg->keep = o->compress_keep && !strcmp(o->compress_keep, "half")
			? DEDUPE_KEEP_HALF
			: DEDUPE_KEEP_ANY;
	if (o->threads > 1024) {
		tool_error("dedupe-scan: --threads: at most 1024");
		return -1;
	}
	uint64_t min = scan_index_min_bytes() * (uint64_t)cfg->nsizes;
	if (o->max_memory && o->max_memory < min) {
		char m[32];
		tool_error("dedupe-scan: --max-memory: at least %s for %d "
			   "block size(s)",
			   units_format_size(min, m, sizeof(m)), cfg->nsizes);
		return -1;
	}
	for (int i = 0; i < npos; i++) {
		struct stat st;
		if (stat(pos[i], &st) < 0) {
			tool_error("dedupe-scan: %s: %s", pos[i],
				   strerror(errno));
			return -1;
		}
	}
	return 0;
}

int cmd_dedupe_scan(int argc, char **argv)
{
	struct scan_opts o = {.top = 10};
	const char *pos[MAX_PATHS];
	int npos;
	int r = opts_parse("dedupe-scan", synopsis, scan_defs, &o, argc, argv,
			   pos, MAX_PATHS, &npos);
	if (r)
		return r > 0 ? 0 : 2;
	struct scan_config cfg = {.paths = pos, .npaths = npos};
	if (check_opts(&o, &cfg, pos, npos))
		return 2;
	cfg.threads = (int)o.threads;
	cfg.max_memory = o.max_memory;
	cfg.cross_mounts = o.cross_mounts;
	if (isatty(STDERR_FILENO))
		cfg.progress = progress;
	struct scan_result res;
	r = scan_run(&cfg, &res);
	if (r) {
		tool_error("dedupe-scan: %s", strerror(-r));
		return 2;
	}
	if (o.json)
		print_json(stdout, &res, &o, cfg.compress);
	else if (o.csv)
		print_csv(stdout, &res, cfg.compress);
	else
		print_text(stdout, &res, &o, cfg.compress);
	scan_result_free(&res);
	return fflush(stdout) ? 2 : 0;
}
