#!/usr/bin/env python3
"""Self-test of the QEMU harness (no e4dump needed).

Usage: harness_selftest.py WORKDIR [--reuse]
                           [--scenario v1-pad|sample|nokey-61|dummy-61]...

Makes the images of vm/scenarios/v1-pad.scn and sample.scn with
vm/make-image.sh (unless --reuse and they already exist), then checks them on
the host with debugfs only (nothing is mounted):
  * the encrypted trees list only encrypted names, no plaintext ones;
  * each tree root has the expected 28-byte v1 context
    (01 01 04 FLAGS + descriptor + 16-byte nonce);
  * the "big" trees have exactly one htree-indexed directory (flag 0x1000)
    holding 3000 entries, the other trees none;
  * the on-disk blocks of a 1 MiB encrypted file share nothing with its
    plaintext;
  * `debugfs rdump` of the unencrypted /plain tree passes check_extract.py
    (the guest's generator and the checker's agree), symlink mtimes excepted
    because rdump does not set them;
  * the sample image compresses with xz -9 to well under 1 MiB;
  * nokey-61.scn / dummy-61.scn (the kernel-probe commands): the guest's
    no-key readdir has one base64url name per entry, lookups by no-key name
    all succeed, open without the key fails with ENOKEY, the unlinked entry
    is gone (also for debugfs), a policy on a non-empty directory gives
    ENOTEMPTY, every inode of a tree has the tree's policy, and a
    test_dummy_encryption tree gets the v1 dummy policy.
Prints one line per check and "N passed, M failed"; exit 1 on failure.
"""

import argparse
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, HERE)
import check_extract  # noqa: E402

ENV = dict(os.environ, DEBUGFS_PAGER="__none__", PAGER="__none__")
results = [0, 0]


def report(ok, what):
    results[0 if ok else 1] += 1
    print(("ok   " if ok else "FAIL ") + what, flush=True)
    return ok


def debugfs(img, req):
    r = subprocess.run(["debugfs", "-R", req, img], env=ENV, capture_output=True)
    return r.stdout.decode("utf-8", "replace")


def make(scn, img, reuse):
    if reuse and os.path.exists(img + ".manifest"):
        return True
    r = subprocess.run([os.path.join(REPO, "vm", "make-image.sh"),
                        os.path.join(REPO, "vm", "scenarios", scn), img],
                       stdout=sys.stderr)
    return report(r.returncode == 0, f"make-image.sh {scn}")


def ls_entries(img, d):
    """(inode, mode, size, name) for each entry of `ls -l` except . and .."""
    out = []
    for line in debugfs(img, f"ls -l {d}").splitlines():
        m = re.match(r"\s*(\d+)\s+(\d+)\s+\(\d+\)\s+\d+\s+\d+\s+(\d+)\s+\S+\s+\S+\s+(.*)$", line)
        if m and m.group(4) not in (".", ".."):
            out.append((int(m.group(1)), int(m.group(2), 8), int(m.group(3)), m.group(4)))
    return out


def flags_of(img, ino):
    m = re.search(r"Flags: (0x[0-9a-f]+)", debugfs(img, f"stat <{ino}>"))
    return int(m.group(1), 16) if m else None


def check_plain(img, manifest, work):
    x = os.path.join(work, os.path.basename(img) + ".rdump")
    subprocess.run(["rm", "-rf", x], check=True)
    os.makedirs(x)
    debugfs(img, f"rdump /plain {x}")
    r = subprocess.run([sys.executable, os.path.join(HERE, "check_extract.py"), manifest, x,
                        "--tree", "plain", "--no-symlink-mtime", "-q"],
                       capture_output=True, text=True)
    report(r.returncode == 0, f"{os.path.basename(img)}: rdump /plain matches the manifest "
           f"({r.stdout.strip().splitlines()[-1] if r.stdout.strip() else r.stderr.strip()})")
    if r.returncode:
        print(r.stdout[-3000:], r.stderr[-2000:])


