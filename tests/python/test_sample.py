#!/usr/bin/python3
"""The Python module e4dump on the bundled kernel-written sample
(testvectors/sample): the tree and every file against the kernel's
manifest, read from a path, through a Python file object and through an
E01 read by pyewf; random access; no-key names and lookups; errors,
diagnostics, closing order; threads.

usage: test_sample.py WORKDIR   (PYTHONPATH: the build's python/)"""
import hashlib
import io
import logging
import os
import random
import shutil
import subprocess
import sys
import threading
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import (main as common_main, SAMPLE_DIR, SAMPLE_KEY, SAMPLE_MANIFEST, check_against_manifest,  # noqa: E402
                    check_extract, e4dump, expected_tree)

WORK = None
IMG = None


def setUpModule():
    global IMG
    os.makedirs(WORK, exist_ok=True)
    IMG = os.path.join(WORK, "sample.img")
    with open(IMG, "wb") as out:
        subprocess.run(["xz", "-dc", os.path.join(SAMPLE_DIR, "sample.img.xz")],
                       stdout=out, check=True)


def expected_files():
    """{raw path: expected bytes} of the manifest's regular files."""
    cache = {}
    return {p: check_extract.expected_content(m, cache)
            for p, m in expected_tree(SAMPLE_MANIFEST).items() if m.type == "f"}


