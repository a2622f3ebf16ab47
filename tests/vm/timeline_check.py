#!/usr/bin/env python3
"""Check `e4dump timeline` on deletions a real kernel made (issue 28, item 3).

Usage:
  timeline_check.py json  MANIFEST JSONL IMAGE [--nokey]
  timeline_check.py body  MANIFEST BODY MACTIME_CSV PREFIX IMAGE
  timeline_check.py stat  MANIFEST IMAGE E4DUMP
  timeline_check.py events MANIFEST JSONL IMAGE
  timeline_check.py agree MANIFEST UNDELETE_JSONL UNDELETE_TSV TIMELINE_JSONL IMAGE

The truth: the guest's manifest (`removed` records name the deleted
entries, `extents` records their inode numbers, `ino` records the kernel's
no-key names), the jbd2 journal decoded here from the image's bytes (the
journal inode's blocks from debugfs, block size from dumpe2fs), and
debugfs/istat on the final image; never e4dump.

json   every removed entry has exactly one record with "deleted": true, by
       its decrypted path (--nokey: the kernel's no-key path, name_state
       "no-key"), or as /$OrphanFiles/OrphanFile-INO when the journal lost its name; with its
       inode, file_type, "allocated" as debugfs testi says, and "dtime" the i_dtime of the
       newest copy of that inode the journal holds freed (no links, dtime
       set) -- or, when the journal holds none, the freed inode's in the
       image (debugfs stat); a symlink's "target" the manifest's (with the
       keys).  No record marked deleted for anything else of the trees.
body   every removed entry has one body-file line, PREFIX + its path
       (+ " -> TARGET" for a symlink) + " (deleted)" (" (deleted-realloc)"
       when debugfs testi says its inode is in use again, as fls marks it),
       with its inode number and 11 fields, and mactime's CSV (MACTIME_CSV)
       names it.
stat   `e4dump stat IMAGE <INO>` of each removed inode that debugfs says is
       not in use: "allocation: not allocated" and the dtime istat shows.

events `timeline --journal-events --json`: one "event" record per commit
       block of the journal (wherever in it), with its sequence and its
       commit time (h_commit_sec, h_commit_nsec) to the nanosecond, and
       nothing else; each deleted inode lies in the inode ranges of the
       event of the transaction that holds it freed (the dtime's).

agree  one record of a deleted entry, whichever command prints it: every
       removed entry's record in `undelete --json` has "allocated" as
       debugfs testi says and the "dtime" of the json mode above (the
       journal's newest freed copy, else the freed inode in the image);
       every deleted entry undelete reports (but those still in use) is in
       `timeline --json`, marked deleted, with the same path and inode and
       the same allocated, dtime, orphan_next, file_type, size, mode,
       times and target; and each row of undelete's --manifest (UNDELETE_TSV)
       has the path of the record of the file it wrote.

Prints "FAIL ..." per problem and a summary; exit 1 on failure.
"""

import json
import os
import re
import subprocess
import sys
from datetime import datetime, timezone

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import check_extract as ce  # noqa: E402
import undelete_check as uc  # noqa: E402

FT = {"f": "regular", "s": "regular", "h": "regular", "d": "directory", "l": "symlink"}
JBD2_MAGIC = 0xC03B3998


def iso(sec, nsec=0):
    return datetime.fromtimestamp(sec, timezone.utc).strftime("%Y-%m-%dT%H:%M:%S") + \
        f".{nsec:09d}Z"


def be32(b, o):
    return int.from_bytes(b[o:o + 4], "big")


def le(b, o, n):
    return int.from_bytes(b[o:o + n], "little")


def geometry(img):
    r = subprocess.run(["dumpe2fs", "-h", img], capture_output=True, text=True)
    g = {}
    for key in ("Block size", "Inode size", "Inodes per group"):
        m = re.search(rf"^{key}:\s+(\d+)", r.stdout, re.M)
        if not m:
            uc.die(f"dumpe2fs -h {img}: no {key}")
        g[key] = int(m.group(1))
    return g


def itable_block(img, ino, geo):
    """the filesystem block of inode ino and its offset there (debugfs imap)"""
    r = subprocess.run(["debugfs", "-R", f"imap <{ino}>", img], capture_output=True, text=True)
    m = re.search(r"located at block (\d+), offset (0x[0-9a-f]+)", r.stdout)
    if not m:
        uc.die(f"debugfs imap <{ino}>: {r.stdout[-200:]} {r.stderr[-200:]}")
    return int(m.group(1)), int(m.group(2), 16)


