#!/usr/bin/python3
"""Throughput of reading one large encrypted file through the Python
module against `e4dump cat` (issue 32's goal: within 1.25x).

usage: PYTHONPATH=build/python bench/python_read.py [-n REPS] [--chunk MIB]
           [--threads N] E4DUMP IMAGE KEYFILE PATH

Each workload runs REPS times (default 3); the best wall time counts.
  module-1     one thread: File.readinto into one reused buffer, CHUNK MiB
               at a time (default 8), the bytes dropped
  module-N     N threads (--threads, default the CPUs), each its own File, reading
               every N-th chunk (what `cat --threads N` does)
  cat-1        e4dump cat --threads 1 --key-file KEYFILE IMAGE PATH >/dev/null
  cat          e4dump cat (its default: a thread per CPU) >/dev/null
The page cache is warm for all (the image is read once first): this
measures decryption and the layers above it, not the disk.
"""
import argparse
import os
import subprocess
import threading
import time

import e4dump


def best(fn, reps):
    ts = []
    for _ in range(reps):
        t0 = time.monotonic()
        fn()
        ts.append(time.monotonic() - t0)
    return min(ts)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("-n", type=int, default=3)
    ap.add_argument("--chunk", type=int, default=8)
    ap.add_argument("--threads", type=int, default=0,
                    help="module-N's N (default: the CPUs)")
    ap.add_argument("e4dump")
    ap.add_argument("image")
    ap.add_argument("key")
    ap.add_argument("path")
    a = ap.parse_args()
    chunk = a.chunk << 20
    ncpu = a.threads if a.threads > 0 else os.cpu_count() or 1

    with open(a.image, "rb") as f:              # warm the page cache
        while f.read(64 << 20):
            pass
    fs = e4dump.open(a.image, key_files=[a.key], diag=False)
    size = fs.stat(a.path).size
    ino = fs.lookup(a.path)

    def module(nthreads):
        def reader(k):
            buf = bytearray(chunk)
            with fs.open(ino) as f:
                for off in range(k * chunk, size, nthreads * chunk):
                    f.seek(off)
                    f.readinto(buf)
        if nthreads == 1:
            reader(0)
            return
        ts = [threading.Thread(target=reader, args=(k,)) for k in range(nthreads)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()

    def cat(threads):
        cmd = [a.e4dump, "cat"] + (["--threads", str(threads)] if threads else []) + \
              ["--key-file", a.key, a.image, a.path]
        with open(os.devnull, "wb") as null:
            subprocess.run(cmd, stdout=null, check=True)

    mib = size / (1 << 20)
    res = {
        "module-1": best(lambda: module(1), a.n),
        f"module-{ncpu}": best(lambda: module(ncpu), a.n),
        "cat-1": best(lambda: cat(1), a.n),
        "cat": best(lambda: cat(None), a.n),
    }
    fs.close()
    print(f"{a.path}: {mib:.0f} MiB, best of {a.n}, {ncpu} threads on {os.cpu_count()} CPUs")
    for k, t in res.items():
        print(f"  {k:10} {t:7.3f} s  {mib / t:7.1f} MiB/s")
    print(f"  module-1 / cat-1: {res['module-1'] / res['cat-1']:.3f}x   "
          f"module-{ncpu} / cat: {res[f'module-{ncpu}'] / res['cat']:.3f}x   (goal <= 1.25x)")


if __name__ == "__main__":
    main()
