#!/usr/bin/env python3
"""The "Latest" table of bench/README.md from what bench/all.sh measured.

Usage: bench/latest.py DIR                  print the table (markdown)
       bench/latest.py --readme README DIR  put it between README's marks
                                            <!-- latest:begin --> and
                                            <!-- latest:end -->

DIR is bench/all.sh's output directory: facts, run-results.tsv,
run-limits, containers.tsv, journal.tsv, start.tsv (a part that was left
out has no file and no rows).  Each row: the figure, its goal (issue 33's;
"-" where there is none), what was measured (medians; spread where it
matters) and whether the goal was met.  Ratios are of medians of the same
interleaved runs.  A workload compared against an older build (-base)
counts as a regression when the median of its per-repetition after /
before ratios is above 1.10: on this shared machine one run's spread is
wider than that, so a smaller change is not told from noise.
"""
import math, os, statistics, sys

NOISE = 1.10


def med(v):
    return statistics.median(v) if v else float("nan")


def rows_of(path, width):
    if not os.path.exists(path):
        return []
    out = []
    for line in open(path):
        f = line.rstrip("\n").split("\t")
        if len(f) >= width:
            out.append(f)
    return out


def facts_of(d):
    facts = {}
    for f in rows_of(os.path.join(d, "facts"), 2):
        facts[f[0]] = f[1]
    return facts


def verdict(ok):
    if ok is None:
        return ""
    return "met" if ok else "**MISSED**"


class Table:
    def __init__(self):
        self.rows = []

    def add(self, item, figure, goal, measured, ok=None):
        self.rows.append((item, figure, goal, measured, verdict(ok)))

    def text(self):
        lines = ["| item | figure | goal | measured | |", "| --- | --- | --- | --- | --- |"]
        lines += ["| " + " | ".join(r) + " |" for r in self.rows]
        return "\n".join(lines)


# ---- run.sh: the workloads, the limits, the mount -----------------------------
def run_part(d, facts, t, regress):
    rows = rows_of(os.path.join(d, "run-results.tsv"), 8)
    if not rows:
        return
    runs = {}
    for w, side, rep, wall, user, sys_, rss, rc in (r[:8] for r in rows):
        runs.setdefault((w, side), []).append(
            dict(rep=int(rep), wall=float(wall), cpu=float(user) + float(sys_),
                 rss=int(rss) / 1024, rc=int(rc)))
    limits = dict(r[0].split() for r in rows_of(os.path.join(d, "run-limits"), 1)
                  if len(r[0].split()) == 2)

    def wall(w, side):
        return med([x["wall"] for x in runs.get((w, side), [])])

    def cpu_wall(w, side):
        return med([x["cpu"] / x["wall"] for x in runs.get((w, side), []) if x["wall"] > 0])

    # item 2: both cores
    if ("cat-large", "e4dump") in runs and "aes2" in limits and facts.get("large_bytes"):
        size = int(facts["large_bytes"])
        walls = [x["wall"] for x in runs[("cat-large", "e4dump")]]
        rate = size / med(walls) / 1e9
        aes2 = float(limits["aes2"]) / 1e9
        t.add("2", "cat of /enc/large.bin, rate / `openssl speed -evp aes-256-xts -multi 2`",
              ">= 0.8", f"{rate / aes2:.2f} ({rate:.2f} of {aes2:.2f} GB/s; wall "
              f"{med(walls):.3f} s, {min(walls):.3f}-{max(walls):.3f})", rate / aes2 >= 0.8)
    for w, what in (("cat-large", "cat"), ("extract-large", "extract of large.bin")):
        if (w, "e4dump") in runs:
            v = cpu_wall(w, "e4dump")
            t.add("2", f"{what}: CPU / wall", ">= 1.6", f"{v:.2f}", v >= 1.6)
    if ("extract-small", "e4dump") in runs and ("extract-small", "debugfs") in runs:
        a, b = wall("extract-small", "e4dump"), wall("extract-small", "debugfs")
        t.add("2", "extract of /enc/small / `debugfs rdump` of /plain/small", "<= 0.5",
              f"{a / b:.2f} ({a:.3f} s / {b:.3f} s)", a / b <= 0.5)
    # item 5: the mount (its goal: no regression)
    for w, what, ref in (("mount-cat", "cat through the mount / e4dump cat", "e4dump"),
                         ("mount-find", "find through the mount / e4dump ls -R", "e4dump")):
        if (w, "mount") in runs and (w, ref) in runs:
            a, b = wall(w, "mount"), wall(w, ref)
            text = f"{a / b:.2f} ({a:.3f} s / {b:.3f} s)"
            ok = None
            if (w, "mount.base") in runs:
                q = pair_ratio(runs[(w, "mount")], runs[(w, "mount.base")])
                text += f"; after / before {q:.2f}"
                ok = q <= NOISE
            t.add("5", what, "no regression", text, ok)
    # the reference tools (context: issue 11's goals)
    ratios = []
    for (w, side), v in sorted(runs.items()):
        if side in ("debugfs", "e2fsck") and (w, "e4dump") in runs:
            ratios.append(wall(w, "e4dump") / med([x["wall"] for x in v]))
    if ratios:
        g = math.exp(sum(math.log(r) for r in ratios) / len(ratios))
        t.add("-", f"e4dump on /enc / debugfs or e2fsck on /plain, geometric mean of {len(ratios)} workloads",
              "-", f"{g:.2f} ({min(ratios):.2f}-{max(ratios):.2f})")
    peak = max((x["rss"] for (w, side), v in runs.items() if side == "e4dump" for x in v), default=0)
    if peak:
        t.add("-", "peak RSS of e4dump over these workloads", "-", f"{peak:.0f} MiB")
    # no regression: every e4dump side against BASE's
    for (w, side), v in sorted(runs.items()):
        if side.endswith(".base") or (w, side + ".base") not in runs:
            continue
        q = pair_ratio(v, runs[(w, side + ".base")])
        regress.append((w, side, wall(w, side), wall(w, side + ".base"), q))


