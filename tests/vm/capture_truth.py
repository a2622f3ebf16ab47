#!/usr/bin/env python3
"""The truth about a RAM capture of vm/scenarios/capture-keys.scn, checked
against spec §17 without e4dump (pure Python, hashlib; AES from
tests/spec/aes_schedule.py, the HMAC states from tests/spec/hmac_states.py,
the image's contexts from tests/lib/ext4img.py).

For the capture IMAGE.capture.{raw,elf,lime} of a run (vm/make-image.sh;
keys in KEYS_DIR = keys/ next to IMAGE, expectations in
IMAGE.capture.keys) it checks and prints, with physical addresses (= raw
file offsets) and the ELF / LiME file offsets:

  forms    the ELF core's PT_LOAD segments and the LiME ranges hold the
           same bytes as the raw file at their physical addresses
  logon    a v1 logon key (§17.1): its raw key at +0x1c of a 96-byte
           user_key_payload, datalen 72 at +0x10, size at +0x5c
  ioctl    a v1 key of FS_IOC_ADD_ENCRYPTION_KEY (§17.2): struct
           fscrypt_master_key_secret: hmac_tfm NULL, size, raw, padding 0
  v2       a v2 key (§17.3): the ipad and opad SHA-512 states of
           HMAC-SHA512(prk) with the counts, equal buffers and the pointer
           of the table; the raw key and prk nowhere
  file     a v1 key unlinked or revoked from the keyring (§17.1, §17.5):
           its raw key nowhere, and for every inode of its tree the AES
           key schedules of its per-file key (AES-128-ECB(nonce, master)):
           a regular file's XTS key as two struct crypto_aes_ctx (one per
           half), a directory's or symlink's CTS key as one, each
           byte-exact as aes_expandkey leaves it
  schedules every AES-256 schedule of the capture (a scan: key_enc's first
           expanded words and key_length), each explained by a per-file
           key of the image or counted as unexplained
With --nokey OTHER_IMAGE: OTHER_IMAGE.capture.raw (a guest that added no
key) holds none of these structures: no key of IMAGE, no state, no
schedule, and no logon payload, master key secret or HMAC state shape.

Each fact is printed as `holds` or `CONTRADICTED`; exit status 1 when any
fact is contradicted (or a check could not run), else 0.
usage: capture_truth.py IMAGE [--nokey OTHER_IMAGE]"""
import argparse
import hashlib
import hmac
import mmap
import os
import re
import struct
import sys

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "spec"))
sys.path.insert(0, os.path.join(here, "..", "lib"))
import aes_schedule  # noqa: E402
import ext4img  # noqa: E402
import hmac_states  # noqa: E402

bad = 0


def fact(ok, text):
    global bad
    print(f"{'holds' if ok else 'CONTRADICTED'}: {text}")
    if not ok:
        bad += 1


def u16(m, o):
    return struct.unpack_from("<H", m, o)[0]


def u32(m, o):
    return struct.unpack_from("<I", m, o)[0]


def u64(m, o):
    return struct.unpack_from("<Q", m, o)[0]


def find_all(m, needle):
    out, i = [], m.find(needle)
    while i >= 0:
        out.append(i)
        i = m.find(needle, i + 1)
    return out


