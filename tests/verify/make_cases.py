#!/usr/bin/python3
"""Make the corrupted images of the verify corpus from kernel-written bases.

usage: make_cases.py BASEDIR OUTDIR [CASE...]

BASEDIR holds the clean bases made by make-corpus.sh: sample/sample.img
(the bundled kernel-written sample), pad/pad.img (vm/scenarios/v1-pad.scn),
f2015/f2015.img (vm/scenarios/format-2015.scn), v2-1k/v2-1k.img
(vm/scenarios/v2-1k.scn) and deep/deep.img
(tests/verify/scenarios/deep-htree.scn: a two-level htree), with keys/.
Paths inside v2 trees cannot be resolved here (v1 names only).
For every tests/verify/expected/CASE.txt this copies the case's base to
OUTDIR/CASE.img, applies the edit below of the same name (debugfs -w
edits first, raw byte edits last: raw edits leave checksums stale, which
e4dump ignores), and writes OUTDIR/CASE.args (e4dump verify arguments, one
per line) and OUTDIR/CASE.want (the findings that must appear, and only
them: "CHECKID INODE" or "CHECKID *" for any inode), the golden file's
"@PATH" resolved to an inode number in the clean base by decrypting names
with the independent Python implementation (never e4dump).
"""
import glob
import os
import re
import shutil
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from imgtool import Image, edit, le  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.normpath(os.path.join(HERE, "..", ".."))
BASES = {"sample": "sample/sample.img", "pad": "pad/pad.img",
         "f2015": "f2015/f2015.img", "deep": "deep/deep.img",
         "v2-1k": "v2-1k/v2-1k.img", "cf": "cf/cf.img"}
# Short names of the master keys used in the golden files.
KEYS = {"S": "sample/keys/5430581507fd59c1.key",
        "A": "pad/keys/7c9fc345b9ec5163.key",
        "B": "pad/keys/0011223344556677.key",
        "C": "pad/keys/8899aabbccddeeff.key",
        "K2": "cf/keys/1a2adcd5ec890588c77e2fea6878fc4e.key"}
NONCE = bytes(range(0xa0, 0xb0))       # a nonce no kernel run wrote


# ---------------------------------------------------------------- edits
# Each gets the Image (its .keys: raw keys by short name) and works by
# plaintext path.

def sb_encrypt_feature(img):
    edit(img.path, "feature -encrypt")


def sb_encryption_level(img):
    edit(img.path, "ssv encryption_level 1")


def context_missing(img):
    edit(img.path, f"ea_rm <{img.ino('/secret/hello.txt')}> c")


def context_unflagged(img):
    ctx = img.context(img.ino("/secret"))
    img.set_context(img.ino("/plain/hello.txt"), ctx[:12] + NONCE)


def context_corrupt(img):
    img.set_context_size(img.ino("/secret/hello.txt"), 27)


def context_unrecognized(img):
    ino = img.ino("/secret/hello.txt")
    ctx = img.context(ino)
    img.set_context(ino, b"\x03" + ctx[1:])


def context_unrecognized_mode(img):
    ino = img.ino("/secret/hello.txt")
    ctx = img.context(ino)
    img.set_context(ino, ctx[:1] + b"\x01\x01" + ctx[3:])


def context_corrupt_v2(img):
    ino = img.ino("/v2pad16")
    ctx = img.context(ino)
    assert ctx[0] == 2 and len(ctx) == 40
    img.set_context(ino, ctx[:4] + b"\x01" + ctx[5:])   # reserved byte


def context_flags_v2(img):
    # IV_INO_LBLK_64 on a filesystem without stable_inodes
    ino = img.ino("/v2pad16")
    ctx = img.context(ino)
    img.set_context(ino, ctx[:3] + bytes([ctx[3] | 0x08]) + ctx[4:])