class Manifest(unittest.TestCase):
    def test_path(self):
        with e4dump.open(IMG, key_files=[SAMPLE_KEY]) as fs:
            self.assertEqual(check_against_manifest(self, fs, SAMPLE_MANIFEST), 16)

    def test_key_as_bytes(self):
        with open(SAMPLE_KEY, "rb") as f:
            key = bytearray(f.read())
        if all(c in b"0123456789abcdefABCDEF \n" for c in key):
            key = bytearray(bytes.fromhex(key.decode()))
        with e4dump.open(IMG, keys=[key]) as fs:
            key[:] = bytes(len(key))      # the caller wipes its own copy
            check_against_manifest(self, fs, SAMPLE_MANIFEST)
            pol = fs.policies()
            self.assertEqual(len(pol), 1)
            self.assertEqual(pol[0]["state"], "decrypted")
            self.assertEqual(pol[0]["key"], "keys[0]")
            self.assertEqual(pol[0]["key_index"], 0)

    def test_file_object(self):
        """A Python file object (a BufferedReader over the image) as the
        source: the same tree and bytes."""
        with io.open(IMG, "rb") as raw, e4dump.open(raw, key_files=[SAMPLE_KEY]) as fs:
            check_against_manifest(self, fs, SAMPLE_MANIFEST)
            self.assertEqual(fs.info()["container"], "raw")

    def test_e01_through_pyewf(self):
        """An E01 of the image (ewfacquire) read by pyewf (python3-libewf)
        as a Python file object: the module reads through that layer and
        gives the manifest's bytes."""
        try:
            import pyewf
        except ImportError:
            self.skipTest("pyewf (python3-libewf) is not installed")
        if not shutil.which("ewfacquire"):
            self.skipTest("ewfacquire (ewf-tools) is not installed")
        base = os.path.join(WORK, "sample-e01")
        for f in os.listdir(WORK):
            if f.startswith("sample-e01."):
                os.unlink(os.path.join(WORK, f))
        subprocess.run(["ewfacquire", "-u", "-q", "-t", base, "-f", "encase6",
                        "-c", "deflate:fast", "-C", "case-32", "-E", "ev-32",
                        "-e", "examiner", "-D", "sample", "-N", "python", IMG],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        h = pyewf.handle()
        h.open(pyewf.glob(base + ".E01"))
        try:
            self.assertEqual(h.get_media_size(), os.path.getsize(IMG))
            with e4dump.open(h, key_files=[SAMPLE_KEY], size=h.get_media_size()) as fs:
                check_against_manifest(self, fs, SAMPLE_MANIFEST)
        finally:
            h.close()
        # and the E01 by path: libewf inside the library
        with e4dump.open(base + ".E01", key_files=[SAMPLE_KEY]) as fs:
            self.assertEqual(fs.info()["container"], "EWF")
            check_against_manifest(self, fs, SAMPLE_MANIFEST)


class RandomAccess(unittest.TestCase):
    def test_unaligned(self):
        rnd = random.Random(32)
        files = expected_files()
        with e4dump.open(IMG, key_files=[SAMPLE_KEY]) as fs:
            for p, exp in files.items():
                with fs.open(b"/" + p) as f:
                    self.assertEqual(f.size, len(exp))
                    for _ in range(200):
                        off = rnd.randrange(0, len(exp) + 40)
                        n = rnd.randrange(0, 5000)
                        self.assertEqual(f.pread(off, n), exp[off:off + n], (p, off, n))
                        f.seek(off)
                        self.assertEqual(f.tell(), off)
                        self.assertEqual(f.read(n), exp[off:off + n])
                        self.assertEqual(f.tell(), min(off + n, max(off, len(exp))))
                        buf = bytearray(n)
                        f.seek(off)
                        got = f.readinto(buf)
                        self.assertEqual(bytes(buf[:got]), exp[off:off + n])
                    f.seek(-7, io.SEEK_END)
                    self.assertEqual(f.read(), exp[-7:])
                    f.seek(3)
                    f.seek(5, io.SEEK_CUR)
                    self.assertEqual(f.read(11), exp[8:19])
                    # io's buffered layer on top works too
                    f.seek(0)
                    self.assertEqual(io.BufferedReader(f, 1000).read(), exp)

    def test_ciphertext(self):
        """raw=True gives the stored bytes: not the plaintext, same size,
        and readable without a key."""
        files = expected_files()
        with e4dump.open(IMG, key_files=[SAMPLE_KEY]) as fs:
            with fs.open("/secret/hello.txt", raw=True) as f:
                ct = f.read()
        exp = files[b"secret/hello.txt"]
        self.assertEqual(len(ct), len(exp))
        self.assertNotEqual(ct, exp)
        with e4dump.open(IMG, key_files=[SAMPLE_KEY]) as fs:
            ino = fs.lookup("/secret/hello.txt")
        with e4dump.open(IMG, diag=False) as fs:
            e = fs.stat(ino)
            self.assertTrue(e.locked)
            with fs.open(e, raw=True) as f:
                self.assertEqual(f.read(), ct)


class NoKey(unittest.TestCase):
    def test_locked_tree(self):
        with e4dump.open(IMG, diag=False) as fs:
            secret = [e for e in fs.walk("/secret")][1:]
            self.assertEqual(len(secret), 7)
            for e in secret:
                self.assertEqual(e.name_state, "no-key", e.path)
                self.assertTrue(e.locked)
                self.assertEqual(e.encryption["state"], "locked")
                self.assertIsNone(e.encryption["key"])
                self.assertEqual(len(e.nonce), 32)
                # lookups by no-key name
                self.assertEqual(fs.stat(e.raw_path).inode, e.inode)
                if e.is_file():
                    with self.assertRaises(e4dump.NoKeyError) as cm:
                        fs.open(e.raw_path)
                    self.assertEqual(cm.exception.status, e4dump.Status.NO_KEY)
                    self.assertIsInstance(cm.exception, PermissionError)
                if e.is_symlink():
                    self.assertEqual(fs.readlink(e), e.target)
                    self.assertEqual(e.size, len(e.target))
            self.assertEqual(fs.policies()[0]["state"], "locked")

    def test_nokey_names_with_key(self):
        """With the key, a path of no-key names finds the same inodes (as
        the kernel's lookup does)."""
        with e4dump.open(IMG, diag=False) as fs:
            nokey = {e.inode: e.raw_path for e in fs.walk("/secret")}
        with e4dump.open(IMG, key_files=[SAMPLE_KEY]) as fs:
            for ino, p in nokey.items():
                self.assertEqual(fs.lookup(p), ino, p)
                self.assertEqual(fs.stat(p).inode, ino)

    def test_wrong_key(self):
        with e4dump.open(IMG, keys=[bytes(range(64))], diag=False) as fs:
            pol = fs.policies()[0]
            self.assertEqual(pol["state"], "locked")
            self.assertTrue(all(e.name_state == "no-key" for e in list(fs.walk("/secret"))[1:]))


class Errors(unittest.TestCase):
    def test_statuses(self):
        with e4dump.open(IMG, key_files=[SAMPLE_KEY], diag=False) as fs:
            with self.assertRaises(e4dump.NotFoundError) as cm:
                fs.stat("/secret/none")
            self.assertIsInstance(cm.exception, FileNotFoundError)
            self.assertEqual(cm.exception.status, e4dump.Status.NOT_FOUND)
            self.assertIn("none", str(cm.exception))
            with self.assertRaises(e4dump.InvalidError):
                fs.open("/secret")
            with self.assertRaises(e4dump.InvalidError):
                fs.readlink("/secret/hello.txt")
            with self.assertRaises(e4dump.NotADirError):
                fs.listdir("/secret/hello.txt")
            with self.assertRaises(e4dump.Error) as cm:
                fs.stat(10 ** 9)
            self.assertEqual(cm.exception.status, e4dump.Status.INVALID)
        with self.assertRaises(e4dump.BadKeyError) as cm:
            e4dump.open(IMG, keys=[b"short"])
        self.assertEqual(cm.exception.status, e4dump.Status.BAD_KEY)
        with self.assertRaises(e4dump.Error) as cm:
            e4dump.open(os.path.join(WORK, "absent.img"), diag=False)
        self.assertEqual(cm.exception.status, e4dump.Status.IO)
        with self.assertRaises(e4dump.NotFoundError) as cm:
            e4dump.open(io.BytesIO(bytes(1 << 20)), diag=False)
        self.assertIn("no ext4 superblock", str(cm.exception))

    def test_source_exception_is_the_cause(self):
        class Failing(io.BytesIO):
            def read(self, n=-1):
                raise OSError(5, "the evidence drive failed")
        with self.assertRaises(e4dump.Error) as cm:
            e4dump.open(Failing(bytes(1 << 20)), diag=False)
        self.assertIsInstance(cm.exception.__cause__, OSError)

    def test_diagnostics(self):
        got = []
        with e4dump.open(IMG, key_files=[SAMPLE_KEY], diag=got.append) as fs:
            list(fs.walk())
            with self.assertRaises(e4dump.NotFoundError):
                fs.stat("/plain/none")
        self.assertTrue(any(d.level == e4dump.Level.INFO and "opens" in d.message
                            for d in got), got)
        self.assertTrue(any(d.level == e4dump.Level.ERROR and d.status ==
                            e4dump.Status.NOT_FOUND for d in got), got)
        with self.assertLogs("e4dump", logging.INFO) as cm:
            with e4dump.open(IMG, key_files=[SAMPLE_KEY]) as fs:
                list(fs.walk())
        self.assertTrue(any("opens" in m for m in cm.output), cm.output)

    def test_reentry_refused(self):
        seen = []
        box = {}

        def diag(d):
            try:
                box["fs"].info()
            except Exception as exc:   # noqa: BLE001
                seen.append(type(exc))
        with e4dump.open(IMG, key_files=[SAMPLE_KEY], diag=diag) as fs:
            box["fs"] = fs
            list(fs.walk())
        self.assertIn(RuntimeError, seen)


class Lifetime(unittest.TestCase):
    def test_close_with_open_files(self):
        exp = expected_files()[b"secret/sub/nested file.bin"]
        fs = e4dump.open(IMG, key_files=[SAMPLE_KEY])
        f = fs.open("/secret/sub/nested file.bin")
        e = fs.stat("/secret/hello.txt")
        fs.close()
        self.assertTrue(fs.closed)
        with self.assertRaises(ValueError):
            fs.stat("/")
        with self.assertRaises(ValueError):
            e.xattrs
        self.assertEqual(f.read(), exp)      # the close waits for the file
        f.close()
        with self.assertRaises(ValueError):
            f.read()
        del fs
        self.assertEqual(e.size, 100)        # an Entry outlives it

    def test_close_while_threads_call(self):
        """fs.close() in one thread while others walk and stat: each call
        either answers or raises ValueError (closed); nothing crashes."""
        fs = e4dump.open(IMG, key_files=[SAMPLE_KEY])
        bad = []

        def work():
            try:
                while True:
                    for e in fs.walk():
                        fs.stat(e.inode)
            except ValueError:
                pass
            except Exception as exc:   # noqa: BLE001
                bad.append(repr(exc))
        ts = [threading.Thread(target=work) for _ in range(4)]
        for t in ts:
            t.start()
        import time
        time.sleep(0.2)
        fs.close()
        for t in ts:
            t.join()
        self.assertEqual(bad, [])

    def test_file_keeps_fs(self):
        exp = expected_files()[b"secret/hello.txt"]
        f = e4dump.open(IMG, key_files=[SAMPLE_KEY]).open("/secret/hello.txt")
        import gc
        gc.collect()
        self.assertEqual(f.read(), exp)
        f.close()

    def test_entry_fields(self):
        with e4dump.open(IMG, key_files=[SAMPLE_KEY]) as fs:
            e = fs.stat("/secret/link")
            r = e.record()
            self.assertEqual(r["type"], "entry")
            self.assertEqual(r["file_type"], "symlink")
            self.assertEqual(r["target"], "hello.txt")
            self.assertEqual(r["encryption"]["flags"], ["PAD_32"])
            self.assertRegex(r["mtime"], r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}Z$")
            self.assertEqual(e.mtime_ns, 1610005000 * 10 ** 9)
            self.assertIn("ENCRYPT", e.flags)
            self.assertEqual(e.xattrs, {})
            self.assertEqual(fs.listdir("/plain"), ["empty", "hello.txt", "link", "sub",
                                                    "日本.txt"])
            self.assertEqual(fs.stat(2).path, "<2>")
            self.assertTrue(fs.stat("/").is_dir())


class Threads(unittest.TestCase):
    def test_eight_threads(self):
        """8 threads, each with its own File objects, read every file
        again and again; all bytes right (speed: tests/python/test_vm.py)."""
        files = expected_files()
        errors = []
        with e4dump.open(IMG, key_files=[SAMPLE_KEY]) as fs:
            shared = fs.open("/secret/sub/nested file.bin")

            def work(k):
                rnd = random.Random(k)
                try:
                    for _ in range(30):
                        for p, exp in files.items():
                            with fs.open(b"/" + p) as f:
                                if f.read() != exp:
                                    errors.append(p)
                        off = rnd.randrange(5000)
                        if shared.pread(off, 999) != files[b"secret/sub/nested file.bin"][off:off + 999]:
                            errors.append("shared")
                except Exception as exc:   # noqa: BLE001
                    errors.append(repr(exc))
            ts = [threading.Thread(target=work, args=(k,)) for k in range(8)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
            shared.close()
        self.assertEqual(errors, [])

    def test_threads_over_file_object(self):
        """A Python file object is read in one thread at a time: still right."""
        files = expected_files()
        errors = []
        with io.open(IMG, "rb") as raw, e4dump.open(raw, key_files=[SAMPLE_KEY]) as fs:
            def work():
                for _ in range(10):
                    for p, exp in files.items():
                        with fs.open(b"/" + p) as f:
                            if f.read() != exp:
                                errors.append(p)
            ts = [threading.Thread(target=work) for _ in range(8)]
            for t in ts:
                t.start()
            for t in ts:
                t.join()
        self.assertEqual(errors, [])


if __name__ == "__main__":
    WORK = os.path.abspath(sys.argv.pop(1))
    common_main(WORK)
