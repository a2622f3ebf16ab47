#!/usr/bin/env python3
"""Check extract --dfxml output against the DFXML schema's rules and
against independent facts.

usage: dfxml_check.py DFXML [--schema 1.1.1|2.0] [--tsv MANIFEST.tsv]
           [--out DIR] [--guest MANIFEST [--apply-removed] [--tree T]...]
           [--image IMG] [--all]

1. The schema's rules, written here from the DFXML schema (dfxml_schema,
   dfxml.xsd, version 1.1.1, and 2.0.0-beta.0 where it differs; by default
   both): the root `dfxml` with its required `version` attribute, each
   element's children in the schema's order (xs:sequence, xs:all) with
   their counts, where other namespaces may come in (xs:any ##other), the
   attributes each element allows (xs:anyAttribute ##other), and the types
   of text and attributes (dateTime, nonNegativeInteger, positiveInteger,
   bool01, name_type, hashDigestType).  Schema version 1.1.1 is what
   e4dump follows (version="1.1.1").
2. What fiwalk gives and e4dump promises: creator/program, source with
   image_filename, one volume, fileobjects in it; every filename a path in
   the image ("/..."), every byte_run's img_offset its fs_offset plus the
   volume's offset, block-aligned.
3. --out DIR: every fileobject's e4:output_path is in DIR with the type
   name_type says, every sha256 hashdigest equals sha256sum's of that file,
   filesize its size (regular, not kept locked), link_target what
   readlink gives; with --all every file, directory and symlink in DIR
   (sidecars and the export files of --keep-locked aside) has a
   fileobject.
4. --tsv: every row of extract --manifest is the regular fileobject with
   its filename (path in the image), and the same inode, size, hashes,
   times, unreadable blocks, output path and what the hashes are of
   ("-partial" added for e4:partial_hashdigest)
   (hashes_of "ciphertext" exactly for a file whose e4:encryption state
   is locked, its hashdigests all e4:of="ciphertext"; else "plaintext",
   no e4:of); every regular fileobject is a row.
5. --guest MANIFEST (what the kernel wrote, tests/vm/check_extract.py):
   every entry of the selected trees (less those removed, with
   --apply-removed) is a fileobject of that path in the image, with its
   type, permission bits, mtime, size, symlink target, the SHA-256 of the
   guest generator's content, and a hard link's inode that of its first
   name; every fileobject is such an entry, a directory above one, or
   lost+found.
   An entry of an encrypted tree has the tree's policy (the manifest's
   tree line: descriptor or identifier, modes, flags).
6. --image IMG: each regular file's byte runs map its blocks as debugfs's
   stat does; each e4:encryption is the context debugfs shows (ea_get
   c: version, modes, flags by their linux/fscrypt.h names, descriptor or
   identifier, nonce), and a fileobject without one has no context.
7. --deleted MANIFEST [--nokey] (undelete --dfxml on a kernel-written
   deletion scenario; with --image IMG): the volume is not allocated_only; every
   fileobject is unallocated (unalloc 1, no alloc 1) and names an inode
   the scenario deleted (or one outside its trees); each entry the
   manifest's `removed` records name has exactly one fileobject of its
   inode, by its path in the image (--nokey: the kernel's no-key path, as
   its readdir gave it; /$OrphanFiles/OrphanFile-INO, orphan 1, as TSK names it, when the journal lost its name),
   with its type and name state; where the inode is known its dtime is
   the i_dtime of the newest copy of that inode the journal holds freed
   (decoded here from the image's bytes, tests/vm/timeline_check.py), its
   byte runs map the blocks the kernel's FIEMAP gave before the removal,
   an entry of an encrypted tree has the tree's policy, and a regular file
   recovered complete has the SHA-256 of what the kernel was given.  With
   --all only DIR's files and symlinks need a fileobject (its directories
   may be the live ones above what was recovered); --tsv: the rows are the
   regular fileobjects written (with an output path).
--unalloc: the fileobjects are deleted entries (undelete --dfxml): each
   unallocated; there may be none, and a name deleted twice is twice.
--mutants: instead, that the rules of 1. reject each of a few changes of
   DFXML (a valid document): the old root attribute, times or e4dump's
   elements out of order, a required element or attribute missing, values
   of the wrong type, an element or attribute the schema does not have.
Prints the failures and "N checked, M failed"; exit 1 when any failed."""
import argparse
import calendar
import hashlib
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

D = "http://www.forensicswiki.org/wiki/Category:Digital_Forensics_XML"
E4 = "https://e4dump.invalid/dfxml/1"
DC = "http://purl.org/dc/elements/1.1/"
OTHER = "##other"   # xs:any namespace="##other": any namespace but DFXML's
ANY = "##any"       # any element at all
ALL = "all"         # xs:all: each child at most once, any order

# Content models: (child, min, max) in order; max None: unbounded.  A list
# per schema version where the versions differ.
U = None


