#!/usr/bin/env python3
"""Writes out the program binaries of a clreduce disk cache.

    tools/cache_binaries.py CACHE_DIR OUT_DIR

For each cache file <hash>.bin (src/disk_cache.c gives the layout) whose
checksum holds, writes OUT_DIR/<hash>.bin (the binary the OpenCL driver
returned: PTX text on NVIDIA) and OUT_DIR/<hash>.key (the key: library,
platform, driver, device, build options), and prints one line per program
with the defines that name it. On NVIDIA the PTX then goes through
`ptxas -arch=sm_90 -v -o /dev/null <hash>.bin` for each kernel's registers,
spills and shared memory.
"""
import os
import re
import struct
import sys

MAGIC = b"CLRBIN2\n"
NAMING = r"-D\s*(CLR_(?:TYPE|OP|M_COUNT|M_OP\d|M_TWINS|VARIANT|WG|VEC|UNROLL|SEGMENT_RUNS|GRID_PER_GROUP)=\S+)"


def fnv1a(data):
    h = 0xCBF29CE484222325
    for b in data:
        h = ((h ^ b) * 0x100000001B3) & 0xFFFFFFFFFFFFFFFF
    return h


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src, dst = sys.argv[1], sys.argv[2]
    os.makedirs(dst, exist_ok=True)
    for name in sorted(os.listdir(src)):
        if not name.endswith(".bin"):
            continue
        data = open(os.path.join(src, name), "rb").read()
        if data[:8] != MAGIC or len(data) < 28:
            continue
        key_size = struct.unpack_from("<I", data, 8)[0]
        at = 12 + key_size
        binary_size = struct.unpack_from("<Q", data, at)[0]
        end = at + 8 + binary_size
        if end + 8 != len(data) or struct.unpack_from("<Q", data, end)[0] != fnv1a(data[:end]):
            print(f"{name}: damaged, skipped", file=sys.stderr)
            continue
        key = data[12:at].decode("latin-1")
        stem = name[:-4]
        with open(os.path.join(dst, stem + ".bin"), "wb") as f:
            f.write(data[at + 8 : end].split(b"\0")[0])
        with open(os.path.join(dst, stem + ".key"), "w") as f:
            f.write(key)
        print(stem, " ".join(re.findall(NAMING, key)))


if __name__ == "__main__":
    main()