def context_flags(img):
    ino = img.ino("/secret/hello.txt")
    ctx = img.context(ino)
    img.set_context(ino, ctx[:3] + bytes([ctx[3] | 0x04]) + ctx[4:])


def context_nonce_reuse(img):
    a = img.context(img.ino("/secret/hello.txt"))
    b_ino = img.ino("/secret/日本.txt")
    b = img.context(b_ino)
    img.set_context(b_ino, b[:12] + a[12:28])


def policy_differs(img):
    ino = img.ino("/secret/sub")
    ctx = img.context(ino)
    img.set_context(ino, ctx[:4] + bytes(8) + ctx[12:])


def dir_unencrypted_entry(img):
    ino = img.ino("/secret/hello.txt")
    edit(img.path, f"set_inode_field <{ino}> flags 0x{img.flags(ino) & ~0x800:x}",
         f"ea_rm <{ino}> c")


def root_encrypted(img):
    ctx = img.context(img.ino("/secret"))
    edit(img.path, f"set_inode_field <2> flags 0x{img.flags(2) | 0x800:x}")
    img.set_context(2, ctx[:12] + NONCE)


def lost_found_encrypted(img):
    lf = img.ino("/lost+found")
    ctx = img.context(img.ino("/secret"))
    edit(img.path, f"set_inode_field <{lf}> flags 0x{img.flags(lf) | 0x800:x}")
    img.set_context(lf, ctx[:12] + NONCE)


def name_too_short(img):
    img.set_dirent(img.dirent("/secret", "hello.txt"), name_len=10)


def name_too_long(img):
    # Without the filetype feature name_len is 16 bits: the file type byte
    # of every entry now makes its name longer than 255.
    edit(img.path, "feature -filetype")


def name_padding(img):
    img.set_dirent(img.dirent("/secret", "hello.txt"), name_len=20)


def name_padding_key(img):
    # "hello.txt" stored as 64 bytes (a multiple of the padding, 32): only
    # a key shows that 6.1 stores a 9-byte name as 32 bytes.
    e = img.dirent("/secret", "hello.txt")
    d = img.ino("/secret")
    img.relocate_last(e, d)
    e = img.dirent("/secret", "hello.txt")
    img.set_dirent(e, name=img.encrypt_name(d, img.key_bytes["S"], b"hello.txt", 64))


name_padding_key_nokey = name_padding_key


def name_decrypt(img):
    e = img.dirent("/secret", "hello.txt")
    img.write(e["off"] + 8 + 20, bytes([e["name"][20] ^ 0x55]))


def name_empty(img):
    d = img.ino("/secret")
    img.set_dirent(img.dirent("/secret", "hello.txt"),
                   name=img.encrypt_name(d, img.key_bytes["S"], b"", 32))


def name_slash(img):
    d = img.ino("/secret")
    img.set_dirent(img.dirent("/secret", "hello.txt"),
                   name=img.encrypt_name(d, img.key_bytes["S"], b"a/b", 32))


def name_duplicate(img):
    a = img.dirent("/secret", "hello.txt")
    b = img.dirent("/secret", "日本.txt")
    assert len(a["name"]) == len(b["name"]) == 32
    img.set_dirent(b, name=a["name"])


name_duplicate_key = name_duplicate


def symlink_header(img):
    edit(img.path, f"set_inode_field <{img.ino('/secret/link')}> size 40")


def symlink_header_big(img):
    edit(img.path, f"set_inode_field <{img.ino('/secret/link')}> size 100")


def _set_iblock(img, ino, data):
    old = img.inode_bytes(ino)[0x28:0x28 + 60]
    data = data + old[len(data):]
    for i in range(15):
        if data[4 * i:4 * i + 4] != old[4 * i:4 * i + 4]:
            edit(img.path, f"set_inode_field <{ino}> block[{i}] 0x{le(data[4 * i:4 * i + 4]):x}")


