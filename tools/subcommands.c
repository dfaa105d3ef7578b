/* The subcommands of `arraysim`: main (arraysim.c), the man pages (man.c)
 * and the completion (completion.c) all read this one table. */
#include <stddef.h>

#include "tools/commands.h"

/* Sorted by name: the set of verbs, in one place. */
const struct subcommand subcommands[] = {
    {"ctl", cmd_ctl, "control a mounted array: status, faults, stats"},
    {"dedupe-scan", cmd_dedupe_scan,
     "what dedupe and compression would save on files"},
    {"fsck", cmd_fsck, "check a store that is not mounted"},
    {"mount", cmd_mount, "mount a store as a virtual array"},
    {"profile", cmd_profile, "show NAME|FILE: print a profile fully resolved"},
    {"profiles", cmd_profiles, "list the built-in array profiles"},
    {"replica", cmd_replica, "serve a store to a replicating source over TCP"},
    {"report", cmd_report, "RUN: the rehearsal report of a run, as HTML"},
    {"run", cmd_run, "mount, run a command on it, check, unmount: one CI step"},
    {"stats", cmd_stats, "print the counters of a mounted array"},
    {"top", cmd_top, "live view of a mounted array, once a second"},
    {"umount", cmd_umount, "unmount and wait for the store to close"},
    {0},
};
