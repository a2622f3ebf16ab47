#!/usr/bin/env python3
"""Check `e4dump undelete --json` against what the kernel did (issue 16).

Usage:
  undelete_check.py exact   MANIFEST JSONL OUTDIR [--under PATH]
  undelete_check.py reuse   MANIFEST JSONL OUTDIR IMAGE
  undelete_check.py wrapped MANIFEST JSONL OUTDIR IMAGE
  undelete_check.py nokey   MANIFEST JSONL OUTDIR [--locked]
  undelete_check.py journal MANIFEST JSONL IMAGE

The expected values come from the guest's manifest (vm/README.md,
"Deletions": the `removed` records name the deleted entries, `extents`
records their inode numbers and blocks, `ino` records the kernel's no-key
names by inode number, contents from the generator of check_extract.py) and
from debugfs/dumpe2fs on the final image, never from e4dump.  JSONL holds
e4dump's output: one object per deleted entry it found (those with a
"verdict"; other records, such as a summary, are ignored).

exact    every removed entry (below PATH with --under) is reported once, by
         its decrypted path, with its inode number and type; files and
         symlinks are `exact`, with the manifest's size (and target), no
         suspect range; directories are not `not recovered`.  Nothing else
         inside a tree of the manifest is reported.  (OUTDIR is checked with
         check_extract.py --removed-only.)
reuse    the blocks each deleted file had (extents records) are looked up
         in the final block bitmap (debugfs testb): a file with a block in
         use again is `partial` and its suspect ranges are exactly those
         logical blocks, the rest of its bytes in OUTDIR right; a file none
         of whose blocks is in use is `exact`, bytes right.  The scenario
         must have produced both kinds.
wrapped  the journal wrapped (the oldest transaction left in the log is
         newer than the last one before the churn: dumpe2fs's sequence
         minus the churn record's count and the `sync` records after it);
         every deleted inode (extents records) is reported exactly once,
         by its path (name_state `decrypted`) or, its name lost, as
         `/$OrphanFiles/OrphanFile-INO` (no name_state), and nothing else; with its type; `exact`
         only with the right bytes (target); `not recovered` with no
         journal copy of its inode as the reason, not written, and at
         least one of them found by its name.
nokey    without a key: the reported paths are exactly the kernel's no-key
         paths of the removed entries (their inode numbers in the `ino`
         records), name_state `nokey`, verdict `not recovered` with reason
         `no key` (with --locked: verdict `locked`, and each is written
         with its sidecar NAME.e4dump.json, as extract --keep-locked does).
journal  `e4dump journal --json`: every block copy debugfs logdump -O -a shows
         (sequence, filesystem block, journal block) and every revoked
         block is in e4dump's transactions (a log that wrapped, which
         debugfs does not walk: e4dump's own list), and the inode table
         blocks (dumpe2fs) among them are listed as such.

Prints one line per problem ("FAIL ...") and a summary; exit 1 on any
failure, 2 on usage or input errors.  Standard library only.
"""

import hashlib
import json
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_extract as ce  # noqa: E402

TYPES = {"f": "regular", "s": "regular", "h": "regular", "d": "directory", "l": "symlink"}


class Checker:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def check(self, cond, msg):
        if cond:
            self.passed += 1
        else:
            self.failed += 1
            print(f"FAIL {msg}")
        return cond

    def done(self, what):
        print(f"{what}: {self.passed} passed, {self.failed} failed")
        return 1 if self.failed else 0


def die(msg):
    print(f"undelete_check: {msg}", file=sys.stderr)
    sys.exit(2)


def load_manifest(path):
    recs = []
    try:
        trees, entries = ce.parse_manifest(path, recs)
        gone = ce.removed_entries(entries, recs)
    except (OSError, ce.ManifestError, UnicodeDecodeError) as exc:
        die(exc)
    if not gone:
        die(f"{path}: no 'removed' record: the scenario deleted nothing")
    ext = {}
    for r in recs:
        if r.type == "extents":
            runs = []
            if r.fields[2] not in ("-", "?"):
                for run in r.fields[2].split(","):
                    f = run.split(":")
                    runs.append((int(f[0]), int(f[1]), int(f[2]), len(f) > 3 and f[3] == "u"))
            ext[r.fields[0]] = (r.fields[1], runs if r.fields[2] != "?" else None)
    for e in gone:
        if e.path not in ext:
            die(f"{path}: removed {ce.show(e.path)} has no extents record")
    return trees, gone, ext, recs