def fileobject_model(v):
    m = [] if v == "2.0" else [(OTHER, 0, U)]
    m += [("parent_object", 0, 1), ("filename", 0, U), ("error", 0, 1),
          ("partition", 0, 1), ("id", 0, 1), ("name_type", 0, 1), ("filesize", 0, 1),
          ("unalloc", 0, 1), ("alloc", 0, 1)]
    if v == "2.0":
        m += [("alloc_inode", 0, 1), ("alloc_name", 0, 1)]
    m += [("used", 0, 1), ("unused", 0, 1), ("orphan", 0, 1), ("compressed", 0, 1),
          ("inode", 0, 1), ("meta_type", 0, 1), ("mode", 0, 1), ("nlink", 0, 1),
          ("uid", 0, 1), ("gid", 0, 1), ("mtime", 0, 1), ("ctime", 0, 1),
          ("atime", 0, 1), ("crtime", 0, 1), ("seq", 0, 1), ("dtime", 0, 1),
          ("bkup_time", 0, 1), ("link_target", 0, 1), ("libmagic", 0, 1)]
    if v != "2.0":
        m += [(OTHER, 0, U)]
    return m + [("byte_runs", 0, 1), ("hashdigest", 0, U), (OTHER, 0, U)]


def volume_model(v):
    m = [] if v == "2.0" else [(OTHER, 0, U)]
    m += [("byte_runs", 0, U), ("partition_offset", 0, 1), ("sector_size", 0, 1),
          ("block_size", 0, 1), ("ftype", 0, 1), ("ftype_str", 0, 1),
          ("block_count", 0, 1), ("first_block", 0, 1), ("last_block", 0, 1),
          ("allocated_only", 0, 1)]
    m += [("diskimageobject", 0, U), ("volume", 0, 1)] if v == "2.0" else [(OTHER, 0, U)]
    return m + [("fileobject", 0, U), ("error", 0, 1), (OTHER, 0, U)]


def dfxml_model(v):
    m = [(OTHER, 0, U), ("metadata", 1, 1), ("creator", 0, 1), ("source", 0, 1)]
    m += ([("diskimageobject", 0, U), ("partitionsystemobject", 0, U),
           ("partitionobject", 0, U)] if v == "2.0" else [(OTHER, 0, U)])
    return m + [("volume", 0, U), ("fileobject", 0, U), ("rusage", 0, 1), (OTHER, 0, U)]


def models(v):
    return {
        "dfxml": dfxml_model(v),
        "metadata": [(ANY, 0, U)],
        "creator": [("program", 0, 1), ("version", 0, 1), ("build_environment", 0, 1),
                    ("execution_environment", 0, 1), ("library", 0, U)],
        "build_environment": [("compiler", 0, 1), ("compilation_date", 0, 1),
                              ("library", 0, U)],
        "execution_environment": (ALL, ["os_sysname", "os_release", "os_version", "host",
                                        "arch", "command_line", "uid", "username",
                                        "start_time"]),
        "source": [("image_filename", 0, U)],
        "volume": volume_model(v),
        "fileobject": fileobject_model(v),
        "byte_runs": [("byte_run", 0, U)],
        "byte_run": [("hashdigest", 0, U)],
        "library": [],
        "parent_object": (ALL, ["inode"]),
    }


# Text types of the simple elements; every other DFXML element used is
# complex (children only) or `version` (any content).
TEXT = dict.fromkeys(
    ["program", "compiler", "os_sysname", "os_release", "os_version", "host", "arch",
     "command_line", "uid", "username", "image_filename", "ftype_str", "filename",
     "error", "id", "gid", "link_target", "libmagic", "hashdigest"], "string")
TEXT.update(dict.fromkeys(["partition_offset", "first_block", "inode", "meta_type", "mode",
                           "nlink", "seq"], "nonNegativeInteger"))
TEXT.update(dict.fromkeys(["block_size", "sector_size", "ftype", "last_block",
                           "partition"], "positiveInteger"))
TEXT.update(dict.fromkeys(["alloc", "alloc_inode", "alloc_name", "unalloc", "used",
                           "unused", "orphan", "compressed", "allocated_only"], "bool01"))
TEXT.update(dict.fromkeys(["mtime", "ctime", "atime", "crtime", "dtime", "bkup_time"],
                          "dftime"))
TEXT.update({"filesize": "integer", "block_count": "positiveInteger", "start_time": "dateTime",
             "compilation_date": "dateTime", "name_type": "name_type"})
# simple types (xs:simpleType): no attribute at all; the others are
# dfxml: complex types with simple content and xs:anyAttribute ##other
NO_ATTRS = {"name_type", "alloc", "alloc_inode", "alloc_name", "unalloc", "used", "unused",
            "orphan", "compressed", "allocated_only", "metadata"}
# attributes an element declares (name: type), besides ##other ones
ATTRS = {
    "dfxml": {"version": "string", "catalogDesignDate": "date"},
    "creator": {"version": "string"},
    "byte_run": {k: "nonNegativeInteger" for k in
                 ("file_offset", "fs_offset", "img_offset", "len", "uncompressed_len")},
    "volume": {"offset": "nonNegativeInteger"},
    "hashdigest": {"type": "hashDigestType", "base": "nonNegativeInteger"},
    "library": {"name": "string", "version": "string"},
    "mtime": {"prec": "nonNegativeInteger"},
}
for t in ("ctime", "atime", "crtime", "dtime", "bkup_time"):
    ATTRS[t] = ATTRS["mtime"]
