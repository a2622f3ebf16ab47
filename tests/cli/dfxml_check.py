#!/usr/bin/env python3
"""extract --dfxml against --manifest: every fileobject of the DFXML
(fiwalk's elements: filename, inode, filesize, the four times, hashdigest
md5/sha1/sha256, e4dump:ciphertext_sha256, e4dump:unreadable_blocks, e4dump:hashes_of) is a
row of the manifest and every row is one fileobject; the document names
its creator and source.
usage: dfxml_check.py DFXML MANIFEST"""
import csv
import sys
import xml.etree.ElementTree as ET

NS = {"d": "http://www.forensicswiki.org/wiki/Category:Digital_Forensics_XML",
      "e": "https://e4dump.invalid/dfxml"}


def text(fo, tag, default="-"):
    el = fo.find(tag, NS)
    return el.text if el is not None and el.text is not None else default


def main():
    root = ET.parse(sys.argv[1]).getroot()
    assert root.tag == "{%s}dfxml" % NS["d"], root.tag
    assert text(root, "d:creator/d:program") == "e4dump"
    assert text(root, "d:source/d:image_filename") != "-"
    got = set()
    for fo in root.findall("d:fileobject", NS):
        hashes = {h.get("type"): h.text for h in fo.findall("d:hashdigest", NS)}
        assert text(fo, "d:name_type") == "r"
        got.add((text(fo, "d:filename"), text(fo, "d:inode"), text(fo, "d:filesize"),
                 hashes.get("md5", "-"), hashes.get("sha1", "-"), hashes.get("sha256", "-"),
                 text(fo, "e:ciphertext_sha256"),
                 text(fo, "d:atime"), text(fo, "d:mtime"), text(fo, "d:ctime"),
                 text(fo, "d:crtime"), text(fo, "e:unreadable_blocks"),
                 text(fo, "e:hashes_of", "plaintext")))
    with open(sys.argv[2], newline="") as f:
        rows = list(csv.reader(f, delimiter="\t", quoting=csv.QUOTE_NONE))
    assert rows[0][11:] == ["unreadable", "hashes_of"], rows[0]
    want = set(tuple(r) for r in rows[1:])
    if got != want or not want:
        print("only in DFXML:", sorted(got - want))
        print("only in the manifest:", sorted(want - got))
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
