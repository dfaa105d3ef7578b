#!/usr/bin/env python3
"""meta_damage.py: damaged metadata is refused or read as EIO, never as
wrong bytes (tests/integration/meta_damage_sweep.sh, meta_damage_zeros.sh).

  build MNT REF          write the test tree into the mount MNT and a copy
                         of it into REF (a plain directory)
  pages DATA_MDB         which LMDB table each page of DATA_MDB belongs to
                         (the B-trees walked from the newest meta page)
  check MNT REF          read every file of REF through MNT: each 4 KiB is
                         the right bytes or EIO; prints "ok", "eio N" or
                         "missing N"; exits 1 on a wrong byte or name
  sweep ARRAYSIM STORE PRISTINE MNT REF SEED N
                         N positions (seeded) over every table's pages: copy
                         PRISTINE's metadata into STORE, flip one byte,
                         mount; refused in one line, or check passes (and a
                         missing file is named by fsck); always unmounts
"""
import errno
import os
import random
import shutil
import struct
import subprocess
import sys
import time

PAGE = 4096
P_BRANCH, P_LEAF, P_OVERFLOW, P_LEAF2 = 0x01, 0x02, 0x04, 0x20
F_BIGDATA, F_SUBDATA, F_DUPDATA = 0x01, 0x02, 0x04


def blob(seed, n):
    return random.Random(seed).randbytes(n)


def tree():
    """name -> bytes (None: a directory); dedupe hits, holes, odd sizes."""
    big = blob(1, 384 << 10)  # small: every position reads it all
    t = {"a": None, "a/b": None, "a/b/c": None, "many": None}
    t["a/small.txt"] = b"hello, damaged metadata\n" * 4
    t["a/b/one_block"] = blob(2, 4096)
    t["a/b/c/big.bin"] = big
    t["a/dup.bin"] = big  # every block a dedupe hit
    t["half_dup.bin"] = big[: 128 << 10] + blob(3, 128 << 10)
    t["odd.bin"] = blob(4, 524289 + 1000)  # the offset
    t["zeros.bin"] = bytes(300 << 10)
    # A whole 256 KiB extent of hole, data, a hole to the end.
    t["sparse.bin"] = bytes(300 << 10) + blob(5, 64 << 10) + bytes(700 << 10)
    # More records of each kind than the mount's check samples (64 a
    # table), so that damage also reaches the reads' own checks.
    for i in range(150):
        t["many/f%03d" % i] = blob(100 + i, 500 + 23 * i)
    return t


def build(mnt, ref):
    for name, data in tree().items():
        for top in (mnt, ref):
            p = os.path.join(top, name)
            if data is None:
                os.makedirs(p, exist_ok=True)
                continue
            with open(p, "wb") as f:
                if name == "sparse.bin":  # holes never written
                    f.seek(300 << 10)
                    f.write(data[300 << 10:364 << 10])
                    f.truncate(len(data))
                else:
                    f.write(data)
    os.symlink("a/b/c/big.bin", os.path.join(mnt, "link"))
    os.setxattr(os.path.join(mnt, "a/small.txt"), "user.note", b"kept")


def files(ref):
    for root, _dirs, names in os.walk(ref):
        for n in sorted(names):
            p = os.path.join(root, n)
            yield os.path.relpath(p, ref)


def check_file(mnt, ref, rel):
    """'ok', 'eio', 'missing', or a wrong-bytes description."""
    want = open(os.path.join(ref, rel), "rb").read()
    try:
        fd = os.open(os.path.join(mnt, rel), os.O_RDONLY)
    except OSError as e:
        return {errno.EIO: "eio", errno.ENOENT: "missing"}.get(
            e.errno, "open: %s" % e)
    try:
        try:
            size = os.fstat(fd).st_size
        except OSError as e:
            return "eio" if e.errno == errno.EIO else "stat: %s" % e
        if size != len(want):
            return "size %d, want %d" % (size, len(want))
        got_eio = False
        for off in range(0, len(want), 256 << 10):
            try:
                got = os.pread(fd, 256 << 10, off)
            except OSError as e:
                if e.errno != errno.EIO:
                    return "read at %d: %s" % (off, e)
                got_eio = True
                continue
            if got != want[off:off + (256 << 10)]:
                bad = next(i for i in range(len(got))
                           if got[i:i + 1] != want[off + i:off + i + 1])
                zero = not any(got[bad:bad + 4096])
                return "wrong bytes at %d%s" % (off + bad,
                                                " (zeros)" if zero else "")
        return "eio" if got_eio else "ok"
    finally:
        os.close(fd)


