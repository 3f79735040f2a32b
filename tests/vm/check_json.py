#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""The CLI's JSON through a strict parser: tests/vm/check_json.py DATA_LOG.

DATA_LOG is what a guest wrote to its third serial port: blocks
"VMDATA BEGIN json-<backend>" ... "VMDATA END json-<backend>" of
memcg-bpf-sample --format json lines. Every line must parse with Python's
json module (no NaN/Infinity, no raw control characters), every path must
map back to bytes (plugin/cli/path_escape.h: lone \\udcXX are bytes 0x80-0xff,
PEP 383), and ids and paths must pair one to one: one distinct path per
cgroup id. Prints one line per block; exits 1 on any failure or when no
block arrived.
"""
import json
import sys


def reject_constant(name):
    raise ValueError(f"non-standard constant {name}")


def check_block(name, lines):
    by_id, by_path, errors = {}, {}, []
    for n, line in enumerate(lines, 1):
        try:
            rec = json.loads(line, parse_constant=reject_constant)
            raw = rec["path"].encode("utf-8", "surrogateescape")
            cid = rec["cgroup_id"]
        except (ValueError, KeyError, TypeError, UnicodeError) as e:
            errors.append(f"line {n}: {e}: {line[:120]!r}")
            continue
        if by_id.setdefault(cid, raw) != raw:
            errors.append(f"cgroup id {cid} has two paths: {by_id[cid]!r} and {raw!r}")
        if by_path.setdefault(raw, cid) != cid:
            errors.append(f"path {raw!r} names two ids: {by_path[raw]} and {cid}")
    odd = sum(1 for p in by_path if any(b < 0x20 or b >= 0x7f for b in p))
    verdict = "ok" if not errors and lines else "FAIL"
    print(f"check_json {name}: {verdict}: {len(lines)} lines, {len(by_id)} ids, "
          f"{len(by_path)} distinct paths ({odd} with control or non-ASCII bytes)")
    for e in errors[:10]:
        print(f"  {e}")
    return verdict == "ok"


def main():
    blocks, current = {}, None
    with open(sys.argv[1], "rb") as f:
        for raw in f:
            line = raw.decode("ascii", "replace").rstrip("\r\n")
            if line.startswith("VMDATA BEGIN "):
                current = line[len("VMDATA BEGIN "):]
                blocks[current] = []
            elif line.startswith("VMDATA END "):
                current = None
            elif current is not None and line:
                blocks[current].append(line)
    if not blocks:
        print("check_json: no JSON block arrived")
        return 1
    ok = all([check_block(name, lines) for name, lines in blocks.items()])
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
