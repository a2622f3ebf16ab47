#!/usr/bin/python3
"""The Python module on hostile images: each is opened (with the sample's
key and without), walked, and every file, symlink and attribute read
through the module in a child interpreter, which must end by itself
(exit 0): a signal (a crash, a sanitizer's abort) or an exception that is
not an e4dump.Error fails.  The images are those of the safety tests
(tests/safety/craft.py: loops, second links, deep and shared extent
trees, lying sizes, terminal controls, duplicate names, a wrong key,
100,000 entries, 4,096 levels, ...), tests/cli/hostile_names.py's names
that decrypt to "..", "/" or NUL, tests/cli/hostile_tables.py's odd
partition tables and tests/cli/hostile_journal.py's crafted journals.

usage: test_hostile.py WORKDIR     (PYTHONPATH: the build's python/)
       test_hostile.py --child IMAGE [KEYFILE]"""
import os
import random
import subprocess
import sys
import time
import traceback
import unittest

here = os.path.dirname(os.path.abspath(__file__))
top = os.path.normpath(os.path.join(here, "..", ".."))
KEY = os.path.join(top, "testvectors", "sample", "sample.key")
WORK = None
READ_CAP = 64 << 20     # bytes read of one file at most


def child(img, key):
    """Everything the module can be asked about the image; e4dump.Error
    is an answer, anything else a failure (exit 3)."""
    import e4dump
    errors = 0

    def attempt(fn, *a, **kw):
        nonlocal errors
        try:
            return fn(*a, **kw)
        except e4dump.Error:
            errors += 1
            return None
    try:
        fs = e4dump.open(img, key_files=[key] if key else [], diag=lambda d: None)
    except e4dump.Error as exc:
        print(f"open: {exc}")
        return 0
    rnd = random.Random(1)
    n = 0
    with fs:
        attempt(fs.info)
        attempt(fs.volumes)
        attempt(fs.policies)
        it = fs.walk("/")
        while True:
            try:
                e = next(it)
            except StopIteration:
                break
            except e4dump.Error:
                errors += 1
                break
            n += 1
            e.record()
            attempt(lambda: e.xattrs)
            attempt(fs.xattrs, e.inode)
            if e.is_symlink():
                attempt(fs.readlink, e)
                attempt(fs.readlink, e, nokey=True)
            if e.is_file():
                for raw in (False, True):
                    f = attempt(fs.open, e, raw=raw)
                    if f is None:
                        continue
                    with f:
                        got = 0
                        while got < READ_CAP:
                            b = attempt(f.read, 1 << 20)
                            if not b:
                                break
                            got += len(b)
                        for _ in range(4):
                            attempt(f.pread, rnd.randrange(max(f.size, 1) + 8192), 5000)
                        attempt(f.pread, 2 ** 63, 10)
            if n <= 200 and e.raw_path:
                if b"\0" in e.raw_path:
                    # a name with a NUL (a plaintext one may hold it) is no
                    # path: ValueError, as os.stat gives; by inode it is
                    try:
                        fs.stat(e.raw_path)
                        raise AssertionError("a path with a NUL was looked up")
                    except ValueError:
                        pass
                else:
                    attempt(fs.stat, e.raw_path)
                attempt(fs.stat, e)
        # the journal and what it says was deleted (the JOURNALS images
        # aim at these)
        j = attempt(fs.journal)
        if j is not None:
            with j:
                attempt(j.info)
                for t in (attempt(j.transactions) or [])[:64]:
                    for c in t.blocks[:16]:
                        attempt(j.read_copy, c)
                for d in (attempt(j.deleted, "/") or [])[:400]:
                    n += 1
                    _ = d.locked, d.path, d.raw_path
                    if d.recoverable and d.file_type == "regular":
                        attempt(d.recover, _Sink(), locked=True)
                    elif d.recoverable and d.file_type == "symlink":
                        attempt(d.readlink, locked=True)
    print(f"{n} entries, {errors} errors")
    return 0


class _Sink:
    """A writer that keeps nothing (a hostile size is not written out)."""

    def __init__(self):
        self.pos = 0

    def write(self, b):
        self.pos += len(b)
        return len(b)

    def seekable(self):
        return True

    def seek(self, off, whence=0):
        self.pos = off
        return off

    def tell(self):
        return self.pos

    def truncate(self, size=None):
        return self.pos


CRAFT = ["relink", "loop", "shared", "deep6", "bigsize", "pastsize", "special",
         "terminal", "nulsym", "dups", "wrongkey", "inline", "symev", "emptyname",
         "aliasdir", "sharedfiles", "policies", "dupnames", "unused", "ind64k",
         "bigdir100k", "deeptree"]
