#!/usr/bin/python3
"""The module's journal() and deleted() on deletions Linux 6.1 made in
QEMU (vm/scenarios/undelete-{a,b}.scn, made or reused by
vm/make-image.sh --cache; label vm).  Expected values come from the
guest's manifest and from debugfs on the final image, through the
checkers the CLI's tests use (tests/vm/undelete_check.py,
tests/vm/check_extract.py), never from e4dump:

- a (everything still in the journal): every deleted file, symlink and
  directory is found by its decrypted path with its inode and type, and
  the files recover() rebuilds are the guest's bytes (into memory, into
  a seekable file, into a pipe-like writer that gets holes as zeros);
  without the keys the files raise NoKeyError, and locked=True gives
  their ciphertext; Journal.transactions() lists every block copy and
  revoke debugfs logdump shows, and read_copy() gives the journal's own
  bytes (debugfs cat <8>);
- b (freed blocks allocated again): a file with a reused block has
  exactly those logical blocks as suspects, the others are exact;
- a Deleted keeps its journal, and the journal its filesystem: recovery
  works after FS.close(), not after Journal.close().

The module's Deleted objects are handed to undelete_check.py as the
JSON lines it reads from `e4dump undelete --json`, with the verdict
undelete gives (exact: no suspect range, nothing else in doubt).

usage: test_journal.py WORKDIR     (PYTHONPATH: the build's python/)"""
import glob
import io
import json
import os
import shutil
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main as common_main, e4dump, top  # noqa: E402
sys.path.insert(0, os.path.join(top, "tests", "vm"))
import undelete_check  # noqa: E402

WORK = None


def scenario(sc):
    """The image of undelete-SC.scn (cached), its manifest and key files."""
    d = os.path.join(WORK, sc)
    os.makedirs(d, exist_ok=True)
    img = os.path.join(d, "image.img")
    log = os.path.join(d, "make.log")
    env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
    with open(log, "wb") as f:
        r = subprocess.run(["bash", os.path.join(top, "vm/make-image.sh"), "--cache",
                            os.path.join(top, f"vm/scenarios/undelete-{sc}.scn"), img],
                           stdout=f, stderr=subprocess.STDOUT, env=env)
    if r.returncode:
        with open(log, "rb") as f:
            raise RuntimeError(f.read()[-1500:].decode("utf-8", "replace"))
    keys = sorted(glob.glob(os.path.join(d, "keys", "*.key")))
    assert keys, "no key file written by make-image.sh"
    return d, img, img + ".manifest", keys


def verdict(d, rec):
    """undelete's verdict word for what the module found (the shape
    undelete_check.py reads)."""
    if d.still_in_use:
        return "still in use"
    if not d.recoverable:
        return "not recovered"
    doubt = (d.orphan or not d.inode_committed or d.name_state in ("bad", "no-key")
             or (rec is not None and rec.suspects))
    return "partial" if doubt else "exact"


def dump(fs, out, jsonl):
    """Recover every deleted entry into out (laid out as the image root),
    one JSON line each into jsonl; the Deleted list."""
    shutil.rmtree(out, ignore_errors=True)
    found = list(fs.deleted("/"))
    with open(jsonl, "w") as j:
        for d in found:
            dest = os.path.join(os.fsencode(out), d.raw_path.lstrip(b"/"))
            rec = None
            o = {"type": "deleted", "path": d.path, "inode": d.inode,
                 "file_type": d.file_type, "name_state": d.name_state, "size": d.size}
            if d.recoverable:
                os.makedirs(os.path.dirname(dest), exist_ok=True)
                if d.file_type == "regular":
                    with open(dest, "wb") as f:
                        rec = d.recover(f)
                    o["suspect"] = [{"lblk": a, "count": n, "why": w}
                                    for a, n, w in rec.suspects]
                elif d.file_type == "symlink":
                    t = d.readlink()
                    os.symlink(t, dest)
                    o["target"] = os.fsdecode(t)
                elif d.file_type == "directory":
                    os.makedirs(dest, exist_ok=True)
            o["verdict"] = verdict(d, rec)
            j.write(json.dumps(o) + "\n")
    return found


def check(tc, *args):
    r = subprocess.run([sys.executable, *args], capture_output=True, text=True)
    tc.assertEqual(r.returncode, 0, (r.stdout + r.stderr)[-3000:])
    print("\n" + r.stdout.strip().splitlines()[-1], flush=True)