def check_tree(img, trees, entries, name, big):
    words = trees[name]            # enc DESC CMODE FMODE FLAGS [opts]
    desc, flags = words[1], int(words[4])
    ents = ls_entries(img, "/" + name)
    plain_names = {os.path.basename(e.path).decode("utf-8", "replace")
                   for e in entries if e.tree == name and e.path.count(b"/") == 1}
    report(ents and all(n.startswith("<encrypted") for *_, n in ents)
           and not plain_names & {n for *_, n in ents},
           f"/{name}: {len(ents)} entries, all names encrypted")
    ctx = debugfs(img, f"ea_get /{name} c")
    m = re.search(r"c \((\d+)\) = ([0-9a-f ]+)", ctx)
    want = f"01 01 04 {flags:02x} " + " ".join(desc[i:i + 2] for i in range(0, 16, 2))
    report(m and m.group(1) == "28" and m.group(2).startswith(want),
           f"/{name}: encryption context starts with {want}")
    indexed = []
    for ino, mode, size, _ in ents:
        if mode & 0o170000 == 0o040000:
            fl = flags_of(img, ino)
            if fl is not None and fl & 0x1000:
                indexed.append(ino)
    if big:
        n = len(ls_entries(img, f"<{indexed[0]}>")) if len(indexed) == 1 else 0
        report(len(indexed) == 1 and n == 3000,
               f"/{name}: one htree-indexed directory with 3000 entries (found {len(indexed)}, {n})")
        if indexed:
            report("Root node dump" in debugfs(img, f"htree <{indexed[0]}>"),
                   f"/{name}: debugfs htree works on the big directory")
    else:
        report(not indexed, f"/{name}: no indexed directory")
    # the 1 MiB file: ciphertext shares no 16-byte block with the plaintext
    big_e = [e for e in entries if e.tree == name and e.size == 1048576 + 123]
    cand = [ino for ino, mode, size, _ in ents if size == 1048576 + 123]
    if big_e and len(cand) == 1:
        blob = os.path.join(os.path.dirname(img), f"{name}.raw")
        debugfs(img, f"dump <{cand[0]}> {blob}")
        with open(blob, "rb") as f:
            raw = f.read()
        os.unlink(blob)
        plain = check_extract.generate(big_e[0].seed, big_e[0].size)
        pblocks = {plain[i:i + 16] for i in range(0, len(plain) - 15, 16)}
        shared = sum(1 for i in range(0, len(raw) - 15, 16) if raw[i:i + 16] in pblocks)
        report(len(raw) == len(plain) and shared == 0,
               f"/{name}: 1 MiB file is stored encrypted ({shared} plaintext blocks on disk)")


B64URL = re.compile(rb"^[A-Za-z0-9_-]+$")


def probes(img):
    """(trees, entries, records) of an image's manifest"""
    recs = []
    trees, entries = check_extract.parse_manifest(img + ".manifest", recs)
    return trees, entries, recs


def one(recs, rtype, tag=None):
    r = [x for x in recs if x.type == rtype and (tag is None or x.fields[0] == tag)]
    return r[0].fields if len(r) == 1 else None


def nokey_names_ok(recs, tag, top):
    """the n TAG records below `top`: every component a base64url no-key name"""
    paths = [r.fields[1] for r in recs if r.type == "n" and r.fields[0] == tag]
    bad = [p for p in paths if not p.startswith(top + b"/")
           or not all(B64URL.match(c) for c in p[len(top) + 1:].split(b"/"))]
    return paths, bad


def check_nokey61(img):
    trees, entries, recs = probes(img)
    man = img + ".manifest"
    pad4 = [e for e in entries if e.tree == "pad4" and e.path != b"pad4"]
    paths, bad = nokey_names_ok(recs, "nokey", b"pad4")
    report(len(paths) == len(pad4) == 3542 and not bad and len(set(paths)) == len(paths),
           f"nokey-61: no-key readdir of /pad4: {len(paths)} distinct base64url paths "
           f"(manifest {len(pad4)}, bad {len(bad)})")
    paths32, bad32 = nokey_names_ok(recs, "nokey32", b"pad32")
    report(len(paths32) == 7 and not bad32, f"nokey-61: no-key readdir of /pad32: {len(paths32)}")
    long_names = [p for p in paths if len(p.rsplit(b"/", 1)[1]) > 200]
    report(len(long_names) > 100, f"nokey-61: {len(long_names)} no-key names longer than 200")
    lk = one(recs, "lookup", "nokey")
    ln = one(recs, "lookup", "nokey-names")
    report(lk and lk[2:] == [3000, 3000] and ln and ln[2:] == [510, 510]
           and not any(r.type == "lookup-fail" for r in recs),
           f"nokey-61: lookups by no-key name: bigdir {lk and lk[2:]}, names {ln and ln[2:]}")
    top_reg = [e for e in pad4 if e.type in "fsh" and e.path.count(b"/") == 1]
    op = one(recs, "open", "nokey")
    fails = [r.fields[2] for r in recs if r.type == "open-fail"]
    report(op and op[2:] == [len(top_reg), 0, 126] and fails == [126] * len(top_reg),
           f"nokey-61: open without key: {op and op[2:]} (want [{len(top_reg)}, 0, 126])")
    unl = one(recs, "unlinked", "nokey")
    rem = one(recs, "removed")
    ex = one(recs, "exists", "nokey")
    after = one(recs, "lookup", "after")
    top = [e for e in pad4 if e.path.count(b"/") == 1]
    report(unl and rem and ex and ex[1] == unl[1] and ex[2] == 0
           and rem[0] in {e.path for e in top_reg} and after and after[2:] == [len(top) - 1] * 2,
           f"nokey-61: unlink by no-key name: removed {rem and check_extract.show(rem[0])!r}, "
           f"gone after remount, {after and after[2]} of {len(top)} left")
    n_dbg = len(ls_entries(img, "/pad4"))
    report(n_dbg == len(top) - 1, f"nokey-61: debugfs sees {n_dbg} entries in /pad4")
    report(one(recs, "policy-nonempty", "full") == ["full", 39],
           f"nokey-61: policy on a non-empty dir: {one(recs, 'policy-nonempty', 'full')}")
    inh, sym = one(recs, "inherit", "pad4"), one(recs, "inherit-symlinks", "pad4")
    n_sym = sum(1 for e in pad4 if e.type == "l")
    report(inh and inh[1] == inh[2] == len(pad4) - n_sym and sym and sym[1] == n_sym
           and one(recs, "inherit", "pad32") == ["pad32", 5, 5],
           f"nokey-61: inherited policies: pad4 {inh and inh[1:]}, symlinks {sym and sym[1]}")
    keyed = check_extract.readdir_paths(man, "nokey", strip=True)
    report(len(keyed) == 3542 and keyed == sorted(keyed),
           "nokey-61: check_extract --readdir nokey --strip-tree")