class Forms:
    """The three files of a capture, and where a physical address lies in
    the ELF core and the LiME file."""

    def __init__(self, prefix):
        self.prefix = prefix
        self.fraw = open(prefix + ".raw", "rb")
        self.raw = mmap.mmap(self.fraw.fileno(), 0, access=mmap.ACCESS_READ)
        self.elf_segs = [(p, o, n) for p, o, n in self.pt_loads(prefix + ".elf")]
        self.lime_segs = self.lime_ranges(prefix + ".lime")

    @staticmethod
    def pt_loads(path):
        with open(path, "rb") as f:
            eh = f.read(64)
            phoff, = struct.unpack_from("<Q", eh, 32)
            phentsize, phnum = struct.unpack_from("<HH", eh, 54)
            f.seek(phoff)
            ph = f.read(phentsize * phnum)
        segs = []
        for i in range(phnum):
            t, _, off, _, paddr, filesz, _, _ = struct.unpack_from("<IIQQQQQQ", ph, i * phentsize)
            if t == 1 and filesz:
                segs.append((paddr, off, filesz))
        return segs

    @staticmethod
    def lime_ranges(path):
        segs, off, size = [], 0, os.path.getsize(path)
        with open(path, "rb") as f:
            while off < size:
                f.seek(off)
                magic, ver, s, e, _ = struct.unpack("<IIQQ8s", f.read(32))
                if magic != 0x4C694D45 or ver != 1 or e < s:
                    raise SystemExit(f"{path}: bad LiME header at {off}")
                segs.append((s, off + 32, e - s + 1))
                off += 32 + e - s + 1
        return segs

    @staticmethod
    def where(segs, phys):
        for p, o, n in segs:
            if p <= phys < p + n:
                return o + phys - p
        return None

    def at(self, phys):
        e, l = self.where(self.elf_segs, phys), self.where(self.lime_segs, phys)
        return (f"phys {phys:#x} (raw {phys:#x}, ELF {e:#x}, LiME {l:#x})"
                if e is not None and l is not None else f"phys {phys:#x} (raw only)")

    def check(self):
        """Every byte of the ELF and LiME ranges inside the raw file equals it."""
        for name, path, segs in (("ELF core", self.prefix + ".elf", self.elf_segs),
                                 ("LiME", self.prefix + ".lime", self.lime_segs)):
            same, diff, outside = 0, 0, 0
            with open(path, "rb") as f:
                for p, o, n in segs:
                    if p >= len(self.raw):
                        outside += n
                        continue
                    k = min(n, len(self.raw) - p)
                    f.seek(o)
                    for c in range(0, k, 1 << 24):
                        m = min(1 << 24, k - c)
                        if f.read(m) == self.raw[p + c:p + c + m]:
                            same += m
                        else:
                            diff += m
                    outside += n - k
            fact(diff == 0 and same > 0,
                 f"forms: {name} {path}: {len(segs)} ranges " +
                 ", ".join(f"{p:#x}..{p + n - 1:#x} at {o:#x}" for p, o, n in segs) +
                 f"; {same} bytes equal the raw file, {diff} differ, {outside} lie past it"
                 " (firmware ROM, not RAM)")


def read_keys_manifest(path):
    keys = []
    for line in open(path, encoding="ascii"):
        w = line.split()
        if w and w[0] == "key":
            keys.append(dict(version=int(w[1]), hex=w[2], how=w[3], ok=w[4] == "yes",
                             kind=w[5], trees=[] if w[6] == "-" else w[6].split(",")))
    return keys


def image_inodes(image):
    """{descriptor or identifier hex: [(ino, kind 'reg'|'dir'|'lnk', context)]}"""
    im = ext4img.Image(image)
    out = {}
    for ino in range(1, im.inodes_count + 1):
        i = im.inode(ino)
        if not i.mode or not i.links_count or not i.flags & ext4img.ENCRYPT_FL:
            continue
        ctx = im.context(ino)
        if ctx is None:
            continue
        kind = "dir" if i.is_dir() else "reg" if i.is_reg() else "lnk"
        key = ctx[4:12].hex() if ctx[0] == 1 else ctx[8:24].hex()
        out.setdefault(key, []).append((ino, kind, bytes(ctx)))
    return out, im.superblock()["uuid"]


def v1_file_keys(master, inodes):
    """[(ino, kind, part, 32-byte AES key)] of a v1 (no DIRECT_KEY, modes
    1/4) tree: AES-128-ECB(nonce, master[0..keysize)) split in halves for
    XTS (part 'xts0' = the data key, 'xts1' = the tweak key)."""
    out = []
    for ino, kind, ctx in inodes:
        nonce = ctx[12:28]
        if kind == "reg" and ctx[1] == 1:
            k = aes_schedule.ecb(nonce, master[:64])
            out += [(ino, kind, "xts0", k[:32]), (ino, kind, "xts1", k[32:])]
        elif kind != "reg" and ctx[2] == 4:
            out.append((ino, kind, "cts", aes_schedule.ecb(nonce, master[:32])))
    return out


def v2_file_keys(master, inodes, uuid):
    """The AES-256 keys of a v2 tree's inodes (spec §6.2): per-file keys
    (context 2, info = nonce), or with IV_INO_LBLK_64 the per-mode key
    (context 4, HKDF_CONTEXT_IV_INO_LBLK_64_KEY, info = mode || fs uuid).  Adiantum has none of its own."""
    out = []
    for ino, kind, ctx in inodes:
        cmode, fmode, flags, nonce = ctx[1], ctx[2], ctx[3], ctx[24:40]
        mode = cmode if kind == "reg" else fmode
        size = {1: 64, 4: 32}.get(mode)
        if size is None:
            continue
        if flags & 0x08:
            _, k = hmac_states.hkdf_reference(master, 4, bytes([mode]) + uuid, size)
        else:
            _, k = hmac_states.hkdf_reference(master, 2, nonce, size)
        if size == 64:
            out += [(ino, kind, "xts0", k[:32]), (ino, kind, "xts1", k[32:])]
        else:
            out.append((ino, kind, "cts", k))
    return out