def symlink_decrypt(img):
    ino = img.ino("/secret/link")
    blob = bytearray(img.inode_bytes(ino)[0x28:0x28 + 34])
    blob[2 + 20] ^= 0x55
    _set_iblock(img, ino, bytes(blob))


def symlink_empty(img):
    ino = img.ino("/secret/link")
    # the target's key comes from the symlink's own nonce
    ct = img.encrypt_name(ino, img.key_bytes["S"], b"", 32)
    _set_iblock(img, ino, (32).to_bytes(2, "little") + ct)


def symlink_padding(img):
    # a 20-byte ciphertext (padding 32 would store 32) for a 20-byte target
    ino = img.ino("/secret/link")
    ct = img.encrypt_name(ino, img.key_bytes["S"], b"twenty-byte-target!!", 20)
    _set_iblock(img, ino, (20).to_bytes(2, "little") + ct)
    edit(img.path, f"set_inode_field <{ino}> size 22")


symlink_padding_key = symlink_padding


def inode_special_encrypted(img):
    # an encrypted regular file turned into a FIFO: flag and context stay
    ino = img.ino("/secret/hello.txt")
    mode = le(img.inode_bytes(ino)[0:2])
    edit(img.path, f"set_inode_field <{ino}> mode 0{(mode & 0o7777) | 0o010000:o}")


def cf_hash(img):
    # the stored minor hash of one entry of a casefolded encrypted directory
    ino = img.ino("/v2cf32")
    e = [x for x in img.entries(ino) if x["name"] not in (b".", b"..")][0]
    off = e["off"] + 8 + ((len(e["name"]) + 3) & ~3) + 4
    img.write(off, bytes([img.read(off, 1)[0] ^ 0x5a]))


cf_hash_nokey = cf_hash


def file_blocks_past_eof(img):
    edit(img.path, f"set_inode_field <{img.ino('/secret/sub/nested file.bin')}> size 100")


def file_prealloc_past_eof(img):
    # fallocate(KEEP_SIZE) leaves unwritten extents past EOF: legal
    edit(img.path, f"fallocate <{img.ino('/secret/hello.txt')}> 5 7")


def file_verity_gap(img):
    # fs-verity (EXT4_VERITY_FL): metadata from round_up(i_size, 64 KiB);
    # i_size 100 puts it at block 16, so block 1 is still past EOF
    ino = img.ino('/secret/sub/nested file.bin')
    edit(img.path, f"set_inode_field <{ino}> size 100",
         f"set_inode_field <{ino}> flags 0x{img.flags(ino) | 0x100000:x}")


def file_verity_metadata(img):
    # i_size 0: the verity metadata starts at block 0, so both blocks are
    # its (the Merkle tree past EOF): legal, no findings
    ino = img.ino('/secret/sub/nested file.bin')
    edit(img.path, f"set_inode_field <{ino}> size 0",
         f"set_inode_field <{ino}> flags 0x{img.flags(ino) | 0x100000:x}")


def inode_size(img):
    edit(img.path, f"set_inode_field <{img.ino('/secret/sub')}> size 4097",
         f"set_inode_field <{img.ino('/secret/日本.txt')}> size 0x7fffffffffffffff")


def inode_block_map(img):
    # i_block[0] holds eh_magic (0xF30A) and eh_entries: the magic broken
    ino = img.ino('/secret/日本.txt')
    edit(img.path, f"set_inode_field <{ino}> block[0] 0x1f30b")


def block_multiply_claimed(img):
    # /secret/hello.txt's first extent (i_block[5]: ee_start_lo) moved onto
    # the first block of /secret/sub/nested file.bin: two files, one block
    a, b = img.ino('/secret/hello.txt'), img.ino('/secret/sub/nested file.bin')
    pblk = img.block_map(b)[0].pblk
    assert len(img.block_map(a)) == 1 and pblk < 1 << 32
    edit(img.path, f"set_inode_field <{a}> block[5] {pblk}")


