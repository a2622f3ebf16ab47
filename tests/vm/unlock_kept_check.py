#!/usr/bin/env python3
"""Checks of e4dump extract --keep-locked and unlock-kept (tests/vm/unlock_kept.sh).

  unlock_kept_check.py same DIRECT UNLOCKED
      the two trees hold the same entries: names, types, permission bits,
      sizes, mtimes (nanoseconds), contents, symlink targets (os.lstat,
      hashlib: independent of e4dump).
  unlock_kept_check.py hashes EXPORT TSV JSONL
      every file kept locked has one manifest row whose hashes_of is
      "ciphertext" and whose MD5/SHA-1/SHA-256 are hashlib's of the kept
      ciphertext file, and its JSON record ("status": "locked") carries the
      same under "hashes" with "of": "ciphertext"; prints the count.
"""
import hashlib, json, os, stat, sys


def tree(root):
    out = {}
    for d, dirs, files in os.walk(root):
        for n in dirs + files:
            p = os.path.join(d, n)
            st = os.lstat(p)
            rel = os.path.relpath(p, root)
            t = stat.S_IFMT(st.st_mode)
            e = [t, stat.S_IMODE(st.st_mode)]
            if stat.S_ISLNK(st.st_mode):
                e += [os.readlink(p), st.st_mtime_ns]
            elif stat.S_ISREG(st.st_mode):
                e += [st.st_size, st.st_mtime_ns, hashlib.sha256(open(p, "rb").read()).hexdigest()]
            else:
                e += [st.st_mtime_ns]
            out[rel] = e
    return out


def same(a, b):
    ta, tb = tree(a), tree(b)
    bad = [k for k in sorted(set(ta) | set(tb)) if ta.get(k) != tb.get(k)]
    for k in bad[:10]:
        print("differs: %r: %s vs %s" % (k, ta.get(k), tb.get(k)))
    print(len(ta), "entries")
    return not bad and ta


def hashes(export, tsv, jsonl):
    rows = [l.split("\t") for l in open(tsv, encoding="utf-8").read().splitlines()]
    head = rows[0]
    assert head[-1] == "hashes_of", head
    col = {k: i for i, k in enumerate(head)}
    kept = {}
    for r in rows[1:]:
        if r[col["hashes_of"]] == "ciphertext":
            assert r[0] not in kept, r[0]
            kept[r[0]] = r
    recs = [json.loads(l) for l in open(jsonl)]
    locked = [r for r in recs if r.get("type") == "extracted" and r.get("status") == "locked"
              and (r.get("output_path") or r.get("output"))]
    n = 0
    for r in locked:
        out = r.get("output_path") or r["output"]
        p = os.path.join(export, out)
        if os.path.islink(p):
            continue
        data = open(p, "rb").read()
        want = {"md5": hashlib.md5(data).hexdigest(), "sha1": hashlib.sha1(data).hexdigest(),
                "sha256": hashlib.sha256(data).hexdigest()}
        row = kept.pop(out)
        assert [row[col[k]] for k in ("md5", "sha1", "sha256")] == list(want.values()), out
        assert r["hashes"] == dict(of="ciphertext", **want), (out, r.get("hashes"))
        n += 1
    assert not kept, "rows without a kept file: %s" % list(kept)[:3]
    assert n, "no file kept"
    print(n)


if __name__ == "__main__":
    if sys.argv[1] == "same":
        sys.exit(0 if same(sys.argv[2], sys.argv[3]) else 1)
    hashes(*sys.argv[2:5])
