#!/usr/bin/env python3
"""blocks.py DIR OUT: every 4 KiB block of every file in DIR (not
recursive), one line each: "/NAME OFFSET SHA1", or "/NAME OFFSET EIO" when
the read fails with EIO (any other error is fatal). The data-loss tests
compare these lists before and after a fault with the loss report."""
import errno
import hashlib
import os
import sys


def main():
    top, out = sys.argv[1], open(sys.argv[2], "w")
    for name in sorted(os.listdir(top)):
        fd = os.open(os.path.join(top, name), os.O_RDONLY)
        size = os.fstat(fd).st_size
        for off in range(0, size, 4096):
            try:
                h = hashlib.sha1(os.pread(fd, 4096, off)).hexdigest()
            except OSError as e:
                if e.errno != errno.EIO:
                    raise
                h = "EIO"
            out.write("/%s %d %s\n" % (name, off, h))
        os.close(fd)


main()
