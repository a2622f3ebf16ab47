#!/usr/bin/python3
"""bench/run.sh's measuring and reporting (bench/README.md).

  timing.py run RESULTS WORKLOAD SIDE REP OUT ERR -- CMD...
      runs CMD with stdout to OUT and stderr to ERR, and appends one line to
      RESULTS:
      WORKLOAD SIDE REP WALL USER SYS MAXRSS_KIB RC (tab-separated).
      Wall time is taken around the child alone (no Python start-up); user
      and system time come from wait4(); the peak RSS from GNU time's %M: a
      child's ru_maxrss also counts the memory of the process that exec'd
      it (Python's, 10-15 MiB), GNU time's is about 1 MiB.
      Exits with CMD's status.
  timing.py report RESULTS LIMITS SPEC
      prints the tables: SPEC is the workloads' description (JSON, written
      by run.sh), LIMITS holds "key value" lines (openssl rates, raw read).
"""
import json
import os
import statistics
import subprocess
import sys
import time


def run(argv):
    results, workload, side, rep, out, err = argv[:6]
    if argv[6:7] != ["--"]:
        sys.exit("timing.py run: -- missing")
    cmd = argv[7:]
    rssfile = results + ".rss"
    with open(out, "wb") as o, open(err, "wb") as e:
        t0 = time.monotonic()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%M", "-o", rssfile, "--"] + cmd,
                                stdout=o, stderr=e, stdin=subprocess.DEVNULL)
        _, status, ru = os.wait4(proc.pid, 0)
        wall = time.monotonic() - t0
    rc = os.waitstatus_to_exitcode(status)
    proc.returncode = rc
    # GNU time writes "Command exited with non-zero status N" first then
    with open(rssfile) as f:
        maxrss = int(f.read().split()[-1])
    with open(results, "a") as f:
        f.write(f"{workload}\t{side}\t{rep}\t{wall:.6f}\t{ru.ru_utime:.6f}\t"
                f"{ru.ru_stime:.6f}\t{maxrss}\t{rc}\n")
    return rc if rc >= 0 else 128 - rc


def fmt_s(v):
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    if v >= 1:
        return f"{v:.2f}"
    return f"{v:.3f}"


def fmt_ratio(v):
    return f"{v:.2f}" if v < 10 else f"{v:.1f}"


def timecell(st):
    """median (min-max) of a side's wall times, or FAILED"""
    if not st:
        return "FAILED"
    return f"{fmt_s(st['med'])} ({fmt_s(st['lo'])}-{fmt_s(st['hi'])})"


def table_head(*cols):
    print("| " + " | ".join(cols) + " |")
    print("|" + "---|" * len(cols))


def before_after(spec, runs, stats):
    """The tables of run.sh -base: each e4dump side against its twin X.base
    (BASE, the build before), and every pair's ratio before and after.
    Returns the count of comparisons with a failed side."""
    def twin(s):
        return s + ".base" if s + ".base" in spec["sides"] else s

    failed = 0
    print("Before and after: E4DUMP (after) against BASE (before), their runs side by")
    print("side in each repetition (BASE first in even ones); after / before of the")
    print("medians, and of each repetition's pair: median (min-max); peak RSS max over")
    print("the runs (for e4dump mount: the daemon's); CPU = user + system seconds,")
    print("median (for e4dump mount: the client's and the daemon's), less dependent")
    print("on the machine's load than the wall time.")
    print()
    table_head("workload", "side", "after s", "before s", "after / before", "per repetition",
               "peak RSS after / before MiB", "CPU s after / before")
    for wl in spec["workloads"]:
        first = True
        seen = []
        for pair in wl["pairs"]:
            for s in pair:
                if twin(s) != s and s not in seen:
                    seen.append(s)
        for s in seen:
            a, b = stats(wl["id"], s), stats(wl["id"], twin(s))
            name = f"{wl['title']} [{wl['id']}]" if first else ""
            first = False
            if not a or not b:
                failed += 1
                print(f"| {name} | {spec['sides'][s]} | {timecell(a)} | {timecell(b)} | FAILED | | | |")
                continue
            after = {x["rep"]: x["wall"] for x in runs[(wl["id"], s)]}
            before = {x["rep"]: x["wall"] for x in runs[(wl["id"], twin(s))]}
            q = [after[r] / before[r] for r in after if r in before and before[r] > 0]
            per = (f"{statistics.median(q):.2f} ({min(q):.2f}-{max(q):.2f})" if q else "-")
            print(f"| {name} | {spec['sides'][s]} | {timecell(a)} | {timecell(b)} | "
                  f"{a['med'] / b['med']:.2f} | {per} | {a['rss']:.0f} / {b['rss']:.0f} | "
                  f"{fmt_s(a['cpu_s'])} / {fmt_s(b['cpu_s'])} |")
    print()
    print("Ratios to the reference tools (subject / reference, lower is better) with")
    print("BASE (before) and with E4DUMP (after), from the same runs:")
    print()
    table_head("workload", "subject", "reference", "before", "after")
    for wl in spec["workloads"]:
        first = True
        for subj, ref in wl["pairs"]:
            vals = []
            for x, y in ((twin(subj), twin(ref)), (subj, ref)):
                a, b = stats(wl["id"], x), stats(wl["id"], y)
                vals.append(fmt_ratio(a["med"] / b["med"]) if a and b and b["med"] > 0 else "FAILED")
            name = f"{wl['title']} [{wl['id']}]" if first else ""
            first = False
            print(f"| {name} | {spec['sides'][subj]} | {spec['sides'][ref]} | {vals[0]} | {vals[1]} |")
    print()
    return failed


