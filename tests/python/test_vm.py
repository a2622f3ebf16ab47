#!/usr/bin/python3
"""The Python module on images Linux 6.1 wrote in QEMU (label vm):

- vm/scenarios/v2.scn (v2 policies with paddings 16/32, IV_INO_LBLK_64
  and _32, AES-128-CBC-ESSIV; sparse files), made or reused by
  vm/make-image.sh --cache: walking and reading every file through the
  module gives exactly the guest's manifest (tests/python/common.py,
  check_extract's parser and generator);
- the benchmark's image (bench/make-image.sh 0.3, cached: a 230 MiB
  /enc/large.bin, v1 AES-256-XTS, and its plaintext twin /plain/large.bin
  that the same kernel wrote): 8 threads reading /enc/large.bin at once,
  each with its own File, give exactly the bytes debugfs dumps of the
  twin; the time against one thread is printed (no timing is asserted);
- vm/scenarios/passphrase.scn (a v1 key e4crypt derives from a passphrase
  and a salt; the scenario leaves s_encrypt_pw_salt zero), cached: open
  with passphrase= alone (str and bytes) and salt= gives the guest's
  manifest; with the salt set in the superblock of a copy (debugfs, as
  tests/vm/passphrase.sh does), passphrase= alone gives it too; a wrong
  passphrase, or a wrong salt= over the superblock's, opens nothing: the
  walk shows exactly the no-key names the guest's readdir printed
  without the key, every entry locked, fs.open raises NoKeyError; no
  salt anywhere is a ValueError.

usage: test_vm.py WORKDIR     (PYTHONPATH: the build's python/)"""
import glob
import hashlib
import os
import shutil
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main as common_main, check_against_manifest, e4dump, top  # noqa: E402
import check_extract  # noqa: E402  (tests/vm/, on the path through common)

WORK = None


def make(cmd, log):
    with open(log, "wb") as f:
        # the image makers (bash, gcc, QEMU) without the sanitizers'
        # runtimes tests/python/run.sh preloads for the interpreter
        env = {k: v for k, v in os.environ.items() if k != "LD_PRELOAD"}
        r = subprocess.run(cmd, stdout=f, stderr=subprocess.STDOUT, env=env)
    if r.returncode:
        with open(log, "rb") as f:
            tail = f.read()[-1500:].decode("utf-8", "replace")
        raise RuntimeError(f"{cmd[:3]}: {tail}")


class Scenario(unittest.TestCase):
    def test_v2_manifest(self):
        d = os.path.join(WORK, "v2")
        os.makedirs(d, exist_ok=True)
        img = os.path.join(d, "image.img")
        make(["bash", os.path.join(top, "vm/make-image.sh"), "--cache",
              os.path.join(top, "vm/scenarios/v2.scn"), img], os.path.join(d, "make.log"))
        keys = sorted(glob.glob(os.path.join(d, "keys", "*.key")))
        self.assertTrue(keys)
        with e4dump.open(img, key_files=keys, diag=False) as fs:
            n = check_against_manifest(self, fs, img + ".manifest")
            self.assertGreater(n, 20)
            pols = fs.policies()
            self.assertTrue(all(p["state"] == "decrypted" for p in pols), pols)
            self.assertEqual({p["policy_version"] for p in pols}, {2})
        # through a Python file object too
        with open(img, "rb") as raw, e4dump.open(raw, key_files=keys, diag=False) as fs:
            check_against_manifest(self, fs, img + ".manifest")


