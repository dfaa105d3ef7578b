#!/usr/bin/env python3
"""compress_gen.py DIR FILES BLOCKS COMPRESS_PCT SEED: a data set of known
dedupe and compressibility, the figures it was built to have on stdout (JSON).

Every unique 4 KiB block is COMPRESS_PCT % one repeated byte and the rest
random (as fio's buffer_compress_percentage builds a buffer): a compressor
stores about its random part, so the expected compression ratio is
4096 / random bytes, known to within the compressor's framing (a few bytes
in a hundred). Dedupe is exact: file i holds BLOCKS blocks, of which its
first (i % 3) * BLOCKS / 4 repeat blocks of file 0 (the same bytes), the rest
are new; no block is all zeros. Expected figures:
  data_blocks, unique_blocks (exact), dedupe_ratio (exact),
  compression_ratio (approximate), data_reduction_ratio (approximate).
"""
import json
import os
import random
import sys

BS = 4096


def main():
    out, files, blocks, pct, seed = sys.argv[1], *map(int, sys.argv[2:6])
    rnd = random.Random(seed)
    rand_len = BS - BS * pct // 100
    fill = BS - rand_len
    serial = 0

    def unique_block():
        nonlocal serial
        serial += 1
        # The serial makes each block unique even if the PRNG repeated.
        head = serial.to_bytes(8, "little") + rnd.randbytes(rand_len - 8)
        return head + bytes([0x61 + serial % 26]) * fill

    first = []
    data = unique = 0
    for i in range(files):
        shared = (i % 3) * blocks // 4 if i else 0
        with open(os.path.join(out, "f%04d.bin" % i), "wb") as f:
            for b in range(blocks):
                if b < shared:
                    f.write(first[b])
                else:
                    blk = unique_block()
                    if i == 0:
                        first.append(blk)
                    f.write(blk)
                    unique += 1
                data += 1
    dr = data / unique
    cr = BS / rand_len
    json.dump({"data_blocks": data, "unique_blocks": unique,
               "dedupe_ratio": dr, "compression_ratio": cr,
               "data_reduction_ratio": dr * cr}, sys.stdout)
    print()


if __name__ == "__main__":
    main()