def report(argv):
    results, limits_file, spec_file = argv
    spec = json.load(open(spec_file))
    runs = {}
    for line in open(results):
        w, s, rep, wall, ut, st, rss, rc = line.rstrip("\n").split("\t")
        runs.setdefault((w, s), []).append(
            dict(rep=rep, wall=float(wall), cpu=float(ut) + float(st), rss=int(rss), rc=int(rc)))
    limits = {}
    for line in open(limits_file):
        k, _, v = line.strip().partition(" ")
        if k:
            limits[k] = v

    def stats(w, s):
        r = runs.get((w, s), [])
        if not r or any(x["rc"] != 0 for x in r):
            return None
        walls = [x["wall"] for x in r]
        return dict(n=len(r), med=statistics.median(walls), lo=min(walls), hi=max(walls),
                    rss=max(x["rss"] for x in r) / 1024,
                    cpu=statistics.median(x["cpu"] / x["wall"] for x in r if x["wall"] > 0),
                    cpu_s=statistics.median(x["cpu"] for x in r) or 1e-9)

    print("Per workload: median wall time in seconds (min-max) over "
          f"{spec['reps']} interleaved runs; ratio = subject / reference "
          "(lower is better); RSS = peak resident set size, max over the runs; "
          "CPU/wall = (user + system) / wall, median.")
    print()
    print("| workload | subject | s | reference | s | ratio | RSS MiB | CPU/wall | ref RSS MiB |")
    print("|---|---|---|---|---|---|---|---|---|")
    summary = []
    failed = 0
    for wl in spec["workloads"]:
        cells = []
        first = True
        for subj, ref in wl["pairs"]:
            a, b = stats(wl["id"], subj), stats(wl["id"], ref)
            ratio = a["med"] / b["med"] if a and b and b["med"] > 0 else None
            if ratio is None:
                failed += 1
            name = f"{wl['title']} [{wl['id']}]" if first else ""
            first = False
            row = [name, spec["sides"][subj], timecell(a), spec["sides"][ref], timecell(b),
                   fmt_ratio(ratio) if ratio is not None else "FAILED",
                   f"{a['rss']:.0f}" if a else "-", f"{a['cpu']:.2f}" if a else "-",
                   f"{b['rss']:.0f}" if b else "-"]
            print("| " + " | ".join(row) + " |")
            cells.append((subj, ref, ratio, a))
        summary.append((wl, cells))
    print()
    print("In the issue's shape (ratio of the first pair; the others in brackets):")
    print()
    print("| workload | ratio | peak RSS |")
    print("|---|---|---|")
    for wl, cells in summary:
        subj, ref, ratio, a = cells[0]
        text = fmt_ratio(ratio) if ratio is not None else "FAILED"
        extra = [f"{spec['sides'][s]} vs {spec['sides'][r]}: "
                 f"{fmt_ratio(q) if q is not None else 'FAILED'}" for s, r, q, _ in cells[1:]]
        if extra:
            text += " (" + "; ".join(extra) + ")"
        rss = f"{a['rss']:.0f} MiB" if a else "-"
        print(f"| {wl['title']} | {text} | {rss} |")
    print()
    if spec.get("base"):
        failed += before_after(spec, runs, stats)

    lines = []
    for sc in spec.get("scaling", []):
        cells = []
        for side in ("e4dump", "debugfs"):
            few, many = stats(sc["few"], side), stats(sc["many"], side)
            if few and many and few["med"] > 0:
                cells.append(f"{spec['sides'][side]} {many['med'] / few['med']:.1f}x")
        if cells:
            lines.append(f"  {sc['title']}: " + ", ".join(cells))
    if lines:
        print(f"Scaling: time for {spec['entries_factor']:g} times the entries "
              "(median over median):")
        print("\n".join(lines))
        print()

    print("Limits:")
    size = spec.get("large_bytes", 0)
    cat = stats("cat-large", "e4dump")
    rate = size / cat["med"] if cat and cat["med"] > 0 else None
    rows = [("openssl speed -evp aes-256-xts, 16 KiB blocks, one core", "aes1"),
            ("openssl speed -evp aes-256-xts -multi 2, 16 KiB blocks", "aes2"),
            ("warm raw read of the image (dd bs=1M)", "raw")]
    if rate:
        print(f"  e4dump cat of large.bin: {rate / 1e9:.2f} GB/s "
              f"({size} bytes in {fmt_s(cat['med'])} s, CPU/wall {cat['cpu']:.2f}; "
              f"{size / cat['cpu_s'] / 1e9:.2f} GB per CPU second)")
    for label, k in rows:
        if k in limits:
            v = float(limits[k])
            frac = f"; e4dump cat reaches {rate / v:.2f} of it" if rate else ""
            print(f"  {label}: {v / 1e9:.2f} GB/s{frac}")
        else:
            print(f"  {label}: not measured")
    print("  (openssl speed divides by CPU time, the others by wall time; on a loaded"
          " machine compare with e4dump's rate per CPU second too)")
    print()
    if failed:
        print(f"bench: {failed} pair(s) FAILED (see the err.* files in the work directory)")
    return 1 if failed else 0


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "run":
        sys.exit(run(sys.argv[2:]))
    if len(sys.argv) > 1 and sys.argv[1] == "report":
        sys.exit(report(sys.argv[2:]))
    sys.exit(__doc__)