def pair_ratio(after, before):
    b = {x["rep"]: x["wall"] for x in before}
    return med([x["wall"] / b[x["rep"]] for x in after if x["rep"] in b and b[x["rep"]] > 0])


# ---- containers.py -----------------------------------------------------------------
def containers_part(d, t, regress):
    rows = rows_of(os.path.join(d, "containers.tsv"), 8)
    if not rows:
        return
    runs = {}
    for w, kind, who, rep, wall, rss, rc, cpu in (r[:8] for r in rows):
        runs.setdefault((w, kind, who), []).append(
            dict(rep=int(rep), wall=float(wall), rss=int(rss), rc=int(rc), cpu=float(cpu)))
    workloads = []
    for (w, _, _) in runs:
        if w not in workloads:
            workloads.append(w)
    for w in workloads:
        raw = med([x["wall"] for x in runs[(w, "raw", "E4DUMP")]])
        for kind in ("E01", "qcow2"):
            v = runs.get((w, kind, "E4DUMP"))
            if not v:
                continue
            c = med([x["wall"] for x in v])
            rss = max(x["rss"] for x in v)
            t.add("1", f"{w} through the {kind}: raw time / {kind} time (peak RSS)",
                  ">= 0.8 (<= 64 MiB)", f"{raw / c:.2f} ({raw:.3f} s / {c:.3f} s; {rss} MiB)",
                  raw / c >= 0.8 and rss <= 64)
            if (w, kind, "BASE") in runs:
                regress.append((f"{w} ({kind})", "e4dump", c,
                                med([x["wall"] for x in runs[(w, kind, "BASE")]]),
                                pair_ratio(v, runs[(w, kind, "BASE")])))


