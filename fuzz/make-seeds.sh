#!/bin/bash
# Generate the seed corpora of the fuzz targets into OUTDIR/<target>/:
# small hand-made inputs for the byte-level targets, and small ext4 images
# for the image target (mkfs.ext4 -O encrypt + debugfs, unencrypted
# content; the kernel-written samples fuzz/seeds/*.img.xz (1 MiB, 4 KiB
# blocks; 192 KiB, 1 KiB blocks) and the
# bundled 4 MiB testvectors/sample/sample.img.xz, decompressed).
# Needs python3, xz, mkfs.ext4, debugfs, e2fsck.  Installs nothing.
#
# Usage: fuzz/make-seeds.sh OUTDIR
# Environment: E4DUMP, an e4dump binary: the export target's seeds are the
# exports its extract --keep-locked writes (none without it).
set -eu
[ $# -eq 1 ] || { echo "usage: $0 OUTDIR" >&2; exit 2; }
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
out=$1
PATH=$PATH:/sbin:/usr/sbin
mkdir -p "$out"
out=$(cd "$out" && pwd)
for t in context keyfile nokey symlink names image dirblock extent xattr jbd2 volume undelete container export fscrypt_meta capture memkeys; do
	rm -rf "${out:?}/$t"
	mkdir -p "$out/$t"
done

python3 - "$out" "$root" <<'PY'
import os, sys, hashlib
out = sys.argv[1]
def put(t, name, data):
    with open(os.path.join(out, t, name), "wb") as f:
        f.write(data)
key = hashlib.sha512(b"e4dump test key S").digest()
desc = key[:8]
nonce = bytes(range(16))
# contexts: v1 and v2, every mode pair, flags; and broken ones
for i, (c, n) in enumerate([(1, 4), (5, 6), (9, 9), (1, 10)]):
    for fl in (0, 1, 2, 3, 4, 8, 0x10, 0x18):
        put("context", f"v1-{i}-{fl:02x}", bytes([1, c, n, fl]) + desc + nonce)
        put("context", f"v2-{i}-{fl:02x}",
            bytes([2, c, n, fl, 0, 0, 0, 0]) + key[:16] + nonce)
put("context", "v1-short", bytes([1, 1, 4, 0]) + desc)
put("context", "v2-reserved", bytes([2, 1, 4, 0, 1, 0, 0, 0]) + key[:16] + nonce)
put("context", "v3", bytes([3, 1, 4, 0]) + key[:36])
put("context", "empty", b"")
# the fscrypt tool's metadata (fuzz_fscrypt_meta: a selector byte, then
# the file): protobuf written here, wrapped keys whose HMAC matches the
# harness's all-zero wrapping key (HKDF-SHA256 by hand), so that the
# unwrap runs to its end
import hmac as _hmac
def _v(n):
    o = b""
    while True:
        b, n = n & 0x7f, n >> 7
        if n:
            o += bytes([b | 0x80])
        else:
            return o + bytes([b])
def _f(num, v): return _v(num << 3) + _v(v)
def _b(num, b): return _v(num << 3 | 2) + _v(len(b)) + b
def _wrapped(n):
    prk = _hmac.new(bytes(32), bytes(32), hashlib.sha256).digest()
    t1 = _hmac.new(prk, b"\x01", hashlib.sha256).digest()
    auth = _hmac.new(prk, t1 + b"\x02", hashlib.sha256).digest()
    iv, ct = bytes(range(16)), key[:n]
    return _b(1, iv) + _b(2, ct) + _b(3, _hmac.new(auth, iv + ct, hashlib.sha256).digest())
_costs = _b(4, _f(2, 1) + _f(3, 64) + _f(4, 1))
for src in (1, 2, 3):
    p = _b(1, b"0123456789abcdef") + _f(2, src) + _b(3, b"name") + (_costs + _b(5, bytes(16)) if src != 3 else b"") + (_f(6, 1000) if src == 1 else b"") + _b(7, _wrapped(32))
    put("fscrypt_meta", f"protector-{src}", b"\x00" + p)
    put("fscrypt_meta", f"protector-deep-{src}", b"\x03" + p)
    put("fscrypt_meta", f"protector-cut-{src}", b"\x00" + p[:-7])
opts = _b(2, _f(1, 32) + _f(2, 1) + _f(3, 4) + _f(4, 2))
slot = _b(3, _b(1, b"0123456789abcdef") + _b(2, _wrapped(64)))
put("fscrypt_meta", "policy-v2", b"\x01" + _b(1, key[:16].hex().encode()) + opts + slot + slot)
put("fscrypt_meta", "policy-v1", b"\x01" + _b(1, key[:8].hex().encode()) + _b(2, _f(1, 16) + _f(2, 1) + _f(3, 4)) + slot)
put("fscrypt_meta", "link", b"\x02UUID=0bbd2b3c-1e5c-4f56-9d5e-4a1b2c3d4e5f\nPATH=/\n")
put("fscrypt_meta", "link-path", b"\x02  PATH=/mnt/x  \nX=1=2\n")
# key files
put("keyfile", "raw64", key)
put("keyfile", "raw16", key[:16])
put("keyfile", "hex64", key.hex().encode() + b"\n")
put("keyfile", "hex32-spaced", b" ".join(key[:32].hex()[i:i+2].encode() for i in range(0, 64, 2)) + b"\r\n")
put("keyfile", "hex-odd", key[:16].hex().encode()[:-1])
put("keyfile", "raw65", key + b"x")
# the states form: spec §17.4's example, and with its identifier changed
_states = (b"# secret\ne4dump-hkdf-states 1\nidentifier 8699c2c53707405da5aba5ae4d8583c0\n"
           b"ipad_state 755b6427b909b0816ba220ffd28b9ad29f8cf8060c197bf352fff6df56513267"
           b"a0f27204e1fe85b1293c2c52ac617abd5b6c5072e24893ed9f257a2e39494a4c\n"
           b"opad_state aa743007b14995fd00f3966f17fef44fcb467768e3412f478eb83b1446e37278"
           b"4f9421a966fe78d270d91fb47bbc155f535f0658f4b9f868bc34f55d8542617f\n")
put("keyfile", "states", _states)
put("keyfile", "states-bad-id", _states.replace(b"83c0", b"83c1"))
put("keyfile", "states-v2", _states.replace(b"states 1", b"states 2"))
# no-key names: hash pair, ciphertext of stored name lengths
for n in (1, 15, 16, 17, 31, 32, 33, 48, 149, 150, 180, 255):
    put("nokey", f"ct{n}", (bytes.fromhex("78563412efcdab90") + (hashlib.sha512(bytes([n])).digest() * 4))[:8 + n])
# symlink blobs: selector, inode, le16 length, ciphertext (+ slack)
for sel in range(0, 12):
    for n in (16, 17, 32, 33, 100):
        ct = (hashlib.sha256(bytes([sel, n])).digest() * 4)[:n]
        put("symlink", f"s{sel:02x}-{n}", bytes([sel, 12]) + n.to_bytes(2, "little") + ct + b"\0")
put("symlink", "len-too-big", bytes([0, 1, 0xff, 0xff]) + bytes(20))
# names and data units: selector, inode, bytes
for sel in range(0, 15):
    for n in (15, 16, 17, 32, 64, 255, 1024, 4096):
        put("names", f"n{sel:02x}-{n}", bytes([sel, 12]) + (hashlib.sha512(bytes([sel, n % 256])).digest() * 64)[:n])
import struct
# directory blocks: flag byte (size, hashed, csum), then the block
def dirent(ino, name, rec, ft=1, h=None):
    e = struct.pack("<IHBB", ino, rec, len(name), ft) + name
    e += bytes(-len(e) % 4)
    if h is not None:
        e += struct.pack("<II", *h)
    return e + bytes(rec - len(e))
def linear(bs, names, hashed=False):
    b = dirent(2, b".", 12, 2) + dirent(2, b"..", 12, 2)
    for i, n in enumerate(names):
        last = i == len(names) - 1
        need = (8 + len(n) + 3) & ~3
        if hashed:
            need += 8
        rec = bs - len(b) if last else need
        b += dirent(20 + i, n, rec, 1, (0x1234 * i, 0x5678 * i) if hashed else None)
    return b
names = [b"hello.txt", bytes(range(1, 33)), b"x" * 255, "\u65e5\u672c".encode()]
for fl, bs in ((0, 1024), (1, 2048), (2, 4096)):
    put("dirblock", f"linear-{bs}", bytes([fl]) + linear(bs, names))
    put("dirblock", f"hashed-{bs}", bytes([fl | 4]) + linear(bs, names, True))
for fl in (0, 8):
    bs = 1024
    root = dirent(2, b".", 12, 2) + struct.pack("<IHBB", 2, bs - 12, 2, 2) + b"..\0\0"
    root += struct.pack("<IBBBB", 0, 1, 8, 0, 0)
    limit = (bs - 32 - (8 if fl else 0)) // 8
    root += struct.pack("<HHI", limit, 2, 1) + struct.pack("<II", 0x80000000, 2)
    put("dirblock", f"dxroot-{fl}", bytes([fl]) + root + bytes(bs - len(root)))
    node = struct.pack("<IHBB", 0, bs, 0, 0)
    limit = (bs - 8 - (8 if fl else 0)) // 8
    node += struct.pack("<HHI", limit, 2, 3) + struct.pack("<II", 0x40000000, 4)
    put("dirblock", f"dxnode-{fl}", bytes([fl]) + node + bytes(bs - len(node)))
# extent trees: flag byte, i_block (60 bytes), 1 KiB tree blocks
def ehdr(entries, mx, depth):
    return struct.pack("<HHHHI", 0xf30a, entries, mx, depth, 0)
def leaf(lblk, ln, pblk):
    return struct.pack("<IHHI", lblk, ln, pblk >> 32, pblk & 0xffffffff)
def idx(lblk, pblk):
    return struct.pack("<IIHH", lblk, pblk & 0xffffffff, pblk >> 32, 0)
def pad(b, n):
    return b + bytes(n - len(b))
root = pad(ehdr(2, 4, 0) + leaf(0, 3, 5) + leaf(10, 32768 + 2, 9), 60)
put("extent", "leaf-root", bytes([0x8f]) + root)
root = pad(ehdr(1, 4, 1) + idx(0, 1), 60)
child = pad(ehdr(3, 84, 0) + leaf(0, 1, 3) + leaf(1, 2, 6) + leaf(7, 1, 9), 1024)
put("extent", "depth1", bytes([0x8f]) + root + child)
root = pad(ehdr(1, 4, 2) + idx(0, 1), 60)
mid = pad(ehdr(2, 84, 1) + idx(0, 2) + idx(100, 3), 1024)
l1 = pad(ehdr(1, 84, 0) + leaf(0, 4, 8), 1024)
l2 = pad(ehdr(1, 84, 0) + leaf(100, 4, 12), 1024)
put("extent", "depth2", bytes([0x8f]) + root + mid + l1 + l2)
ind = struct.pack("<15I", *range(4, 16), 1, 2, 0)
put("extent", "indirect", bytes([0x8f]) + ind + struct.pack("<256I", *([3] + [0] * 255)) + struct.pack("<256I", *([1] + [0] * 255)))
# jbd2: a 1 KiB journal superblock (v2, the features below), then log
# blocks: a descriptor with tags, a data copy, a revoke block, a commit
def jsb(incompat, start, maxlen=64):
    b = struct.pack(">III", 0xc03b3998, 4, 0) + struct.pack(">IIIIIi", 1024, maxlen, 1, 5, start, 0)
    b += struct.pack(">III", 0, incompat, 0) + bytes(range(16)) + bytes(0x50 - 0x40)
    b += bytes([4]) + bytes(3) + struct.pack(">I", 0)
    return b + bytes(1024 - len(b))
def jblk(typ, seq, body):
    b = struct.pack(">III", 0xc03b3998, typ, seq) + body
    return b + bytes(1024 - len(b))
for name, inc, tag in (("v3-64bit", 0x13, lambda blk, fl: struct.pack(">IIII", blk, fl, 0, 0x1234)),
                       ("old-32bit", 0x01, lambda blk, fl: struct.pack(">IHH", blk, 0, fl))):
    tags = tag(100, 0) + bytes(range(16)) + tag(101, 2 | 1) + tag(102, 2 | 8)
    rev = struct.pack(">I", 16 + 8 * 2) + struct.pack(">QQ", 7, 8) if inc & 2 else struct.pack(">I", 16 + 4 * 2) + struct.pack(">II", 7, 8)
    com = bytes([4, 4, 0, 0]) + struct.pack(">I", 0) + bytes(28) + struct.pack(">QI", 1733356800, 5)
    put("jbd2", name, jsb(inc, 2) + jblk(1, 5, tags) + bytes(1024) * 3 + jblk(5, 5, rev) + jblk(2, 5, com))
    # the same as a whole journal (s_maxlen = its 8 blocks) for the log walk
    put("jbd2", name + "-walk", jsb(inc, 0, 8) + jblk(1, 5, tags) + bytes(1024) * 3 + jblk(5, 5, rev) + jblk(2, 5, com) + bytes(1024))
# volume: le32 disk size in sectors, then the disk's first bytes (small
# disks: MBR and EBR chain, GPT with its backup; odd entries)
import zlib
def mbr_ent(b, at, i, typ, start, count):
    struct.pack_into("<4xB3xII", b, at + 446 + 16 * i, typ, start, count)
    b[at + 510:at + 512] = b"\x55\xaa"
def vdisk(sectors, b):
    return struct.pack("<I", sectors) + bytes(b)
d = bytearray(64 * 512)
mbr_ent(d, 0, 0, 0x83, 2, 4)
mbr_ent(d, 0, 1, 0x05, 8, 56)
for ebr, link in ((8, 8), (16, 16), (24, 8)):
    mbr_ent(d, ebr * 512, 0, 0x83, 2, 2)
    mbr_ent(d, ebr * 512, 1, 0x05, link, 8)
put("volume", "mbr-ebr-loop", vdisk(64, d))
d = bytearray(512)
for i, (st, n) in enumerate(((2, 8), (6, 8), (60, 100), (1000, 8))):
    mbr_ent(d, 0, i, 0x83, st, n)
put("volume", "mbr-odd", vdisk(64, d))
def gpt_disk(sectors, ents, first_usable=34):
    b = bytearray(sectors * 512)
    mbr_ent(b, 0, 0, 0xee, 1, sectors - 1)
    arr = bytearray(128 * 128)
    for i, (f, l) in enumerate(ents):
        arr[128 * i:128 * i + 16] = bytes.fromhex("af3dc60f838472478e793d69d8477de4")
        struct.pack_into("<QQ", arr, 128 * i + 32, f, l)
        arr[128 * i + 56:128 * i + 60] = ("p%d" % i).encode("utf-16-le")
    crc = zlib.crc32(bytes(arr))
    for lba, alt, at in ((1, sectors - 1, 2), (sectors - 1, 1, sectors - 33)):
        h = bytearray(92)
        h[0:8] = b"EFI PART"
        struct.pack_into("<II", h, 8, 0x10000, 92)
        struct.pack_into("<QQQQ", h, 24, lba, alt, first_usable, sectors - 34)
        struct.pack_into("<QIII", h, 72, at, 128, 128, crc)
        struct.pack_into("<I", h, 16, zlib.crc32(bytes(h)))
        b[lba * 512:lba * 512 + 92] = h
        b[at * 512:at * 512 + len(arr)] = arr
    return b
put("volume", "gpt-odd", vdisk(128, gpt_disk(128, [(34, 60), (61, 94), (50, 70), (100, 90), (500, 600)])))
g = gpt_disk(128, [(34, 94)])
g[512 + 32] ^= 1
put("volume", "gpt-primary-bad", vdisk(128, g))
# xattrs: flag byte (bit 0 block, bit 1 context), then the area or block
ctx = bytes([1, 1, 4, 3]) + key[:8] + nonce
def xentry(idx_, name, offs, size):
    e = struct.pack("<BBHIII", len(name), idx_, offs, 0, size, 0) + name
    return e + bytes(-len(e) % 4)
area = struct.pack("<I", 0xea020000)
ents = xentry(9, b"c", 64, len(ctx)) + xentry(7, b"data", 96, 10) + bytes(4)
body = ents + bytes(64 - len(ents)) + ctx + bytes(96 - 64 - len(ctx)) + b"inline-dat" + bytes(6)
put("xattr", "ibody-ctx", bytes([2]) + area + body)
put("xattr", "ibody-data", bytes([0]) + area + body)
blk = struct.pack("<IIII I12x", 0xea020000, 1, 1, 0, 0)
ents = xentry(9, b"c", 1024 - 32, len(ctx)) + bytes(4)
blk = pad(blk + ents, 1024 - 32) + ctx + bytes(4)
put("xattr", "block-ctx", bytes([3]) + blk)
# memory captures: LiME (32-byte range headers), ELF64 cores (PT_LOAD
# segments, one with PN_XNUM), raw; each with a few small ranges
def lime(ranges):
    o = b""
    for s_addr, data in ranges:
        o += struct.pack("<IIQQ8x", 0x4C694D45, 1, s_addr, s_addr + len(data) - 1) + data
    return o
pg = bytes(range(256)) * 4
put("capture", "lime", lime([(0x1000, pg), (0x100000, pg[:512]), (0x2000, pg[:64])]))
put("capture", "lime-overlap", lime([(0x1000, pg), (0x1200, pg), (0x1100, pg[:16])]))
def elf(segs, xnum=False):
    n = len(segs)
    phoff, data_at = 64, 64 + 56 * n + (64 if xnum else 0)
    shoff = 64 + 56 * n if xnum else 0
    h = b"\x7fELF" + bytes([2, 1, 1]) + bytes(9)
    h += struct.pack("<HHIQQQIHHHHHH", 4, 62, 1, 0, phoff, shoff, 0, 64, 56,
                     0xffff if xnum else n, 64 if xnum else 0, 1 if xnum else 0, 0)
    ph, body = b"", b""
    for typ, paddr, data in segs:
        ph += struct.pack("<IIQQQQQQ", typ, 7, data_at + len(body), paddr, paddr,
                          len(data), len(data), 0)
        body += data
    sh = struct.pack("<IIQQQQIIQQ", 0, 0, 0, 0, 0, 0, 0, n, 0, 0) if xnum else b""
    return h + ph + sh + body
put("capture", "elf", elf([(4, 0, b"CORE" * 8), (1, 0, pg), (1, 0x100000, pg[:256])]))
put("capture", "elf-xnum", elf([(1, 0x1000, pg[:128]), (1, 0x3000, pg[:128])], xnum=True))
put("capture", "raw", pg)
# key structures in memory (spec §17), laid out by the independent
# implementations of tests/spec: a logon key's payload, v1 and v2
# fscrypt_master_key_secret, AES schedules of each size, aesni's XTS pair,
# a v2 key's HMAC states; alone, and all of them in noise
sys.path.insert(0, os.path.join(sys.argv[2], "tests", "spec"))
sys.dont_write_bytecode = True  # no __pycache__ in the source tree
import aes_schedule, hmac_states
mk = hashlib.sha512(b"e4dump memkeys seed").digest()
logon = bytes(16) + struct.pack("<H6xI", 72, 1) + mk + struct.pack("<I", 64)
sec_v1 = struct.pack("<QI", 0, 32) + mk[:32] + bytes(36)
sec_v2 = struct.pack("<QI", 0xffff888012345678, 64) + bytes(68)
xts = aes_schedule.ctx_image(mk[32:]) + bytes(12) + aes_schedule.ctx_image(mk[:32])
hi, ho = hmac_states.setkey_states(mk)
states = hmac_states.context_bytes(hi, ho, bytes(128))
mem = {"logon": logon, "secret-v1": sec_v1, "secret-v2": sec_v2, "xts": xts, "hmac": states}
for n in (16, 24, 32):
    mem["aes%d" % (8 * n)] = aes_schedule.ctx_image(mk[:n])
for name, data in mem.items():
    put("memkeys", name, data)
noise = hashlib.sha512(b"noise").digest() * 8
put("memkeys", "all", b"".join(noise[:(7 * len(d)) % 61] + d for d in mem.values()) + noise)
put("memkeys", "zeros", bytes(1024))
put("memkeys", "ones", b"\xff" * 1024)
PY

# Images made on the host (no kernel: the content is not encrypted, but
# every image has the encrypt feature and the shapes of the real ones).
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
printf 'hello, world\n' >"$tmp/hello"
head -c 5000 /dev/zero | tr '\0' 'x' >"$tmp/big"
mk() { # NAME SIZE MKFS-OPTIONS... : a small image with a small tree
	local name=$1 size=$2 img="$out/image/$1.img"
	shift 2
	rm -f "$img"
	truncate -s "$size" "$img"
	mkfs.ext4 -q -F -E root_owner=0:0 "$@" "$img" >/dev/null 2>&1
	{
		echo "mkdir d"
		echo "mkdir d/sub"
		echo "write $tmp/hello d/hello.txt"
		echo "write $tmp/big d/sub/big.bin"
		echo "symlink d/link hello.txt"
		echo "symlink d/longlink /$(printf 'a%.0s' $(seq 1 100))/target"
		echo "ln d/hello.txt d/sub/hard"
		echo "sif d/sub/hard links_count 2"
		echo "mknod d/fifo p"
	} | debugfs -w -f - "$img" >/dev/null 2>&1
}
# Small images mutate better: libFuzzer's mutations land on metadata.
mk plain-4k 256K -O encrypt -b 4096 -N 32
mk plain-1k 128K -O encrypt -b 1024 -N 32
mk plain-1k-1m 1M -O encrypt -b 1024 -N 64
mk plain-2k-noext 192K -O encrypt,^extent,^64bit,^flex_bg -b 2048 -N 32
mk casefold-4k 256K -O encrypt,casefold -b 4096 -N 32
# an indexed (htree) directory of 300 entries on 1 KiB blocks (1 MiB)
img="$out/image/htree-1k.img"
rm -f "$img"
truncate -s 1M "$img"
mkfs.ext4 -q -F -O encrypt -b 1024 -N 400 "$img" >/dev/null 2>&1
{
	echo "mkdir big"
	for i in $(seq 1 300); do echo "write $tmp/hello big/file-number-$i"; done
} | debugfs -w -f - "$img" >/dev/null 2>&1
e2fsck -fyD "$img" >/dev/null 2>&1 || true
# kernel-written images (encrypted with the sample key)
for x in "$here"/seeds/*.img.xz "$root/testvectors/sample/sample.img.xz"; do
	[ -e "$x" ] || continue
	xz -dc "$x" >"$out/image/kernel-$(basename "$x" .img.xz | sed "s/^kernel-//").img"
done
# the small image in each container e4dump reads (when the tools are
# installed): libewf, libqcow and libvmdk parse what follows
if command -v ewfacquire >/dev/null; then
	ewfacquire -u -q -t "$tmp/c" -f encase6 -c deflate:fast "$out/image/plain-4k.img" \
		>/dev/null 2>&1 && mv "$tmp/c.E01" "$out/image/container.e01"
fi
if command -v qemu-img >/dev/null; then
	# (VHD and VHDX come out larger than the image target's 1 MiB inputs)
	for f in qcow2 vmdk; do
		qemu-img convert -O $f "$out/image/plain-4k.img" "$out/image/container.$f" \
			>/dev/null 2>&1 || rm -f "$out/image/container.$f"
	done
fi
# partitioned disks (libblkid reads their tables) and an Android sparse
# image, each holding the small image
p4k=$out/image/plain-4k.img
if command -v sgdisk >/dev/null; then
	truncate -s 512K "$tmp/gpt" &&
		sgdisk -a 8 -n 1:40:+8K -t 1:8200 -n 2:64:+256K -t 2:8300 "$tmp/gpt" >/dev/null 2>&1 &&
		dd if="$p4k" of="$tmp/gpt" bs=512 seek=64 conv=notrunc status=none &&
		mv "$tmp/gpt" "$out/image/disk-gpt.img"
fi
if command -v sfdisk >/dev/null; then
	truncate -s 512K "$tmp/mbr" &&
		printf 'label: dos\nstart=8, size=8, type=82\nstart=16, size=1000, type=5\nstart=24, size=8, type=83\nstart=64, size=512, type=83\n' |
		sfdisk -q "$tmp/mbr" >/dev/null 2>&1 &&
		dd if="$p4k" of="$tmp/mbr" bs=512 seek=64 conv=notrunc status=none &&
		mv "$tmp/mbr" "$out/image/disk-mbr.img"
fi
# the partitioned image seed as a volume input too (its size, then it)
if [ -f "$out/image/disk-mbr.img" ]; then
	python3 -c 'import os, struct, sys; d = open(sys.argv[1], "rb").read(); open(sys.argv[2], "wb").write(struct.pack("<I", len(d) // 512) + d)' \
		"$out/image/disk-mbr.img" "$out/volume/disk-mbr"
fi
if command -v img2simg >/dev/null; then
	img2simg "$p4k" "$out/image/container.simg" >/dev/null 2>&1 || rm -f "$out/image/container.simg"
fi
# undelete: small ext4 images with hand-written journals, the hostile
# cases of tests/cli/undelete_hostile.sh (tests/cli/hostile_journal.py),
# 3 MiB with 1 KiB blocks
for m in dircycle samename reserved badlink aclhigh; do
	BS=1024 FSSIZE=3M JMB=1 python3 "$root/tests/cli/hostile_journal.py" $m \
		"$out/undelete/$m.img" >/dev/null 2>&1 || rm -f "$out/undelete/$m.img"
done
# container (fuzz_container.c): a selector byte (0 EWF, 1 QCOW, 2 VHD, 3
# VMDK, 4 split raw, 5 Android sparse, 6 by signature; split raw: plus 7
# times the name pattern 0-5, plus 42 to open by signature), a member file,
# and for sets "\n--e4dump-member--\n" and each further member
seed() { # NAME SELECTOR FILE [MEMBER...]
	local name=$1 sel=$2 first=$3
	shift 3
	{
		printf "\\$(printf %03o "$sel")"
		cat "$first"
		for m in "$@"; do printf '\n--e4dump-member--\n'; cat "$m"; done
	} >"$out/container/$name"
}
for f in container.e01:0 container.qcow2:1 container.vmdk:3 container.simg:5 \
	container.qcow2:6 container.e01:6; do
	[ -e "$out/image/${f%%:*}" ] && seed "${f%%:*}.${f##*:}" "${f##*:}" "$out/image/${f%%:*}"
done
head -c 131072 "$p4k" >"$tmp/s1" && tail -c +131073 "$p4k" >"$tmp/s2" &&
	seed split.4 4 "$tmp/s1" "$tmp/s2"
# split sets of four: every name pattern, opened as smraw and by signature
head -c 65536 "$p4k" >"$tmp/q1" && head -c 131072 "$p4k" | tail -c 65536 >"$tmp/q2" &&
	head -c 196608 "$p4k" | tail -c 65536 >"$tmp/q3" && tail -c +196609 "$p4k" >"$tmp/q4" &&
	for pat in 0 1 2 3 4 5; do
		seed "split4.$pat" $((4 + 7 * pat)) "$tmp/q1" "$tmp/q2" "$tmp/q3" "$tmp/q4"
		seed "split4-any.$pat" $((4 + 7 * pat + 42)) "$tmp/q1" "$tmp/q2" "$tmp/q3" "$tmp/q4"
	done
if command -v qemu-img >/dev/null; then
	qemu-img convert -c -O qcow2 "$p4k" "$tmp/c.qcow2" >/dev/null 2>&1 &&
		seed compressed.qcow2.1 1 "$tmp/c.qcow2"
	qemu-img convert -O vpc "$p4k" "$tmp/d.vhd" >/dev/null 2>&1 &&
		[ "$(stat -c %s "$tmp/d.vhd")" -lt 1000000 ] && seed dynamic.vhd.2 2 "$tmp/d.vhd"
	qemu-img convert -O vhdx "$p4k" "$tmp/d.vhdx" >/dev/null 2>&1 &&
		[ "$(stat -c %s "$tmp/d.vhdx")" -lt 1000000 ] && seed d.vhdx.2 2 "$tmp/d.vhdx"
	# a descriptor naming the flat extent file "f"
	qemu-img convert -O vmdk -o subformat=monolithicFlat "$p4k" "$tmp/m.vmdk" >/dev/null 2>&1 &&
		sed 's/"m-flat.vmdk"/"f"/' "$tmp/m.vmdk" >"$tmp/m2.vmdk" &&
		seed flat.vmdk.3 3 "$tmp/m2.vmdk" "$tmp/m-flat.vmdk"
fi
# export (fuzz_export.c): what extract --keep-locked writes of the sample
# without the key (all of it, and /secret alone), as the harness's entry
# list
if [ -n "${E4DUMP:-}" ] && [ -x "$E4DUMP" ]; then
	xz -dc "$root/testvectors/sample/sample.img.xz" >"$tmp/sample.img"
	"$E4DUMP" extract --keep-locked "$tmp/sample.img" -o "$tmp/kl0" >/dev/null 2>&1 || true  # exit 1: kept locked
	"$E4DUMP" extract --keep-locked "$tmp/sample.img" /secret -o "$tmp/kl1" >/dev/null 2>&1 || true
	for d in kl0 kl1; do
		python3 - "$tmp/$d" "$out/export/$d" <<'PY'
import os, sys
top, out = sys.argv[1], sys.argv[2]
rec = bytearray()
for dirpath, dirs, files in os.walk(top):
    dirs.sort()
    for n in sorted(dirs) + sorted(files):
        p = os.path.join(dirpath, n)
        rel = os.path.relpath(p, top).encode()
        if len(rel) > 255:
            continue
        if os.path.islink(p):
            kind, data = 2, os.readlink(p).encode()
        elif os.path.isdir(p):
            kind, data = 1, b""
        else:
            kind, data = 0, open(p, "rb").read()[:65535]
        rec += bytes([kind, len(rel)]) + rel + len(data).to_bytes(2, "little") + data
open(out, "wb").write(rec)
PY
	done
fi
for t in context keyfile nokey symlink names image dirblock extent xattr jbd2 volume undelete container export fscrypt_meta capture memkeys; do
	echo "make-seeds: $t: $(ls "$out/$t" | wc -l) inputs"
done
