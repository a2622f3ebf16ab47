"""Raw reads from an ext4 image without e4dump: debugfs for metadata, the
image file for bytes.  Used by the harvesters."""
import os
import subprocess


class Image:
    def __init__(self, path, tmpdir):
        self.path, self.tmp = path, tmpdir
        self._bs = None

    def debugfs(self, cmd):
        r = subprocess.run(["debugfs", "-R", cmd, self.path], capture_output=True)
        if r.returncode:
            raise SystemExit(f"debugfs {cmd}: {r.stderr.decode()}")
        return r.stdout

    def read(self, off, n):
        with open(self.path, "rb") as f:
            f.seek(off)
            return f.read(n)

    def blocksize(self):
        if self._bs is None:
            for line in subprocess.run(["dumpe2fs", "-h", self.path], capture_output=True,
                                       text=True).stdout.splitlines():
                if line.startswith("Block size:"):
                    self._bs = int(line.split()[-1])
        return self._bs

    def superblock(self):
        return self.read(1024, 1024)

    def context(self, ino):
        tmp = os.path.join(self.tmp, "ctx.bin")
        self.debugfs(f"ea_get -f {tmp} <{ino}> c")
        with open(tmp, "rb") as f:
            ctx = f.read()
        os.unlink(tmp)
        return ctx

    def raw_inode(self, ino):
        words = self.debugfs(f"imap <{ino}>").decode().replace(",", " ").split()
        blk = int(words[words.index("block", words.index("located")) + 1])
        off = int(words[words.index("offset") + 1], 16)
        return self.read(blk * self.blocksize() + off, 256)

    def blocks(self, ino):
        return [int(x) for x in self.debugfs(f"blocks <{ino}>").split()]

    def dir_entries(self, ino):
        """(inode, raw name, file type) of a directory, from its blocks."""
        data = self.debugfs(f"cat <{ino}>")
        out, pos = [], 0
        while pos + 8 <= len(data):
            inode = int.from_bytes(data[pos:pos + 4], "little")
            rec_len = int.from_bytes(data[pos + 4:pos + 6], "little")
            name_len, ftype = data[pos + 6], data[pos + 7]
            if rec_len < 8:
                break
            name = data[pos + 8:pos + 8 + name_len]
            if inode and name not in (b".", b".."):
                out.append((inode, name, ftype))
            pos += rec_len
        return out

    def dir_entries_raw(self, ino):
        """Entries with the 8 bytes after the name padded to 4 (the hash
        pair of casefolded encrypted directories, when the entry has room
        for it): dicts with ino, name, hash."""
        data = self.debugfs(f"cat <{ino}>")
        out, pos = [], 0
        while pos + 8 <= len(data):
            inode = int.from_bytes(data[pos:pos + 4], "little")
            rec_len = int.from_bytes(data[pos + 4:pos + 6], "little")
            name_len = data[pos + 6]
            if rec_len < 8:
                break
            name = data[pos + 8:pos + 8 + name_len]
            h = pos + 8 + (name_len + 3) // 4 * 4
            if inode and name not in (b".", b"..") and h + 8 <= pos + rec_len:
                out.append({"ino": inode, "name": name, "hash": data[h:h + 8]})
            pos += rec_len
        return out

    def stat(self, ino):
        raw = self.raw_inode(ino)
        mode = int.from_bytes(raw[0:2], "little")
        size = int.from_bytes(raw[4:8], "little") | int.from_bytes(raw[0x6c:0x70], "little") << 32
        return mode, size, raw

    def root_inode(self, name):
        for ino, raw, _ in self.dir_entries(2):
            if raw == name:
                return ino
        raise SystemExit(f"no /{name.decode()} in the image")

    def symlink_blob(self, ino, size, raw):
        """The stored symlink bytes: in i_block below 60 bytes, else in the
        first data block; and where they were."""
        if size < 60:
            return raw[0x28:0x28 + size], "i_block"
        return self.read(self.blocks(ino)[0] * self.blocksize(), size), "data block"
