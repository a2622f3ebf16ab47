#!/usr/bin/env python3
"""A large extract --keep-locked export made from a small one, fast (no
image, no QEMU), for the memory bound of unlock-kept (tests/cli/unlock_kept.sh).

  unlock_kept_many.py EXPORT OUT NDIRS NENTRIES
  unlock_kept_many.py EXPORT OUT dups N
EXPORT: a real export holding a locked directory (its first %e4dump-dir.json
with names_locked is the template: its context, inode, times).  OUT gets
EXPORT's %e4dump-export.json and NDIRS locked directories d00000..., each
with a %e4dump-dir.json of NENTRIES stored names of 32 random bytes (as a
PAD_32 policy stores them; they do not decrypt with the key: each directory
stays kept, its names the stored ones).  With dups: one locked directory
"d" of N empty files whose entries all store the one encrypted name (and
inode) of the template's first regular file: N names that decrypt to one
name, each to be made unique in OUT.
"""
import json
import os
import shutil
import sys

src, out = sys.argv[1], sys.argv[2]
template = None
for d, dirs, files in sorted(os.walk(src)):
    dirs.sort()
    if "%e4dump-dir.json" in files:
        j = json.load(open(os.path.join(d, "%e4dump-dir.json")))
        if j.get("names_locked"):
            template = j
            break
if template is None:
    sys.exit("no locked directory in " + src)
os.makedirs(out)
shutil.copyfile(os.path.join(src, "%e4dump-export.json"), os.path.join(out, "%e4dump-export.json"))
if sys.argv[3] == "dups":
    e0 = next(e for e in template["entries"] if e.get("file_type") == "regular")
    d = os.path.join(out, "d")
    os.mkdir(d)
    ents = []
    for i in range(int(sys.argv[4])):
        name = "f%06d" % i
        open(os.path.join(d, name), "w").close()
        ents.append({"name": name, "name_hex": name.encode().hex(), "inode": e0["inode"],
                     "file_type": "regular", "name_state": e0["name_state"],
                     "raw_name_hex": e0["raw_name_hex"]})
    j = dict(template)
    j["path"] = "/d"
    j["entries"] = ents
    with open(os.path.join(d, "%e4dump-dir.json"), "w") as f:
        json.dump(j, f)
    sys.exit(0)
ndirs, nents = int(sys.argv[3]), int(sys.argv[4])
rnd = open("/dev/urandom", "rb")
for i in range(ndirs):
    d = os.path.join(out, "d%05d" % i)
    os.mkdir(d)
    ents = []
    for k in range(nents):
        raw = rnd.read(32)
        name = "n%05d_%03d" % (i, k)
        ents.append({"name": name, "name_hex": name.encode().hex(), "inode": 1000 + k,
                     "file_type": "regular", "name_state": "no-key",
                     "raw_name_hex": raw.hex(), "hash": k * 2, "minor_hash": 0})
    j = dict(template)
    j["path"] = "/d%05d" % i
    j["entries"] = ents
    with open(os.path.join(d, "%e4dump-dir.json"), "w") as f:
        json.dump(j, f)
