#!/usr/bin/env python3
"""Check `e4dump stat` against debugfs (e2fsprogs) for each PATH.

usage: stat_check.py E4DUMP IMAGE KEY PATH...

For each PATH (decrypted names; the same inode is given to debugfs by the
number e4dump prints): inode, mode, uid, gid, links, flags, generation,
the four timestamps (debugfs's raw seconds:extra, decoded here: nsec =
extra >> 2, epoch bits = extra & 3), size (i_size; for symlinks the
target's length, which must be what e4dump cat prints), the extents, and
the encryption context (debugfs's raw "c" xattr: version, modes, flags,
descriptor or identifier, nonce).  Prints one line per mismatch; exit 1 if
any.
"""
import datetime
import re
import subprocess
import sys


def run(argv):
    return subprocess.run(argv, capture_output=True, check=False)


def iso(sec, extra):
    if sec >= 1 << 31:
        sec -= 1 << 32  # i_*time is signed (ext4_decode_extra_time)
    sec += (extra & 3) << 32
    t = datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + \
        datetime.timedelta(seconds=sec)
    return t.strftime("%Y-%m-%dT%H:%M:%S") + ".%09dZ" % (extra >> 2)


def main(argv):
    e4dump, image, key, paths = argv[0], argv[1], argv[2], argv[3:]
    bad = 0

    def fail(msg):
        nonlocal bad
        bad += 1
        print("FAIL:", msg)

    for path in paths:
        r = run([e4dump, "stat", "--key-file", key, image, path])
        if r.returncode != 0:
            fail(f"{path}: e4dump stat exit {r.returncode}: {r.stderr.decode()[:200]}")
            continue
        out = r.stdout.decode()
        got = dict(re.findall(r"^([a-z -]+): (.*)$", out, re.M))
        ino = got.get("inode")
        d = run(["debugfs", "-R", f"stat <{ino}>", image]).stdout.decode()
        m = re.search(r"Inode: (\d+)\s+Type: (\S+)\s+Mode:\s+(\d+)\s+Flags: (0x[0-9a-f]+)", d)
        want = {
            "inode": m.group(1),
            "mode": "%04o" % int(m.group(3), 8),
            "flags": "0x%08x" % int(m.group(4), 16),
            "generation": re.search(r"Generation: (\d+)", d).group(1),
            "uid": re.search(r"User:\s+(\d+)", d).group(1),
            "gid": re.search(r"Group:\s+(\d+)", d).group(1),
            "links": re.search(r"Links: (\d+)", d).group(1),
        }
        for t in ("atime", "mtime", "ctime", "crtime"):
            tm = re.search(r"^\s*%s: 0x([0-9a-f]+):([0-9a-f]+)" % t, d, re.M)
            want[t] = iso(int(tm.group(1), 16), int(tm.group(2), 16))
        size = int(re.search(r"Size: (\d+)", d).group(1))
        if m.group(2) == "symlink":
            target = run([e4dump, "cat", "--key-file", key, image, path]).stdout
            want["size"] = str(len(target))
            if int(got.get("size", -1)) != len(target):
                fail(f"{path}: size {got.get('size')} is not the target's length {len(target)}")
        else:
            want["size"] = str(size)
        for k, v in want.items():
            have = got.get(k, "")
            if k == "flags":
                have = have.split(" ")[0]
            if have != v:
                fail(f"{path}: {k}: e4dump says {have!r}, debugfs {v!r}")
        ext = re.search(r"EXTENTS:\n(.*)", d)
        if ext:
            runs = []
            for a, b, c, e in re.findall(r"\((\d+)(?:-(\d+))?\):(\d+)(?:-(\d+))?", ext.group(1)):
                runs.append((int(a), int(b or a), int(c), int(e or c)))
            have = [tuple(map(int, x)) for x in
                    re.findall(r"^  (\d+)-(\d+) -> (\d+)-(\d+)", out, re.M)]
            if have != runs:
                fail(f"{path}: blocks {have} but debugfs {runs}")
        c = re.search(r"^\s*c \((\d+)\) = ((?:[0-9a-f]{2} )+)", d, re.M)
        if c:
            b = bytes.fromhex(c.group(2).replace(" ", ""))
            idlen = 8 if b[0] == 1 else 16
            ctx = {
                "encryption": f"policy v{b[0] if b[0] == 1 else 2}",
                "contents": f"({b[1]})",
                "filenames": f"({b[2]})",
                "policy flags": "0x%02x" % b[3],
                "descriptor" if idlen == 8 else "identifier": b[4:4 + idlen].hex(),
                "nonce": b[4 + idlen:4 + idlen + 16].hex(),
            }
            for k, v in ctx.items():
                have = got.get("  " + k, got.get(k, ""))
                if v not in have:
                    fail(f"{path}: {k}: e4dump says {have!r}, the xattr {v!r}")
        elif "encryption: none" not in out:
            fail(f"{path}: no context xattr, but e4dump says {got.get('encryption')!r}")
    return 1 if bad else 0


if __name__ == "__main__":
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    sys.exit(main(sys.argv[1:]))
