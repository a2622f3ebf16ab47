#!/usr/bin/env python3
"""The paths in the image unlock-kept's records give are ls's (tests/cli/unlock_kept.sh).

  unlock_kept_paths.py LS_JSON UNLOCK_JSON PREFIX
LS_JSON: `ls -R --json` of the image with the key; UNLOCK_JSON: `unlock-kept
--json` of its `extract --keep-locked` export.  Every "extracted" record of
unlock-kept must have an (inode, path) pair of ls's, and every entry ls lists
under PREFIX must be among them.  Prints the number compared.
"""
import json
import sys


def records(path, want):
    out = set()
    for line in open(path, encoding="utf-8"):
        o = json.loads(line)
        if o.get("type") == want and "path" in o and o.get("inode"):
            out.add((o["inode"], o["path"]))
    return out


ls = records(sys.argv[1], "entry")
uk = records(sys.argv[2], "extracted")
prefix = sys.argv[3]
bad = sorted(uk - ls)
missing = sorted(p for p in ls if p[1].startswith(prefix + "/") and p not in uk)
for ino, p in bad:
    print(f"FAIL: unlock-kept gives inode {ino} the path {p!r}, ls does not")
for ino, p in missing:
    print(f"FAIL: ls's {p!r} (inode {ino}) has no record of unlock-kept")
if bad or missing or not uk:
    sys.exit(1)
print(len(uk))
