#!/usr/bin/env python3
"""e4dump through containers against the raw image, side by side.

Usage: bench/containers.py [-n N] E4DUMP KEY RAW E01 QCOW2 NOKEY_DIR

RAW is a benchmark image (bench/make-image.sh), E01 and QCOW2 the same
image as `ewfacquire -c deflate:fast` and `qemu-img convert -O qcow2`
wrote them, NOKEY_DIR the no-key name of /enc/empty-many (what `e4dump ls
RAW /enc` shows).  Each workload runs N times (default 3) on the three in
interleaved order, outputs into /dev/shm; prints per workload the median
wall time (min-max), the ratio raw / container (higher is better: 1.0 is
as fast as raw) and e4dump's peak RSS.  Exit 1 when a run failed.
"""
import os, shutil, statistics, subprocess, sys, time


def main(argv):
    n = 3
    if len(argv) > 1 and argv[0] == "-n":
        n, argv = int(argv[1]), argv[2:]
    if len(argv) != 6:
        sys.exit(__doc__)
    e4dump, key, raw, e01, qcow2, nokey = argv
    k = ["--key-file", key]
    out = "/dev/shm/e4dump-bench-containers"
    images = [("raw", raw), ("E01", e01), ("qcow2", qcow2)]
    workloads = [
        ("extract of /enc/small", lambda i: [e4dump, "extract"] + k + [i, "/enc/small", "-o", out]),
        ("extract of /enc/large.bin", lambda i: [e4dump, "extract"] + k + [i, "/enc/large.bin", "-o", out]),
        ("cat of /enc/large.bin", lambda i: [e4dump, "cat"] + k + [i, "/enc/large.bin"]),
        ("ls -l of /enc/empty-many without the key", lambda i: [e4dump, "ls", "-l", i, "/enc/" + nokey]),
        ("verify", lambda i: [e4dump, "verify"] + k + [i]),
    ]
    runs = {}
    for name, argv_of in workloads:
        for r in range(n):
            for kind, img in (images if r % 2 == 0 else images[::-1]):
                shutil.rmtree(out, ignore_errors=True)
                os.mkdir(out)
                subprocess.run(["sync"])
                start = time.perf_counter()
                p = subprocess.run(["/usr/bin/time", "-f", "%M"] + argv_of(img),
                                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                wall = time.perf_counter() - start
                rss = int(p.stderr.strip().splitlines()[-1]) // 1024
                runs.setdefault((name, kind), []).append((wall, rss, p.returncode))
    shutil.rmtree(out, ignore_errors=True)
    failed = 0
    print(f"Median wall time in seconds (min-max) over {n} interleaved runs; "
          "in brackets raw / container (1.0: as fast as raw); peak RSS in MiB.")
    print()
    print("| workload | raw | E01 | qcow2 | peak RSS raw / E01 / qcow2 |")
    print("|---|---|---|---|---|")
    for name, _ in workloads:
        med, cells = {}, []
        for kind, _ in images:
            v = runs[(name, kind)]
            failed += sum(1 for x in v if x[2] != 0)
            med[kind] = statistics.median(x[0] for x in v)
            cell = f"{med[kind]:.3f} ({min(x[0] for x in v):.3f}-{max(x[0] for x in v):.3f})"
            if kind != "raw":
                cell += f" [{med['raw'] / med[kind]:.2f}]"
            cells.append(cell)
        rss = " / ".join(str(max(x[1] for x in runs[(name, kind)])) for kind, _ in images)
        print(f"| {name} | " + " | ".join(cells) + f" | {rss} |")
    if failed:
        print(f"containers: {failed} run(s) FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