def check(mnt, ref):
    """(wrong: list of lines, eio: count, missing: count)"""
    wrong, eio, missing = [], 0, 0
    for rel in files(ref):
        r = check_file(mnt, ref, rel)
        if r == "eio":
            eio += 1
        elif r == "missing":
            missing += 1
        elif r != "ok":
            wrong.append("%s: %s" % (rel, r))
    return wrong, eio, missing


# ---- LMDB pages ----------------------------------------------------------


def page(buf, n):
    return buf[n * PAGE:(n + 1) * PAGE]


def nodes(p):
    lower = struct.unpack_from("<H", p, 12)[0]
    for i in range((lower - 16) // 2):
        off = struct.unpack_from("<H", p, 16 + 2 * i)[0]
        lo, hi, fl, ks = struct.unpack_from("<HHHH", p, off)
        yield off, lo, hi, fl, ks


def walk(buf, root, name, owner):
    """Mark every page of the B-tree at @root as @name's."""
    stack = [root]
    while stack:
        n = stack.pop()
        if n == 0xFFFFFFFFFFFFFFFF or n * PAGE >= len(buf) or n in owner:
            continue
        owner[n] = name
        p = page(buf, n)
        flags = struct.unpack_from("<H", p, 10)[0]
        if flags & P_LEAF2:
            continue
        for off, lo, hi, fl, ks in nodes(p):
            if flags & P_BRANCH:
                stack.append(lo | hi << 16 | fl << 32)
            elif flags & P_LEAF:
                data = off + 8 + ks
                if fl & F_BIGDATA:
                    ov = struct.unpack_from("<Q", p, data)[0]
                    cnt = struct.unpack_from("<I", page(buf, ov), 12)[0]
                    for j in range(cnt):
                        owner.setdefault(ov + j, name)
                elif fl & F_SUBDATA:
                    sub = struct.unpack_from("<Q", p, data + 40)[0]
                    sub_name = name
                    if name == "main":
                        sub_name = p[off + 8:off + 8 + ks].decode()
                    walk(buf, sub, sub_name, owner)


def pages(path):
    """page number -> table name ('meta0', 'meta1', 'main', 'free', ...)"""
    with open(path, "rb") as f:  # sparse, as big as the map: read the used
        head = f.read(2 * PAGE)
        last = max(struct.unpack_from("<Q", head, m * PAGE + 16 + 120)[0]
                   for m in (0, 1))
        buf = head + f.read((last + 1 - 2) * PAGE)
    metas = []
    for m in (0, 1):
        p = page(buf, m)
        txnid = struct.unpack_from("<Q", p, 16 + 128)[0]
        metas.append((txnid, m))
    _, cur = max(metas)
    p = page(buf, cur)
    owner = {0: "meta-page", 1: "meta-page"}
    walk(buf, struct.unpack_from("<Q", p, 16 + 24 + 48 + 40)[0], "main",
         owner)
    walk(buf, struct.unpack_from("<Q", p, 16 + 24 + 40)[0], "freelist",
         owner)
    return owner


def positions(owner, seed, n):
    """n (offset, table) over the pages of every table, each at least
    min(its pages, 3) times, then spread by page count."""
    rng = random.Random(seed)
    by = {}
    for pg, name in sorted(owner.items()):
        by.setdefault(name, []).append(pg)
    out = []
    for name, pgs in sorted(by.items()):
        for pg in rng.sample(pgs, min(len(pgs), 3)):
            out.append((pg * PAGE + rng.randrange(16, PAGE), name))
    allp = sorted(owner.items())
    while len(out) < n:
        pg, name = rng.choice(allp)
        out.append((pg * PAGE + rng.randrange(0, PAGE), name))
    return out


# ---- the sweep -------------------------------------------------------------


def run(cmd, timeout):
    return subprocess.run(cmd, capture_output=True, text=True,
                          timeout=timeout)


def mounted(mnt):
    with open("/proc/mounts") as f:
        return any(line.split()[1] == mnt for line in f)


def gone(pid):
    """Exited: no such process, or a zombie none of whose threads runs
    (PID 1 here reaps an orphaned daemon 1.4 to 2 s after it exits; the
    store is closed by then). tests/integration/lib.sh's t_pid_gone."""
    try:
        st = open("/proc/%s/status" % pid).read()
    except OSError:
        return True
    return "\nState:\tZ" in st and "\nThreads:\t1\n" in st


def umount(arraysim, store, mnt):
    pid = open(os.path.join(store, "lock")).read().strip()
    run([arraysim, "umount", mnt], 60)
    if mounted(mnt):
        run(["fusermount3", "-uz", mnt], 20)
    for _ in range(1500):  # the daemon releases the store after unmount
        if not pid or gone(pid):
            return
        time.sleep(0.02)
    raise SystemExit("daemon %s still running after umount" % pid)


def restore(pristine, store):
    meta = os.path.join(store, "meta")
    shutil.rmtree(meta, ignore_errors=True)
    subprocess.run(["cp", "-a", "--sparse=always",
                    os.path.join(pristine, "meta"), meta], check=True)
    for f in ("lost.blocks", "arraysim.log"):
        src = os.path.join(pristine, f)
        if os.path.exists(src):
            shutil.copy2(src, os.path.join(store, f))


def flip(path, off, rng):
    with open(path, "r+b") as f:
        f.seek(off)
        b = f.read(1)[0]
        f.seek(off)
        f.write(bytes([b ^ rng.randrange(1, 256)]))


def one(a, pos, table, rng):
    """One position: a verdict word, or raises SystemExit on a failure."""
    arraysim, store, pristine, mnt, ref = a
    restore(pristine, store)
    flip(os.path.join(store, "meta", "data.mdb"), pos, rng)
    r = run([arraysim, "mount", "--store", store, mnt], 120)
    if r.returncode != 0:
        lines = r.stderr.strip().splitlines()
        if mounted(mnt) or len(lines) != 1 or \
                not lines[0].startswith("arraysim: "):
            raise SystemExit("offset %d (%s): mount exited %d with %r" %
                             (pos, table, r.returncode, r.stderr))
        return "refused"
    try:
        wrong, eio, missing = check(mnt, ref)
    finally:
        umount(arraysim, store, mnt)
    if wrong:
        raise SystemExit("offset %d (%s): wrong bytes, no error:\n  %s" %
                         (pos, table, "\n  ".join(wrong)))
    if missing:
        f = run([arraysim, "fsck", "--store", store, "--quiet"], 300)
        if f.returncode != 1:
            raise SystemExit("offset %d (%s): %d files missing, but fsck "
                             "exited %d:\n%s" % (pos, table, missing,
                                                 f.returncode, f.stdout))
        return "missing+fsck"
    return "eio" if eio else "intact"


def sweep(arraysim, store, pristine, mnt, ref, seed, n):
    owner = pages(os.path.join(pristine, "meta", "data.mdb"))
    pos = positions(owner, int(seed), int(n))
    tables = sorted(set(owner.values()))
    print("pages by table:", {t: sum(1 for v in owner.values() if v == t)
                              for t in tables}, flush=True)
    rng = random.Random(int(seed) + 1)
    tally = {}
    for i, (off, table) in enumerate(pos):
        v = one((arraysim, store, pristine, mnt, ref), off, table, rng)
        tally.setdefault(table, {}).setdefault(v, 0)
        tally[table][v] += 1
        if (i + 1) % 50 == 0:
            print("%d positions done" % (i + 1), flush=True)
    for t in tables:
        print("%-12s %s" % (t, tally.get(t)), flush=True)
    missing = [t for t in tables if t not in tally]
    if missing:
        raise SystemExit("tables never damaged: %s" % missing)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "build":
        build(*args)
    elif cmd == "pages":
        owner = pages(args[0])
        for t in sorted(set(owner.values())):
            print(t, sum(1 for v in owner.values() if v == t))
    elif cmd == "check":
        wrong, eio, missing = check(*args)
        print("\n".join(wrong) if wrong else
              "eio %d missing %d" % (eio, missing))
        sys.exit(1 if wrong else 0)
    elif cmd == "sweep":
        sweep(*args)
    else:
        sys.exit(__doc__)


main()
