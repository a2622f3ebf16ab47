"""Reading and editing ext4 images for the verify corpus, with debugfs and
raw byte edits only (never e4dump).  Encrypted names are decrypted with the
independent Python implementation of tests/vectors/verify_vectors.py, so
paths of the golden files are resolved without the tool under test."""
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "vectors"))
import verify_vectors as vv  # noqa: E402


def debugfs(img, cmd, write=False):
    args = ["debugfs"] + (["-w"] if write else []) + ["-R", cmd, img]
    r = subprocess.run(args, capture_output=True)
    if r.returncode:
        raise RuntimeError(f"debugfs {cmd!r}: {r.stderr.decode(errors='replace')}")
    return r.stdout


def edit(img, *cmds):
    """debugfs -w edits; each must not print an error."""
    for cmd in cmds:
        r = subprocess.run(["debugfs", "-w", "-R", cmd, img],
                           capture_output=True, text=True)
        err = "\n".join(l for l in r.stderr.splitlines()
                        if not l.startswith("debugfs "))
        if r.returncode or err.strip():
            raise RuntimeError(f"debugfs -w {cmd!r}: {err}")


def le(b):
    return int.from_bytes(b, "little")


class Image:
    def __init__(self, path):
        self.path = path
        st = debugfs(path, "stats -h").decode()
        self.bs = int(re.search(r"Block size:\s+(\d+)", st).group(1))

    # -- raw bytes -------------------------------------------------------
    def read(self, off, n):
        with open(self.path, "rb") as f:
            f.seek(off)
            return f.read(n)

    def write(self, off, data):
        with open(self.path, "r+b") as f:
            f.seek(off)
            f.write(data)

    # -- inodes ----------------------------------------------------------
    def inode_offset(self, ino):
        out = debugfs(self.path, f"imap <{ino}>").decode()
        m = re.search(r"located at block (\d+), offset 0x([0-9a-f]+)", out)
        return int(m.group(1)) * self.bs + int(m.group(2), 16)

    def inode_bytes(self, ino, n=256):
        return self.read(self.inode_offset(ino), n)

    def blocks(self, ino):
        out = debugfs(self.path, f"blocks <{ino}>").decode().split()
        return [int(x) for x in out]

    def context(self, ino):
        with tempfile.TemporaryDirectory() as d:
            p = os.path.join(d, "c")
            debugfs(self.path, f"ea_get -f {p} <{ino}> c")
            with open(p, "rb") as f:
                return f.read()

    def xattr_c(self, ino):
        """(entry offset, value offset, size) of the in-inode xattr named
        "c" (any index) in the image file."""
        base = self.inode_offset(ino)
        raw = self.read(base, 1024)
        extra = le(raw[128:130])
        p = 128 + extra
        if le(raw[p:p + 4]) != 0xEA020000:
            raise KeyError(f"inode {ino}: no in-inode xattrs")
        first = p + 4
        e = first
        while le(raw[e:e + 4]):
            nlen, voff, vsize = raw[e], le(raw[e + 2:e + 4]), le(raw[e + 8:e + 12])
            if raw[e + 16:e + 16 + nlen] == b"c":
                return base + e, base + first + voff, vsize
            e += (16 + nlen + 3) & ~3
        raise KeyError(f"inode {ino}: no in-inode xattr c")

    def set_context(self, ino, value):
        """Replace the context value in place (same size), or give an inode
        a new one (debugfs ea_set, then the index fixed to 9: libext2fs
        writes unknown names with index 0)."""
        try:
            ent, voff, size = self.xattr_c(ino)
            assert size == len(value)
            self.write(voff, value)
        except KeyError:
            with tempfile.TemporaryDirectory() as d:
                p = os.path.join(d, "v")
                with open(p, "wb") as f:
                    f.write(value)
                edit(self.path, f"ea_set -f {p} <{ino}> c")
            ent, voff, size = self.xattr_c(ino)
        self.write(ent + 1, b"\x09")           # e_name_index 9
        self.write(ent + 12, bytes(4))         # e_hash 0: not checked

    def set_context_size(self, ino, size):
        ent, voff, _ = self.xattr_c(ino)
        self.write(ent + 8, size.to_bytes(4, "little"))
        self.write(ent + 12, bytes(4))

    # -- directories -----------------------------------------------------
    def entries(self, ino):
        """Entries of a directory (inode != 0): dicts with ino, name,
        ftype, off (byte offset of the dirent in the image), rec_len."""
        out = []
        for pblk in self.blocks(ino):
            blk = self.read(pblk * self.bs, self.bs)
            pos = 0
            while pos + 8 <= self.bs:
                i, rec = le(blk[pos:pos + 4]), le(blk[pos + 4:pos + 6])
                nlen = blk[pos + 6]
                if rec < 8:
                    break
                if i and nlen:
                    out.append(dict(ino=i, name=blk[pos + 8:pos + 8 + nlen],
                                    ftype=blk[pos + 7], off=pblk * self.bs + pos,
                                    rec_len=rec))
                pos += rec
        return out

    def set_dirent(self, e, ino=None, rec_len=None, name_len=None, name=None):
        if ino is not None:
            self.write(e["off"], ino.to_bytes(4, "little"))
        if rec_len is not None:
            self.write(e["off"] + 4, rec_len.to_bytes(2, "little"))
        if name is not None:
            assert 8 + len(name) <= e["rec_len"]
            self.write(e["off"] + 8, name)
            name_len = len(name)
        if name_len is not None:
            self.write(e["off"] + 6, bytes([name_len]))

    # -- fscrypt v1 names (AES-256-CTS) ----------------------------------
    def names_key(self, ino, master):
        ctx = self.context(ino)
        assert ctx[0] == 1 and ctx[2] == 4, "v1 AES-256-CTS context expected"
        return vv.kdf_v1(master, ctx[12:28], 32)

    def decrypt_name(self, dir_ino, master, ct):
        p = vv.cts_decrypt(self.names_key(dir_ino, master), ct)
        return p.rstrip(b"\0")

    def encrypt_name(self, dir_ino, master, plain, stored):
        return vv.cts_encrypt(self.names_key(dir_ino, master),
                              plain + bytes(stored - len(plain)))

    def lookup(self, path, keys):
        """Inode of a '/'-separated path of plaintext names; keys: master
        keys (bytes) to try in encrypted directories."""
        ino = 2
        for comp in [c for c in path.split("/") if c]:
            want = comp.encode()
            found = None
            flags = self.flags(ino)
            for e in self.entries(ino):
                name = e["name"]
                if flags & 0x800:
                    for k in keys:
                        try:
                            if self.decrypt_name(ino, k, name) == want:
                                found = e
                        except Exception:
                            pass
                elif name == want:
                    found = e
                if found:
                    break
            if not found:
                raise KeyError(f"{path}: no {comp}")
            ino = found["ino"]
        return ino

    def entry(self, dir_path, name, keys):
        """The dirent of name in the directory dir_path."""
        d = self.lookup(dir_path, keys)
        child = self.lookup(dir_path.rstrip("/") + "/" + name, keys)
        for e in self.entries(d):
            if e["ino"] == child:
                return e
        raise KeyError(name)

    def flags(self, ino):
        return le(self.inode_bytes(ino, 0x24)[0x20:0x24])
