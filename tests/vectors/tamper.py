#!/usr/bin/python3
"""Both checkers must reject a changed vector of every type.

For each vector type in the input, the first vector of that type gets its
last field changed (a hex digit flipped, an integer or a string altered);
the library (e4dump vectors --check) and the independent verifier must each
report exactly one failure per type, and no other.

usage: tamper.py E4DUMP VERIFY_VECTORS_PY WORKDIR FILE...
"""
import json
import os
import subprocess
import sys


def tamper(v):
    key = list(v)[-1]
    val = v[key]
    if isinstance(val, bool) or key == "type":
        raise SystemExit("cannot tamper %r" % v)
    if isinstance(val, int):
        v[key] = val ^ 2
    elif key in ("result",):
        v[key] = "corrupt" if val == "ok" else "ok"
    elif all(c in "0123456789abcdef" for c in val) and val:
        v[key] = val[:-1] + ("0" if val[-1] != "0" else "1")
    else:
        v[key] = val[:-1] + ("a" if val[-1] != "a" else "b")
    return key


def main():
    e4dump, verifier, work = sys.argv[1:4]
    os.makedirs(work, exist_ok=True)
    seen, lines = {}, []
    for path in sys.argv[4:]:
        for line in open(path, encoding="utf-8"):
            if not line.strip() or line.startswith("#"):
                continue
            v = json.loads(line)
            if v["type"] not in seen:
                seen[v["type"]] = tamper(v)
                lines.append(json.dumps(v, separators=(",", ":")))
    out = os.path.join(work, "tampered.jsonl")
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")
    fails = 0
    for name, cmd in (("library", [e4dump, "vectors", "--check", out]),
                      ("python", ["/usr/bin/python3", verifier, out])):
        r = subprocess.run(cmd, capture_output=True, text=True)
        n = sum(1 for l in r.stdout.splitlines() if l.startswith("FAIL"))
        ok = n == len(lines) and r.returncode == 1
        print("%s: %d of %d tampered vectors rejected%s"
              % (name, n, len(lines), "" if ok else "  <-- FAIL"))
        fails += not ok
    print("types: " + ", ".join("%s(%s)" % kv for kv in sorted(seen.items())))
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
