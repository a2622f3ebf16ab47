#!/usr/bin/env python3
"""e4dump through containers against the raw image, side by side.

Usage: bench/containers.py [-n N] [-b BASE] [-t TSV] E4DUMP KEY RAW E01 QCOW2 NOKEY_DIR

RAW is a benchmark image (bench/make-image.sh), E01 and QCOW2 the same
image as `ewfacquire -c deflate:fast` and `qemu-img convert -O qcow2`
wrote them, NOKEY_DIR the no-key name of /enc/empty-many (what `e4dump ls
RAW /enc` shows).  Each workload runs N times (default 3) on the three in
interleaved order, outputs into /dev/shm; prints per workload the median
wall time (min-max), the ratio raw / container (higher is better: 1.0 is
as fast as raw) and e4dump's peak RSS.  Before each run the image's files
are read (kept warm: this machine pages out page cache left untouched for
about a minute).  With -b BASE, a second e4dump (the build before) runs
every workload on every image too, beside E4DUMP's run in each repetition
(E4DUMP first in the first repetition, BASE in the second, ...): a table
for each, then E4DUMP / BASE per workload and image (lower is better), of
the medians and of each repetition's pair.  Exit 1 when a run failed.
"""
import glob, os, shutil, statistics, subprocess, sys, time


def files_of(img):
    """The files of an image: an E01's segments (.E01, .E02, ...), else itself."""
    if img.endswith(".E01"):
        return sorted(glob.glob(glob.escape(img[:-4]) + ".E[0-9][0-9]"))
    return [img]


def warm(img):
    for f in files_of(img):
        with open(f, "rb") as fh:
            while fh.read(1 << 20):
                pass


def mm(v):
    return f"{statistics.median(v):.3f} ({min(v):.3f}-{max(v):.3f})"


def main(argv):
    n, base, tsv = 3, None, None
    while len(argv) > 1 and argv[0] in ("-n", "-b", "-t"):
        if argv[0] == "-n":
            n = int(argv[1])
        elif argv[0] == "-t":
            tsv = argv[1]
        else:
            base = argv[1]
        argv = argv[2:]
    if len(argv) != 6:
        sys.exit(__doc__)
    e4dump, key, raw, e01, qcow2, nokey = argv
    bins = [("E4DUMP", e4dump)] + ([("BASE", base)] if base else [])
    k = ["--key-file", key]
    out = "/dev/shm/e4dump-bench-containers"
    images = [("raw", raw), ("E01", e01), ("qcow2", qcow2)]
    workloads = [
        ("extract of /enc/small", lambda e, i: [e, "extract"] + k + [i, "/enc/small", "-o", out]),
        ("extract of /enc/large.bin", lambda e, i: [e, "extract"] + k + [i, "/enc/large.bin", "-o", out]),
        ("cat of /enc/large.bin", lambda e, i: [e, "cat"] + k + [i, "/enc/large.bin"]),
        ("ls -l of /enc/empty-many without the key", lambda e, i: [e, "ls", "-l", i, "/enc/" + nokey]),
        ("verify", lambda e, i: [e, "verify"] + k + [i]),
    ]
    load0 = subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip()
    runs = {}
    for name, argv_of in workloads:
        for r in range(n):
            for kind, img in (images if r % 2 == 0 else images[::-1]):
                for who, e in (bins if r % 2 == 0 else bins[::-1]):
                    shutil.rmtree(out, ignore_errors=True)
                    os.mkdir(out)
                    subprocess.run(["sync"])
                    warm(img)
                    start = time.perf_counter()
                    p = subprocess.run(["/usr/bin/time", "-f", "%M %U %S"] + argv_of(e, img),
                                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
                    wall = time.perf_counter() - start
                    rss, user, sys_ = p.stderr.strip().splitlines()[-1].split()
                    runs.setdefault((name, kind, who), []).append(
                        (wall, int(rss) // 1024, p.returncode, float(user) + float(sys_)))
    shutil.rmtree(out, ignore_errors=True)
    if tsv:
        with open(tsv, "w") as fh:
            for (name, kind, who), v in runs.items():
                for r, (wall, rss, rc, cpu) in enumerate(v, 1):
                    fh.write(f"{name}\t{kind}\t{who}\t{r}\t{wall:.6f}\t{rss}\t{rc}\t{cpu:.2f}\n")
    failed = 0
    for who, e in bins:
        print(f"{who} ({e}): median wall time in seconds (min-max) over {n} interleaved runs; "
              "in brackets raw / container (1.0: as fast as raw); peak RSS in MiB.")
        print()
        print("| workload | raw | E01 | qcow2 | peak RSS raw / E01 / qcow2 |")
        print("|---|---|---|---|---|")
        for name, _ in workloads:
            med, cells = {}, []
            for kind, _ in images:
                v = runs[(name, kind, who)]
                failed += sum(1 for x in v if x[2] != 0)
                med[kind] = statistics.median(x[0] for x in v)
                cell = mm([x[0] for x in v])
                if kind != "raw":
                    cell += f" [{med['raw'] / med[kind]:.2f}]"
                cells.append(cell)
            rss = " / ".join(str(max(x[1] for x in runs[(name, kind, who)])) for kind, _ in images)
            print(f"| {name} | " + " | ".join(cells) + f" | {rss} |")
        print()
    if base:
        print("E4DUMP / BASE (lower is better: below 1 E4DUMP is faster): of the medians,")
        print("and per repetition (the two ran one after the other) median (min-max);")
        print("peak RSS E4DUMP / BASE in MiB; CPU seconds (user + system, GNU time's")
        print("10 ms resolution) E4DUMP / BASE, median: on a loaded machine the wall")
        print("time is mostly waiting for a core.")
        print()
        print("| workload | image | E4DUMP / BASE | per repetition | peak RSS | CPU s |")
        print("|---|---|---|---|---|---|")
        for name, _ in workloads:
            for kind, _ in images:
                a, b = runs[(name, kind, "E4DUMP")], runs[(name, kind, "BASE")]
                q = [x[0] / y[0] for x, y in zip(a, b)]
                med = statistics.median(x[0] for x in a) / statistics.median(y[0] for y in b)
                print(f"| {name} | {kind} | {med:.2f} | {statistics.median(q):.2f} "
                      f"({min(q):.2f}-{max(q):.2f}) | {max(x[1] for x in a)} / {max(y[1] for y in b)} | "
                      f"{statistics.median(x[3] for x in a):.2f} / {statistics.median(y[3] for y in b):.2f} |")
        print()
    print(f"load before: {load0}")
    print("load after:  " + subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    if failed:
        print(f"containers: {failed} run(s) FAILED")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