def tree_cycle(img):
    img.set_dirent(img.dirent("/secret/sub", "up"), ino=img.ino("/secret"))


def tree_multiply_linked(img):
    img.set_dirent(img.dirent("/plain", "sub"), ino=img.ino("/secret/sub"))


def dirent_bad_inode(img):
    img.set_dirent(img.dirent("/secret", "hello.txt"), ino=99999)


def dirent_unused_inode(img):
    img.set_dirent(img.dirent("/secret", "hello.txt"), ino=200)


def dir_corrupt(img):
    e = img.entries(img.ino("/plain"))[0]
    img.set_dirent(e, rec_len=6)


def _dx_root(img, path):
    d = img.ino(path)
    assert img.flags(d) & 0x1000, "not an htree directory"
    return img.blocks(d)[0] * img.bs


def htree_hash(img):
    root = _dx_root(img, "/pad4/bigdir")
    count = le(img.read(root + 0x22, 2))
    assert count >= 4
    # leaf 1's lower bound raised to leaf 2's: its entries fall below it
    h2 = img.read(root + 0x20 + 16, 4)
    img.write(root + 0x20 + 8, h2)


def htree_corrupt(img):
    root = _dx_root(img, "/pad4/bigdir")
    img.write(root + 0x1d, b"\x09")      # dx_root_info.info_length


def _dx_node(img, path):
    """Image offset of the first dx_node block under the dx_root."""
    d = img.ino(path)
    blocks = img.blocks(d)
    root = blocks[0] * img.bs
    assert img.read(root + 0x1e, 1) == b"\x01", "not a two-level htree"
    lblk = le(img.read(root + 0x24, 4)) & 0x0fffffff
    return blocks[lblk] * img.bs


def htree_node_corrupt(img):
    node = _dx_node(img, "/deep/names")
    img.write(node + 8, (5).to_bytes(2, "little"))       # dx limit


def htree_node_hash(img):
    node = _dx_node(img, "/deep/names")
    assert le(img.read(node + 10, 2)) >= 4
    img.write(node + 8 + 8, img.read(node + 8 + 16, 4))


def key_unused(img):
    pass


def image_short(img):
    # the image cut in half where its second half is free blocks only
    # (dumpe2fs's group "Free blocks:" ranges), so that the shortfall is
    # the one finding
    out = subprocess.run(["dumpe2fs", img.path], capture_output=True,
                         text=True, check=True).stdout
    bs = int(re.search(r"^Block size:\s+(\d+)", out, re.M).group(1))
    count = int(re.search(r"^Block count:\s+(\d+)", out, re.M).group(1))
    cut = count // 2
    ranges = re.findall(r"^\s+Free blocks: (.*)$", out, re.M)
    free = [tuple(int(x) for x in (r.split("-") * 2)[:2])
            for line in ranges for r in line.split(", ") if r]
    assert any(a <= cut and b == count - 1 for a, b in free), "the tail is not free"
    os.truncate(img.path, cut * bs)


def evidence_hash(img):
    # the sample as an E01 (ewfacquire: its MD5 and SHA-1 stored) with a
    # byte flipped in chunk 100's data (free space: the filesystem reads
    # the same), in the case image's place
    sys.path.insert(0, os.path.join(TOP, "tests", "cli"))
    from evidence_craft import flip_chunk  # noqa: E402
    acq = img.path + ".acq"
    subprocess.run(["ewfacquire", "-u", "-q", "-t", acq, "-f", "encase6",
                    "-c", "deflate:fast", "-d", "sha1", "-C", "case", "-E", "ev",
                    "-e", "examiner", "-D", "verify corpus", "-N", "notes", img.path],
                   check=True, capture_output=True)
    flip_chunk(acq + ".E01", 100)
    os.replace(acq + ".E01", img.path)