def check_logon(f, key, raw):
    m = f.raw
    hits = find_all(m, raw)
    good = []
    for h in hits:
        b = h - 0x1c
        if b >= 0 and u16(m, b + 0x10) == 72 and u32(m, b + 0x5c) == len(raw):
            good.append(b)
            print(f"  user_key_payload at {f.at(b)}: rcu {m[b:b + 16].hex()}, datalen "
                  f"{u16(m, b + 0x10)}, pad {m[b + 0x12:b + 0x18].hex()}, mode "
                  f"{u32(m, b + 0x18)}, size {u32(m, b + 0x5c)}")
    others = [h for h in hits if h - 0x1c not in good]
    fact(len(good) >= 1,
         f"logon {key['hex']}: §17.1: the raw key at +0x1c of a user_key_payload, datalen 72 "
         f"at +0x10, size {len(raw)} at +0x5c: {len(good)} such payload(s) at " +
         ", ".join(f"{b:#x}" for b in good) +
         f"; the raw key occurs {len(hits)} time(s) in all" +
         (f", elsewhere at {', '.join(f.at(h) for h in others)}" if others else ""))


def check_ioctl(f, key, raw):
    m = f.raw
    hits = find_all(m, raw)
    good = []
    for h in hits:
        b = h - 0x0c
        if (b >= 0 and u64(m, b) == 0 and u32(m, b + 8) == len(raw)
                and m[h + len(raw):b + 0x4c] == bytes(0x4c - 0x0c - len(raw))
                and u32(m, b + 0x4c) == 0):
            good.append(b)
    others = [h for h in hits if h - 0x0c not in good]
    fact(len(good) >= 1,
         f"ioctl {key['hex']}: §17.2: fscrypt_master_key_secret with hmac_tfm NULL at +0, "
         f"size {len(raw)} at +8, the raw key at +0x0c, padding 0 at +0x4c: at " +
         ", ".join(f.at(b) for b in good) + f"; the raw key occurs {len(hits)} time(s)" +
         (f", elsewhere at {', '.join(f.at(h) for h in others)} (not this structure)"
          if others else ""))
    # §17.2: fscrypt_master_key.mk_spec holds the descriptor too
    return good


def states_bytes(raw):
    hi, ho = hmac_states.setkey_states(hmac.new(bytes(64), raw, hashlib.sha512).digest())
    return struct.pack("<8Q", *hi), struct.pack("<8Q", *ho)




def check_v2(f, key, raw):
    m = f.raw
    prk = hmac.new(bytes(64), raw, hashlib.sha512).digest()
    hi, ho = states_bytes(raw)
    hits = find_all(m, hi)
    good = []
    for b in hits:
        c = (u64(m, b + 0x40), u64(m, b + 0x48), m[b + 0xd0:b + 0x110] == ho,
             u64(m, b + 0x110), u64(m, b + 0x118), m[b + 0x50:b + 0xd0] == m[b + 0x120:b + 0x1a0])
        ptr = u64(m, b + 0x1a0)
        print(f"  ipad state at {f.at(b)}: count ({c[0]}, {c[1]}), opad state at +0xd0: "
              f"{c[2]}, opad count ({c[3]}, {c[4]}), bufs equal {c[5]}, ipad.buf zero "
              f"{m[b + 0x50:b + 0xd0] == bytes(128)}, +0x1a0 {ptr:#x}")
        if c == (128, 0, True, 128, 0, True) and ptr >> 47 == 0x1ffff:
            good.append(b)
    fact(len(good) >= 1,
         f"v2 {key['hex']}: §17.3: ipad state at +0, count (128, 0) at +0x40, opad state at "
         f"+0xd0, count (128, 0) at +0x110, the two bufs equal, a kernel pointer at +0x1a0: at " +
         ", ".join(f.at(b) for b in good) + f" ({len(hits)} ipad state(s) in all)")
    for b in good:
        fact(m[b + 0x50:b + 0xd0] == bytes(128),
             f"v2 {key['hex']}: §17.3: ipad.buf is zero under CONFIG_INIT_STACK_ALL_ZERO "
             f"(at {b + 0x50:#x})")
    # other copies of a state are not the transform: every HMAC the key
    # computes imports its states into a descriptor on the kernel stack
    # (hmac_init, hmac_final), which keeps them until overwritten; seen in
    # one capture of two, so told, not required either way
    ho_hits = find_all(m, ho)
    print(f"  v2 {key['hex']}: opad state at {len(ho_hits)} place(s) "
          f"({', '.join(f'{h:#x}' for h in ho_hits)}); "
          f"{len([h for h in ho_hits if h - 0xd0 not in good])} outside a transform context")
    r = find_all(m, raw)
    fact(not r, f"v2 {key['hex']}: §17.2: a v2 raw key is never stored: "
         f"{len(r)} occurrence(s) of the raw key" +
         (f" at {', '.join(f.at(h) for h in r)}" if r else ""))
    p = find_all(m, prk)
    fact(not p, f"v2 {key['hex']}: §17.3: prk is wiped: {len(p)} occurrence(s)")
    ident = hmac_states.hkdf_reference(raw, 1, b"", 16)[1]
    fact(ident.hex() == key["hex"], f"v2 {key['hex']}: the identifier from the raw key is "
         f"{ident.hex()}; §17.4 from the states found: " +
         hmac_states.expand_from_states(*[list(struct.unpack('<8Q', x)) for x in (hi, ho)],
                                        1, b"", 16).hex())
    idh = find_all(m, ident)
    print(f"  the identifier occurs {len(idh)} time(s) in plain (§17.3: mk_spec): " +
          ", ".join(f"{h:#x}" for h in idh))


