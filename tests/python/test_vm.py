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
  twin; the time against one thread is printed (no timing is asserted).

usage: test_vm.py WORKDIR     (PYTHONPATH: the build's python/)"""
import glob
import hashlib
import os
import subprocess
import sys
import threading
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from common import main as common_main, check_against_manifest, e4dump, top  # noqa: E402

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
