#!/usr/bin/env python3
"""Checks what `e4dump keyscan --json` printed (JSON Lines) against the
truth of a RAM capture made by vm/make-image.sh (tests/vm/keyscan.sh).

  keyscan_check.py keyed JSON IMAGE FORM WRITE_KEYS
      the keyed run's capture IMAGE.capture.FORM (FORM: elf, raw, lime)
      scanned with --image IMAGE --write-keys WRITE_KEYS: the capture record
      (path, format, ranges, bytes, no problem); for every key that
      IMAGE.capture.keys says is recoverable, memory_policy found=true with
      the expected kind among its kinds, at least one memory_key record of
      that kind, every memory_key record of that key confirmed, its offset
      the file offset of its physical address in this form, the structure
      there what spec §17 says (recomputed from keys/ next to IMAGE: the raw
      key at +0x1c / +0x0c, the ipad state at +0, a per-file key of that
      inode's nonce at +0), and WRITE_KEYS/<key>.key written; every
      confirmed record is of a key of the run; a summary last.
  keyscan_check.py none JSON [POLICIES]
      no memory_key record at all; with POLICIES, that many memory_policy
      records, none found.
  keyscan_check.py foreign JSON POLICIES
      keys of another guest or policies of another image: no confirmed
      memory_key record; POLICIES memory_policy records, none found.
Prints one FAIL line per problem and `N passed, M failed`; exit 1 on any."""
import hashlib
import hmac
import json
import os
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, here)
import capture_truth as truth  # noqa: E402

passed = failed = 0


def check(ok, what):
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
        print(f"FAIL: {what}")


def load(path):
    recs = []
    for no, line in enumerate(open(path, encoding="utf-8"), 1):
        try:
            recs.append(json.loads(line))
        except ValueError:
            check(False, f"{path}:{no}: not JSON: {line[:80]!r}")
    check(bool(recs), f"{path}: no output")
    check(bool(recs) and recs[-1].get("type") == "summary", f"{path}: the last record is no summary")
    return recs


FORMAT = {"elf": "ELF core", "raw": "raw", "lime": "LiME"}