def load_json(path):
    out = []
    with open(path, "rb") as f:
        for no, line in enumerate(f, 1):
            if not line.strip():
                continue
            try:
                o = json.loads(line)
            except ValueError as exc:
                die(f"{path}:{no}: not JSON ({exc})")
            if isinstance(o, dict) and o.get("type") == "deleted":
                out.append(o)
    return out


def orphan_path(ino):
    """the documented path of a freed inode whose name is lost (man e4dump,
    JSON RECORDS), relative to the root as jpath gives it: The Sleuth Kit's
    virtual directory, which no name the journal holds is shown as"""
    return f"$OrphanFiles/OrphanFile-{ino}".encode()


def jpath(o):
    """the reported path as bytes, relative to the image root"""
    p = o.get("path")
    if not isinstance(p, str):
        return None
    return os.fsencode(p.lstrip("/"))


def in_trees(p, trees):
    return any(p == t.encode() or p.startswith(t.encode() + b"/") for t in trees)


def suspect_blocks(o):
    s = set()
    for r in o.get("suspect") or []:
        s.update(range(int(r["lblk"]), int(r["lblk"]) + int(r["count"])))
    return s


def read_out(outdir, p):
    try:
        with open(os.path.join(os.fsencode(outdir), p), "rb") as f:
            return f.read()
    except OSError:
        return None


def by_path(c, entries):
    m = {}
    for o in entries:
        p = jpath(o)
        c.check(p is not None, f"an entry without a path: {o}")
        if p is None:
            continue
        c.check(p not in m, f"{ce.show(p)} reported twice")
        m[p] = o
    return m


def common_entry(c, e, o, ino, state):
    """type, inode, name state of the entry reported for manifest entry e"""
    name = ce.show(e.path)
    c.check(o.get("file_type") == TYPES[e.type],
            f"{name}: file_type {o.get('file_type')!r}, want {TYPES[e.type]!r}")
    c.check(o.get("inode") == ino, f"{name}: inode {o.get('inode')!r}, want {ino}")
    c.check(o.get("name_state") == state,
            f"{name}: name_state {o.get('name_state')!r}, want {state!r}")


def mode_exact(args):
    man, jsonl, outdir = args[:3]
    under = None
    if args[3:5] and args[3] == "--under":
        under = os.fsencode(args[4].strip("/"))
    elif args[3:]:
        die("usage: exact MANIFEST JSONL OUTDIR [--under PATH]")
    trees, gone, ext, _ = load_manifest(man)
    if under is not None:
        gone = [e for e in gone if e.path.startswith(under + b"/")]
        if not gone:
            die(f"nothing removed below {ce.show(under)}")
    c = Checker()
    got = by_path(c, load_json(jsonl))
    for e in gone:
        name = ce.show(e.path)
        o = got.get(e.path)
        if not c.check(o is not None, f"{name}: deleted {TYPES[e.type]} not reported"):
            continue
        common_entry(c, e, o, ext[e.path][0], "decrypted")
        if e.type == "d":
            c.check(o.get("verdict") in ("exact", "partial"),
                    f"{name}: directory {o.get('verdict')!r}")
            continue
        c.check(o.get("verdict") == "exact",
                f"{name}: verdict {o.get('verdict')!r} {o.get('reasons')}, want 'exact'")
        c.check(o.get("size") == e.size, f"{name}: size {o.get('size')!r}, want {e.size}")
        c.check(not o.get("suspect"), f"{name}: exact with suspect ranges {o.get('suspect')}")
        if e.type == "l":
            t = o.get("target")
            c.check(isinstance(t, str) and os.fsencode(t) == e.target,
                    f"{name}: target {t!r}, want {ce.show(e.target)!r}")
    known = {e.path for e in gone}
    for p, o in got.items():
        if under is not None:
            c.check(p.startswith(under + b"/"),
                    f"{ce.show(p)}: reported, but it is not below {ce.show(under)}")
        if in_trees(p, trees):
            c.check(p in known, f"{ce.show(p)}: reported ({o.get('verdict')}), but the "
                    "scenario did not delete it")
    return c.done(f"exact ({len(gone)} deleted, {len(got)} reported)")