ATTRS["byte_run"].update({"fill": "string", "type": "string"})
REQUIRED = {"dfxml": ["version"]}

DATETIME = re.compile(r"-?(\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(\.\d+)?"
                      r"(Z|[+-](\d\d):(\d\d))?")


def type_ok(t, s, v):
    s = s.strip()  # whitespace collapse of the numeric and date types
    if t == "string":
        return True
    if t == "nonNegativeInteger":
        return re.fullmatch(r"\+?\d+", s) is not None
    if t == "positiveInteger":
        return re.fullmatch(r"\+?\d+", s) is not None and int(s) > 0
    if t == "integer":
        return re.fullmatch(r"[+-]?\d+", s) is not None
    if t == "bool01":
        return s in ("0", "1")
    if t in ("dateTime", "dftime"):
        m = DATETIME.fullmatch(s)
        if not m:
            return False
        y, mo, d, h, mi, sec = (int(m.group(i)) for i in range(1, 7))
        if not (1 <= mo <= 12 and 1 <= d <= calendar.monthrange(max(y, 1), mo)[1]):
            return False
        return (h < 24 and mi < 60 and sec < 60) or (h == 24 and mi == sec == 0)
    if t == "date":
        return re.fullmatch(r"-?\d{4,}-\d\d-\d\d(Z|[+-]\d\d:\d\d)?", s) is not None
    if t == "name_type":
        return s in list("-pcdbrlshwv") + (["V"] if v == "2.0" else [])
    if t == "hashDigestType":
        names = ["sha1", "sha256", "md5", "md6", "other"]
        if v == "2.0":
            names += ["sha224", "sha384", "sha512"]
        return s in names + [n.upper() for n in names]
    raise AssertionError(t)


class Checker:
    def __init__(self):
        self.n = 0
        self.bad = []

    def check(self, ok, what):
        self.n += 1
        if not ok:
            self.bad.append(what)
        return ok


def split(tag):
    if tag.startswith("{"):
        ns, _, local = tag[1:].partition("}")
        return ns, local
    return "", tag


def where(el, path):
    return path + "/" + split(el.tag)[1]


def schema_check(c, root, v):
    """The schema's rules over the whole tree (version v)."""
    mdl = models(v)

    def visit(el, path):
        ns, local = split(el.tag)
        here = where(el, path)
        if ns != D:
            return  # lax: no schema for e4dump's namespace (or dc)
        # attributes
        if local in NO_ATTRS:
            c.check(not el.attrib, f"[{v}] {here}: attributes {dict(el.attrib)} where none are allowed")
        elif local != "version":
            decl = ATTRS.get(local, {})
            for a, val in el.attrib.items():
                ans, aname = split(a)
                if ans:
                    c.check(ans != D, f"[{v}] {here}: attribute {a} in DFXML's namespace")
                    continue  # xs:anyAttribute ##other
                c.check(aname in decl, f"[{v}] {here}: attribute {aname} not in the schema")
                if aname in decl:
                    c.check(type_ok(decl[aname], val, v),
                            f"[{v}] {here}/@{aname}: {val!r} is not a {decl[aname]}")
            for a in REQUIRED.get(local, []):
                c.check(a in el.attrib, f"[{v}] {here}: required attribute {a} missing")
        kids = list(el)
        if local == "version":
            return
        if local in TEXT:
            ty = "nonNegativeInteger" if (local, v) == ("block_count", "2.0") else TEXT[local]
            c.check(not kids, f"[{v}] {here}: child elements in a {ty} element")
            c.check(type_ok(ty, el.text or "", v), f"[{v}] {here}: {el.text!r} is not a {ty}")
            return
        m = mdl.get(local)
        if not c.check(m is not None, f"[{v}] {here}: element not used by e4dump's checker"):
            return
        c.check(not (el.text or "").strip() and all(not (k.tail or "").strip() for k in kids),
                f"[{v}] {here}: text in an element-only element")
        if isinstance(m, tuple):  # xs:all
            names = [split(k.tag) for k in kids]
            for kns, kl in names:
                c.check(kns == D and kl in m[1], f"[{v}] {here}: {kl} not allowed here")
                c.check(names.count((kns, kl)) == 1, f"[{v}] {here}: {kl} more than once")
        else:
            i = 0
            for name, lo, hi in m:
                k = 0
                while i < len(kids) and (hi is None or k < hi):
                    kns, kl = split(kids[i].tag)
                    if name == ANY or (name == OTHER and kns not in (D, "")) or \
                            (kns == D and kl == name):
                        i += 1
                        k += 1
                    else:
                        break
                c.check(k >= lo, f"[{v}] {here}: {name} missing")
            if i < len(kids):
                c.check(False, f"[{v}] {here}: {split(kids[i].tag)[1]} out of the schema's order "
                               f"(child {i + 1})")
        if m != mdl["metadata"]:
            for k in kids:
                visit(k, here)

    c.check(root.tag == "{%s}dfxml" % D, f"root is {root.tag}, not DFXML's dfxml")
    visit(root, "")


