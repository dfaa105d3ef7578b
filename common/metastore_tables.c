/* The metadata store's tables: their LMDB names and flags, the one place
 * both the store (metastore.c) and its durable copy (metastore_durable.c)
 * read them from. The layout of each table's keys and values is in
 * common/metastore.h. */
#include <lmdb.h>

#include "common/metastore_i.h"

static const char *const table_names[MS_NTABLES] = {
    [MS_META] = "meta",		[MS_INODES] = "inodes",
    [MS_DIRNAMES] = "dirnames", [MS_DIRCOOKIES] = "dircookies",
    [MS_SYMLINKS] = "symlinks", [MS_XATTRS] = "xattrs",
    [MS_BMAP] = "bmap",		[MS_BLOCKS] = "blocks",
    [MS_FPINDEX] = "fpindex",	[MS_FREEMAP] = "freemap",
    [MS_PENDING] = "pending",	[MS_ORPHANS] = "orphans",
};

unsigned metastore_table_flags(enum ms_table t)
{
	switch (t) {
	case MS_INODES:
	case MS_SYMLINKS:
	case MS_BLOCKS:
	case MS_FREEMAP:
	case MS_PENDING:
	case MS_ORPHANS:
		return MDB_INTEGERKEY;
	case MS_FPINDEX:
		/* One key; items sha1[0..20) + pblk. A SHA-1 names every
		 * block that has it: more than one only after a collision,
		 * which verify-on-match keeps apart. */
		return MDB_DUPSORT | MDB_DUPFIXED;
	default:
		return 0;
	}
}

const char *metastore_table_name(enum ms_table t)
{
	return table_names[t];
}
