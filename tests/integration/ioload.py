#!/usr/bin/env python3
"""A small load generator for the fault tests: one thread, queue depth 1,
4 KiB reads (pread) of FILE for SECONDS, at random block offsets or at
one fixed offset. Times every read on the monotonic clock and prints one
JSON object: n, errors (count by errno name), mean and max latency (s),
and the longest latencies with when they began, so a test can compare a
stall's length with the model's.

  ioload.py FILE SECONDS [--offset BYTES] [--top N] [--ready PATH]

--ready PATH: create PATH once the first read is done (the load runs).
"""
import errno
import json
import os
import random
import sys
import time


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit("usage: ioload.py FILE SECONDS [--offset BYTES] [--top N] "
                 "[--ready PATH]")
    path, seconds = args[0], float(args[1])
    offset, top, ready = None, 3, None
    rest = args[2:]
    while rest:
        if rest[0] == "--offset":
            offset = int(rest[1])
        elif rest[0] == "--top":
            top = int(rest[1])
        elif rest[0] == "--ready":
            ready = rest[1]
        else:
            sys.exit("ioload.py: unknown option " + rest[0])
        rest = rest[2:]
    fd = os.open(path, os.O_RDONLY)
    blocks = max(os.fstat(fd).st_size // 4096, 1)
    rng = random.Random(1)
    start = time.monotonic()
    lats, errors = [], {}
    while True:
        t0 = time.monotonic()
        if t0 - start > seconds:
            break
        off = offset if offset is not None else rng.randrange(blocks) * 4096
        try:
            os.pread(fd, 4096, off)
        except OSError as e:
            name = errno.errorcode.get(e.errno, str(e.errno))
            errors[name] = errors.get(name, 0) + 1
        lats.append((time.monotonic() - t0, t0 - start))
        if ready and len(lats) == 1:
            open(ready, "w").close()
    longest = sorted(lats, reverse=True)[:top]
    print(json.dumps({
        "n": len(lats),
        "errors": errors,
        "mean_s": sum(l for l, _ in lats) / max(len(lats), 1),
        "max_s": longest[0][0] if longest else 0,
        "longest": [{"lat_s": l, "at_s": a} for l, a in longest],
    }))


main()
