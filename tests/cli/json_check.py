#!/usr/bin/env python3
"""Check `e4dump ls -R --json` of IMAGE against debugfs and `e4dump stat`.

usage: json_check.py E4DUMP IMAGE KEY

Every line is a JSON object with a "type"; the entries are every entry of
the tree; for each: raw_name_hex is the name's stored bytes as debugfs's
`ls -p` gives them (up to a NUL, where debugfs stops), and inode, mode, uid, gid, links, size and the four
times are what `e4dump stat` prints for it (tests/cli/stat_check.py
checks stat against debugfs); encrypted is true exactly below /secret,
where encryption.key names the key file; the summary counts the entries and carries
the exit status.  Prints one line per mismatch; exit 1 if any.
"""
import json
import re
import subprocess
import sys


def main(e4dump, image, key):
    bad = []
    r = subprocess.run([e4dump, "ls", "-R", "--json", "--key-file", key, image],
                       capture_output=True)
    recs = []
    for line in r.stdout.decode().splitlines():
        try:
            o = json.loads(line)
        except ValueError:
            bad.append(f"not JSON: {line[:80]}")
            continue
        if "type" not in o:
            bad.append(f"no type: {line[:80]}")
        recs.append(o)
    entries = [o for o in recs if o.get("type") == "entry"]
    summary = [o for o in recs if o.get("type") == "summary"]
    if len(summary) != 1 or summary[0]["exit"] != r.returncode or \
            summary[0]["entries"] != len(entries):
        bad.append(f"summary {summary} for exit {r.returncode}, {len(entries)} entries")
    ls = subprocess.run([e4dump, "ls", "-R", "--key-file", key, image],
                        capture_output=True).stdout.decode().splitlines()
    if sorted(e["path"] for e in entries) != sorted("/" + p for p in ls):
        bad.append("the entries are not the paths ls -R shows")
    raw = {}
    for d in sorted({e["path"].rsplit("/", 1)[0] or "/" for e in entries}):
        dino = next((e["inode"] for e in entries if e["path"] == d), 2)
        out = subprocess.run(["debugfs", "-R", f"ls -p <{dino}>", image],
                             capture_output=True).stdout
        for line in out.split(b"\n"):
            m = re.match(rb"^/(\d+)/\d+/\d+/\d+/(.*)/(\d*)/$", line, re.S)
            if m:
                raw[(dino, int(m.group(1)))] = m.group(2)
    for e in entries:
        parent = e["path"].rsplit("/", 1)[0] or "/"
        pino = next((x["inode"] for x in entries if x["path"] == parent), 2)
        want = raw.get((pino, e["inode"]))
        got = bytes.fromhex(e["raw_name_hex"])
        # debugfs prints a name as a C string: it stops at a NUL byte
        if want is None or not (got == want or (got.startswith(want) and got[len(want)] == 0)):
            bad.append(f"{e['path']}: raw_name_hex {e['raw_name_hex']} but debugfs {want!r}")
        st = subprocess.run([e4dump, "stat", "--key-file", key, image, f"<{e['inode']}>"],
                            capture_output=True).stdout.decode()
        s = dict(re.findall(r"^([a-z]+): (.*)$", st, re.M))
        for k in ("mode", "uid", "gid", "links", "size", "atime", "mtime", "ctime", "crtime"):
            if str(e.get(k)) != s.get(k):
                bad.append(f"{e['path']}: {k} {e.get(k)!r}, stat {s.get(k)!r}")
        enc = e["path"].startswith("/secret")
        k = (e.get("encryption") or {}).get("key")
        if e["encrypted"] != enc or (k == key) != enc:
            bad.append(f"{e['path']}: encrypted {e['encrypted']}, key {k!r}")
    for b in bad:
        print("FAIL:", b)
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    sys.exit(main(*sys.argv[1:]))
