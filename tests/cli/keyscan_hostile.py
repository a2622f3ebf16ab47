#!/usr/bin/env python3
"""e4dump keyscan on captures made here, hostile and not (issue 30, 4).

A v2 key's HMAC states (§17.3, laid out by tests/spec/hmac_states.py's
pure-Python SHA-512, independent of e4dump) and a v1 key's
fscrypt_master_key secret with its mk_spec (§17.2, laid out here from the
kernel's declarations) are planted in LiME files and ELF cores whose
range headers lie: ranges that overlap, run backwards, claim a terabyte,
point past the file; a capture cut short; an ELF core whose program
header table is outside the file; a 32-bit ELF.  For each: the exit
status, one clear error or warning naming the capture and the reason,
the keys found where they are (the identifier or descriptor, the file
offset and the physical address computed here), nothing else, no key
byte in the output, and the run going on with the other captures.
Also: a key straddling two ranges adjacent in memory is found; one
straddling a gap is not; memory stays bounded on a capture whose header
claims 1 TiB.
usage: keyscan_hostile.py E4DUMP WORKDIR"""
import hashlib
import json
import os
import resource
import struct
import subprocess
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "spec"))
sys.dont_write_bytecode = True
import hmac_states  # noqa: E402

E4DUMP, W = sys.argv[1], sys.argv[2]
os.makedirs(W, exist_ok=True)
fails = 0
passes = 0


def check(name, cond, detail=""):
    global fails, passes
    if cond:
        passes += 1
    else:
        fails += 1
        print("FAIL:", name, detail)


V2_KEY = bytes(range(0x40, 0x80))
PRK = hmac_states.hkdf_reference(V2_KEY, 1, b"", 16)[0]
HI, HO = hmac_states.setkey_states(PRK)
V2_ID = hmac_states.expand_from_states(HI, HO, 1, b"", 16).hex()
V2_CTX = hmac_states.context_bytes(HI, HO, b"\0" * 128)
assert V2_ID == hmac_states.hkdf_reference(V2_KEY, 1, b"", 16)[1].hex()

PRK_B = hmac_states.hkdf_reference(bytes(range(0x10, 0x30)), 1, b"", 16)[0]
V2B_CTX = hmac_states.context_bytes(*hmac_states.setkey_states(PRK_B), b"\0" * 128)
V2B_ID = hmac_states.expand_from_states(*hmac_states.setkey_states(PRK_B), 1, b"", 16).hex()

V1_KEY = bytes(range(0xa0, 0xe0))
V1_DESC = bytes.fromhex("1122334455667788")
# struct fscrypt_master_key_secret (hmac_tfm NULL, size, raw[64], pad)
# then mk_spec: type 1 (DESCRIPTOR), reserved, descriptor, 24 zeros
V1_SECRET = (struct.pack("<QI", 0, 64) + V1_KEY + b"\0" * 4 +
             struct.pack("<II", 1, 0) + V1_DESC + b"\0" * 24)
SECRETS = [V2_KEY.hex(), V1_KEY.hex(), PRK.hex(), PRK_B.hex()]


def lime_header(start, end_incl):
    return struct.pack("<IIQQQ", 0x4C694D45, 1, start, end_incl, 0)


def page(fill=0, plant=None, at=0, size=4096):
    b = bytearray([fill]) * size
    if plant:
        b[at:at + len(plant)] = plant
    return bytes(b[:size])


def elf_core(segments, phoff=64, phnum=None, klass=2):
    """segments: (phys, data); PT_LOAD headers at phoff, data after."""
    n = len(segments) if phnum is None else phnum
    ehdr = (b"\x7fELF" + bytes([klass, 1, 1, 0]) + b"\0" * 8 +
            struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, phoff, 0, 0, 64, 56, n, 0, 0, 0))
    data_off = 64 + 56 * len(segments)
    phdrs, blobs = b"", b""
    for phys, data in segments:
        phdrs += struct.pack("<IIQQQQQQ", 1, 0, data_off + len(blobs), phys, phys,
                             len(data), len(data), 0)
        blobs += data
    return ehdr + phdrs + blobs


def run(name, captures, extra=()):
    paths = []
    for i, blob in enumerate(captures):
        p = os.path.join(W, "%s.%d" % (name, i))
        if blob is not None:
            with open(p, "wb") as f:
                f.write(blob)
        paths.append(p)
    p = subprocess.run([E4DUMP, "keyscan", "--json", *extra, *paths], capture_output=True)
    out, err = p.stdout.decode(), p.stderr.decode()
    recs = [json.loads(line) for line in out.splitlines() if line.strip()]
    for s in SECRETS:
        check(name + ": no key bytes in the output", s not in out and s not in err)
    check(name + ": no sanitizer report", "Sanitizer" not in err and "runtime error" not in err, err[-300:])
    return p.returncode, recs, err, paths


def keys(recs):
    return sorted((r["key"], r["offset"], r["phys"]) for r in recs if r["type"] == "memory_key")