def check_schedules(f, label, keys):
    """Each (ino, kind, part, key) as a byte-exact crypto_aes_ctx; returns
    the number found."""
    m = f.raw
    found = 0
    for ino, kind, part, k in keys:
        img = aes_schedule.ctx_image(k)
        hits = [h for h in find_all(m, k) if m[h:h + len(img)] == img]
        if hits:
            found += 1
        fact(len(hits) >= 1,
             f"{label}: §17.5: inode {ino} ({kind}, {part}) per-file key {k[:8].hex()}… as a "
             f"crypto_aes_ctx (key_enc, key_dec, key_length 32 at +0x1e0, byte-exact) at " +
             (", ".join(f.at(h) for h in hits) or "nowhere"))
    return found


AES_LEN = re.compile(rb"\x20\x00\x00\x00")


def scan_schedules(m):
    """Offsets of every AES-256 crypto_aes_ctx: key_length 32 at +0x1e0,
    key_enc[8] expanded from key_enc[0] and key_enc[7]."""
    out = []
    sbox = aes_schedule.SBOX
    for mt in AES_LEN.finditer(m):
        b = mt.start() - 0x1e0
        if b < 0 or b % 8:
            continue
        w7 = m[b + 28:b + 32]
        t = bytes([sbox[w7[1]] ^ 1, sbox[w7[2]], sbox[w7[3]], sbox[w7[0]]])
        if bytes(x ^ y for x, y in zip(m[b:b + 4], t)) != m[b + 32:b + 36]:
            continue
        if m[b:b + 32] == bytes(32):
            continue
        if m[b:b + 0x1e4] == aes_schedule.ctx_image(m[b:b + 32]):
            out.append(b)
    return out