TABLES = ["gpt-unusable", "gpt-overlap", "gpt-backwards", "gpt-4k", "mbr-pastend",
          "mbr-overlap", "mbr-loop"]
JOURNALS = ["dircycle", "samename", "reserved", "badlink", "aclhigh", "revoked", "slash"]


def run(cmd, env=None, **kw):
    # the crafting tools without the sanitizers' runtimes run.sh preloads
    env = {k: v for k, v in (env or os.environ).items() if k != "LD_PRELOAD"}
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env, **kw)
    if r.returncode:
        raise RuntimeError(f"{cmd[:3]} failed: {r.stdout[-2000:]!r}")


def craft():
    """Every image to try, [(name, path)]; made once per work directory."""
    imgs = []
    sdir = os.path.join(WORK, "safety")
    done = os.path.join(WORK, ".crafted")
    if not os.path.exists(done):
        run(["/usr/bin/python3", os.path.join(top, "tests/safety/craft.py"), sdir] + CRAFT)
        sample = os.path.join(WORK, "sample.img")
        with open(sample, "wb") as out:
            subprocess.run(["xz", "-dc", os.path.join(top, "testvectors/sample/sample.img.xz")],
                           stdout=out, check=True)
        run(["/usr/bin/python3", os.path.join(top, "tests/cli/hostile_names.py"), sample, KEY,
             os.path.join(WORK, "h"), os.path.join(WORK, "victim", "evil")])
        fsimg = os.path.join(WORK, "vol.img")
        run(["truncate", "-s", "4M", fsimg])
        run(["mkfs.ext4", "-q", "-F", "-b", "1024", fsimg])
        for k in TABLES:
            run(["python3", os.path.join(top, "tests/cli/hostile_tables.py"), k,
                 os.path.join(WORK, f"table-{k}.img"), fsimg])
        for m in JOURNALS:
            run(["/usr/bin/python3", os.path.join(top, "tests/cli/hostile_journal.py"), m,
                 os.path.join(WORK, f"journal-{m}.img")],
                env=dict(os.environ, BS="1024", FSSIZE="8M", JMB="1"))
        open(done, "w").close()
    for n in CRAFT:
        imgs.append((n, os.path.join(sdir, n + ".img")))
    for n in ("hostile", "nopad", "trap"):
        imgs.append(("names-" + n, os.path.join(WORK, f"h-{n}.img")))
    for k in TABLES:
        imgs.append(("table-" + k, os.path.join(WORK, f"table-{k}.img")))
    for m in JOURNALS:
        imgs.append(("journal-" + m, os.path.join(WORK, f"journal-{m}.img")))
    return imgs


class Hostile(unittest.TestCase):
    def test_no_crash(self):
        imgs = craft()
        failed = []
        timeout = 900 if os.environ.get("E4DUMP_PY_SANITIZE") else 300
        sanitized = bool(os.environ.get("E4DUMP_PY_SANITIZE"))
        for name, img in imgs:
            self.assertTrue(os.path.exists(img), img)
            # under the sanitizers the two largest (minutes each) are
            # walked once, with the key: the C side of both runs under
            # ASan in the safety tests, without the key too
            keys = (KEY,) if sanitized and name in ("bigdir100k", "deeptree") else (KEY, None)
            if len(keys) == 1:
                print(f"{name:24} key=False skipped under the sanitizers", flush=True)
            for key in keys:
                t0 = time.monotonic()
                cmd = [sys.executable, os.path.abspath(__file__), "--child", img] + ([key] if key else [])
                try:
                    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                       timeout=timeout)
                except subprocess.TimeoutExpired:
                    failed.append(f"{name} (key {bool(key)}): no end after {timeout} s")
                    continue
                out = r.stdout.decode("utf-8", "replace").strip().splitlines()
                print(f"{name:24} key={bool(key)!s:5} rc={r.returncode} "
                      f"{time.monotonic() - t0:6.1f}s  {out[-1] if out else ''}", flush=True)
                if r.returncode != 0:
                    failed.append(f"{name} (key {bool(key)}): exit {r.returncode}: "
                                  + "\n".join(out[-30:]))
        self.assertEqual(failed, [], "\n\n".join(failed))


if __name__ == "__main__":
    if len(sys.argv) >= 3 and sys.argv[1] == "--child":
        try:
            sys.exit(child(sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None))
        except Exception:   # noqa: BLE001
            traceback.print_exc()
            sys.exit(3)
    WORK = os.path.abspath(sys.argv.pop(1))
    os.makedirs(WORK, exist_ok=True)
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    import common  # noqa: E402
    common.main(WORK)
