#!/usr/bin/env python3
"""repl_gens.py: a writer whose every block says which write made it, and
the check that a store's files are one state of that writer's history (a
prefix of its writes, nothing half-written, nothing mixed in).

  repl_gens.py fill DIR LOG              the files, every block written once
  repl_gens.py write DIR LOG SEED        random block writes until killed or
                                         the mount goes (fsync every 16)
  repl_gens.py point DIR LOG [--cut]     the state of DIR as a point of the
                                         history: the last write it shows

LOG holds the history: "w SEQ FILE BLOCK" before each write is issued
(one writer, one write at a time: a committed state of the source is a
prefix of these, the last one maybe in it), and "cut SEQ" where the source
lost the writes past SEQ (a SIGKILL: they are out of the history). A block
is 4 KiB: "RGEN", file, block and seq, then bytes drawn from those three,
so that a torn or misplaced block is caught. `point` prints SEQ, or exits
1 with what is wrong; --cut also appends "cut SEQ" (after the source's
restart, its state is where the history goes on from).
"""
import hashlib
import os
import random
import struct
import sys

FILES, BLOCKS, BS = 4, 64, 4096


def block(f, b, seq):
    head = b"RGEN" + struct.pack("<IIQ", f, b, seq)
    fill = hashlib.sha256(head).digest()
    body = (fill * (BS // len(fill) + 1))[: BS - 32]
    return head.ljust(32, b"\0") + body


def last_seq(log):
    seq = 0
    if os.path.exists(log):
        for line in open(log):
            w = line.split()
            if w and w[0] in ("w", "cut"):
                seq = max(seq, int(w[1]))
    return seq


def write_one(fds, log, seq, f, b):
    log.write("w %d %d %d\n" % (seq, f, b))
    log.flush()
    os.pwrite(fds[f], block(f, b, seq), b * BS)


def run(args, fill):
    top, logpath = args[0], args[1]
    seq = last_seq(logpath)
    flags = os.O_RDWR | (os.O_CREAT if fill else 0)
    fds = [os.open(os.path.join(top, "g%d" % f), flags, 0o644)
           for f in range(FILES)]
    log = open(logpath, "a")
    rng = random.Random(int(args[2]) if not fill else 0)
    n = 0
    try:
        while True:
            if fill:
                if n == FILES * BLOCKS:
                    break
                f, b = n // BLOCKS, n % BLOCKS
            else:
                f, b = rng.randrange(FILES), rng.randrange(BLOCKS)
            seq += 1
            n += 1
            write_one(fds, log, seq, f, b)
            if n % 16 == 0:
                os.fsync(fds[f])  # a sync point of the source
        for fd in fds:
            os.fsync(fd)
    except OSError:
        if fill:
            raise
        # the mount went (a SIGKILL of its daemon): the test restarts us
    except KeyboardInterrupt:
        pass


def history(logpath):
    """Every write still in the history, in order: (seq, file, block)."""
    h = []
    for line in open(logpath):
        w = line.split()
        if w[0] == "w":
            h.append(tuple(int(x) for x in w[1:4]))
        elif w[0] == "cut":
            cut = int(w[1])
            h = [x for x in h if x[0] <= cut]
    return h


def shown(top):
    """The seq each block of DIR shows (0: none yet), or an error."""
    held = {}
    for f in range(FILES):
        path = os.path.join(top, "g%d" % f)
        data = open(path, "rb").read() if os.path.exists(path) else b""
        if len(data) % BS:
            return None, "g%d: %d bytes, not whole blocks" % (f, len(data))
        for b in range(len(data) // BS):
            blk = data[b * BS:(b + 1) * BS]
            if blk == bytes(BS):
                continue
            seq = struct.unpack_from("<Q", blk, 12)[0]
            if blk != block(f, b, seq):
                return None, "g%d block %d: torn or misplaced (says %r)" % (
                    f, b, blk[:20])
            held[(f, b)] = seq
    return held, None


def point(args):
    top, logpath = args[0], args[1]
    held, err = shown(top)
    if err:
        sys.exit("repl_gens: " + err)
    h = history(logpath)
    writes = {x[0]: (x[1], x[2]) for x in h}
    for (f, b), seq in held.items():
        if writes.get(seq) != (f, b):
            sys.exit("repl_gens: g%d block %d shows write %d, not in the "
                     "history" % (f, b, seq))
    p = max(held.values(), default=0)
    # A prefix up to p: each block shows its last write at or before p.
    for seq, f, b in h:
        if held.get((f, b), 0) < seq <= p:
            sys.exit("repl_gens: not one state: g%d block %d shows write "
                     "%d, but write %d to it came before write %d, which "
                     "another block shows" % (f, b, held.get((f, b), 0),
                                               seq, p))
    if "--cut" in args[2:]:
        with open(logpath, "a") as log:
            log.write("cut %d\n" % p)
    print(p)


def main():
    cmd, args = sys.argv[1], sys.argv[2:]
    if cmd == "fill":
        run(args, True)
    elif cmd == "write":
        run(args, False)
    elif cmd == "point":
        point(args)
    else:
        sys.exit("repl_gens: fill, write or point")


main()
