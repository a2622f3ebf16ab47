#!/usr/bin/python3
"""Hostile copies of the kernel-written sample image, for extract: entries
whose names decrypt (with the right key and valid zero padding) to "..",
".", "a/b", "../../etc/x", control bytes, an embedded NUL; names that look
like e4dump's own escapes; the same in the unencrypted /plain; a name with
'/' and no padding; a symlink and a directory with one name; a hard link.
No directory gets a second link (extract refuses those).

usage: hostile_names.py SAMPLE_IMG KEY_FILE OUT_PREFIX SYMLINK_TARGET
Writes OUT_PREFIX-hostile.img, OUT_PREFIX-nopad.img, OUT_PREFIX-trap.img
and prints nothing.  Names are encrypted with the independent Python
implementation (tests/vectors/verify_vectors.py) through imgtool.py; new
entries go into the slack at the end of the directory's block
(tests/lib/ext4img.py add_entries; its metadata_csum tail is left stale:
e4dump ignores checksum errors).
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "..", "verify"))
from imgtool import Image, edit  # noqa: E402

FT_REG, FT_DIR, FT_LNK = 1, 2, 7

# Entries of /secret renamed in place (no second link to a directory):
# inode -> new decrypted name.
RENAME = {
    15: b"..",                       # /secret/sub: must not become DIR/..
    19: b".",                        # /secret/empty
}
# Entries added: (decrypted name, inode in the sample, file type)
SECRET = [
    (b"a/b", 13, FT_REG),            # hello.txt
    (b"../../etc/x", 13, FT_REG),
    (b"x\x01y", 14, FT_REG),         # 日本.txt
    (b"\x1b[31m", 14, FT_REG),
    (b"x\x00y", 13, FT_REG),         # embedded NUL, then zero padding
    (b"%legit", 13, FT_REG),         # a real name that starts with '%'
    (b"%a%2Fb", 14, FT_REG),         # a real name equal to the escape of a/b
    (b"../escape", 17, FT_LNK),      # symlink -> hello.txt
    (b"\x01" * 200, 13, FT_REG),     # escape longer than 255 bytes
]
PLAIN = [
    (b"../plainx", 21, FT_REG),      # raw, unencrypted
    (b"..", 23, FT_DIR),             # dropped by listings, like the real ".."
    (b"p\x00q", 22, FT_REG),
]


def key(path):
    data = open(path, "rb").read()
    try:
        return bytes.fromhex(data.decode().strip())
    except ValueError:
        return data


def append(im, dir_ino, ents):
    """Add entries (name bytes stored as given) in the slack of the last
    entry of the directory's first block, checksum tail left stale."""
    im.add_entries(dir_ino, ents, csum=False)


def encrypted(im, dir_ino, master, names):
    """Padded to 32 as the policy says (names of 32 bytes or longer to a
    multiple of 32)."""
    return [(ino, ft, im.encrypt_name(dir_ino, master, n, (len(n) + 31) // 32 * 32))
            for n, ino, ft in names]


def main():
    sample, keyfile, prefix, target = sys.argv[1:5]
    master = key(keyfile)

    out = prefix + "-hostile.img"
    shutil.copyfile(sample, out)
    im = Image(out)
    for e in im.entries(12):
        if e["ino"] in RENAME:
            im.set_dirent(e, name=im.encrypt_name(12, master, RENAME[e["ino"]], 32))
    append(im, 12, encrypted(im, 12, master, SECRET))
    append(im, 20, [(ino, ft, n) for n, ino, ft in PLAIN])

    # 32 bytes with '/' and a control byte, no zero padding: nothing shows
    # the key is right, so it stays a name that does not decrypt.  Two long
    # names of one inode whose escapes are cut to the same prefix collide.
    out = prefix + "-nopad.img"
    shutil.copyfile(sample, out)
    im = Image(out)
    append(im, 12, encrypted(im, 12, master, [
        (b"c/\x01" + b"d" * 29, 13, FT_REG),
        (b"\x01" * 200, 13, FT_REG), (b"\x01" * 200 + b"z", 13, FT_REG)]))

    # A symlink "evil" pointing outside and a directory "evil" (plain/empty
    # renamed) in /plain; "hard" a second link to plain/hello.txt.
    out = prefix + "-trap.img"
    shutil.copyfile(sample, out)
    edit(out, f"symlink /plain/evil {target}")
    im = Image(out)
    im.write_inode(21, {"links_count": 2})
    for e in im.entries(20):
        if e["ino"] == 27:
            im.set_dirent(e, name=b"evil")
    append(im, 20, [(21, FT_REG, b"hard")])


if __name__ == "__main__":
    main()