def journal_copies(img, bs):
    """{fs block: [(sequence, bytes)]}: every copy a descriptor block of the
    log describes, wherever in the journal it lies (a log that wrapped
    included): the descriptors' tags read as jbd2 writes them."""
    r = subprocess.run(["debugfs", "-R", "blocks <8>", img], capture_output=True, text=True)
    blocks = [int(x) for x in r.stdout.split()]
    if not blocks:
        uc.die(f"debugfs blocks <8>: nothing ({r.stderr[-200:]})")
    with open(img, "rb") as f:
        def jblock(i):
            f.seek(blocks[i] * bs)
            return f.read(bs)
        sb = jblock(0)
        if be32(sb, 0) != JBD2_MAGIC:
            uc.die("no jbd2 superblock in the journal's first block")
        first, maxlen = be32(sb, 0x14), be32(sb, 0x10)
        incompat = be32(sb, 0x28)
        csum3, csum2, b64 = incompat & 0x10, incompat & 0x8, incompat & 0x2
        if csum3:
            tag = 16
        else:
            tag = 8 + (4 if b64 else 0)
        tail = 4 if (csum2 or csum3) else 0
        out = {}
        for i in range(first, min(maxlen, len(blocks))):
            d = jblock(i)
            if be32(d, 0) != JBD2_MAGIC or be32(d, 4) != 1:
                continue
            seq = be32(d, 8)
            off, k = 12, 0
            while off + tag <= bs - tail:
                nr = be32(d, off)
                if csum3:
                    flags = be32(d, off + 4)
                    if b64:
                        nr |= be32(d, off + 8) << 32
                else:
                    flags = int.from_bytes(d[off + 6:off + 8], "big")
                    if b64:
                        nr |= be32(d, off + 8) << 32
                off += tag
                if not flags & 2:       # not SAME_UUID: a UUID follows
                    off += 16
                k += 1
                j = first + (i - first + k) % (maxlen - first)
                if j < len(blocks) and not flags & 4:
                    data = bytearray(jblock(j))
                    if flags & 1:       # escaped
                        data[0:4] = JBD2_MAGIC.to_bytes(4, "big")
                    out.setdefault(nr, []).append((seq, bytes(data)))
                if flags & 8:           # last tag
                    break
    return out


def journal_commits(img, bs):
    """{sequence: (sec, nsec)} of every commit block in the journal"""
    r = subprocess.run(["debugfs", "-R", "blocks <8>", img], capture_output=True, text=True)
    blocks = [int(x) for x in r.stdout.split()]
    out = {}
    with open(img, "rb") as f:
        for b in blocks[1:]:
            f.seek(b * bs)
            h = f.read(0x3C)
            if len(h) == 0x3C and be32(h, 0) == JBD2_MAGIC and be32(h, 4) == 2:
                out[be32(h, 8)] = (int.from_bytes(h[0x30:0x38], "big"), be32(h, 0x38))
    return out


def journal_dtime(copies, blk, off):
    """(dtime, generation) of the newest copy of the inode at blk+off held
    freed (no links, dtime set), or None"""
    best = None
    for seq, data in copies.get(blk, []):
        raw = data[off:off + 0x68]
        links, dtime, gen = le(raw, 0x1A, 2), le(raw, 0x14, 4), le(raw, 0x64, 4)
        if links == 0 and dtime and (best is None or seq > best[0]):
            best = (seq, dtime, gen)
    return best


def debugfs_stat(img, ino):
    r = subprocess.run(["debugfs", "-R", f"stat <{ino}>", img], capture_output=True, text=True)
    d = {}
    m = re.search(r"Links: (\d+)", r.stdout)
    d["links"] = int(m.group(1)) if m else None
    m = re.search(r"^ *dtime: (0x[0-9a-f]+)", r.stdout, re.M)
    d["dtime"] = int(m.group(1), 16) if m else 0
    m = re.search(r"Generation: (\d+)", r.stdout)
    d["gen"] = int(m.group(1)) if m else None
    return d


def in_use(img, ino):
    """debugfs testi: the inode bitmap's word"""
    r = subprocess.run(["debugfs", "-R", f"testi <{ino}>", img], capture_output=True, text=True)
    if "marked in use" in r.stdout:
        return True
    if "not in use" in r.stdout:
        return False
    uc.die(f"debugfs testi <{ino}>: {r.stdout[-200:]} {r.stderr[-200:]}")