def undo(s):
    """The bytes of a display-form string (\\xHH decoded)."""
    out = b""
    for part in re.split(r"(\\x[0-9a-f]{2})", s):
        out += bytes([int(part[2:], 16)]) if re.fullmatch(r"\\x[0-9a-f]{2}", part) else part.encode()
    return out


def t(fo, name, ns=D):
    el = fo.find("{%s}%s" % (ns, name))
    return el.text if el is not None else None


def sha256sum(paths):
    """sha256sum's digests of paths (one run of it for all)."""
    out = {}
    paths = list(paths)
    for i in range(0, len(paths), 500):
        chunk = paths[i:i + 500]
        r = subprocess.run(["sha256sum", "-z", "--"] + chunk, capture_output=True, check=True)
        for line, p in zip(r.stdout.split(b"\0"), chunk):
            out[p] = line[:64].decode()
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dfxml")
    ap.add_argument("--schema", choices=["1.1.1", "2.0"], action="append")
    ap.add_argument("--tsv")
    ap.add_argument("--out")
    ap.add_argument("--all", action="store_true")
    ap.add_argument("--guest")
    ap.add_argument("--apply-removed", action="store_true")
    ap.add_argument("--tree", action="append", default=[])
    ap.add_argument("--image")
    ap.add_argument("--mutants", action="store_true")
    ap.add_argument("--deleted")
    ap.add_argument("--nokey", action="store_true")
    ap.add_argument("--unalloc", action="store_true")
    a = ap.parse_args()
    c = Checker()
    if a.mutants:
        return mutants(c, a.dfxml)
    root = ET.parse(a.dfxml).getroot()
    for v in a.schema or ["1.1.1", "2.0"]:
        schema_check(c, root, v)
    c.check(root.get("version") == "1.1.1", f"version {root.get('version')!r}, not 1.1.1")
    c.check(t(root.find("{%s}creator" % D), "program") == "e4dump"
            if root.find("{%s}creator" % D) is not None else False, "creator/program")
    c.check(root.find("{%s}source/{%s}image_filename" % (D, D)) is not None, "source/image_filename")
    vols = root.findall("{%s}volume" % D)
    if not c.check(len(vols) == 1, f"{len(vols)} volumes"):
        return report(c)
    vol = vols[0]
    voff = int(vol.get("offset", "-1"))
    bs = int(t(vol, "block_size") or 0)
    fos = vol.findall("{%s}fileobject" % D)
    # deleted entries (--unalloc, --deleted): maybe none, a name maybe
    # deleted twice
    deleted = a.unalloc or a.deleted
    c.check((fos or deleted) and not root.findall("{%s}fileobject" % D),
            "fileobjects in the volume")
    by_path, by_out = {}, {}
    for fo in fos:
        p = t(fo, "filename") or ""
        c.check(p.startswith("/") and (deleted or p not in by_path),
                f"{p!r}: not a path in the image, or twice")
        if deleted:
            c.check(t(fo, "unalloc") == "1" and t(fo, "alloc") is None,
                    f"{p}: unalloc {t(fo, 'unalloc')!r}, alloc {t(fo, 'alloc')!r}: "
                    "not unallocated")
        by_path[p] = fo
        op = t(fo, "output_path", E4)
        if op is not None:
            by_out[op] = fo
        runs = fo.findall("{%s}byte_runs/{%s}byte_run" % (D, D))
        for r in runs:
            fs_off, img_off = int(r.get("fs_offset")), int(r.get("img_offset"))
            c.check(img_off == fs_off + voff and fs_off % bs == 0 and int(r.get("len")) > 0,
                    f"{p}: byte_run {r.attrib}: img_offset is not fs_offset + {voff}")
        size = int(t(fo, "filesize") or -1)
        if t(fo, "name_type") == "r" and (runs or size >= 0):
            c.check(sum(int(r.get("len")) for r in runs) <= size, f"{p}: byte runs past filesize")
    if a.out:
        check_out(c, a, by_out)
    if a.tsv:
        check_tsv(c, a.tsv, by_path)
    if a.guest:
        check_guest(c, a, by_path)
    if a.deleted:
        check_deleted(c, a, vol, by_path, bs)
    elif a.image:
        check_blocks(c, a.image, by_path, bs)
        check_contexts(c, a.image, by_path)
    return report(c, f"{len(fos)} fileobjects")


def hashes(fo):
    return {h.get("type"): h.text for h in fo.findall("{%s}hashdigest" % D)}


def partial_hashes(fo):
    """e4:partial_hashdigest: of a file only partly read (e4:status
    partial), what was written with its unreadable blocks as zeros; never
    a hashdigest, which a reader would take for the file's hash."""
    return {h.get("type"): h.text for h in fo.findall("{%s}partial_hashdigest" % E4)}