# ---- journal.sh ----------------------------------------------------------------------
def journal_part(d, t, regress):
    rows = rows_of(os.path.join(d, "journal.tsv"), 9)
    if not rows:
        return
    runs = {}
    for w, side, rep, wall, user, sys_, rss, rc, files in (r[:9] for r in rows):
        runs.setdefault((w, side), []).append(
            dict(rep=int(rep), wall=float(wall), rss=int(rss) / 1024, rc=int(rc), files=files))

    def wall(w, s):
        return med([x["wall"] for x in runs.get((w, s), [])])

    if ("journal", "e4dump") in runs and ("journal", "jls") in runs:
        a, b = wall("journal", "e4dump"), wall("journal", "jls")
        t.add("3", "journal --json / jls (1 GiB journal)", "< 1", f"{a / b:.2f} ({a:.2f} s / {b:.2f} s)",
              a < b)
    for other, what in (("ext4magic", "ext4magic -r"), ("extundelete", "extundelete --restore-all")):
        if ("undelete", "e4dump") in runs and ("undelete", other) in runs:
            a, b = wall("undelete", "e4dump"), wall("undelete", other)
            xs = runs[("undelete", other)]
            bad = [x for x in xs if x["rc"] != 0 or x["files"] in ("-", "0")]
            text = f"{a / b:.2f} ({a:.2f} s / {b:.2f} s)"
            if bad:
                rcs = ",".join(sorted({str(x["rc"]) for x in xs}))
                t.add("3", f"undelete / {what}", "< 1",
                      text + f"; not comparable: {other} exited {rcs} with {xs[0]['files']} files", None)
            else:
                t.add("3", f"undelete / {what}", "< 1", text, a < b)
    for w in ("journal", "undelete"):
        if (w, "e4dump") in runs:
            rss = max(x["rss"] for x in runs[(w, "e4dump")])
            t.add("3", f"peak RSS of {w}", "<= 256 MiB", f"{rss:.0f} MiB", rss <= 256)
        if (w, "e4dump") in runs and (w, "e4dump-base") in runs:
            regress.append((w + " (1 GiB journal)", "e4dump", wall(w, "e4dump"), wall(w, "e4dump-base"),
                            pair_ratio(runs[(w, "e4dump")], runs[(w, "e4dump-base")])))


# ---- start.sh -------------------------------------------------------------------------
def start_part(d, t):
    rows = rows_of(os.path.join(d, "start.tsv"), 6)
    got = {(r[0], r[1]): r for r in rows}
    for c, goal, limit in (("--version", "< 10 ms", 10.0), ("ls IMAGE", "-", None)):
        r = got.get((c, "after"))
        if not r:
            continue
        ms = float(r[2])
        text = f"{ms:.2f} ms (p10-p90 {float(r[3]):.2f}-{float(r[4]):.2f}); {r[5]} shared objects"
        b = got.get((c, "before"))
        if b:
            text += f"; before {float(b[2]):.2f} ms, {b[5]} objects"
        what = "e4dump --version" if c == "--version" else "e4dump ls of the 4 MiB sample"
        t.add("4", what, goal, text, None if limit is None else ms < limit)


def table(d):
    facts = facts_of(d)
    t, regress = Table(), []
    containers_part(d, t, regress)
    run_part(d, facts, t, regress)
    journal_part(d, t, regress)
    start_part(d, t)
    t.rows.sort(key=lambda r: (r[0] == "-", r[0]))  # by item, context last
    out = []
    cmd = "bench/all.sh -n %s -scale %s%s E4DUMP" % (facts.get("n", "?"), facts.get("scale", "?"),
                                                      " -base BASE" if "base" in facts else "")
    out.append(f"Measured by `{cmd}` from {facts.get('started', '?')} to {facts.get('ended', '?')} "
               f"on {facts.get('machine', '?')}; load average (1, 5, 15 min) "
               f"{facts.get('load_before', '?')} before and {facts.get('load_after', '?')} after. "
               f"e4dump at {facts.get('commit', '?')}"
               + (f"; BASE {facts['base']}" if "base" in facts else "") + ".")
    out.append("")
    out.append(t.text())
    if regress:
        out.append("")
        out.append(f"No regression: e4dump (after) against BASE (before), side by side in the same "
                   f"runs; after / before is the median of the per-repetition ratios (above "
                   f"{NOISE:.2f}: a regression).")
        out.append("")
        out.append("| workload | side | after s | before s | after / before | |")
        out.append("| --- | --- | --- | --- | --- | --- |")
        for w, side, a, b, q in regress:
            out.append(f"| {w} | {side} | {a:.3f} | {b:.3f} | {q:.2f} | {verdict(q <= NOISE)} |")
    return "\n".join(out) + "\n"


def main(argv):
    if len(argv) == 1:
        sys.stdout.write(table(argv[0]))
        return 0
    if len(argv) == 3 and argv[0] == "--readme":
        readme, d = argv[1], argv[2]
        text = open(readme).read()
        begin, end = "<!-- latest:begin -->", "<!-- latest:end -->"
        if begin not in text or end not in text:
            sys.exit(f"bench/latest: {readme} has no {begin} ... {end}")
        head, rest = text.split(begin, 1)
        _, tail = rest.split(end, 1)
        with open(readme, "w") as fh:
            fh.write(head + begin + "\n" + table(d) + end + tail)
        return 0
    sys.exit(__doc__)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