def load_records(path):
    out = []
    with open(path, "rb") as f:
        for no, line in enumerate(f, 1):
            if line.strip():
                try:
                    out.append(json.loads(line))
                except ValueError as exc:
                    uc.die(f"{path}:{no}: not JSON ({exc})")
    return out


def expected_dtime(img, ino, geo, copies):
    blk, off = itable_block(img, ino, geo)
    j = journal_dtime(copies, blk, off)
    live = debugfs_stat(img, ino)
    if j is not None:
        return j[1], f"journal sequence {j[0]}"
    if live["links"] == 0 and live["dtime"]:
        return live["dtime"], "the freed inode in the image"
    return None, "neither the journal nor the image holds it freed"


def mode_json(args):
    if len(args) not in (3, 4) or (len(args) == 4 and args[3] != "--nokey"):
        uc.die("usage: json MANIFEST JSONL IMAGE [--nokey]")
    man, jsonl, img = args[:3]
    nokey = len(args) == 4
    trees, gone, ext, recs = uc.load_manifest(man)
    names = {}
    for r in recs:
        if r.type == "ino":
            names.setdefault(r.fields[2], r.fields[1])
    if nokey and not names:
        uc.die(f"{man}: no 'ino' records")
    geo = geometry(img)
    copies = journal_copies(img, geo["Block size"])
    c = uc.Checker()
    got = [o for o in load_records(jsonl) if o.get("type") == "entry"]
    deleted = {}
    for o in got:
        if o.get("deleted") is True:
            deleted.setdefault(o.get("inode"), []).append(o)
    c.check(got and all(isinstance(o.get("deleted"), bool) for o in got),
            "every entry record says whether it was deleted")
    c.check(any(o.get("type") == "summary" for o in load_records(jsonl)), "no summary record")
    from_journal = 0
    for e in gone:
        ino = ext[e.path][0]
        name = ce.show(e.path)
        rs = deleted.get(ino, [])
        if not c.check(len(rs) == 1, f"{name} (inode {ino}): {len(rs)} records marked "
                       "deleted, want 1"):
            continue
        o = rs[0]
        p = uc.jpath(o)
        want = names.get(ino) if nokey else e.path
        c.check(p == want or p == uc.orphan_path(ino),
                f"{name}: path {o.get('path')!r}, want {ce.show(want) if want else None!r} "
                f"or /{uc.orphan_path(ino).decode()}")
        if p != uc.orphan_path(ino):
            c.check(o.get("name_state") == ("no-key" if nokey else "decrypted"),
                    f"{name}: name_state {o.get('name_state')!r}")
        c.check(o.get("file_type") == FT[e.type],
                f"{name}: file_type {o.get('file_type')!r}, want {FT[e.type]!r}")
        c.check(o.get("allocated") is in_use(img, ino),
                f"{name}: allocated {o.get('allocated')!r}, debugfs testi: {in_use(img, ino)}")
        dt, why = expected_dtime(img, ino, geo, copies)
        from_journal += why.startswith("journal")
        c.check(dt is not None and o.get("dtime") == iso(dt),
                f"{name}: dtime {o.get('dtime')!r}, want {iso(dt) if dt else None} ({why})")
        if e.type == "l" and not nokey and o.get("inode_sequence") is not None:
            t = o.get("target")
            c.check(isinstance(t, str) and os.fsencode(t) == e.target,
                    f"{name}: target {t!r}, want {ce.show(e.target)!r}")
    c.check(from_journal > 0, "no deleted inode has a freed copy in the journal: the "
            "dtime was never checked against the journal")
    inos = {ext[e.path][0] for e in gone}
    for ino, rs in deleted.items():
        for o in rs:
            p = uc.jpath(o) or b""
            c.check(ino in inos or not uc.in_trees(p, trees),
                    f"{o.get('path')!r} (inode {ino}): marked deleted, but the scenario did "
                    "not delete it")
    return c.done(f"json ({len(gone)} deleted, {sum(map(len, deleted.values()))} marked, "
                  f"{from_journal} dtimes from the journal)")