def check_out(c, a, by_out):
    out = os.fsencode(a.out)
    kinds = {"r": 0o100000, "d": 0o040000, "l": 0o120000}
    files = {}
    for op, fo in by_out.items():
        p = os.path.join(out, undo(op))
        try:
            st = os.lstat(p)
        except OSError:
            c.check(False, f"{op}: not in {a.out}")
            continue
        nt = t(fo, "name_type")
        c.check(kinds.get(nt) == st.st_mode & 0o170000, f"{op}: name_type {nt}, mode {st.st_mode:o}")
        locked = (t(fo, "encryption/{%s}state" % E4, E4) == "locked")
        if nt == "r":
            if not locked:
                c.check(int(t(fo, "filesize")) == st.st_size,
                        f"{op}: filesize {t(fo, 'filesize')}, {st.st_size} in DIR")
            partial = t(fo, "status", E4) == "partial"
            c.check(not (partial and hashes(fo)) and not (partial_hashes(fo) and not partial),
                    f"{op}: e4:status {t(fo, 'status', E4)}, hashdigest {sorted(hashes(fo))}, "
                    f"e4:partial_hashdigest {sorted(partial_hashes(fo))}")
            if "sha256" in hashes(fo) or "sha256" in partial_hashes(fo):
                files[p] = fo
        if nt == "l":
            c.check(undo(t(fo, "link_target") or "") == os.readlink(p),
                    f"{op}: link_target {t(fo, 'link_target')!r}, readlink {os.readlink(p)!r}")
    for p, digest in sha256sum(files).items():
        mine = hashes(files[p]).get("sha256") or partial_hashes(files[p]).get("sha256")
        c.check(mine == digest, f"{p}: hashdigest sha256 {mine}, sha256sum {digest}")
    c.check(files or not by_out, "no file hashed")
    if a.all:
        seen = set()
        for d, dirs, fs in os.walk(out):
            for n in dirs + fs:
                q = os.path.relpath(os.path.join(d, n), out)
                # the sidecars and --keep-locked's export files
                if not n.endswith(b".e4dump.json") and \
                        n not in (b"%e4dump-dir.json", b"%e4dump-export.json"):
                    seen.add(q)
        mine = {undo(op) for op in by_out}
        if a.deleted:
            seen = {q for q in seen if not os.path.isdir(os.path.join(out, q))}
            mine = {q for q in mine if not os.path.isdir(os.path.join(out, q))}
        c.check(seen == mine, f"DIR and the fileobjects differ: only in DIR "
                f"{sorted(seen - mine)[:5]}, only in the DFXML {sorted(mine - seen)[:5]}")


def check_tsv(c, tsv, by_path):
    with open(tsv, encoding="utf-8") as f:
        lines = f.read().split("\n")
    head = lines[0].split("\t")
    c.check(head == ["path", "inode", "size", "md5", "sha1", "sha256", "ciphertext_sha256",
                     "atime", "mtime", "ctime", "crtime", "unreadable", "output_path",
                     "hashes_of"],
            f"manifest header {head}")
    rows = [r.split("\t") for r in lines[1:] if r]
    for r in rows:
        fo = by_path.get(r[0])
        if not c.check(fo is not None, f"manifest row {r[0]!r}: no fileobject of that path"):
            continue
        h = hashes(fo) or partial_hashes(fo)
        got = [t(fo, "filename"), t(fo, "inode"), t(fo, "filesize"),
               h.get("md5", "-"), h.get("sha1", "-"), h.get("sha256", "-"),
               t(fo, "ciphertext_sha256", E4) or "-"] + \
              [t(fo, k) or "-" for k in ("atime", "mtime", "ctime", "crtime")] + \
              [t(fo, "unreadable_blocks", E4) or "-", t(fo, "output_path", E4)]
        # kept locked (--keep-locked): the hashes are of the ciphertext
        # file written, in both
        locked = t(fo, "encryption/{%s}state" % E4, E4) == "locked"
        of = {h.get("{%s}of" % E4) for h in fo.findall("{%s}hashdigest" % D) +
              fo.findall("{%s}partial_hashdigest" % E4)}
        c.check(of <= {"ciphertext" if locked else None},
                f"{r[0]}: hashdigest e4:of {of}, e4:encryption state "
                f"{'locked' if locked else 'not locked'}")
        # hashes of a file only partly read: "-partial" (e4:partial_hashdigest)
        got.append(("ciphertext" if locked else "plaintext") +
                   ("-partial" if partial_hashes(fo) else ""))
        c.check(got == r, f"manifest row {r}, fileobject {got}")
    regular = {p for p, fo in by_path.items() if t(fo, "name_type") == "r" and
               t(fo, "output_path", E4) is not None}
    c.check(regular == {r[0] for r in rows} and len(rows) == len(regular),
            f"regular fileobjects {len(regular)}, manifest rows {len(rows)}")