# 1. a LiME file of two ranges, the v2 states at 0x1000 + 0x208 in the second
body1 = page()
body2 = page(plant=V2_CTX, at=0x208)
lime = lime_header(0x0, 0xfff) + body1 + lime_header(0x100000, 0x100fff) + body2
rc, recs, err, paths = run("lime-good", [lime])
off2 = 32 + 4096 + 32 + 0x208
check("lime: v2 states found at their offset and address",
      keys(recs) == [(V2_ID, off2, 0x100000 + 0x208)], str(keys(recs)))
check("lime: exit 0", rc == 0, err)

# 2. overlapping and backwards and terabyte ranges: the good one still read
hostile = (lime_header(0x0, 0xfff) + page(plant=V1_SECRET, at=0x100) +
           lime_header(0x800, 0x17ff) + page() +               # overlaps the first
           lime_header(0x10000, 0x10000 + (1 << 40) - 1) + page(plant=V2_CTX, at=0x10))
backwards = (lime_header(0x0, 0xfff) + page(plant=V2B_CTX, at=0x18) +
             lime_header(0x9000, 0x8000) + page(plant=V1_SECRET, at=0))
rc, recs, err, paths = run("lime-hostile", [hostile, backwards])
cap = [r for r in recs if r["type"] == "capture"][0]
check("lime hostile: problems counted", cap["problems"] >= 2, json.dumps(cap))
check("lime hostile: warnings name the capture and why",
      paths[0] in err and "clipped" in err and "runs backwards" in err, err)
check("lime backwards: the range before it read, nothing after it",
      (V2B_ID, 32 + 0x18, 0x18) in keys(recs) and
      not any(r["capture"] == paths[1] and r["key"] == V1_DESC.hex() for r in recs
              if r["type"] == "memory_key"), str(keys(recs)))
check("lime hostile: the v1 key named by its mk_spec is still found",
      (V1_DESC.hex(), 32 + 0x100, 0x100) in keys(recs), str(keys(recs)))
check("lime hostile: the v2 states of the clipped terabyte range are found",
      any(k[0] == V2_ID for k in keys(recs)), str(keys(recs)))

# 3. a capture cut short inside a structure: nothing invented, a note
cut = lime_header(0x0, 0x1fff) + page(plant=V2_CTX, at=4096 - 64)
rc, recs, err, paths = run("lime-cut", [cut])
check("cut: no key from a structure the file ends inside", keys(recs) == [], str(keys(recs)))
check("cut: the clipped range is told", "clipped" in err or "end" in err, err)

# 4. a structure across two ranges adjacent in memory (not in the file),
#    and the same across a gap in memory: only the first is one structure
split = V2_CTX
a = page(plant=split[:200], at=4096 - 200)
b = page(plant=split[200:], at=0)
adj = lime_header(0x0, 0xfff) + a + lime_header(0x1000, 0x1fff) + b
gap = lime_header(0x0, 0xfff) + a + lime_header(0x3000, 0x3fff) + b
rc, recs, err, paths = run("adjacent", [adj, gap])
found = [(r["capture"], r["phys"]) for r in recs if r["type"] == "memory_key"]
check("a structure across adjacent ranges is found, one across a gap is not",
      found == [(paths[0], 4096 - 200)], str(found))

# 5. ELF cores: a good one, one whose program headers lie past the file,
#    a 32-bit one, and a missing file; the good one's key still found
good = elf_core([(0x200000, page(plant=V2_CTX, at=0x800))])
liar = elf_core([(0x0, page())], phoff=1 << 40)
elf32 = elf_core([(0x0, page())], klass=1)
rc, recs, err, paths = run("elf", [good, liar, elf32, None])
check("elf: the good core's key found at its offset",
      keys(recs) == [(V2_ID, 64 + 56 + 0x800, 0x200000 + 0x800)], str(keys(recs)))
check("elf: each bad capture named in an error", all(p in err for p in paths[1:]), err)
check("elf: exit status 1 after errors, not a crash", rc == 1, "rc %d" % rc)

# 6. bounded memory on a header claiming 1 TiB over a small file
tb = lime_header(0x0, (1 << 40) - 1) + page(plant=V1_SECRET, at=8) * 256
with open(os.path.join(W, "tb"), "wb") as f:
    f.write(tb)
r0 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
proc = subprocess.run([E4DUMP, "keyscan", os.path.join(W, "tb")], capture_output=True)
r1 = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
check("terabyte claim: clipped to the file, the key found once (256 copies)",
      proc.returncode == 0 and proc.stdout.decode().count(V1_DESC.hex()) == 1,
      proc.stdout.decode() + proc.stderr.decode())
# (an ASan build's shadow memory is not the tool's: not measured there)
asan = "__asan_init" in subprocess.run(["nm", "-D", E4DUMP], capture_output=True, text=True).stdout
check("terabyte claim: peak RSS under 64 MiB", asan or max(r0, r1) < 64 * 1024, "%d KiB" % max(r0, r1))

# 7. without anything planted: no key
rc, recs, err, paths = run("empty", [page(0x5a) * 64, b""])
check("random-free filler and an empty file: no key", keys(recs) == [], str(keys(recs)))

print("%d passed, %d failed" % (passes, fails))
sys.exit(1 if fails else 0)