def format_htree_decides(img):
    # two stored lengths only the 2015 rule makes (17, 18 under padding
    # 32), in a directory after /pad4/bigdir in inode order: the htree's
    # hashes decide Linux 6.1 first, so these two are damage
    img.set_dirent(img.dirent("/pad32/sub", "one.txt"), name_len=17)
    img.set_dirent(img.dirent("/pad32/sub", "hard link"), name_len=18)


def f2015_as_61(img):
    pass


# ---------------------------------------------------------------- driver

class CaseImage(Image):
    def __init__(self, path, base, key_bytes):
        super().__init__(path)
        self.base = base
        self.key_bytes = key_bytes

    def ino(self, path):
        return self.base.lookup(path, list(self.key_bytes.values()))

    def dirent(self, dir_path, name):
        return self.entry(dir_path, name, list(self.key_bytes.values()))

    def relocate_last(self, e, d):
        """Move entry e to the end of its block (absorbing the slack of
        the last entry) so that a longer name fits."""
        blk = e["off"] - e["off"] % self.bs
        ents = [x for x in self.entries(d) if x["off"] // self.bs * self.bs == blk]
        last = ents[-1]
        if last["off"] == e["off"]:
            return
        slack_off = last["off"] + 8 + ((len(last["name"]) + 3) & ~3)
        end = last["off"] + last["rec_len"]
        assert end - slack_off >= 8 + 64, "no room at the end of the block"
        new = e["ino"].to_bytes(4, "little") + (end - slack_off).to_bytes(2, "little") + \
            bytes([len(e["name"]), e["ftype"]]) + e["name"]
        self.write(slack_off, new)
        self.set_dirent(last, rec_len=slack_off - last["off"])
        self.set_dirent(e, ino=0)  # the old slot: a deleted entry


def parse_golden(path):
    meta, want = {"base": "sample", "keys": [], "args": []}, []
    with open(path, encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#"):
                continue
            word, rest = line.split(None, 1) if " " in line else (line, "")
            if word == "base":
                meta["base"] = rest
            elif word == "keys":
                meta["keys"] = rest.split()
            elif word == "args":
                meta["args"] = rest.split()
            else:
                want.append((word, rest))
    return meta, want


def main():
    basedir, outdir = sys.argv[1:3]
    only = set(sys.argv[3:])
    os.makedirs(outdir, exist_ok=True)
    key_bytes = {}
    for k, p in KEYS.items():
        p = os.path.join(basedir, p)
        if os.path.exists(p):
            with open(p, "rb") as f:
                key_bytes[k] = f.read()
    bases = {}
    n = 0
    for golden in sorted(glob.glob(os.path.join(HERE, "expected", "*.txt"))):
        case = os.path.basename(golden)[:-4]
        if only and case not in only:
            continue
        meta, want = parse_golden(golden)
        base_img = os.path.join(basedir, BASES[meta["base"]])
        if meta["base"] not in bases:
            bases[meta["base"]] = Image(base_img)
        base = bases[meta["base"]]
        out = os.path.join(outdir, case + ".img")
        shutil.copyfile(base_img, out)
        keys = {"S": key_bytes["S"]} if meta["base"] == "sample" else \
            {k: v for k, v in key_bytes.items() if k != "S"}
        img = CaseImage(out, base, keys)
        fn = globals().get(case.replace("-", "_"))
        if fn is None:
            sys.exit(f"make_cases: no edit for case {case}")
        fn(img)
        with open(os.path.join(outdir, case + ".args"), "w") as f:
            for k in meta["keys"]:
                f.write("--key-file\n" + os.path.join(basedir, KEYS[k]) + "\n")
            for a in meta["args"]:
                f.write(a + "\n")
        with open(os.path.join(outdir, case + ".want"), "w") as f:
            for check, who in want:
                if who.startswith("@"):
                    who = str(img.ino(who[1:]))
                f.write(f"{check} {who}\n")
        n += 1
    print(f"make_cases: {n} cases in {outdir}")


if __name__ == "__main__":
    main()