def check_guest(c, a, by_path):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vm"))
    import check_extract as ce
    recs = []
    trees, entries = ce.parse_manifest(a.guest, recs)
    if a.apply_removed:
        gone = {r.fields[0] for r in recs if r.type == "removed"}
        entries = [e for e in entries if e.path not in gone]
    sel = [x.strip("/") for x in a.tree] or list(trees)
    entries = [e for e in entries if e.tree in sel]
    want = {b"/" + e.path: e for e in entries}
    mine = {undo(p): fo for p, fo in by_path.items()}
    kind = {"f": "r", "s": "r", "h": "r", "d": "d", "l": "l"}
    cache = {}
    for p, e in want.items():
        fo = mine.get(p)
        if not c.check(fo is not None, f"{ce.show(p)}: the kernel wrote it; no fileobject"):
            continue
        c.check(t(fo, "name_type") == kind[e.type], f"{ce.show(p)}: name_type {t(fo, 'name_type')}, kernel {e.type}")
        if e.type != "l":
            c.check(int(t(fo, "mode")) == e.mode & 0o7777,
                    f"{ce.show(p)}: mode {int(t(fo, 'mode')):o}, kernel {e.mode & 0o7777:o}")
        if e.type != "d":
            c.check(t(fo, "mtime")[:19] == time.strftime("%Y-%m-%dT%H:%M:%S",
                                                         time.gmtime(e.mtime)),
                f"{ce.show(p)}: mtime {t(fo, 'mtime')}, kernel {e.mtime}")
        if e.size is not None and e.type != "d":
            c.check(int(t(fo, "filesize")) == e.size,
                    f"{ce.show(p)}: filesize {t(fo, 'filesize')}, kernel {e.size}")
        if e.type == "l":
            c.check(undo(t(fo, "link_target") or "") == e.target,
                    f"{ce.show(p)}: link_target {t(fo, 'link_target')!r}, kernel {e.target!r}")
        if e.type in "fsh" and "sha256" in hashes(fo):
            data = ce.expected_content(e, cache)
            c.check(hashes(fo)["sha256"] == hashlib.sha256(data).hexdigest(),
                    f"{ce.show(p)}: sha256 is not that of what the kernel was given")
        if e.type == "h":
            first = mine.get(b"/" + e.link)
            c.check(first is not None and t(first, "inode") == t(fo, "inode"),
                    f"{ce.show(p)}: a hard link of {ce.show(e.link)}, another inode")
    for name, w in trees.items():
        if name not in sel or w[0] not in ("enc", "enc2"):
            continue
        pol = {"descriptor" if w[0] == "enc" else "identifier": w[1], "contents_mode": w[2],
               "filenames_mode": w[3], "flags": flag_names(int(w[4]))}
        for p, fo in mine.items():
            if p.startswith(b"/" + name.encode() + b"/"):
                enc = fo.find("{%s}encryption" % E4)
                got = {k: t(enc, k, E4) for k in pol} if enc is not None else None
                c.check(got == pol, f"{ce.show(p)}: policy {got}, the kernel's {pol}")
    above = {b"/".join(p.split(b"/")[:i]) for p in want for i in range(2, p.count(b"/") + 1)}
    for p in mine:
        top = p.split(b"/")[1]
        if top == b"lost+found" or top.decode(errors="replace") not in sel:
            continue  # not a tree of the kernel's, or not selected
        c.check(p in want or p in above, f"{ce.show(p)}: a fileobject the kernel did not write")


