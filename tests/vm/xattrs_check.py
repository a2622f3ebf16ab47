#!/usr/bin/python3
"""Extended attributes of a kernel-written image (vm/scenarios/xattrs.scn)
against the guest's truth: the manifest's `xattr` records, what listxattr
and getxattr returned in the guest, in listxattr's order (as root, so
trusted.* is among them).

  xattrs_check.py truth MANIFEST
      prints the truth (one line per attribute) and checks its shape
  xattrs_check.py json E4DUMP IMAGE KEY MANIFEST
      e4dump stat --json, ls -R --json, extract --json: "xattrs" of every recorded
      path is the truth, in order; "value" only for text; and debugfs
      (ea_list / ea_get -f, by the inode number) agrees with the truth,
      the encryption context ("c") apart
  xattrs_check.py tree DIR MANIFEST [--no-trusted] [--ordered] [--virtual]
                  [--except=PATH:NAME]
      the attributes of DIR/PATH for every recorded path (os.listxattr /
      os.getxattr) are the truth: without trusted.* (--no-trusted), in
      listxattr's order (--ordered); --virtual: a directory or file of
      the encrypted tree enc/ without an attribute of that name also has
      e4dump mount's user.e4dump.context, "v2 identifier=..."; --except:
      that attribute must be absent (one the output could not hold)
"""
import json, os, subprocess, sys, tempfile, unicodedata

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from check_extract import parse_manifest  # noqa: E402

CONTEXT = "user.e4dump.context"


def truth(manifest):
    recs = []
    parse_manifest(manifest, recs)
    want, counts = {}, {}
    for r in recs:
        if r.type == "xattr":
            _tag, path, name, value = r.fields
            value = b"" if value == "-" else bytes.fromhex(value)
            want.setdefault(path.decode(), []).append((name.decode(), value))
        elif r.type == "xattr-count":
            counts[r.fields[1].decode()] = r.fields[2]
        elif r.type == "xattr-set":
            tag, path, name, err = r.fields
            # security.* needs CONFIG_EXT4_FS_SECURITY, which the test
            # kernel does not have: EOPNOTSUPP; everything else was set
            expect = 95 if name.startswith("security.") else 0
            assert err == expect, f"xattr-set {tag} {name}: errno {err}"
    assert counts, "no xattr-list record"
    for p, n in counts.items():
        assert len(want.get(p, [])) == n, f"{p}: {n} names, {len(want.get(p, []))} records"
        want.setdefault(p, [])
    return want


def is_text(v):
    try:
        s = v.decode("utf-8")
    except UnicodeDecodeError:
        return False
    bidi = {0x61C, 0x200E, 0x200F, 0x2028, 0x2029} | set(range(0x202A, 0x202F)) | \
        set(range(0x2066, 0x206A))
    return not any(unicodedata.category(c) == "Cc" or ord(c) in bidi for c in s)


def records(cmd):
    out = subprocess.run(cmd, capture_output=True, check=False).stdout
    return [json.loads(l) for l in out.decode().splitlines()]


def same_xattrs(where, got, want):
    got_pairs = [(x["name"], bytes.fromhex(x["value_hex"])) for x in got]
    assert got_pairs == want, f"{where}: {[n for n, _ in got_pairs]} != {[n for n, _ in want]}" \
        if [n for n, _ in got_pairs] != [n for n, _ in want] else f"{where}: values differ"
    for x, (_n, v) in zip(got, want):
        if is_text(v):
            assert x.get("value") == v.decode(), f"{where}: {x['name']}: value {x.get('value')!r}"
        else:
            assert "value" not in x, f"{where}: {x['name']}: not text, yet a value"


def debugfs_check(image, ino, want, where):
    out = subprocess.run(["debugfs", "-R", f"ea_list <{ino}>", image], capture_output=True,
                         check=True).stdout.decode("utf-8", "replace")
    names = [l.split(" (")[0].strip() for l in out.splitlines() if l.startswith("  ")]
    names = [n for n in names if n != "c"]
    assert names == [n for n, _ in want], f"{where}: debugfs ea_list {names}"
    with tempfile.TemporaryDirectory() as t:
        for n, v in want:
            f = os.path.join(t, "v")
            subprocess.run(["debugfs", "-R", f"ea_get -f {f} <{ino}> {n}", image],
                           capture_output=True, check=True)
            assert open(f, "rb").read() == v, f"{where}: debugfs ea_get {n} differs"


def check_json(e4dump, image, key, manifest):
    want = truth(manifest)
    listing = {r["path"]: r for r in records([e4dump, "ls", "-R", "--json", "--key-file", key,
                                              image]) if r["type"] == "entry"}
    with tempfile.TemporaryDirectory() as t:
        extracted = {r["path"]: r for r in records([e4dump, "extract", "--json", "--key-file", key,
                                                    image, "-o", os.path.join(t, "o")])
                     if r["type"] == "extracted"}
    n = 0
    for p, w in sorted(want.items()):
        recs = records([e4dump, "stat", "--json", "--key-file", key, image, "/" + p])
        st = [r for r in recs if r["type"] == "stat"]
        assert len(st) == 1, f"{p}: stat --json gave {len(st)} records"
        same_xattrs(f"stat {p}", st[0]["xattrs"], w)
        same_xattrs(f"ls {p}", listing["/" + p]["xattrs"], w)
        same_xattrs(f"extract {p}", extracted["/" + p]["xattrs"], w)
        debugfs_check(image, st[0]["inode"], w, p)
        n += len(w)
    print(f"stat, ls and extract --json and debugfs: {n} attributes of {len(want)} paths")


def check_tree(d, manifest, no_trusted, ordered, virtual, absent):
    want = truth(manifest)
    n = 0
    for p, w in sorted(want.items()):
        f = os.path.join(d, p)
        w = [(k, v) for k, v in w if not (no_trusted and k.startswith("trusted."))
             and f"{p}:{k}" not in absent]
        names = os.listxattr(f, follow_symlinks=False)
        if virtual and p.split("/")[0] == "enc" and CONTEXT not in dict(w):
            assert CONTEXT in names, f"{p}: no virtual {CONTEXT}"
            v = os.getxattr(f, CONTEXT, follow_symlinks=False)
            assert v.startswith(b"v2 identifier="), f"{p}: virtual {CONTEXT} {v!r}"
            names.remove(CONTEXT)
        got = [(k, os.getxattr(f, k, follow_symlinks=False)) for k in names]
        if not ordered:
            got, w = sorted(got), sorted(w)
        assert got == w, f"{p}: {[k for k, _ in got]} != {[k for k, _ in w]}" \
            if [k for k, _ in got] != [k for k, _ in w] else f"{p}: values differ"
        n += len(w)
    print(f"{d}: {n} attributes of {len(want)} paths")


def main(a):
    if a[0] == "truth":
        for p, w in sorted(truth(a[1]).items()):
            for n, v in w:
                print(p, n, len(v))
    elif a[0] == "json":
        check_json(*a[1:5])
    elif a[0] == "tree":
        check_tree(a[1], a[2], "--no-trusted" in a, "--ordered" in a, "--virtual" in a,
                   {x.split("=", 1)[1] for x in a if x.startswith("--except=")})
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main(sys.argv[1:])
