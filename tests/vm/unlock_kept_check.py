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
  unlock_kept_check.py export EXPORT IMAGE
      what the export saved is the image's, read with tests/lib/ext4img.py
      (never e4dump): the header's UUID and block size; for every inode it
      describes (directory files and sidecars) the stored context bytes,
      i_mode, i_size, uid, gid, links; a file's data units are exactly its
      written extents below i_size and each such block of the kept file is
      the block on disk; a symlink's stored bytes; a locked directory's
      entries are its on-disk entries (stored name, inode, file type, the
      hash pair of a casefolded one; the file type, EXT4_FT_*, as the
      record vocabulary's word).  Prints the counts.
  unlock_kept_check.py links MANIFEST UNLOCKED_JSONL [DIRECT_JSONL]
      every symlink of an encrypted tree of the guest's manifest (not
      removed) has a record in unlock-kept's --json output ("extracted",
      status complete) whose size is the SIZE the guest's lstat gave with
      the key (Linux: fscrypt_symlink_getattr, the decrypted target's
      length) and whose target is the manifest's; with DIRECT_JSONL (a
      direct extract --json with the keys), the same as that record's.
      Prints the count.
"""
import hashlib, json, os, stat, sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import ext4img  # noqa: E402
import check_extract  # noqa: E402


FT_WORDS = {1: "regular", 2: "directory", 3: "chardev", 4: "blockdev", 5: "fifo",
            6: "socket", 7: "symlink"}


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
            out = r[col["output_path"]]
            assert r[0].startswith("/") and out not in kept, r[:1] + [out]
            kept[out] = r
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


def inode_facts(im, later, what):
    ino = later["inode"]
    i = im.inode(ino)
    assert later["context_hex"] == im.context(ino).hex(), (what, ino)
    for k, v in (("i_mode", i.mode), ("i_size", i.size), ("uid", i.uid | (i.uid_high or 0) << 16),
                 ("gid", i.gid | (i.gid_high or 0) << 16), ("links", i.links_count)):
        assert later[k] == v, (what, ino, k, later[k], v)
    return ino, i


def export(root, image):
    im = ext4img.Image(image)
    h = json.load(open(os.path.join(root, "%e4dump-export.json")))
    assert h["fs_uuid"] == im.superblock()["uuid"].hex() and h["block_size"] == im.bs, h
    nd = nf = nl = 0
    for d, dirs, files in os.walk(root):
        if "%e4dump-dir.json" not in files:
            continue
        j = json.load(open(os.path.join(d, "%e4dump-dir.json")))
        if j["names_locked"]:
            ino, _ = inode_facts(im, j["decrypt_later"], d)
            disk = {(e.name.hex(), e.ino): e for e in im.dir_entries(ino) if e.name not in (b".", b"..")}
            for e in j["entries"]:
                x = disk[(e["raw_name_hex"], e["inode"])]
                # the dirent's EXT4_FT_* (fs/ext4/ext4.h) in the record vocabulary
                assert e["file_type"] == FT_WORDS.get(x.ftype, "unknown"), (d, e, x.ftype)
                assert (e.get("hash"), e.get("minor_hash")) == (x.hash or (None, None)), (d, e, x.hash)
            nd += 1
        for e in j["entries"]:
            if "sidecar" not in e:
                continue
            s = json.load(open(os.path.join(d, e["sidecar"])))
            later = s["decrypt_later"]
            ino, i = inode_facts(im, later, e["sidecar"])
            if i.is_symlink():
                assert s["symlink_stored_hex"] == im.read_file(ino).hex(), (d, e)
                nl += 1
                continue
            n = -(-i.size // im.bs)
            want = {}
            for x in im.block_map(ino):
                for k in range(x.len):
                    if x.lblk + k < n and not x.unwritten:
                        want[x.lblk + k] = x.pblk + k
            got = [b for first, count in later["data_units"] for b in range(first, first + count)]
            assert sorted(got) == sorted(want) and len(got) == len(set(got)), (d, e)
            data = open(os.path.join(d, e["name"]), "rb").read()
            assert len(data) == n * im.bs, (d, e)
            for b, p in want.items():
                assert data[b * im.bs:(b + 1) * im.bs] == im.read_block(p), (d, e, b)
            for b in set(range(n)) - set(want):
                assert data[b * im.bs:(b + 1) * im.bs] == bytes(im.bs), (d, e, b)
            nf += 1
    assert nd and nf, (nd, nf, nl)
    print(nd, "directories", nf, "files", nl, "symlinks")


def links(manifest, unlocked, direct=None):
    recs = []
    trees, entries = check_extract.parse_manifest(manifest, recs)
    removed = {r.fields[0] for r in recs if r.type == "removed"}

    def records(path):
        out = {}
        for line in open(path, encoding="utf-8"):
            o = json.loads(line)
            if o.get("type") == "extracted":
                out[o["path"]] = o
        return out
    got = records(unlocked)
    ref = records(direct) if direct else None
    n = 0
    for e in entries:
        if e.type != "l" or trees[e.tree][0] not in ("enc", "enc2") or e.path in removed:
            continue
        p = "/" + e.path.decode()
        r = got.get(p)
        assert r is not None, "%s: no record in %s" % (p, unlocked)
        assert r["file_type"] == "symlink" and r["status"] == "complete", (p, r)
        assert r["size"] == e.size == len(e.target), (p, "size", r["size"], "the kernel's", e.size)
        assert r["target"] == e.target.decode(), (p, r["target"], e.target)
        if ref is not None:
            d = ref[p]
            assert (r["size"], r["target"]) == (d["size"], d["target"]), (p, r, d)
        n += 1
    assert n, "no symlink of an encrypted tree in " + manifest
    print(n)


if __name__ == "__main__":
    if sys.argv[1] == "links":
        links(*sys.argv[2:5])
        sys.exit(0)
    if sys.argv[1] == "export":
        export(sys.argv[2], sys.argv[3])
        sys.exit(0)
    if sys.argv[1] == "same":
        sys.exit(0 if same(sys.argv[2], sys.argv[3]) else 1)
    hashes(*sys.argv[2:5])
