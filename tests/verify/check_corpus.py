#!/usr/bin/python3
"""Run e4dump verify over the corpus of make-corpus.sh.

usage: check_corpus.py clean E4DUMP CORPUSDIR
         every kernel-written base, without and with all its keys: exit 0,
         no findings, and the image file unchanged (sha256)
       check_corpus.py cases E4DUMP CORPUSDIR [CASE...]
         every case: exactly the findings of its .want (each "CHECKID INODE"
         present, each "CHECKID *" at least once, nothing else), exit 1
         (0 when none are wanted)
       check_corpus.py json E4DUMP CORPUSDIR
         every case with --json: each line parses (json module), the
         findings equal the text output's, the last line is the summary
       check_corpus.py ids CHECKS_H README GOLDENDIR
         the check ids of the table (checks.h), the README table and the golden
         files are the same set
Prints FAIL lines and "N passed, M failed"; exit 1 on any failure."""
import glob
import hashlib
import json
import os
import re
import subprocess
import sys

LINE = re.compile(r"^([a-z0-9_]+\.[a-z0-9_]+): inode ([0-9]+): ")
passed = failed = 0


def ok():
    global passed
    passed += 1


def bad(msg):
    global failed
    failed += 1
    print("FAIL:", msg)


def run(e4dump, args):
    r = subprocess.run([e4dump, "verify"] + args, capture_output=True)
    err = r.stderr.decode(errors="replace")
    if "AddressSanitizer" in err or "runtime error" in err or "LeakSanitizer" in err:
        bad(f"{' '.join(args)}: sanitizer report:\n{err[:2000]}")
    return r.returncode, r.stdout.decode("utf-8", errors="replace"), err


def findings(out):
    return {(m.group(1), int(m.group(2)))
            for m in map(LINE.match, out.splitlines()) if m}


def sha(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def clean(e4dump, corpus):
    for img in sorted(glob.glob(os.path.join(corpus, "bases", "*", "*.img"))):
        keys = []
        for k in sorted(glob.glob(os.path.join(os.path.dirname(img), "keys", "*.key"))):
            keys += ["--key-file", k]
        before = sha(img)
        for args in ([img], keys + [img], ["--json"] + keys + [img]):
            rc, out, err = run(e4dump, args)
            what = f"{os.path.basename(img)} {'with keys' if keys and args[0] != img else 'without keys'}"
            if rc == 0 and not findings(out):
                ok()
            else:
                bad(f"{what}: exit {rc}, want 0:\n{out[:3000]}{err[:1000]}")
        if sha(img) == before:
            ok()
        else:
            bad(f"{img}: modified by e4dump verify")


def read_case(corpus, case):
    base = os.path.join(corpus, "cases", case)
    with open(base + ".args") as f:
        args = [l.rstrip("\n") for l in f if l.strip()]
    want = []
    with open(base + ".want") as f:
        for line in f:
            check, who = line.split()
            want.append((check, None if who == "*" else int(who)))
    return base + ".img", args, want


def compare(case, got, want):
    fine = True
    for check, ino in want:
        if ino is None:
            hit = any(g[0] == check for g in got)
        else:
            hit = (check, ino) in got
        if not hit:
            bad(f"{case}: missing finding {check} inode {'*' if ino is None else ino}")
            fine = False
    for g in sorted(got):
        if g not in want and (g[0], None) not in want:
            bad(f"{case}: unexpected finding {g[0]} inode {g[1]}")
            fine = False
    return fine


def cases(e4dump, corpus, only):
    names = sorted(os.path.basename(p)[:-5]
                   for p in glob.glob(os.path.join(corpus, "cases", "*.want")))
    if not names:
        bad("no cases")
    for case in names:
        if only and case not in only:
            continue
        img, args, want = read_case(corpus, case)
        rc, out, err = run(e4dump, args + [img])
        got = findings(out)
        want_rc = 1 if want else 0
        if rc != want_rc:
            bad(f"{case}: exit {rc}, want {want_rc}\n{out}{err}")
        elif compare(case, got, want):
            ok()
        else:
            print(out + err)


def json_mode(e4dump, corpus):
    for want_path in sorted(glob.glob(os.path.join(corpus, "cases", "*.want"))):
        case = os.path.basename(want_path)[:-5]
        img, args, want = read_case(corpus, case)
        rc, out, err = run(e4dump, ["--json"] + args + [img])
        rc2, text, _ = run(e4dump, args + [img])
        try:
            objs = [json.loads(l) for l in out.splitlines()]
        except ValueError as e:
            bad(f"{case}: --json output does not parse: {e}\n{out[:2000]}")
            continue
        if not objs or objs[-1].get("type") != "summary":
            bad(f"{case}: no final summary object")
            continue
        fnd = [o for o in objs[:-1] if o.get("type") == "finding"]
        keys_ok = all(set(o) == {"type", "check", "inode", "path", "message"} and
                      isinstance(o["inode"], int) and isinstance(o["path"], str)
                      for o in fnd)
        got = {(o["check"], o["inode"]) for o in fnd}
        summ = objs[-1]
        # diagnostics (notes, warnings) are records of their own
        other = [o for o in objs[:-1] if o.get("type") not in ("finding", "diagnostic")]
        if (not other and keys_ok and got == findings(text) and
                summ.get("findings") == len(fnd) and rc == rc2 and
                sum(summ.get("checks", {}).values()) == len(fnd)):
            ok()
        else:
            bad(f"{case}: JSON findings differ from the text output\n{out[:3000]}")


def ids(table, readme, golden):
    # the one table of checks (e4dump/verify/checks.h): X(NAME, "id", ...)
    with open(table) as f:
        src = set(re.findall(r'X\([A-Z_0-9]+, "([a-z_]+\.[a-z_0-9]+)"', f.read()))
    if not src:
        bad(f"no check ids in {table}")
    with open(readme, encoding="utf-8") as f:
        table = set(re.findall(r"^\| `([a-z_]+\.[a-z_0-9]+)` \|", f.read(), re.M))
    gold = set()
    for p in glob.glob(os.path.join(golden, "*.txt")):
        with open(p, encoding="utf-8") as f:
            for line in f:
                w = line.split()
                if w and "." in w[0] and not w[0].startswith("#"):
                    gold.add(w[0])
    for name, s in (("README table", table), ("golden files", gold)):
        if s == src:
            ok()
        else:
            bad(f"{name}: missing {sorted(src - s)}, extra {sorted(s - src)}")


def main():
    mode = sys.argv[1]
    if mode == "clean":
        clean(sys.argv[2], sys.argv[3])
    elif mode == "cases":
        cases(sys.argv[2], sys.argv[3], set(sys.argv[4:]))
    elif mode == "json":
        json_mode(sys.argv[2], sys.argv[3])
    elif mode == "ids":
        ids(*sys.argv[2:5])
    else:
        sys.exit(__doc__)
    if not passed + failed:
        bad("nothing checked: no bases, cases or ids found")
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
