#!/usr/bin/python3
"""Two policies in a copy of the kernel-written sample image, for
tests/cli/policy_dirs.sh (info: the directories each policy covers).
Edited with tests/lib/ext4img.py (never e4dump).

usage: policy_dirs_craft.py SAMPLE_IMG OUT_IMG FACTS

The sample has one v1 policy A: /secret and its subdirectories empty and
sub.  Made here:
  /plain/empty   an unencrypted empty directory given the encrypt flag and
                 an in-inode context of a policy B (A's modes and flags,
                 another descriptor): a top directory of B
  /secret/sub    its context's descriptor changed to B's: a directory of
                 B inside a directory of A (which the kernel never makes)
  /secret/sub/<20 bytes>  an entry naming /secret's inode: a loop
FACTS gets "A DESC", "B DESC" and "ino PATH N" for /secret, /plain/empty
and /secret/sub.
"""
import os
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "lib"))
import ext4img  # noqa: E402

sample, out, facts = sys.argv[1:4]
shutil.copyfile(sample, out)
im = ext4img.Image(out, write=True)
secret = im.lookup(b"/secret")
empty = im.lookup(b"/plain/empty")
ctx_a = im.context(secret)
assert ctx_a and len(ctx_a) == 28 and ctx_a[0] == 1, ctx_a
desc_a = ctx_a[4:12]
desc_b = bytes.fromhex("b0b1b2b3b4b5b6b7")

# /secret/sub: the subdirectory of /secret that has entries (its name is
# encrypted; empty is the other one)
subs = [d.ino for d in im.dir_entries(secret)
        if d.name not in (b".", b"..") and im.inode(d.ino).is_dir()]
sub = [i for i in subs if len([d for d in im.dir_entries(i)
                               if d.name not in (b".", b"..")]) > 0]
assert len(subs) == 2 and len(sub) == 1, (subs, sub)
sub = sub[0]
x = im.find_xattr(sub, ext4img.XATTR_INDEX_ENCRYPTION, b"c")
im.set_xattr_value(sub, x, x.value[:4] + desc_b + x.value[12:])

# /plain/empty: an in-inode xattr area holding only the context
i = im.inode(empty)
assert not i.flags & ext4img.ENCRYPT_FL
value = ctx_a[:4] + desc_b + bytes(range(0x40, 0x50))
im.set_inode_xattr_area(empty, ext4img.XATTR_INDEX_ENCRYPTION, b"c", value)
im.write_inode(empty, {"flags": i.flags | ext4img.ENCRYPT_FL})

# the loop: an entry of /secret/sub (now B's) naming /secret
im.add_entries(sub, [(secret, ext4img.FT_DIR, b"loop-back-to-secret!")])

with open(facts, "w") as f:
    f.write(f"A {desc_a.hex()}\nB {desc_b.hex()}\n")
    f.write(f"ino /secret {secret}\nino /plain/empty {empty}\nino /secret/sub {sub}\n")
