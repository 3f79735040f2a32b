#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Flips one bit in the body of a pending record of a spool segment.

tests/reliability/flip_bit.py SEGMENT [INDEX]: walks the records of SEGMENT
(plugin/sending/spool.h: 16-byte file header, 40-byte record headers, bodies) and
flips bit 6 of a byte in the body of pending record INDEX (default: the
middle one). Prints the record's sample count, so the test knows how much
the damage may cost.
"""
import struct
import sys


def records(data):
    off = 16
    while off + 40 <= len(data) and data[off:off + 4] == b"MBSR":
        length, = struct.unpack_from("<I", data, off + 12)
        samples, = struct.unpack_from("<I", data, off + 20)
        yield off, length, samples, data[off + 8:off + 9]
        off += 40 + length


def main():
    path = sys.argv[1]
    with open(path, "rb") as f:
        data = bytearray(f.read())
    pending = [r for r in records(data) if r[3] == b"P"]
    if not pending:
        print("flip_bit: no pending record in %s" % path, file=sys.stderr)
        return 1
    index = int(sys.argv[2]) if len(sys.argv) > 2 else len(pending) // 2
    off, length, samples, _ = pending[index]
    data[off + 40 + length // 2] ^= 0x40
    with open(path, "r+b") as f:
        f.seek(off + 40 + length // 2)
        f.write(bytes([data[off + 40 + length // 2]]))
    print(samples)
    return 0


if __name__ == "__main__":
    sys.exit(main())
