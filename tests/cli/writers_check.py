#!/usr/bin/env python3
"""Check that e4dump's writers say the same of every entry: the body file
and the DFXML each render the record that --json prints (issue 28 item 2:
one module builds the record, every writer renders it).

usage: writers_check.py dfxml DFXML JSONL [--by-inode]
       writers_check.py body BODY JSONL [--prefix P] [--nanoseconds]

dfxml  every fileobject of DFXML (extract or undelete --dfxml) is the
       record of JSONL (the same run's --json) of its path (--by-inode: of
       its inode, undelete's records naming deleted entries by their
       journal path) and every record of an entry written is a fileobject:
       inode, filesize (size), mode, nlink (links), uid, gid, the times and
       dtime, link_target (target), e4:name_state, e4:raw_name_hex,
       e4:encryption (policy_version, modes, flags, descriptor or
       identifier, nonce, key, state), the hashdigests (and e4:of) its
       hashes (e4:partial_hashdigest for hashes marked partial), e4:unreadable_blocks, e4:output_path and e4:status;
       unalloc exactly for a deleted record.
body   every line of BODY (timeline, -m P) is the record of JSONL
       (timeline --json) of its inode and path, as TSK 3.x writes one: P
       and the path, " (encrypted, no key)" for a no-key name, " -> TARGET"
       for a symlink, " (deleted)" (" (deleted-realloc)" when allocated);
       the inode; the mode string of file_type (the entry's: "-" for a
       deleted entry whose name is lost, as fls's orphans) and mode; uid, gid, size;
       atime, mtime, ctime, crtime in seconds (--nanoseconds: with the
       record's nanoseconds), 0 for none; and every record is a line.
Prints the failures and "N checked, M failed"; exit 1 when any failed."""
import calendar
import json
import sys
import xml.etree.ElementTree as ET

D = "http://www.forensicswiki.org/wiki/Category:Digital_Forensics_XML"
E4 = "https://e4dump.invalid/dfxml/1"
LETTER = {"regular": "r", "directory": "d", "symlink": "l", "chardev": "c",
          "blockdev": "b", "fifo": "p", "socket": "h"}


class Checker:
    def __init__(self):
        self.n, self.bad = 0, []

    def check(self, ok, what):
        self.n += 1
        if not ok:
            self.bad.append(what)
        return ok

    def done(self, what):
        for b in self.bad[:40]:
            print("FAIL:", b)
        print(f"writers_check: {what}; {self.n} checked, {len(self.bad)} failed")
        return 1 if self.bad else 0


def records(path):
    with open(path, encoding="utf-8") as f:
        return [o for o in map(json.loads, filter(str.strip, f))
                if o.get("type") in ("entry", "extracted", "deleted")]


def t(el, name, ns=D):
    x = el.find("{%s}%s" % (ns, name)) if el is not None else None
    return x.text if x is not None else None


def mode_dfxml(args):
    xml, jsonl = args[0], args[1]
    by_inode = "--by-inode" in args[2:]
    c = Checker()
    recs = records(jsonl)
    key = (lambda o: o.get("inode")) if by_inode else (lambda o: o.get("path"))
    want = {}
    for o in recs:
        want.setdefault(key(o), []).append(o)
    fos = ET.parse(xml).getroot().findall("{%s}volume/{%s}fileobject" % (D, D))
    seen = set()
    for fo in fos:
        k = int(t(fo, "inode")) if by_inode else t(fo, "filename")
        name = t(fo, "filename")
        os_ = want.get(k, [])
        if not c.check(len(os_) == 1, f"{name}: {len(os_)} records of {k!r}"):
            continue
        o = os_[0]
        seen.add(id(o))
        got = {"inode": int(t(fo, "inode")),
               "unalloc": t(fo, "unalloc") == "1",
               "name_state": t(fo, "name_state", E4),
               "raw_name_hex": t(fo, "raw_name_hex", E4),
               "output_path": t(fo, "output_path", E4),
               "status": t(fo, "status", E4)}
        exp = {"inode": o.get("inode"), "unalloc": o.get("type") == "deleted",
               "name_state": o.get("name_state"),
               "raw_name_hex": o.get("raw_name_hex") or None,
               "output_path": o.get("output_path"), "status": o.get("status")}
        if t(fo, "meta_type") is not None or o.get("mode") is not None:
            got.update({"size": t(fo, "filesize"), "mode": t(fo, "mode"),
                        "links": t(fo, "nlink"), "uid": t(fo, "uid"), "gid": t(fo, "gid"),
                        "target": t(fo, "link_target")})
            exp.update({"size": str(o.get("size")), "mode": str(int(o.get("mode") or "0", 8)),
                        "links": str(o.get("links")), "uid": str(o.get("uid")),
                        "gid": str(o.get("gid")), "target": o.get("target")})
            for k2 in ("atime", "mtime", "ctime", "crtime", "dtime"):
                got[k2], exp[k2] = t(fo, k2), o.get(k2)
        enc = fo.find("{%s}encryption" % E4)
        je = o.get("encryption")
        got["encryption"] = None if enc is None else {
            x.tag.split("}")[1]: x.text for x in enc}
        if je is None:
            exp["encryption"] = None
        elif "error" in je:
            exp["encryption"] = {"error": je["error"]}
        elif "contents_mode" not in je:
            exp["encryption"] = {"policy_version": str(je.get("policy_version")),
                                 "error": got["encryption"] and got["encryption"].get("error")}
        else:
            exp["encryption"] = {
                "policy_version": str(je["policy_version"]),
                "contents_mode": str(je["contents_mode"]), "contents": je["contents"],
                "filenames_mode": str(je["filenames_mode"]), "filenames": je["filenames"],
                "flags": " ".join(je["flags"]),
                ("descriptor" if "descriptor" in je else "identifier"):
                    je.get("descriptor") or je.get("identifier"),
                "nonce": je["nonce"], "state": je["state"]}
            if je.get("key") is not None:
                exp["encryption"]["key"] = je["key"]
        # the hashes of what was written, and what they are of; of a file
        # only partly read (JSON "partial": true) e4:partial_hashdigest
        # instead of hashdigest
        full = fo.findall("{%s}hashdigest" % D)
        part = fo.findall("{%s}partial_hashdigest" % E4)
        digests = {h.get("type"): h.text for h in full + part}
        of = {h.get("{%s}of" % E4) or "plaintext" for h in full + part}
        jh = o.get("hashes")
        if jh is not None or digests:
            got["hashes"] = (of.pop() if len(of) == 1 else sorted(of), digests,
                             "partial" if part and not full else "whole" if full and not part
                             else "mixed")
            exp["hashes"] = (jh.get("of"), {k: v for k, v in jh.items()
                                            if k not in ("of", "partial") and v is not None},
                             "partial" if jh.get("partial") else "whole") if jh else None
        if "unreadable" in o:
            got["unreadable"], exp["unreadable"] = t(fo, "unreadable_blocks", E4), o["unreadable"]
        for k2 in exp:
            c.check(got.get(k2) == exp[k2],
                    f"{name}: {k2}: DFXML {got.get(k2)!r}, the record {exp[k2]!r}")
    for o in recs:
        written = o.get("output_path") is not None or \
            (o.get("type") == "deleted" and o.get("status") != "skipped")
        c.check(id(o) in seen or not written,
                f"{o.get('path')!r}: a record, no fileobject")
    return c.done(f"{len(fos)} fileobjects, {len(recs)} records")