def check_dummy61(img):
    trees, entries, recs = probes(img)
    man = img + ".manifest"
    pol = one(recs, "dummy-policy", "dummy")
    report(trees.get("dummy", [None])[0] == "dummy" and pol
           and pol[1] == bytes.fromhex("000104004242424242424242"),
           f"dummy-61: tree dummy has the v1 dummy policy ({pol and pol[1].hex()})")
    want = subprocess.run([sys.executable, os.path.join(HERE, "check_extract.py"), man,
                           "--list", "--tree", "dummy", "--strip-tree"],
                          capture_output=True).stdout.splitlines()
    got = check_extract.readdir_paths(man, "keyed", strip=True)
    report(got == want and len(got) == 263,
           f"dummy-61: readdir with the dummy key = the manifest ({len(got)} paths)")
    paths, bad = nokey_names_ok(recs, "nokey", b"dummy")
    report(len(paths) == 263 and not bad, f"dummy-61: {len(paths)} no-key names after remount")
    lens = {len(e.path.rsplit(b"/", 1)[1]) for e in entries
            if e.path.startswith(b"dummy/names/")}
    report(lens == set(range(1, 256)), f"dummy-61: bigdir-names lengths 1..255 ({len(lens)})")
    report(one(recs, "lookup", "nokey")[2:] == [255, 255]
           and one(recs, "open", "nokey")[2:] == [2, 0, 126]
           and one(recs, "inherit", "dummy") == ["dummy", 261, 261],
           "dummy-61: no-key lookups, ENOKEY on open, inherited policies")
    ents = ls_entries(img, "/dummy")
    report(len(ents) == 6 and all(n.startswith("<encrypted") for *_, n in ents),
           f"dummy-61: debugfs sees {len(ents)} encrypted names in /dummy")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("workdir")
    ap.add_argument("--reuse", action="store_true", help="reuse existing images")
    ap.add_argument("--scenario", action="append",
                    choices=["v1-pad", "sample", "nokey-61", "dummy-61"])
    a = ap.parse_args()
    work = os.path.abspath(a.workdir)
    os.makedirs(work, exist_ok=True)
    scns = a.scenario or ["v1-pad", "sample", "nokey-61", "dummy-61"]

    if "v1-pad" in scns:
        img = os.path.join(work, "v1-pad", "v1-pad.img")
        if make("v1-pad.scn", img, a.reuse):
            trees, entries = check_extract.parse_manifest(img + ".manifest")
            report(sorted(trees) == ["pad16", "pad32", "pad4", "pad8", "plain"],
                   "v1-pad: trees pad4 pad8 pad16 pad32 plain")
            for t in ("pad4", "pad8", "pad16", "pad32"):
                check_tree(img, trees, entries, t, "big" in trees[t])
            keys = sorted(os.listdir(os.path.join(work, "v1-pad", "keys")))
            report(keys == ["0011223344556677.key", "7c9fc345b9ec5163.key",
                            "8899aabbccddeeff.key"], f"v1-pad: key files {keys}")
            check_plain(img, img + ".manifest", work)

    if "sample" in scns:
        img = os.path.join(work, "sample", "sample.img")
        if make("sample.scn", img, a.reuse):
            trees, entries = check_extract.parse_manifest(img + ".manifest")
            check_tree(img, trees, entries, "secret", False)
            check_plain(img, img + ".manifest", work)
            r = subprocess.run(["xz", "-9", "-c", img], capture_output=True)
            report(r.returncode == 0 and len(r.stdout) < 256 * 1024,
                   f"sample: xz -9 size {len(r.stdout)} bytes (< 256 KiB)")

    for name, fn in (("nokey-61", check_nokey61), ("dummy-61", check_dummy61)):
        if name in scns:
            img = os.path.join(work, name, name + ".img")
            if make(name + ".scn", img, a.reuse):
                fn(img)

    print(f"{results[0]} passed, {results[1]} failed")
    return 1 if results[1] else 0


if __name__ == "__main__":
    sys.exit(main())
