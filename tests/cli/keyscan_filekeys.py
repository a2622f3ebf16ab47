#!/usr/bin/env python3
"""keyscan: v1 master keys computed back from per-file AES keys (spec
§17.5), on the kernel-written sample and captures laid out here.

The sample's v1 policy (AES-256-XTS contents, AES-256-CTS names) gives
each inode the key AES-128-ECB-Encrypt(key = its nonce, master[0 ..
keysize)); the nonces are read with debugfs, the per-file keys computed
with python3-cryptography and laid out as struct crypto_aes_ctx by
tests/spec/aes_schedule.py (FIPS-197 in Python): nothing from e4dump.
As the kernel's aes-generic keeps them, a file's XTS key is two contexts
(its halves) and a directory's names key one.  Captures:
  A: a directory's names key and two files' XTS halves, at random places
     among random bytes: the whole 64-byte key is found (v1-file-key,
     confirmed by the descriptor), and extract --memory A decrypts the
     tree byte for byte as the manifest says;
  B: one directory's names key only: one inode proves nothing, nothing
     is found;
  C: two directories' names keys: the first 32 bytes of the key, which
     open names only: found with 32 bytes; extract --memory C writes no
     file contents (each file an error), never garbage;
  D: schedules of unrelated keys: nothing.
usage: keyscan_filekeys.py E4DUMP WORKDIR SAMPLE_DIR"""
import json
import os
import random
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "spec"))
sys.dont_write_bytecode = True
import aes_schedule  # noqa: E402

E4DUMP, W, S = sys.argv[1:4]
TOP = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
shutil.rmtree(W, ignore_errors=True)
os.makedirs(W)
passes = fails = 0


def check(name, cond, detail=""):
    global passes, fails
    if cond:
        passes += 1
    else:
        fails += 1
        print("FAIL:", name, str(detail)[-600:])


img = os.path.join(W, "sample.img")
subprocess.run("xz -dc '%s/sample.img.xz' > '%s'" % (S, img), shell=True, check=True)
master = open(os.path.join(S, "sample.key"), "rb").read()
assert len(master) == 64

# the encrypted inodes and their nonces, from debugfs
cmds = "".join("stat <%d>\n" % i for i in range(12, 64))
out = subprocess.run(["debugfs", "-f", "-", img], input=cmds, capture_output=True, text=True).stdout
inodes = {}
for blk in out.split("Inode: ")[1:]:
    ino = int(blk.split()[0])
    kind = blk.split("Type: ")[1].split()[0]
    m = re.search(r"\n  c \(28\) = ((?:[0-9a-f]{2} ){28})", blk)
    if m:
        ctx = bytes.fromhex(m.group(1).replace(" ", ""))
        if ctx[0] == 1:
            inodes[ino] = (kind, ctx[12:28])
dirs = [i for i, (k, _) in sorted(inodes.items()) if k == "directory"]
files = [i for i, (k, _) in sorted(inodes.items()) if k == "regular"]
check("the sample has v1 directories and files (debugfs)", len(dirs) >= 2 and len(files) >= 2,
      inodes)


def names_key(ino):
    return aes_schedule.ecb(inodes[ino][1], master[:32])


def xts_halves(ino):
    k = aes_schedule.ecb(inodes[ino][1], master)
    return k[:32], k[32:]


rng = random.Random(20261206)


def capture(name, keys):
    """1 MiB of random bytes, each key's context at a random 8-aligned
    place (16-aligned slots, so that none overlaps another)."""
    buf = bytearray(rng.getrandbits(8) for _ in range(1 << 20))
    slots = rng.sample(range(1, (1 << 20) // 512 - 1), len(keys))
    for k, s in zip(keys, slots):
        buf[s * 512:s * 512 + 484] = aes_schedule.ctx_image(k)
    p = os.path.join(W, name)
    with open(p, "wb") as f:
        f.write(buf)
    return p


def keyscan(cap):
    p = subprocess.run([E4DUMP, "keyscan", "--json", "--image", img, cap], capture_output=True,
                       text=True)
    check(os.path.basename(cap) + ": no key bytes in the output",
          master.hex() not in p.stdout + p.stderr and master[:32].hex() not in p.stdout + p.stderr)
    check(os.path.basename(cap) + ": no sanitizer report", "Sanitizer" not in p.stderr, p.stderr)
    recs = [json.loads(x) for x in p.stdout.splitlines()]
    return p.returncode, [r for r in recs if r["type"] == "memory_key"], \
        [r for r in recs if r["type"] == "memory_policy"]


desc = subprocess.run(["python3", "-c", "import hashlib,sys;print(hashlib.sha512(hashlib.sha512("
                       "open(sys.argv[1],'rb').read()).digest()).digest()[:8].hex())",
                       os.path.join(S, "sample.key")], capture_output=True, text=True).stdout.strip()

a = capture("A", [names_key(dirs[0]), *xts_halves(files[0]), *xts_halves(files[1])])
rc, keys, pols = keyscan(a)
check("A: the policy found, from per-file keys, 64 bytes, by its descriptor",
      rc == 0 and len(keys) == 1 and keys[0]["kind"] == "v1-file-key" and keys[0]["bytes"] == 64
      and keys[0]["key"] == desc and keys[0]["confirmed"] and "descriptor" in keys[0]["evidence"]
      and keys[0]["inode"] in dirs + files, (rc, keys))
out = os.path.join(W, "outA")
p = subprocess.run([E4DUMP, "extract", "--memory", a, img, "-o", out], capture_output=True,
                   text=True)
check("A: extract --memory exit 0", p.returncode == 0, p.stderr)
chk = subprocess.run(["python3", os.path.join(TOP, "tests/vm/check_extract.py"),
                      os.path.join(S, "sample.manifest"), out], capture_output=True, text=True)
check("A: extract --memory matches the kernel's manifest byte for byte", chk.returncode == 0,
      chk.stdout + chk.stderr)

b = capture("B", [names_key(dirs[0])])
rc, keys, pols = keyscan(b)
check("B: one inode's key proves nothing: not found, exit 1",
      rc == 1 and keys == [] and all(not p["found"] for p in pols), (rc, keys))

c = capture("C", [names_key(dirs[0]), names_key(dirs[1])])
rc, keys, pols = keyscan(c)
check("C: two directories' names keys give the key's first 32 bytes",
      len(keys) == 1 and keys[0]["bytes"] == 32 and keys[0]["confirmed"], (rc, keys))
out = os.path.join(W, "outC")
p = subprocess.run([E4DUMP, "extract", "--memory", c, img, "-o", out], capture_output=True,
                   text=True)
written = [os.path.join(d, f) for d, _, fs in os.walk(out) for f in fs]
check("C: extract --memory: names decrypted, no file contents written (an error each), exit 1",
      p.returncode == 1 and os.path.isdir(os.path.join(out, "secret")) and
      not any(os.lstat(f).st_size for f in written if "/secret/" in f and not os.path.islink(f)),
      (p.returncode, written, p.stderr))

d = capture("D", [rng.randbytes(32) for _ in range(6)] + [rng.randbytes(16) for _ in range(4)])
rc, keys, pols = keyscan(d)
check("D: unrelated AES keys: nothing", keys == [] and rc == 1, keys)

print("%d passed, %d failed" % (passes, fails))
sys.exit(1 if fails else 0)