def perms(mode):
    m = int(mode, 8)
    s = "".join(ch if m & (0o400 >> i) else "-" for i, ch in enumerate("rwxrwxrwx"))
    s = list(s)
    if m & 0o4000:
        s[2] = "s" if m & 0o100 else "S"
    if m & 0o2000:
        s[5] = "s" if m & 0o010 else "S"
    if m & 0o1000:
        s[8] = "t" if m & 0o001 else "T"
    return "".join(s)


def secs(iso, nano):
    if iso is None:
        return "0"
    s = calendar.timegm(tuple(map(int, (iso[0:4], iso[5:7], iso[8:10], iso[11:13],
                                        iso[14:16], iso[17:19]))) + (0, 0, 0))
    return f"{s}.{iso[20:29]}" if nano else str(s)


def mode_body(args):
    body, jsonl = args[0], args[1]
    prefix = args[args.index("--prefix") + 1].rstrip("/") if "--prefix" in args else ""
    nano = "--nanoseconds" in args
    c = Checker()
    recs = records(jsonl)
    lines = {}
    with open(body, encoding="utf-8", errors="surrogateescape") as f:
        for line in f:
            fields = line.rstrip("\n").split("|")
            if c.check(len(fields) == 11, f"{line!r}: {len(fields)} fields") and fields[2] != "0":
                lines.setdefault((fields[2], fields[1]), []).append(fields)
    for o in recs:
        name = prefix + o["path"].replace("|", "\\x7c")
        if o.get("name_state") in ("no-key", "bad"):
            name += " (encrypted, no key)"
        if o.get("file_type") == "symlink" and o.get("target") is not None:
            name += " -> " + o["target"].replace("|", "\\x7c")
        if o.get("deleted"):
            name += " (deleted-realloc)" if o.get("allocated") is True else " (deleted)"
        got = lines.pop((str(o["inode"]), name), [])
        if not c.check(len(got) == 1, f"{name!r} (inode {o['inode']}): {len(got)} lines"):
            continue
        letter = LETTER.get(o.get("file_type"), "-")
        # the entry's type, none for a deleted entry whose name is lost
        # (fls's orphans)
        first = "-" if o.get("deleted") and "name_state" not in o else letter
        if o.get("mode") is None:
            want = ["0", name, str(o["inode"]), f"{first}/----------"] + ["0"] * 7
        else:
            want = ["0", name, str(o["inode"]), f"{first}/{letter}{perms(o['mode'])}",
                    str(o["uid"]), str(o["gid"]), str(o["size"])] + \
                   [secs(o.get(k), nano) for k in ("atime", "mtime", "ctime", "crtime")]
        c.check(got[0] == want, f"body {'|'.join(got[0])}, the record {'|'.join(want)}")
    c.check(not lines, f"lines without a record: {list(lines)[:5]}")
    return c.done(f"{len(recs)} records")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("dfxml", "body"):
        sys.exit(__doc__)
    return (mode_dfxml if sys.argv[1] == "dfxml" else mode_body)(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