def keyed(path, image, form, wkeys):
    recs = load(path)
    cap = image + ".capture." + form
    f = truth.Forms(image + ".capture")
    segs = {"elf": f.elf_segs, "lime": f.lime_segs, "raw": [(0, 0, len(f.raw))]}[form]
    caps = [r for r in recs if r.get("type") == "capture"]
    check(len(caps) == 1, f"one capture record, not {len(caps)}")
    for c in caps:
        check(c.get("path") == cap, f"capture path {c.get('path')!r} != {cap!r}")
        check(c.get("format") == FORMAT[form], f"format {c.get('format')!r} != {FORMAT[form]!r}")
        check(c.get("ranges") == len(segs), f"ranges {c.get('ranges')} != {len(segs)}")
        check(c.get("bytes") == sum(n for _, _, n in segs),
              f"bytes {c.get('bytes')} != {sum(n for _, _, n in segs)}")
        check(c.get("problems") == 0, f"problems {c.get('problems')}: {c.get('notes')}")
    keys = truth.read_keys_manifest(image + ".capture.keys")
    known = {k["hex"] for k in keys}
    inodes, uuid = truth.image_inodes(image)
    mkeys = [r for r in recs if r.get("type") == "memory_key"]
    pols = {r.get("key"): r for r in recs if r.get("type") == "memory_policy"}
    for r in mkeys:
        if r.get("confirmed"):
            check(r.get("key") in known, f"confirmed memory_key of a key the guest never added: {r}")
    keysdir = os.path.join(os.path.dirname(image), "keys")
    for k in keys:
        if not k["ok"]:
            continue
        h, kind = k["hex"], k["kind"]
        raw = open(os.path.join(keysdir, h + ".key"), "rb").read()
        p = pols.get(h)
        check(p is not None, f"{h}: no memory_policy record")
        if p:
            check(p.get("found") is True, f"{h}: memory_policy found={p.get('found')}")
            check(p.get("version") == k["version"], f"{h}: memory_policy version {p.get('version')}")
            check(kind in (p.get("kinds") or []), f"{h}: kinds {p.get('kinds')} lack {kind}")
        mine = [r for r in mkeys if r.get("key") == h]
        check(any(r.get("kind") == kind for r in mine), f"{h}: no memory_key record of kind {kind}")
        fkeys = {}
        if kind == "v1-file-key":
            fkeys = {key: ino for ino, _, _, key in truth.v1_file_keys(raw, inodes.get(h, []))}
        hi = truth.states_bytes(raw)[0] if k["version"] == 2 else None
        for r in mine:
            what = f"{h} {r.get('kind')} at offset {r.get('offset')}"
            check(r.get("confirmed") is True, f"{what}: not confirmed ({r.get('evidence')})")
            check(r.get("version") == k["version"], f"{what}: version {r.get('version')}")
            check(r.get("capture") == cap, f"{what}: capture {r.get('capture')!r}")
            phys = r.get("phys")
            if not isinstance(phys, int) or not isinstance(r.get("offset"), int):
                check(False, f"{what}: phys/offset not integers")
                continue
            check(truth.Forms.where(segs, phys) == r["offset"],
                  f"{what}: offset is not the file offset of phys {phys:#x} in the {form} file")
            m = f.raw
            if r.get("kind") == "v1-logon":
                check(m[phys + 0x1c:phys + 0x1c + len(raw)] == raw and
                      truth.u16(m, phys + 0x10) == 72, f"{what}: no user_key_payload of the key at phys")
            elif r.get("kind") == "v1-ioctl":
                check(m[phys + 0x0c:phys + 0x0c + len(raw)] == raw and truth.u64(m, phys) == 0,
                      f"{what}: no fscrypt_master_key_secret of the key at phys")
            elif r.get("kind") == "v2-hkdf":
                check(m[phys:phys + 64] == hi, f"{what}: no ipad state of the key at phys")
            elif r.get("kind") == "v1-file-key":
                ino = fkeys.get(bytes(m[phys:phys + 32]))
                check(ino is not None, f"{what}: no per-file key schedule of the key at phys")
                check(ino is None or r.get("inode") == ino,
                      f"{what}: inode {r.get('inode')}, the schedule is inode {ino}'s")
            kf = os.path.join(wkeys, h + ".key")
            check(os.path.isfile(kf), f"{h}: --write-keys wrote no {kf}")
            check(r.get("key_file") in (kf, os.path.abspath(kf)) or
                  (r.get("key_file") and os.path.samefile(r["key_file"], kf)),
                  f"{what}: key_file {r.get('key_file')!r}")
        if k["version"] == 1 and os.path.isfile(os.path.join(wkeys, h + ".key")):
            text = open(os.path.join(wkeys, h + ".key"), encoding="ascii", errors="replace").read()
            check(text.strip().lower() == raw.hex(), f"{h}: {wkeys}/{h}.key is not the key in hex")


def none(path, policies=None):
    recs = load(path)
    mk = [r for r in recs if r.get("type") == "memory_key"]
    check(not mk, f"{len(mk)} memory_key record(s) in a capture without keys: {mk[:3]}")
    if policies is not None:
        foreign(path, policies, recs)


def foreign(path, policies, recs=None):
    recs = recs if recs is not None else load(path)
    conf = [r for r in recs if r.get("type") == "memory_key" and r.get("confirmed")]
    check(not conf, f"{len(conf)} confirmed memory_key record(s) for another image: {conf[:3]}")
    pols = [r for r in recs if r.get("type") == "memory_policy"]
    check(len(pols) == int(policies), f"{len(pols)} memory_policy records, want {policies}")
    check(all(p.get("found") is False for p in pols), f"a policy found: {pols}")


def main():
    a = sys.argv[1:]
    if a[:1] == ["keyed"] and len(a) == 5:
        keyed(*a[1:])
    elif a[:1] == ["none"] and len(a) in (2, 3):
        none(*a[1:])
    elif a[:1] == ["foreign"] and len(a) == 3:
        foreign(*a[1:])
    else:
        sys.exit(__doc__)
    print(f"{passed} passed, {failed} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