def check_deleted(c, a, vol, by_path, bs):
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "vm"))
    import check_extract as ce
    import timeline_check as tc
    import undelete_check as uc
    trees, gone, ext, recs = uc.load_manifest(a.deleted)
    # without the keys: the kernel's no-key names (its `ino` records)
    names = {}
    for r in recs:
        if r.type == "ino":
            names.setdefault(r.fields[2], r.fields[1])
    c.check(not a.nokey or names, "--nokey: the manifest has no 'ino' records")
    c.check(t(vol, "allocated_only") == "0", f"allocated_only {t(vol, 'allocated_only')!r}, want 0")
    by_ino = {}
    for fo in vol.findall("{%s}fileobject" % D):
        by_ino.setdefault(int(t(fo, "inode")), []).append(fo)
    geo = tc.geometry(a.image) if a.image else None
    copies = tc.journal_copies(a.image, geo["Block size"]) if a.image else None
    kind = {"f": "r", "s": "r", "h": "r", "d": "d", "l": "l"}
    dtimes = runs_checked = hashed = policies = 0
    cache = {}
    for e in gone:
        ino, runs = int(ext[e.path][0]), ext[e.path][1]
        name = ce.show(e.path)
        fos = by_ino.get(ino, [])
        if not c.check(len(fos) == 1, f"{name} (inode {ino}): {len(fos)} fileobjects, want 1"):
            continue
        fo = fos[0]
        p = undo(t(fo, "filename") or "")
        orphan = p == f"/$OrphanFiles/OrphanFile-{ino}".encode()
        want = b"/" + (names.get(ext[e.path][0], b"?") if a.nokey else e.path)
        c.check(p == want or orphan, f"{name}: filename {t(fo, 'filename')!r}, want "
                f"{ce.show(want)!r}")
        c.check(orphan or t(fo, "name_state", E4) == ("no-key" if a.nokey else "decrypted"),
                f"{name}: e4:name_state {t(fo, 'name_state', E4)!r}")
        c.check((t(fo, "orphan") == "1") == orphan, f"{name}: orphan {t(fo, 'orphan')!r}")
        c.check(t(fo, "name_type") == kind[e.type],
                f"{name}: name_type {t(fo, 'name_type')}, kernel {e.type}")
        if t(fo, "meta_type") is None:
            continue  # no copy of its inode: nothing of it is known
        if a.image:
            dt, why = tc.expected_dtime(a.image, ino, geo, copies)
            c.check(dt is not None and t(fo, "dtime") == tc.iso(dt),
                    f"{name}: dtime {t(fo, 'dtime')!r}, want {tc.iso(dt) if dt else None} ({why})")
            dtimes += why.startswith("journal")
        tree = trees.get(e.path.split(b"/")[0].decode(errors="replace"))
        if tree and tree[0] in ("enc", "enc2"):
            pol = {"descriptor" if tree[0] == "enc" else "identifier": tree[1],
                   "contents_mode": tree[2], "filenames_mode": tree[3],
                   "flags": flag_names(int(tree[4]))}
            enc = fo.find("{%s}encryption" % E4)
            got = {k: t(enc, k, E4) for k in pol} if enc is not None else None
            policies += c.check(got == pol, f"{name}: policy {got}, the kernel's {pol}")
        if e.type in "fsh" and runs is not None and fo.find("{%s}byte_runs" % D) is not None:
            size = int(t(fo, "filesize"))
            nblocks = (size + bs - 1) // bs
            theirs = {lb + i: pb + i for lb, pb, n, unwritten in runs if not unwritten
                      for i in range(n) if lb + i < nblocks}
            mine = {}
            for r in fo.findall("{%s}byte_runs/{%s}byte_run" % (D, D)):
                lo, pb = int(r.get("file_offset")) // bs, int(r.get("fs_offset")) // bs
                mine.update({lo + i: pb + i for i in range((int(r.get("len")) + bs - 1) // bs)})
            runs_checked += c.check(mine == theirs, f"{name}: byte runs map "
                                    f"{sorted(mine.items())[:6]}, the kernel's FIEMAP "
                                    f"{sorted(theirs.items())[:6]}")
        if e.type in "fsh" and t(fo, "status", E4) == "complete" and "sha256" in hashes(fo):
            data = ce.expected_content(e, cache)
            hashed += c.check(hashes(fo)["sha256"] == hashlib.sha256(data).hexdigest(),
                              f"{name}: sha256 is not that of what the kernel was given")
    inos = {int(ext[e.path][0]) for e in gone}
    for ino, fos in by_ino.items():
        for fo in fos:
            p = undo(t(fo, "filename") or "").lstrip(b"/")
            c.check(ino in inos or not uc.in_trees(p, trees),
                    f"{t(fo, 'filename')!r} (inode {ino}): a fileobject, but the scenario "
                    "did not delete it")
    if a.image:
        c.check(dtimes > 0, "no dtime was checked against the journal")
    print(f"dfxml_check: --deleted: {len(gone)} deleted, {dtimes} dtimes from the journal, "
          f"{runs_checked} files' byte runs, {policies} policies, {hashed} contents checked")


def flag_names(f):
    """linux/fscrypt.h's names of policy flags, as scenario.sh has them"""
    n = ["PAD_%d" % (4 << (f & 3))]
    n += [name for bit, name in ((4, "DIRECT_KEY"), (8, "IV_INO_LBLK_64"),
                                 (16, "IV_INO_LBLK_32")) if f & bit]
    return " ".join(n)


def debugfs(img, cmds):
    """debugfs's output of each command (-f; -n: checksums not verified),
    by command"""
    r = subprocess.run(["debugfs", "-n", "-f", "-", img],
                       input="".join(c + "\n" for c in cmds).encode(), capture_output=True,
                       env=dict(os.environ, DEBUGFS_PAGER="__none__", PAGER="__none__"))
    if b"while trying to open" in r.stderr:
        why = [ln for ln in r.stderr.decode(errors="replace").splitlines() if "open" in ln]
        sys.exit(f"dfxml_check: debugfs cannot open {img}: {why[0] if why else '?'}")
    out, cur = {}, None
    for line in r.stdout.decode(errors="replace").splitlines():
        if line.startswith("debugfs: ") and line[9:] in cmds:
            cur = line[9:]
            out[cur] = []
        elif cur is not None:
            out[cur].append(line)
    return out


def check_contexts(c, img, by_path):
    cmds = {p: f"ea_get -x <{t(fo, 'inode')}> c" for p, fo in by_path.items()}
    got = debugfs(img, list(cmds.values()))
    for p, fo in by_path.items():
        lines = " ".join(got.get(cmds[p], []))
        m = re.search(r"c \((\d+)\) = ((?:[0-9a-f]{2} )+)", lines + " ")
        enc = fo.find("{%s}encryption" % E4)
        if not c.check((m is None) == (enc is None),
                       f"{p}: e4:encryption {'present' if enc is not None else 'absent'}, "
                       f"debugfs context {'absent' if m is None else 'present'}"):
            continue
        if m is None:
            continue
        b = bytes.fromhex(m.group(2).replace(" ", ""))
        idlen, at = (8, 4) if b[0] == 1 else (16, 8)
        want = {"policy_version": str(b[0]), "contents_mode": str(b[1]),
                "filenames_mode": str(b[2]), "flags": flag_names(b[3]),
                "descriptor" if b[0] == 1 else "identifier": b[at:at + idlen].hex(),
                "nonce": b[at + idlen:at + idlen + 16].hex()}
        mine = {k: t(enc, k, E4) for k in want}
        c.check(mine == want, f"{p}: e4:encryption {mine}, debugfs context {want}")


def check_blocks(c, img, by_path, bs):
    """Each byte run's blocks are where debugfs's stat maps those logical
    blocks; a file without holes has all of its blocks in its runs."""
    fos = [fo for fo in by_path.values() if t(fo, "name_type") == "r" and
           fo.find("{%s}byte_runs" % D) is not None]
    cmd = {id(fo): f"stat <{t(fo, 'inode')}>" for fo in fos}
    got = debugfs(img, list(cmd.values()))
    for fo in fos:
        size = int(t(fo, "filesize"))
        text = " ".join(got.get(cmd[id(fo)], []))
        theirs = {}  # logical -> physical, from "(L-L2):P-P2" (not ETB/IND blocks)
        for m in re.finditer(r"\((\d+)(?:-(\d+))?\):(\d+)(?:-(\d+))?", text.split("EXTENTS:")[-1]
                             .split("BLOCKS:")[-1]):
            lo, hi, p = int(m.group(1)), int(m.group(2) or m.group(1)), int(m.group(3))
            theirs.update({lo + i: p + i for i in range(hi - lo + 1)})
        mine = {}
        for run in fo.findall("{%s}byte_runs/{%s}byte_run" % (D, D)):
            lo, p = int(run.get("file_offset")) // bs, int(run.get("fs_offset")) // bs
            mine.update({lo + i: p + i for i in range((int(run.get("len")) + bs - 1) // bs)})
        ok = mine and all(theirs.get(k) == v for k, v in mine.items())
        if sum(int(r.get("len")) for r in fo.iter("{%s}byte_run" % D)) == size:
            ok = ok and all(k in mine for k in theirs if k < (size + bs - 1) // bs)
        c.check(ok, f"{t(fo, 'filename')}: byte runs map {sorted(mine.items())[:6]}, "
                    f"debugfs {sorted(theirs.items())[:6]}")


MUTANTS = {
    "xmloutputversion": (' version="1.1.1"', ' xmloutputversion="1.0"'),
    "atime before mtime": (r"(<mtime>[^<]*</mtime>)(\s*)(<ctime>[^<]*</ctime>)(\s*)(<atime>[^<]*</atime>)",
                           r"\5\2\1\4\3"),
    "e4 element before byte_runs (2.0)": (r"(\s*)<byte_runs>", r"\1<e4:x>1</e4:x>\1<byte_runs>"),
    "no metadata": (r"<metadata>.*?</metadata>", ""),
    "hashdigest type SHA-256": ('type="sha256"', 'type="SHA-256"'),
    "alloc yes": ("<alloc>1</alloc>", "<alloc>yes</alloc>"),
    "month 13": (r"<mtime>(\d{4})-\d\d", r"<mtime>\1-13"),
    "mode in octal letters": (r"<mode>\d+</mode>", "<mode>0644x</mode>"),
    "source/image_size": ("<image_filename>", "<image_size>5</image_size><image_filename>"),
    "fileobject/@foo": ("<fileobject>", '<fileobject foo="1">'),
    "ftype 0": (r"<ftype>\d+", "<ftype>0"),
    "filename after inode": (r"(<filename>[^<]*</filename>)(.*?)(<inode>[^<]*</inode>)",
                             r"\2\3\1"),
    "byte_run/@len negative": (r'len="\d+"', 'len="-1"'),
    "no version": (' version="1.1.1"', ""),
}


def mutants(c, path):
    text = open(path, encoding="utf-8").read()
    base = Checker()
    for v in ("1.1.1", "2.0"):
        schema_check(base, ET.fromstring(text), v)
    c.check(not base.bad, f"the document itself fails: {base.bad[:3]}")
    for name, (pat, rep) in MUTANTS.items():
        bad = re.sub(pat, rep, text, count=1, flags=re.S)
        m = Checker()
        for v in ("1.1.1", "2.0"):
            schema_check(m, ET.fromstring(bad), v)
        c.check(bad != text and m.bad, f"mutant {name!r}: the rules accept it")
    return report(c, f"{len(MUTANTS)} mutants")


def report(c, what=""):
    for b in c.bad[:40]:
        print("FAIL:", b)
    print(f"dfxml_check: {what}; {c.n} checked, {len(c.bad)} failed")
    return 1 if c.bad else 0


if __name__ == "__main__":
    sys.exit(main())
