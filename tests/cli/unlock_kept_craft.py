#!/usr/bin/env python3
"""Hostile edits of an extract --keep-locked export (tests/cli/unlock_kept.sh).

  unlock_kept_craft.py EXPORT tamper   flip a byte of the first kept file's
                                       ciphertext (its sidecar's SHA-256 stays)
  unlock_kept_craft.py EXPORT units    the first kept file's data units run far
                                       past its i_size (its SHA-256 still right)
  unlock_kept_craft.py EXPORT name     the first stored name of a locked directory
                                       replaced by 15 bytes (too short), and a forged
                                       "plain_hex" ("../../escape") beside it
  unlock_kept_craft.py EXPORT context  the first kept file's context_hex garbled
  unlock_kept_craft.py EXPORT overlap  the first kept file's data units given twice
                                       (each in range: work would be runs x blocks)
  unlock_kept_craft.py EXPORT c1name   as name, and the entry's file in the export
                                       renamed with U+009B (CSI, a C1 control) in it:
                                       the message naming it must not carry the byte
  unlock_kept_craft.py EXPORT dirsonly every kept file and symlink (entries with a
                                       sidecar) removed: only locked directories stay
  unlock_kept_craft.py EXPORT nonobject  null, 1 and "x" added to the entries of
                                       the first locked directory (json-c asserts
                                       on an object call on them)
Prints the inode number of what it changed.

  unlock_kept_craft.py OUT kept INODE  OUT (unlock-kept's) keeps inode INODE:
                                       an entry of a %e4dump-dir.json names it,
                                       its file (and its sidecar) are there
"""
import json, os, sys

root, what = sys.argv[1], sys.argv[2]


def dir_files():
    for d, dirs, files in sorted(os.walk(root)):
        dirs.sort()
        if "%e4dump-dir.json" in files:
            yield d, json.load(open(os.path.join(d, "%e4dump-dir.json")))


def first_kept_file():
    for d, j in dir_files():
        for e in j["entries"]:
            if "sidecar" in e and os.path.isfile(os.path.join(d, e["name"])) and \
                    not os.path.islink(os.path.join(d, e["name"])) and \
                    os.path.getsize(os.path.join(d, e["name"])) > 0:
                return d, e
    sys.exit("no kept file")


if what in ("tamper", "units", "context", "overlap"):
    d, e = first_kept_file()
    path = os.path.join(d, e["name"])
    if what == "tamper":
        with open(path, "r+b") as f:
            b = f.read(1)
            f.seek(0)
            f.write(bytes([b[0] ^ 1]))
    else:
        sp = os.path.join(d, e["sidecar"])
        s = json.load(open(sp))
        if what == "units":
            s["decrypt_later"]["data_units"] = [[0, 1 << 40]]
        elif what == "overlap":
            s["decrypt_later"]["data_units"] = s["decrypt_later"]["data_units"] * 2
        else:
            s["decrypt_later"]["context_hex"] = "07" + s["decrypt_later"]["context_hex"][2:]
        json.dump(s, open(sp, "w"))
    print(e["inode"])
elif what == "kept":
    ino = int(sys.argv[3])
    for d, j in dir_files():
        for e in j["entries"]:
            if e["inode"] == ino and os.path.lexists(os.path.join(d, e["name"])) and \
                    ("sidecar" not in e or os.path.isfile(os.path.join(d, e["sidecar"]))):
                print(os.path.relpath(os.path.join(d, e["name"]), root))
                sys.exit(0)
    sys.exit("inode %d is not kept" % ino)
elif what == "name":
    for d, j in dir_files():
        if j["names_locked"] and j["entries"]:
            e = j["entries"][0]
            e["raw_name_hex"] = "41" * 15  # shorter than any stored name
            e["plain_hex"] = b"../../escape".hex()
            json.dump(j, open(os.path.join(d, "%e4dump-dir.json"), "w"))
            print(e["inode"])
            break
elif what == "c1name":
    for d, j in dir_files():
        if j["names_locked"] and j["entries"]:
            e = j["entries"][0]
            new = e["name"] + "\u009b[31m"
            os.rename(os.path.join(d, e["name"]), os.path.join(d, new))
            e["name"] = new
            e["name_hex"] = new.encode().hex()
            e["raw_name_hex"] = "41" * 15
            e.pop("plain_hex", None)
            json.dump(j, open(os.path.join(d, "%e4dump-dir.json"), "w"))
            print(e["inode"])
            break
elif what == "dirsonly":
    for d, j in list(dir_files()):
        keep = []
        for e in j["entries"]:
            if "sidecar" in e:
                os.unlink(os.path.join(d, e["name"]))
                os.unlink(os.path.join(d, e["sidecar"]))
            else:
                keep.append(e)
        j["entries"] = keep
        json.dump(j, open(os.path.join(d, "%e4dump-dir.json"), "w"))
    print(0)
elif what == "nonobject":
    for d, j in dir_files():
        if j["names_locked"] and j["entries"]:
            j["entries"] += [None, 1, "x"]
            json.dump(j, open(os.path.join(d, "%e4dump-dir.json"), "w"))
            print(j["entries"][0]["inode"])
            break
else:
    sys.exit("unknown edit " + what)