class DeletedA(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.dir, cls.img, cls.man, cls.keys = scenario("a")

    def test_exact(self):
        out = os.path.join(self.dir, "rec")
        jsonl = out + ".jsonl"
        with e4dump.open(self.img, key_files=self.keys, diag=False) as fs:
            found = dump(fs, out, jsonl)
        self.assertTrue(any(d.file_type == "regular" for d in found))
        check(self, os.path.join(top, "tests/vm/undelete_check.py"), "exact", self.man,
              jsonl, out)
        check(self, os.path.join(top, "tests/vm/check_extract.py"), "-q", "--removed-only",
              self.man, out)

    def test_writers_agree(self):
        # holes: in memory, by seeking in a file, and as zeros written to
        # a writer that cannot seek
        class Pipe:
            def __init__(self):
                self.b = bytearray()

            def write(self, data):
                self.b += data
                return len(data)

        with e4dump.open(self.img, key_files=self.keys, diag=False) as fs:
            files = [d for d in fs.deleted() if d.recoverable and d.file_type == "regular"]
            self.assertTrue(files)
            for d in files:
                mem = d.recover()
                self.assertEqual(len(mem.data), d.size, d.path)
                self.assertEqual(mem.size, d.size)
                self.assertFalse(mem.locked)
                self.assertTrue(mem.runs, d.path)
                p = Pipe()
                self.assertIsNone(d.recover(p).data)
                self.assertEqual(bytes(p.b), mem.data, d.path)
                bio = io.BytesIO(b"prefix")
                bio.seek(0, 2)
                d.recover(bio)
                self.assertEqual(bio.getvalue(), b"prefix" + mem.data, d.path)
                self.assertEqual(d.read(), mem.data)

    def test_without_key(self):
        with e4dump.open(self.img, diag=False) as fs:
            found = list(fs.deleted())
            files = [d for d in found if d.recoverable and d.file_type == "regular"]
            self.assertTrue(files)
            self.assertTrue(all(d.name_state == "no-key" for d in found
                                if d.encrypted), [d.path for d in found])
            for d in files:
                self.assertTrue(d.locked)
                with self.assertRaises(e4dump.NoKeyError):
                    d.recover()
                r = d.recover(locked=True)
                self.assertTrue(r.locked)
                self.assertGreaterEqual(len(r.data), d.size)
            with e4dump.open(self.img, key_files=self.keys, diag=False) as fs2:
                plain = {d.inode: d.read() for d in fs2.deleted()
                         if d.recoverable and d.file_type == "regular"}
            for d in files:
                if d.size >= 16:
                    # ciphertext, not the plaintext
                    self.assertNotEqual(d.read(locked=True)[:d.size], plain[d.inode])

    def test_journal_against_debugfs(self):
        theirs, trevoked = undelete_check.debugfs_logdump(self.img)
        self.assertTrue(theirs, "debugfs logdump shows no block copy")
        jcat = subprocess.run(["debugfs", "-R", "cat <8>", self.img], capture_output=True,
                              check=True).stdout
        with e4dump.open(self.img, diag=False) as fs, fs.journal() as j:
            info = j.info()
            bs = info["block_size"]
            self.assertEqual(len(jcat), info["blocks"] * bs)
            ts = j.transactions()
            self.assertEqual(len(ts), info["transactions"])
            mine = {(t.sequence, c.block, c.journal_block) for t in ts for c in t.blocks}
            revoked = {(t.sequence, b) for t in ts for b in t.revoked}
            self.assertLessEqual(theirs, mine)
            self.assertLessEqual(trevoked, revoked)
            n = 0
            for t in ts:
                for c in t.blocks:
                    got = j.read_copy(c)
                    want = jcat[c.journal_block * bs:(c.journal_block + 1) * bs]
                    if c.escaped:
                        self.assertEqual(got[4:], want[4:])
                        self.assertEqual(got[:4], b"\xc0\x3b\x39\x98")
                    else:
                        self.assertEqual(got, want, (t.sequence, c))
                    n += 1
            self.assertEqual(n, info["copies"])
            with self.assertRaises(IndexError):
                j.read_copy(info["copies"])

    def test_lifetimes(self):
        fs = e4dump.open(self.img, key_files=self.keys, diag=False)
        j = fs.journal()
        d = next(d for d in j.deleted() if d.recoverable and d.file_type == "regular")
        want = d.read()
        fs.close()
        self.assertEqual(d.read(), want)     # the journal keeps the filesystem
        with self.assertRaises(ValueError):
            fs.journal()
        j.close()
        with self.assertRaises(ValueError):
            d.read()


class DeletedB(unittest.TestCase):
    def test_reuse(self):
        d, img, man, keys = scenario("b")
        out = os.path.join(d, "rec")
        jsonl = out + ".jsonl"
        with e4dump.open(img, key_files=keys, diag=False) as fs:
            dump(fs, out, jsonl)
        check(self, os.path.join(top, "tests/vm/undelete_check.py"), "reuse", man, jsonl,
              out, img)


if __name__ == "__main__":
    WORK = os.path.abspath(sys.argv.pop(1))
    os.makedirs(WORK, exist_ok=True)
    common_main(WORK)