class Passphrase(unittest.TestCase):
    # tests/vm/passphrase.sh's passphrase and salt (vm/scenarios/passphrase.scn)
    PASS = "e4dump test passphrase"
    SALT = bytes.fromhex("00112233445566778899aabbccddeeff")

    @classmethod
    def setUpClass(cls):
        d = os.path.join(WORK, "passphrase")
        os.makedirs(d, exist_ok=True)
        cls.img = os.path.join(d, "pw.img")
        make(["bash", os.path.join(top, "vm/make-image.sh"), "--cache",
              os.path.join(top, "vm/scenarios/passphrase.scn"), cls.img],
             os.path.join(d, "make.log"))
        cls.manifest = cls.img + ".manifest"
        # a copy with e4crypt's salt in s_encrypt_pw_salt
        cls.img_salted = os.path.join(d, "pw-salted.img")
        shutil.copyfile(cls.img, cls.img_salted)
        subprocess.run(["debugfs", "-w", "-R",
                        "ssv encrypt_pw_salt 00112233-4455-6677-8899-aabbccddeeff",
                        cls.img_salted], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

    def opened(self, fs):
        n = check_against_manifest(self, fs, self.manifest)
        self.assertGreater(n, 1000)
        pols = fs.policies()
        self.assertTrue(pols)
        self.assertTrue(all(p["state"] == "decrypted" for p in pols), pols)

    def locked(self, fs):
        """Nothing opened: the names under /secret are the kernel's no-key
        names (the scenario's `readdir nk-secret /secret` after
        forget-keys), every entry there is locked, files raise NoKeyError."""
        pols = fs.policies()
        self.assertTrue(pols)
        self.assertFalse(any(p["state"] == "decrypted" for p in pols), pols)
        want = check_extract.readdir_paths(self.manifest, "nk-secret")
        got, files = [], 0
        for e in fs.walk("/secret"):
            self.assertTrue(e.locked, e.path)
            if e.raw_path == b"/secret":
                continue
            self.assertEqual(e.name_state, "no-key", e.path)
            got.append(e.raw_path.lstrip(b"/"))
            if e.is_file():
                files += 1
                with self.assertRaises(e4dump.NoKeyError, msg=e.path):
                    fs.open(e)
        self.assertEqual(sorted(got), want)
        self.assertGreater(files, 100)

    def test_passphrase_and_salt(self):
        for pw in (self.PASS, self.PASS.encode(), bytearray(self.PASS.encode())):
            with self.subTest(passphrase=type(pw).__name__):
                with e4dump.open(self.img, passphrase=pw, salt=self.SALT, diag=False) as fs:
                    self.opened(fs)

    def test_superblock_salt(self):
        for pw in (self.PASS, self.PASS.encode()):
            with self.subTest(passphrase=type(pw).__name__):
                with e4dump.open(self.img_salted, passphrase=pw, diag=False) as fs:
                    self.assertEqual(fs.info()["encrypt_pw_salt"], self.SALT.hex())
                    self.opened(fs)

    def test_no_salt(self):
        # s_encrypt_pw_salt zero and no salt=: the module says so
        with self.assertRaises(ValueError):
            e4dump.open(self.img, passphrase=self.PASS, diag=False)

    def test_wrong_passphrase(self):
        for img, salt in ((self.img, self.SALT), (self.img_salted, None)):
            for pw in ("wrong passphrase", b"wrong passphrase",
                       self.PASS[:-1]):
                with self.subTest(img=os.path.basename(img), passphrase=pw):
                    with e4dump.open(img, passphrase=pw, salt=salt, diag=False) as fs:
                        self.locked(fs)

    def test_wrong_salt(self):
        # salt= overrides the superblock's: a wrong one opens nothing
        bad = bytes(reversed(self.SALT))
        for img in (self.img, self.img_salted):
            with self.subTest(img=os.path.basename(img)):
                with e4dump.open(img, passphrase=self.PASS, salt=bad, diag=False) as fs:
                    self.locked(fs)


class Threads(unittest.TestCase):
    def test_eight_threads_large_file(self):
        d = os.path.join(WORK, "bench")
        os.makedirs(d, exist_ok=True)
        img = os.path.join(d, "bench.img")
        key = os.path.join(d, "bench.key")
        make(["bash", os.path.join(top, "bench/make-image.sh"), "0.3", img],
             os.path.join(d, "make.log"))
        plain = os.path.join(d, "large.plain")
        if not os.path.exists(plain):
            subprocess.run(["debugfs", "-R", f"dump /plain/large.bin {plain}.tmp", img],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            os.rename(plain + ".tmp", plain)
        size = os.path.getsize(plain)
        chunk = 8 << 20
        nchunks = (size + chunk - 1) // chunk
        want = []
        with open(plain, "rb") as f:
            for _ in range(nchunks):
                want.append(hashlib.sha256(f.read(chunk)).digest())

        with e4dump.open(img, key_files=[key], diag=False) as fs:
            ino = fs.lookup("/enc/large.bin")
            self.assertEqual(fs.stat(ino).size, size)

            def reader(parts, got):
                with fs.open(ino) as f:
                    buf = bytearray(chunk)
                    for i in parts:
                        f.seek(i * chunk)
                        n = f.readinto(buf)
                        got[i] = hashlib.sha256(memoryview(buf)[:n]).digest()

            def run(nthreads):
                got = [None] * nchunks
                ts = [threading.Thread(target=reader,
                                       args=(range(k, nchunks, nthreads), got))
                      for k in range(nthreads)]
                t0 = time.monotonic()
                for t in ts:
                    t.start()
                for t in ts:
                    t.join()
                return time.monotonic() - t0, got

            t1, got1 = run(1)
            t8, got8 = run(8)

            # The GIL is released while the library reads and decrypts:
            # another Python thread runs during one long pread.
            count = [0]
            stop = threading.Event()

            def counter():
                while not stop.is_set():
                    count[0] += 1
            ct = threading.Thread(target=counter)
            ct.start()
            time.sleep(0.05)
            with fs.open(ino) as f:
                c0 = count[0]
                data = f.pread(0, size)
                c1 = count[0]
            stop.set()
            ct.join()
            self.assertEqual(len(data), size)
            del data
        self.assertEqual(got1, want)
        self.assertEqual(got8, want)
        mib = size / (1 << 20)
        print(f"\n/enc/large.bin {mib:.0f} MiB: 1 thread {t1:.2f} s ({mib / t1:.0f} MiB/s), "
              f"8 threads {t8:.2f} s ({mib / t8:.0f} MiB/s): {t1 / t8:.2f}x on "
              f"{os.cpu_count()} CPUs; another thread counted to {c1 - c0} during one "
              f"pread of the whole file", flush=True)
        self.assertGreater(c1 - c0, 1000, "the GIL was held during the read")


if __name__ == "__main__":
    WORK = os.path.abspath(sys.argv.pop(1))
    os.makedirs(WORK, exist_ok=True)
    common_main(WORK)