def debugfs_inuse(img, blocks):
    """the subset of blocks that the image's block bitmap marks in use"""
    blocks = sorted(blocks)
    if not blocks:
        return set()
    cmds = "".join(f"testb {b}\n" for b in blocks)
    r = subprocess.run(["debugfs", "-f", "-", img], input=cmds, capture_output=True, text=True)
    used, seen = set(), set()
    for line in r.stdout.splitlines():
        m = re.match(r"Block (\d+) (marked in use|not in use)", line)
        if m:
            seen.add(int(m.group(1)))
            if m.group(2) == "marked in use":
                used.add(int(m.group(1)))
    if seen != set(blocks):
        die(f"debugfs testb answered for {len(seen)} of {len(blocks)} blocks: {r.stderr[-300:]}")
    return used


def mode_reuse(args):
    if len(args) != 4:
        die("usage: reuse MANIFEST JSONL OUTDIR IMAGE")
    man, jsonl, outdir, img = args
    trees, gone, ext, _ = load_manifest(man)
    c = Checker()
    got = by_path(c, load_json(jsonl))
    pblks = {pb + i for e in gone if ext[e.path][1] for (_, pb, n, _) in ext[e.path][1]
             for i in range(n)}
    used = debugfs_inuse(img, pblks)
    cache = {}
    nreused = nclean = 0
    bs = None
    for e in gone:
        name = ce.show(e.path)
        o = got.get(e.path)
        ino, runs = ext[e.path]
        if not c.check(o is not None, f"{name}: deleted {TYPES[e.type]} not reported"):
            continue
        common_entry(c, e, o, ino, "decrypted")
        if e.type not in ("f", "s"):
            if e.type == "l" and o.get("verdict") == "exact":
                t = o.get("target")
                c.check(isinstance(t, str) and os.fsencode(t) == e.target,
                        f"{name}: exact, target {t!r}, want {ce.show(e.target)!r}")
            continue
        reused = {lb + i for (lb, pb, n, unwritten) in runs if not unwritten
                  for i in range(n) if pb + i in used}
        exp = ce.expected_content(e, cache)
        data = read_out(outdir, e.path)
        if reused:
            nreused += 1
            c.check(o.get("verdict") == "partial",
                    f"{name}: logical blocks {sorted(reused)[:8]}... ({len(reused)}) are in use "
                    f"again, verdict {o.get('verdict')!r}, want 'partial'")
            sus = suspect_blocks(o)
            c.check(sus == reused,
                    f"{name}: suspect blocks {len(sus)} {sorted(sus)[:6]}..., want exactly the "
                    f"{len(reused)} reused {sorted(reused)[:6]}... (extra "
                    f"{sorted(sus - reused)[:6]}, missing {sorted(reused - sus)[:6]})")
            if not c.check(data is not None and len(data) == e.size,
                           f"{name}: partial file not written with its size {e.size} "
                           f"({None if data is None else len(data)})"):
                continue
            if bs is None:
                bs = block_size(img)
            bad = [b for b in range((e.size + bs - 1) // bs) if b not in reused
                   and data[b * bs:(b + 1) * bs] != exp[b * bs:(b + 1) * bs]]
            c.check(not bad, f"{name}: blocks {bad[:8]} not reused, but their bytes differ")
        else:
            nclean += 1
            c.check(o.get("verdict") == "exact",
                    f"{name}: no block in use again, verdict {o.get('verdict')!r} "
                    f"{o.get('reasons')}, want 'exact'")
            c.check(data == exp, f"{name}: bytes written differ from the manifest's")
    c.check(nreused > 0, "the scenario reused no block of a deleted file: nothing tested")
    c.check(nclean > 0, "every deleted file had a block reused: no exact case tested")
    known = {e.path for e in gone}
    for p, o in got.items():
        if in_trees(p, trees):
            c.check(p in known, f"{ce.show(p)}: reported, but the scenario did not delete it")
    return c.done(f"reuse ({nreused} files with reused blocks, {nclean} without; "
                  f"{len(used)} of {len(pblks)} freed blocks in use)")


def block_size(img):
    r = subprocess.run(["dumpe2fs", "-h", img], capture_output=True, text=True)
    m = re.search(r"^Block size:\s+(\d+)", r.stdout, re.M)
    if not m:
        die(f"dumpe2fs -h {img}: no block size")
    return int(m.group(1))


def journal_sequences(img):
    """(s_sequence of the journal superblock, sequence numbers of every
    descriptor, commit and revoke block found anywhere in the log)"""
    r = subprocess.run(["dumpe2fs", "-h", img], capture_output=True, text=True)
    m = re.search(r"^Journal sequence:\s+(0x[0-9a-f]+)", r.stdout, re.M)
    if not m:
        die(f"dumpe2fs -h {img}: no journal sequence")
    final = int(m.group(1), 16)
    r = subprocess.run(["debugfs", "-R", "blocks <8>", img], capture_output=True, text=True)
    blocks = [int(x) for x in r.stdout.split()]
    if not blocks:
        die(f"debugfs blocks <8>: nothing ({r.stderr[-200:]})")
    bs = block_size(img)
    seqs = []
    with open(img, "rb") as f:
        for b in blocks[1:]:
            f.seek(b * bs)
            h = f.read(12)
            if len(h) == 12 and int.from_bytes(h[:4], "big") == 0xC03B3998 \
                    and int.from_bytes(h[4:8], "big") in (1, 2, 5):
                seqs.append(int.from_bytes(h[8:12], "big"))
    return final, seqs


def mode_wrapped(args):
    if len(args) != 4:
        die("usage: wrapped MANIFEST JSONL OUTDIR IMAGE")
    man, jsonl, outdir, img = args
    trees, gone, ext, recs = load_manifest(man)
    c = Checker()
    last = max((i for i, r in enumerate(recs) if r.type == "churn"), default=None)
    if last is None:
        die(f"{man}: no churn record")
    written = recs[last].fields[3]
    # Every churned file is one fsync, one transaction, and each `sync`
    # after the churn commits at least one more: the last transaction
    # before the churn (the one that logged the files as they were made)
    # is at most final - 1 - written - syncs.
    syncs = sum(1 for r in recs[last + 1:] if r.type == "sync")
    final, seqs = journal_sequences(img)
    before = final - 1 - written - syncs
    c.check(seqs and min(seqs) > before,
            f"the journal did not wrap: oldest sequence left {min(seqs) if seqs else None}, "
            f"the last transaction before the churn was at most {before}")
    print(f"journal: sequence {final}, {len(seqs)} log blocks with sequences "
          f"{min(seqs) if seqs else '-'}..{max(seqs) if seqs else '-'}; {written} churn "
          f"transactions and {syncs} syncs after the files were made (at most {before})")
    by_ino = {ext[e.path][0]: e for e in gone}
    cache = {}
    got = load_json(jsonl)
    counts = {}
    seen = {}
    named_lost = 0
    for o in got:
        v = o.get("verdict")
        counts[v] = counts.get(v, 0) + 1
        p = jpath(o)
        name = ce.show(p) if p is not None else repr(o.get("path"))
        ino = o.get("inode")
        e = by_ino.get(ino)
        # whatever is reported is an inode the scenario deleted, under its
        # own path or, its name lost, as /$OrphanFiles/OrphanFile-INO
        if not c.check(e is not None, f"{name}: reported ({v}), but inode {ino} is not one "
                       "the scenario deleted"):
            continue
        seen[ino] = seen.get(ino, 0) + 1
        orphan = p == orphan_path(ino)
        c.check(p == e.path or orphan,
                f"{name}: reported for inode {ino}, which was {ce.show(e.path)}")
        c.check(o.get("name_state") == (None if orphan else "decrypted"),
                f"{name}: name_state {o.get('name_state')!r}")
        c.check(o.get("file_type") == TYPES[e.type],
                f"{name}: file_type {o.get('file_type')!r}, want {TYPES[e.type]!r}")
        if v == "exact":
            if e.type in ("f", "s"):
                c.check(isinstance(o.get("output_path"), str) and
                        read_out(outdir, os.fsencode(o["output_path"])) == ce.expected_content(e, cache),
                        f"{name}: exact, but the bytes written are not those of "
                        f"{ce.show(e.path)}")
            elif e.type == "l":
                t = o.get("target")
                c.check(isinstance(t, str) and os.fsencode(t) == e.target,
                        f"{name}: exact, target {t!r}, want {ce.show(e.target)!r}")
        elif v == "not recovered":
            if p is not None and o.get("file_type") != "directory":
                c.check(not os.path.lexists(os.path.join(os.fsencode(outdir), p)),
                        f"{name}: not recovered, but written")
            why = " ".join(o.get("reasons") or [])
            c.check("journal copy of" in why and "inode" in why,
                    f"{name}: not recovered, reasons {o.get('reasons')}, want no journal "
                    "copy of its inode")
            if not orphan:
                named_lost += 1
        else:
            c.check(v == "partial", f"{name}: verdict {v!r}")
    for ino, e in sorted(by_ino.items()):
        c.check(seen.get(ino) == 1, f"{ce.show(e.path)} (inode {ino}): reported "
                f"{seen.get(ino, 0)} times, want once (by its name or as {orphan_path(ino).decode()})")
    c.check(named_lost > 0, "no deleted entry found by its name is reported not recovered: "
            "the scenario left no name without a copy of its inode")
    print(f"reported: {len(got)} {counts}, {named_lost} not recovered by name")
    return c.done(f"wrapped ({len(by_ino)} deleted)")


def mode_nokey(args):
    if len(args) not in (3, 4) or (len(args) == 4 and args[3] != "--locked"):
        die("usage: nokey MANIFEST JSONL OUTDIR [--locked]")
    man, jsonl, outdir = args[:3]
    locked = len(args) == 4
    trees, gone, ext, recs = load_manifest(man)
    names = {}
    for r in recs:
        if r.type == "ino":
            names.setdefault(r.fields[2], r.fields[1])
    if not names:
        die(f"{man}: no 'ino' records (readdir TAG DIR inodes)")
    c = Checker()
    got = by_path(c, load_json(jsonl))
    want = {}
    for e in gone:
        ino = ext[e.path][0]
        if not c.check(ino in names, f"{ce.show(e.path)}: inode {ino} not in the kernel's "
                       "no-key listing (ino records)"):
            continue
        want[names[ino]] = (e, ino)
    for nk, (e, ino) in want.items():
        name = f"{ce.show(nk)} ({ce.show(e.path)})"
        o = got.get(nk)
        if not c.check(o is not None, f"{name}: deleted {TYPES[e.type]} not reported by "
                       "the kernel's no-key path"):
            continue
        common_entry(c, e, o, ino, "no-key")
        if e.type == "d":
            continue
        v = o.get("verdict")
        if locked:
            c.check(v == "locked", f"{name}: verdict {v!r}, want 'locked'")
            out = os.path.join(os.fsencode(outdir), nk)
            c.check(os.path.lexists(out), f"{name}: locked, but not written")
            c.check(os.path.isfile(out + b".e4dump.json"),
                    f"{name}: locked, but no sidecar {ce.show(nk)}.e4dump.json")
        else:
            c.check(v == "not recovered" and "no key" in (o.get("reasons") or []),
                    f"{name}: verdict {v!r} {o.get('reasons')}, want 'not recovered', 'no key'")
    for p, o in got.items():
        if in_trees(p, trees):
            c.check(p in want, f"{ce.show(p)}: reported without the key, but it is not the "
                    "kernel's no-key path of a deleted entry")
    if not locked:
        files = [os.path.join(d, n) for d, _, fs in os.walk(outdir) for n in fs]
        c.check(not files, f"without a key nothing can be recovered, yet {len(files)} files "
                f"were written, e.g. {files[:2]}")
    return c.done(f"nokey ({len(want)} deleted, {len(got)} reported)")


def debugfs_logdump(img):
    """What debugfs logdump -O -a shows of the journal: {(sequence, fs
    block, journal block)} of the block copies and {(sequence, fs block)}
    of the revokes."""
    r = subprocess.run(["debugfs", "-R", "logdump -O -a", img], capture_output=True, text=True,
                       errors="replace")
    theirs, trevoked = set(), set()
    seq = None
    for line in r.stdout.splitlines():
        m = re.match(r"Found expected sequence (\d+), type (\d+)", line)
        if m:
            seq = int(m.group(1))
            continue
        m = re.match(r"\s+FS block (\d+) logged at journal block (\d+)", line)
        if m:
            theirs.add((seq, int(m.group(1)), int(m.group(2))))
        m = re.match(r"\s+Revoke FS block (\d+)", line)
        if m:
            trevoked.add((seq, int(m.group(1))))
    return theirs, trevoked


def mode_journal(args):
    if len(args) != 3:
        die("usage: journal MANIFEST JSONL IMAGE")
    man, jsonl, img = args
    c = Checker()
    mine, revoked = set(), set()
    kinds = {}
    ntx = 0
    with open(jsonl) as f:
        for line in f:
            o = json.loads(line)
            if o.get("type") != "transaction":
                continue
            ntx += 1
            for b in o.get("blocks") or []:
                mine.add((o["sequence"], b["block"], b["journal_block"]))
                kinds[b["block"]] = b.get("kind")
            revoked.update((o["sequence"], x) for x in o.get("revoked") or [])
    theirs, trevoked = debugfs_logdump(img)
    if not theirs:
        # debugfs walks the log from its first block on and stops at the
        # first block that does not continue the sequence: in a log that
        # wrapped that is at once.  Then only e4dump's own list is checked
        # against the inode table blocks below.
        print("note: debugfs logdump -O -a finds no transaction (the log wrapped)")
        c.check(mine, "e4dump journal lists no block copy")
    c.check(theirs <= mine, f"block copies debugfs shows that e4dump journal does not: "
            f"{sorted(theirs - mine)[:6]} ({len(theirs - mine)} of {len(theirs)})")
    c.check(trevoked <= revoked, f"revoked blocks debugfs shows that e4dump journal does not: "
            f"{sorted(trevoked - revoked)[:6]}")
    r = subprocess.run(["dumpe2fs", img], capture_output=True, text=True)
    itab = set()
    for a, b in re.findall(r"Inode table at (\d+)-(\d+)", r.stdout):
        itab.update(range(int(a), int(b) + 1))
    logged = {blk for (_, blk, _) in theirs or mine}
    c.check(logged & itab, "no inode table block in the journal")
    for blk in sorted(logged & itab):
        c.check(kinds.get(blk) == "inode table",
                f"block {blk} (an inode table block, dumpe2fs) listed as {kinds.get(blk)!r}")
    return c.done(f"journal ({ntx} transactions, {len(mine)} copies; debugfs "
                  f"{len(theirs)} copies, {len(trevoked)} revoked)")


def mode_manifest(args):
    """undelete --manifest TSV: one row per regular file recovered, named
    by its path in the image, its SHA-256 that of the content the guest wrote (the generator's, not
    e4dump's), its size and inode those of the manifest entry"""
    if len(args) != 2:
        die("usage: manifest MANIFEST TSV")
    man, tsv = args
    trees, gone, ext, _ = load_manifest(man)
    want = {e.path: e for e in gone if TYPES.get(e.type) == "regular"}
    c = Checker()
    cache = {}
    rows = {}
    with open(tsv, "rb") as f:
        head = f.readline().rstrip(b"\n").split(b"\t")
        c.check(head[:6] == [b"path", b"inode", b"size", b"md5", b"sha1", b"sha256"],
                f"header {head[:6]}")
        c.check(head[12:] == [b"output_path", b"hashes_of"],
                f"header {head[12:]}: no output_path, hashes_of")
        for line in f:
            cols = line.rstrip(b"\n").split(b"\t")
            # the path in the image, as the guest named it
            c.check(cols[0].startswith(b"/"), f"{ce.show(cols[0])}: not a path in the image")
            rows[cols[0][1:]] = cols
    for p, e in want.items():
        r = rows.get(p)
        c.check(r is not None, f"{ce.show(p)}: no manifest row")
        if r is None:
            continue
        data = ce.expected_content(e, cache)
        c.check(r[5].decode() == hashlib.sha256(data).hexdigest(),
                f"{ce.show(p)}: sha256 {r[5].decode()}, want that of the guest's content")
        c.check(int(r[2]) == len(data), f"{ce.show(p)}: size {r[2]}, want {len(data)}")
        c.check(int(r[1]) == int(ext[p][0]), f"{ce.show(p)}: inode {int(r[1])}, want {ext[p][0]}")
    c.check(len(rows) == len(want), f"{len(rows)} rows, want {len(want)} (the files deleted)")
    return c.done(f"manifest ({len(want)} files deleted, {len(rows)} rows)")


def main():
    modes = {"exact": mode_exact, "reuse": mode_reuse, "wrapped": mode_wrapped,
             "nokey": mode_nokey, "journal": mode_journal, "manifest": mode_manifest}
    if len(sys.argv) < 4 or sys.argv[1] not in modes:
        die("usage: undelete_check.py exact|reuse|wrapped|nokey|journal MANIFEST ... "
            "(see the docstring)")
    return modes[sys.argv[1]](sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
