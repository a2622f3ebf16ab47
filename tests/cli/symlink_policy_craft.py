#!/usr/bin/python3
"""Symlinks whose policy is not their directory's, made from the
kernel-written sample (testvectors/sample: /secret under one v1 policy,
the 6.1 name format), with the facts Linux 6.1 gives for them.

usage: symlink_policy_craft.py SAMPLE_IMG OUT_OTHER OUT_PLAIN
  OUT_OTHER: /secret/link's encryption context (xattr index 9 "c") names
      another master key (descriptor 1111111111111111) and another nonce,
      so the sample's key opens /secret but not the link;
  OUT_PLAIN: /secret/sub/up is a plain symlink (no EXT4_ENCRYPT_FL, its
      target "../hello.txt" in i_block as a fast symlink) in an encrypted
      directory.
Prints "other INODE SIZE TARGET" and "plain INODE SIZE TARGET": what lstat's
st_size and readlink give.  The kernel's rule (fs/crypto/hooks.c,
fscrypt_get_symlink and fscrypt_symlink_getattr) uses the symlink inode's
own key: without it readlink gives fscrypt_fname_disk_to_usr(inode, 0, 0,
ciphertext) (fs/crypto/fname.c): base64url, no padding, of struct
fscrypt_nokey_name { u32 dirhash[2] = 0; u8 bytes[] = the ciphertext } for
a ciphertext of at most 149 bytes; the ciphertext follows the le16 length of
struct fscrypt_symlink_data.  A symlink without EXT4_ENCRYPT_FL is read as
it is stored, whatever its directory.
"""
import base64
import os
import shutil
import struct
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import ext4img  # noqa: E402

sample, out_other, out_plain = sys.argv[1:4]
FT_DIR, FT_SYMLINK = 2, 7


def symlinks(im, d):
    """The symlinks (inode numbers) in directory d, and its directories:
    the names are encrypted, the file types are not."""
    ents = [e for e in im.dir_entries(d) if e.name not in (b".", b"..")]
    return ([e.ino for e in ents if e.ftype == FT_SYMLINK],
            [e.ino for e in ents if e.ftype == FT_DIR])


def link_and_up(im):
    """/secret/link and /secret/sub/up: the one symlink of /secret and the
    one of its subdirectories."""
    links, dirs = symlinks(im, im.lookup("/secret"))
    ups = [u for d in dirs for u in symlinks(im, d)[0]]
    assert len(links) == 1 and len(ups) == 1, (links, ups)
    return links[0], ups[0]

shutil.copyfile(sample, out_other)
im = ext4img.Image(out_other, write=True)
ino = link_and_up(im)[0]
i = im.inode(ino)
assert i.is_symlink() and i.flags & ext4img.ENCRYPT_FL and i.data_in_inode(), ino
x = im.find_xattr(ino, ext4img.XATTR_INDEX_ENCRYPTION, b"c")
assert x and len(x.value) == 28 and x.value[0] == 1, x   # v1: descriptor at 4
# another descriptor, and another nonce: the per-file key is derived from
# the master key and the nonce, so the sample's key no longer decrypts the
# target (e4dump matches a raw key to a v1 policy by what it decrypts)
im.set_xattr_value(ino, x, x.value[:4] + b"\x11" * 8 + bytes(b ^ 0xff for b in x.value[12:]))
n, = struct.unpack_from("<H", i.block, 0)
ct = i.block[2:2 + n]
assert n == i.size - 2 and 16 <= n <= 149, (n, i.size)
nokey = base64.urlsafe_b64encode(b"\0" * 8 + ct).rstrip(b"=").decode()
print("other", ino, len(nokey), nokey)
im.close()

shutil.copyfile(sample, out_plain)
im = ext4img.Image(out_plain, write=True)
ino = link_and_up(im)[1]
i = im.inode(ino)
assert i.is_symlink() and i.flags & ext4img.ENCRYPT_FL and i.data_in_inode(), ino
target = b"../hello.txt"
im.write_inode(ino, {"flags": i.flags & ~ext4img.ENCRYPT_FL, "size": len(target),
                     "block": target.ljust(60, b"\0")})
print("plain", ino, len(target), target.decode())
im.close()