def scan_shapes(m):
    """Counts of generic shapes: logon payloads (datalen 72, size 1..64,
    8-aligned, a non-zero key), HMAC-SHA512 contexts (counts (128, 0) at
    +0x40 and +0x110, equal bufs, states not SHA-512's IV)."""
    logon = 0
    for mt in re.finditer(rb"\x48\x00", m):
        b = mt.start() - 0x10
        if b < 0 or b % 8 or b + 0x60 > len(m):
            continue
        size = u32(m, b + 0x5c)
        if 1 <= size <= 64 and m[b + 0x1c:b + 0x1c + size] != bytes(size):
            logon += 1
    hm = 0
    iv = struct.pack("<8Q", *hmac_states.IV)
    for mt in re.finditer(rb"\x80\x00{15}", m):
        b = mt.start() - 0x40
        if b < 0 or b % 8 or b + 0x1a8 > len(m):
            continue
        if (m[b + 0x110:b + 0x120] == mt.group(0) and m[b + 0x50:b + 0xd0] == m[b + 0x120:b + 0x1a0]
                and m[b:b + 64] != iv and m[b:b + 64] != bytes(64)):
            hm += 1
    return logon, hm


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("image")
    ap.add_argument("--nokey", metavar="OTHER_IMAGE")
    a = ap.parse_args()
    keysdir = os.path.join(os.path.dirname(a.image), "keys")
    f = Forms(a.image + ".capture")
    f.check()
    keys = read_keys_manifest(a.image + ".capture.keys")
    inodes, uuid = image_inodes(a.image)
    expected = {}  # AES key -> what it is
    allraw = []
    for key in keys:
        raw = open(os.path.join(keysdir, key["hex"] + ".key"), "rb").read()
        allraw.append((key, raw))
        tree = inodes.get(key["hex"], [])
        if key["version"] == 1:
            fk = v1_file_keys(raw, tree)
        else:
            fk = v2_file_keys(raw, tree, uuid)
        for ino, kind, part, k in fk:
            expected[k] = f"{key['hex']} inode {ino} {kind} {part}"
        if key["how"] == "logon":
            check_logon(f, key, raw)
        elif key["how"] == "ioctl" and key["version"] == 1:
            check_ioctl(f, key, raw)
        elif key["how"] == "ioctl":
            check_v2(f, key, raw)
        else:
            hits = find_all(f.raw, raw)
            fact(not hits, f"{key['how']} {key['hex']}: §17.1: the payload of a "
                 f"{'revoked' if 'revoked' in key['how'] else 'destroyed'} key is wiped "
                 f"(kfree_sensitive): the raw key occurs {len(hits)} time(s)" +
                 (f" at {', '.join(f.at(h) for h in hits)}" if hits else ""))
        if key["version"] == 2 and fk:
            # §17.5, v2: the schedules of HKDF outputs (per-file keys, the
            # IV_INO_LBLK_64 per-mode keys; one per distinct key)
            uniq = {k: (ino, kind, part, k) for ino, kind, part, k in fk}
            n = check_schedules(f, f"{key['how']} v2 {key['hex']}", list(uniq.values()))
        if key["version"] == 1 and fk:
            n = check_schedules(f, f"{key['how']} {key['hex']}", fk)
            # the relation of §17.5: master = AES-128-ECB-Decrypt(nonce, file key)
            ino, kind, part, k = fk[0]
            nonce = [c for i, _, c in tree if i == ino][0][12:28]
            fact(aes_schedule.ecb(nonce, k, enc=False) == raw[:32],
                 f"{key['hex']}: §17.5: AES-128-ECB-Decrypt(nonce of inode {ino}, its key) = "
                 f"master[0..32) ({n} of {len(fk)} schedules found)")
    sched = scan_schedules(f.raw)
    unexplained = [b for b in sched if f.raw[b:b + 32] not in expected]
    print(f"  AES-256 schedules in the capture: {len(sched)}; explained by per-file keys of "
          f"the image: {len(sched) - len(unexplained)}; unexplained (Adiantum keys its own "
          f"AES-256 from XChaCha12 output, adiantum_setkey): " +
          ", ".join(f"{b:#x}" for b in unexplained[:20]))
    fact(len(sched) > 0, f"schedules: a scan finds {len(sched)} AES-256 crypto_aes_ctx")
    if a.nokey:
        g = Forms(a.nokey + ".capture")
        found = []
        for key, raw in allraw:
            if find_all(g.raw, raw):
                found.append(f"raw key {key['hex']}")
            if key["version"] == 2 and find_all(g.raw, states_bytes(raw)[0]):
                found.append(f"ipad state of {key['hex']}")
        for k, what in expected.items():
            if find_all(g.raw, k):
                found.append(f"per-file key {what}")
        fact(not found, f"nokey: {a.nokey}.capture.raw holds no key, state or per-file key "
             f"of the keyed run ({', '.join(found) or 'none found'})")
        s = scan_schedules(g.raw)
        fact(not [b for b in s if g.raw[b:b + 32] in expected],
             f"nokey: AES-256 schedules in the no-key capture: {len(s)} (" +
             ", ".join(f"{b:#x}" for b in s[:10]) + "), none of the keyed run's")
        logon, hm = scan_shapes(g.raw)
        klogon, khm = scan_shapes(f.raw)
        print(f"  shapes (no-key capture): {logon} logon-payload-like blocks, {hm} HMAC-state-like "
              f"contexts; keyed capture: {klogon}, {khm}")
        fact(hm == 0, f"nokey: no HMAC-SHA512 state pair of §17.3's shape ({hm})")
    print(f"{bad} contradicted" if bad else "every fact holds")
    sys.exit(1 if bad else 0)


if __name__ == "__main__":
    main()