def mode_body(args):
    if len(args) != 5:
        uc.die("usage: body MANIFEST BODY MACTIME_CSV PREFIX IMAGE")
    man, body, mac, prefix, img = args
    trees, gone, ext, recs = uc.load_manifest(man)
    prefix = os.fsencode(prefix.rstrip("/"))
    c = uc.Checker()
    lines = {}
    with open(body, "rb") as f:
        for no, line in enumerate(f, 1):
            fields = line.rstrip(b"\n").split(b"|")
            if not c.check(len(fields) == 11, f"{body}:{no}: {len(fields)} fields"):
                continue
            if fields[1].endswith((b" (deleted)", b" (deleted-realloc)")):
                lines.setdefault(int(fields[2]), []).append(fields)
    with open(mac, "rb") as f:
        mac_names = {m.group(1) for m in re.finditer(rb',"(.*)"\r?\n', f.read())}
    links = arrows = 0
    for e in gone:
        ino = ext[e.path][0]
        name = ce.show(e.path)
        ls = lines.get(ino, [])
        if not c.check(len(ls) == 1, f"{name} (inode {ino}): {len(ls)} lines marked deleted"):
            continue
        got = ls[0][1]
        shown = e.path.replace(b"|", b"\\x7c")
        want = [prefix + b"/" + shown, prefix + b"/" + uc.orphan_path(ino)]
        if e.type == "l":
            # the target where the journal kept the inode, else none
            arrow = [w + b" -> " + e.target.replace(b"|", b"\\x7c") for w in want]
            links += 1
            arrows += any(got.startswith(w + b" (deleted") for w in arrow)
            want = arrow + want
        # fls's mark: "-realloc" when the inode is in use again
        want = [w + (b" (deleted-realloc)" if in_use(img, ino) else b" (deleted)")
                for w in want]
        c.check(got in want, f"{name}: body name {ce.show(got)!r}, want {ce.show(want[0])!r}")
        c.check(ls[0][3][:1] == {"d": b"d", "l": b"l"}.get(e.type, b"r") or
                ls[0][3][:1] == b"-", f"{name}: mode {ls[0][3]!r}")
        c.check(got in mac_names, f"{name}: {ce.show(got)!r} not in mactime's output")
    c.check(links == 0 or arrows > 0, f"none of the {links} deleted symlinks has its target")
    return c.done(f"body ({len(gone)} deleted, {sum(map(len, lines.values()))} lines)")


def mode_stat(args):
    if len(args) != 3:
        uc.die("usage: stat MANIFEST IMAGE E4DUMP")
    man, img, e4dump = args
    trees, gone, ext, recs = uc.load_manifest(man)
    c = uc.Checker()
    n = 0
    for e in gone:
        ino = ext[e.path][0]
        r = subprocess.run(["debugfs", "-R", f"testi <{ino}>", img], capture_output=True,
                           text=True)
        if "not in use" not in r.stdout:
            continue
        ist = subprocess.run(["istat", img, str(ino)], capture_output=True, text=True).stdout
        m = re.search(r"^Deleted:\s+(\S+ \S+) \(UTC\)$", ist, re.M)
        st = subprocess.run([e4dump, "stat", img, f"<{ino}>"], capture_output=True,
                            text=True).stdout
        name = f"{ce.show(e.path)} (inode {ino})"
        c.check("Not Allocated" in ist, f"{name}: istat does not say Not Allocated")
        c.check(re.search(r"^allocation: not allocated$", st, re.M),
                f"{name}: e4dump stat does not say 'allocation: not allocated'")
        d = re.search(r"^dtime: (\S+)$", st, re.M)
        want = m.group(1).replace(" ", "T") + ".000000000Z" if m else None
        c.check(m and d and d.group(1) == want,
                f"{name}: stat dtime {d.group(1) if d else None}, istat {want}")
        n += 1
    c.check(n > 0, "no deleted inode is free in the image")
    return c.done(f"stat ({n} freed inodes)")


