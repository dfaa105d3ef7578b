#!/usr/bin/env python3
"""Where a request's CPU goes: bench/cpu_budget.sh's perf samples, bucketed.

    cpu_budget.py REPORT.tsv REQUESTS [MIB [TOP]]

REPORT.tsv is `perf report --no-children --sort comm,dso,sym -F
period,comm,dso,sym -q -t TAB` of a system-wide cpu-clock recording taken
while fio ran; REQUESTS is how many requests fio completed in it (MIB, for
the sequential rows, the MiB written). Prints, per side (the FUSE daemon,
the client fio and the kernel work it caused, kernel threads), the
microseconds of CPU per request in each bucket; with TOP, the daemon's
TOP heaviest symbols (MIB 0 for a row counted in requests).

Buckets are decided by symbol and object, first match wins; the rules are
the table below, so a reader can see what "metadata" or "transport" means.
Samples of processes that are not part of the run (another build on the
host, the idle task) are left out and their share is printed.
"""
import re
import sys

DAEMONS = {"arraysim", "passthrough_ll"}
CLIENT = {"fio"}
KTHREAD = re.compile(r"^(kworker|ksoftirqd|rcu_|migration|kswapd)")

# (bucket, object regex, symbol regex); None matches anything.
RULES = [
    # cpu-clock samples come from a timer interrupt: a sample due while the
    # kernel runs with interrupts off is taken where they come back on
    # (pvm_irq_enable in this VM), so this bucket is kernel time with irqs
    # off: the scheduler, wakeups, context switches, irq-safe locks.
    ("kernel, irqs off", r"kernel", r"irq_enable|irqrestore"),
    # The daemon's only use of libcrypto on the data path is SHA-1, and
    # Debian's libcrypto has no symbols for its assembly.
    ("hash", r"libcrypto", None),
    ("hash", r"libxxhash", None),
    ("hash", None, r"(?i)^(sha1|XXH)"),
    ("copy", None, r"memcpy|memmove|memset|copy_(to|from)_(user|iter)|"
     r"copy_user|rep_movs|rep_stos|copy_page|clear_page|_copy_"),
    ("metadata", r"liblmdb", None),
    ("metadata", None, r"^(mdb_|metastore_|meta_|seal|ms_|dedupe_|blocks_|"
     r"index_|csize|extent|blockmap|slot_|txn_|group_|store_|ns_|"
     r"datapath_|dp_|names_|attrs_)"),
    ("backing file", None, r"^backing_"),
    ("model", None, r"^(array_|model_|tiers_|engine_|cache_|drive_|"
     r"placement_|raid_|completer_|late_)"),
    ("transport", r"libfuse3", None),
    ("transport", r"kernel", r"fuse|io_uring|io_issue|io_submit|io_cqring|"
     r"^io_|uring"),
    ("transport", None, r"^(op_|fs_|reply_|uring_|channel_|session_)"),
    ("backing file", r"kernel", r"ext4|xfs|iomap|jbd2|filemap|folio|"
     r"generic_perform|block_|blk_|bio_|submit_bio|virtblk|page_cache|"
     r"mpage|writeback|vfs_|do_iter|rw_verify|__fdget|pwrite|pread|fsync"),
    ("sched+syscall", r"kernel", r"schedule|switch|futex|wake|sched|"
     r"pvm_|syscall|entry_|irq|do_epoll|ep_poll|hrtimer|tick|rcu|"
     r"enqueue|dequeue|select_task|try_to_|update_|pick_|finish_task|"
     r"_raw_spin|native_|restore_|__x64"),
    # The classic transport's syscall pair on /dev/fuse, where a sample
    # lands on the libc wrapper's syscall instruction.
    ("transport", r"libc\.so", r"^(read|__GI___writev|writev|__libc_read)$"),
    ("backing file", r"libc\.so", r"^(pwrite|pread|fdatasync|fsync)"),
    ("libc (other)", r"libc\.so", None),
    ("kernel (other)", r"kernel", None),
]
RULES = [(b, re.compile(o) if o else None, re.compile(s) if s else None)
         for b, o, s in RULES]
ORDER = ["kernel, irqs off", "hash", "copy", "metadata", "model", "transport", "backing file",
         "sched+syscall", "libc (other)", "kernel (other)", "other"]


def bucket(dso, sym):
    sym = sym[4:] if sym[:4] in ("[k] ", "[.] ") else sym
    for b, o, s in RULES:
        if (o is None or o.search(dso)) and (s is None or s.search(sym)):
            return b
    return "other"


def side(comm):
    if comm in DAEMONS:
        return "daemon"
    if comm in CLIENT:
        return "client"
    if KTHREAD.match(comm):
        return "kthreads"
    return None


def main():
    rows, n = sys.argv[1], float(sys.argv[2])
    mib = float(sys.argv[3]) if len(sys.argv) > 3 else 0
    mib = mib if mib > 0 else 0
    top = int(sys.argv[4]) if len(sys.argv) > 4 else 0
    cells, left, syms = {}, {}, {}
    for line in open(rows, encoding="utf-8", errors="replace"):
        parts = [p.strip() for p in line.rstrip("\n").split("\t")]
        if len(parts) < 4 or not parts[0].isdigit():
            continue
        ns, comm, dso, sym = int(parts[0]), parts[1], parts[2], parts[3]
        s = side(comm)
        if s is None:
            left[comm] = left.get(comm, 0) + ns
            continue
        key = (s, bucket(dso, sym))
        cells[key] = cells.get(key, 0) + ns
        if s == "daemon":
            name = f"{key[1]}: {dso} {sym}"
            syms[name] = syms.get(name, 0) + ns
    per = mib if mib else n
    unit = "us/MiB" if mib else "us/request"
    print(f"| side | bucket | {unit} | share |")
    print("|---|---|---:|---:|")
    total = sum(cells.values())
    for s in ("daemon", "client", "kthreads"):
        sub = sum(v for (x, _), v in cells.items() if x == s)
        for b in ORDER:
            v = cells.get((s, b), 0)
            if v:
                print(f"| {s} | {b} | {v / 1e3 / per:.2f} | "
                      f"{100 * v / total:.1f}% |")
        print(f"| {s} | **all** | **{sub / 1e3 / per:.2f}** | "
              f"{100 * sub / total if total else 0:.1f}% |")
    print(f"| run | **all** | **{total / 1e3 / per:.2f}** | 100% |")
    if top:
        print(f"\nThe daemon's top {top} symbols ({unit}):\n")
        for name, v in sorted(syms.items(), key=lambda x: -x[1])[:top]:
            print(f"- {v / 1e3 / per:.2f} {name}")
    idle = sum(v for c, v in left.items() if c == "swapper")
    busy = sum(v for c, v in left.items() if c != "swapper")
    print(f"\n(left out: idle {idle / 1e9:.2f} s; other processes "
          f"{busy / 1e9:.2f} s of CPU)")


if __name__ == "__main__":
    main()
