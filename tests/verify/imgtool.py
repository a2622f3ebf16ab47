"""Reading and editing ext4 images for the verify corpus and the hostile
images, never with e4dump: the ext4 structures through tests/lib/ext4img.py
(debugfs -w for edits that allocate), encrypted names decrypted and
encrypted with the independent Python implementation of
tests/vectors/verify_vectors.py, so paths of the golden files are resolved
without the tool under test.  Raw edits leave checksums stale, which e4dump
ignores."""
import os
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:0] = [os.path.join(HERE, "..", "vectors"), os.path.join(HERE, "..", "lib")]
import ext4img  # noqa: E402
import verify_vectors as vv  # noqa: E402


def edit(img, *cmds):
    """debugfs -w edits; each must not print an error."""
    ext4img.debugfs(img, *cmds, write=True)


def le(b):
    return int.from_bytes(b, "little")


class Image(ext4img.Image):
    """An image opened for raw edits, with fscrypt v1 names on top."""

    def __init__(self, path):
        super().__init__(path, write=True)

    def inode_bytes(self, ino, n=256):
        return self.read(self.inode_offset(ino), n)

    def flags(self, ino):
        return self.inode(ino).flags

    # -- the context: the xattr named "c" -------------------------------
    def context(self, ino):
        """The value of the xattr named "c" (any index; debugfs ea_set
        writes it with index 0 until set_context fixes it to 9)."""
        for x in self.xattrs(ino):
            if x.name == b"c":
                return x.value
        raise KeyError(f"inode {ino}: no xattr c")

    def xattr_c(self, ino):
        """(entry offset, value offset, size) of the in-inode xattr named
        "c" (any index) in the image file."""
        for x in self.xattrs(ino):
            if x.in_inode and x.name == b"c":
                return x.entry_off, x.value_off, x.value_size
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
        """Entries of a directory (inode and name_len != 0): dicts with
        ino, name, ftype, off (byte offset of the dirent in the image),
        rec_len."""
        return [dict(ino=d.ino, name=d.name, ftype=d.ftype, off=d.off, rec_len=d.rec_len)
                for d in self.dir_entries(ino) if d.name_len]

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

    def lookup(self, path, keys=()):
        """Inode of a '/'-separated path of plaintext names; keys: master
        keys (bytes) to try in encrypted directories."""
        ino = 2
        for comp in [c for c in path.split("/") if c]:
            want = comp.encode()
            found = None
            flags = self.flags(ino)
            for e in self.entries(ino):
                name = e["name"]
                if flags & ext4img.ENCRYPT_FL:
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
