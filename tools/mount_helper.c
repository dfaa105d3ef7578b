/* mount(8)'s helper for type fuse.arraysim: `mount -t fuse.arraysim STORE
 * MNT -o profile=tintri-t540,scale=0.2,allow_other` and the same fstab line.
 * mount(8) runs /sbin/mount.fuse.arraysim (a link to arraysim) as `STORE
 * MNT [-sfnv] [-o OPTS] [-t TYPE]`; without that link it runs mount.fuse3,
 * which runs `arraysim STORE MNT -o OPTS`. Each of OPTS is an option of
 * `arraysim mount` (mount_opt_defs, '_' or '-' alike) or one FUSE and the
 * kernel take; anything else is refused, so a typo never mounts. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "tools/commands.h"
#include "tools/mount_opts.h"

#define HELPER_MAX_ARGS 64

/* Handed to FUSE as they are (libfuse's mount options, and the transport
 * uring_opt.c takes). */
static const char *const fuse_words[] = {
    "rw",
    "ro",
    "allow_other",
    "allow_root",
    "default_permissions",
    "auto_unmount",
    "dev",
    "nodev",
    "suid",
    "nosuid",
    "exec",
    "noexec",
    "atime",
    "noatime",
    "relatime",
    "strictatime",
    "nodiratime",
    "sync",
    "async",
    "dirsync",
    "max_read",
    "blksize",
    "io_uring",
    NULL,
};
/* fstab's own words: they steer mount(8), not the array. */
static const char *const fstab_words[] = {
    "defaults", "auto",	  "noauto", "nofail", "_netdev", "user",
    "users",	"nouser", "owner",  "group",  "comment", NULL,
};

static bool in_list(const char *const *l, const char *name, size_t len)
{
	for (; *l; l++)
		if (strlen(*l) == len && !strncmp(*l, name, len))
			return true;
	return false;
}

/* The mount option named @name (the helper's own: not store, options,
 * foreground), '_' read as '-'. */
static const struct opt_def *mount_def(const char *name, size_t len)
{
	char want[64];
	if (len >= sizeof(want))
		return NULL;
	for (size_t i = 0; i < len; i++)
		want[i] = name[i] == '_' ? '-' : name[i];
	want[len] = '\0';
	if (!strcmp(want, "store") || !strcmp(want, "options") ||
	    !strcmp(want, "foreground"))
		return NULL;
	return opts_find_long(mount_opt_defs, want, len);
}

struct helper_args {
	char *argv[HELPER_MAX_ARGS];
	int argc;
	char words[8192]; /* the --name=value words argv points into */
	size_t used;
	char fuse[4096];
};

/* Append "--@name" or "--@name=@value" to the mount's argv. */
static int add_word(struct helper_args *h, const char *name, const char *value)
{
	size_t n = strlen(name) + (value ? strlen(value) + 1 : 0) + 3;
	if (h->argc + 4 >= HELPER_MAX_ARGS || h->used + n > sizeof(h->words)) {
		tool_error("mount: -o: too many options");
		return -1;
	}
	char *w = h->words + h->used;
	snprintf(w, n, "--%s%s%s", name, value ? "=" : "", value ? value : "");
	h->used += n;
	h->argv[h->argc++] = w;
	return 0;
}

static int take_item(struct helper_args *h, char *item)
{
	char *eq = strchr(item, '=');
	size_t len = eq ? (size_t)(eq - item) : strlen(item);
	const struct opt_def *d = mount_def(item, len);
	if (d) {
		if ((d->type == OPT_FLAG) != !eq) {
			tool_error("mount: -o %s: %s", item,
				   eq ? "takes no value" : "needs =VALUE");
			return -1;
		}
		return add_word(h, d->name, eq ? eq + 1 : NULL);
	}
	if (in_list(fstab_words, item, len) || !strncmp(item, "x-", 2))
		return 0;
	if (!in_list(fuse_words, item, len)) {
		tool_error(
		    "mount: -o %s: not an option of arraysim mount nor of "
		    "FUSE (see arraysim-mount(1))",
		    item);
		return -1;
	}
	size_t at = strlen(h->fuse);
	if (at + strlen(item) + 2 > sizeof(h->fuse)) {
		tool_error("mount: -o: options too long");
		return -1;
	}
	snprintf(h->fuse + at, sizeof(h->fuse) - at, "%s%s", at ? "," : "",
		 item);
	return 0;
}

/* Every -o item of @opts (a copy: items are cut in place). */
static int take_opts(struct helper_args *h, const char *opts)
{
	char copy[4096];
	if (strlen(opts) >= sizeof(copy)) {
		tool_error("mount: -o: options too long");
		return -1;
	}
	snprintf(copy, sizeof(copy), "%s", opts);
	char *save = NULL;
	for (char *it = strtok_r(copy, ",", &save); it;
	     it = strtok_r(NULL, ",", &save))
		if (take_item(h, it))
			return -1;
	return 0;
}

/* mount(8)'s flags: -s sloppy, -n no mtab, -v verbose (all moot here),
 * -f fake (mount nothing), -t the type, -o the options. */
static int take_flag(struct helper_args *h, int argc, char **argv, int *i,
		     bool *fake)
{
	const char *a = argv[*i];
	if (!strcmp(a, "-o") || !strcmp(a, "-t")) {
		if (*i + 1 >= argc) {
			tool_error("mount: %s needs a value", a);
			return -1;
		}
		++*i;
		return a[1] == 'o' ? take_opts(h, argv[*i]) : 0;
	}
	if (a[1] && strspn(a + 1, "sfnv") == strlen(a + 1)) {
		*fake = *fake || strchr(a, 'f');
		return 0;
	}
	tool_error("mount: %s: not an option of mount.fuse.arraysim (usage: "
		   "mount.fuse.arraysim STORE MOUNTPOINT [-o OPTS])",
		   a);
	return -1;
}

int mount_helper(int argc, char **argv)
{
	static struct helper_args h;
	const char *pos[2];
	int npos = 0;
	bool fake = false;

	h.argc = 0;
	h.used = 0;
	h.fuse[0] = '\0';
	h.argv[h.argc++] = (char *)"mount";
	for (int i = 1; i < argc; i++) {
		if (argv[i][0] == '-') {
			if (take_flag(&h, argc, argv, &i, &fake))
				return 2;
		} else if (npos < 2) {
			pos[npos++] = argv[i];
		} else {
			tool_error("mount: unexpected argument '%s'", argv[i]);
			return 2;
		}
	}
	if (npos != 2) {
		tool_error("mount: usage: mount.fuse.arraysim STORE MOUNTPOINT "
			   "[-o OPTS]");
		return 2;
	}
	if (add_word(&h, "store", pos[0]))
		return 2;
	if (h.fuse[0]) {
		h.argv[h.argc++] = (char *)"-o";
		h.argv[h.argc++] = h.fuse;
	}
	h.argv[h.argc++] = (char *)pos[1];
	h.argv[h.argc] = NULL;
	return fake ? 0 : cmd_mount(h.argc, h.argv);
}