def mode_events(args):
    if len(args) != 3:
        uc.die("usage: events MANIFEST JSONL IMAGE")
    man, jsonl, img = args
    trees, gone, ext, recs = uc.load_manifest(man)
    geo = geometry(img)
    commits = journal_commits(img, geo["Block size"])
    copies = journal_copies(img, geo["Block size"])
    c = uc.Checker()
    ev = [o for o in load_records(jsonl) if o.get("type") == "event"]
    got = {}
    for o in ev:
        c.check(o.get("sequence") not in got, f"transaction {o.get('sequence')} twice")
        got[o.get("sequence")] = o
    c.check(commits, "no commit block in the journal")
    c.check(set(got) == set(commits), f"events for transactions {sorted(got)}, the "
            f"journal's commit blocks are {sorted(commits)}")
    for seq, (sec, nsec) in commits.items():
        o = got.get(seq)
        if o is None:
            continue
        want = iso(sec, nsec)
        c.check(o.get("time") == want, f"transaction {seq}: time {o.get('time')}, commit "
                f"block {want}")
    n = 0
    for e in gone:
        ino = ext[e.path][0]
        blk, off = itable_block(img, ino, geo)
        j = journal_dtime(copies, blk, off)
        if j is None:
            continue
        o = got.get(j[0])
        n += 1
        c.check(o is not None and any(a <= ino <= b for a, b in o.get("inode_ranges", [])),
                f"{ce.show(e.path)} (inode {ino}): freed in transaction {j[0]}, whose event "
                f"does not name it ({o.get('inode_ranges') if o else None})")
    c.check(n > 0, "no deleted inode is held freed by the journal")
    return c.done(f"events ({len(commits)} commit blocks, {len(ev)} events, {n} deletions)")


def mode_agree(args):
    if len(args) != 5:
        uc.die("usage: agree MANIFEST UNDELETE_JSONL UNDELETE_TSV TIMELINE_JSONL IMAGE")
    man, ujson, utsv, tjson, img = args
    trees, gone, ext, recs = uc.load_manifest(man)
    geo = geometry(img)
    copies = journal_copies(img, geo["Block size"])
    c = uc.Checker()
    und = [o for o in load_records(ujson) if o.get("type") == "deleted" and
           o.get("verdict") != "still in use"]
    tl = {}
    for o in load_records(tjson):
        if o.get("type") == "entry" and o.get("deleted") is True:
            tl.setdefault((o.get("inode"), o.get("path")), []).append(o)
    by_ino = {}
    for o in und:
        by_ino.setdefault(o.get("inode"), []).append(o)
    for e in gone:
        ino = ext[e.path][0]
        name = ce.show(e.path)
        for o in by_ino.get(ino, []):
            c.check(o.get("allocated") is in_use(img, ino),
                    f"{name}: undelete's allocated {o.get('allocated')!r}, debugfs testi: "
                    f"{in_use(img, ino)}")
            dt, why = expected_dtime(img, ino, geo, copies)
            c.check(dt is not None and o.get("dtime") == iso(dt),
                    f"{name}: undelete's dtime {o.get('dtime')!r}, want "
                    f"{iso(dt) if dt else None} ({why})")
    keys = ("path", "name", "allocated", "dtime", "orphan_next", "file_type", "size", "mode",
            "uid", "gid", "links", "atime", "mtime", "ctime", "crtime", "target",
            "name_state", "raw_name_hex")
    for o in und:
        t = tl.get((o.get("inode"), o.get("path")), [])
        if not c.check(len(t) == 1, f"{o.get('path')!r} (inode {o.get('inode')}): "
                       f"{len(t)} timeline records marked deleted, want 1"):
            continue
        for k in keys:
            c.check(o.get(k) == t[0].get(k),
                    f"{o.get('path')!r}: {k} {o.get(k)!r} in undelete, {t[0].get(k)!r} "
                    "in timeline")
    rows = 0
    by_out = {(o.get("inode"), o.get("output_path")): o for o in und}
    with open(utsv, "rb") as f:
        head = f.readline().rstrip(b"\n").split(b"\t")
        for line in f:
            row = dict(zip(head, line.rstrip(b"\n").split(b"\t")))
            o = by_out.get((int(row[b"inode"]), row[b"output_path"].decode("utf-8", "replace")))
            rows += 1
            c.check(o is not None and os.fsencode(o.get("path")) == row[b"path"],
                    f"manifest row {row[b'path']!r} (inode {row[b'inode']}): the record of "
                    f"what it wrote has path {o.get('path') if o else None!r}")
    c.check(rows > 0, f"{utsv}: no row")
    return c.done(f"agree ({len(und)} deleted entries, {rows} manifest rows)")


def main():
    if len(sys.argv) < 2:
        uc.die(__doc__)
    modes = {"json": mode_json, "body": mode_body, "stat": mode_stat, "events": mode_events,
             "agree": mode_agree}
    if sys.argv[1] not in modes:
        uc.die(f"unknown mode {sys.argv[1]}")
    sys.exit(modes[sys.argv[1]](sys.argv[2:]))


if __name__ == "__main__":
    main()
