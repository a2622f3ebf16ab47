#!/usr/bin/env python3
"""Every worked example of the spec labelled "kernel" ("Worked example
(kernel: ..." and the jsonl block after it) is bytes a kernel wrote: each
of its hex values of 16 bytes or more (keys, nonces, names, ciphertext,
symlink blobs; a prefix of a data unit counts) is found in a committed
kernel-written file under testvectors/kernel/, and a context's bytes are
its version, modes, flags, descriptor and nonce, those found there too.
usage: kernel_examples.py SPEC KERNEL_DIR"""
import json
import os
import re
import sys


def main():
    spec, kdir = sys.argv[1:3]
    corpus = ""
    for n in sorted(os.listdir(kdir)):
        if n.endswith((".jsonl", ".txt")):
            corpus += open(os.path.join(kdir, n), encoding="utf-8").read().lower()
    text = open(spec, encoding="utf-8").read()
    blocks = 0
    bad = []
    for m in re.finditer(r"^Worked examples? \(kernel\b", text, re.M):
        start = text.index("```jsonl\n", m.end())
        end = text.index("\n```", start)
        head = text[m.start():m.start() + 60].replace("\n", " ")
        if text.find("Worked example", m.end(), start) >= 0:
            bad.append("%s: no jsonl block before the next example" % head)
            continue
        blocks += 1
        for line in text[start + 9:end].splitlines():
            v = json.loads(line)
            if v["type"] == "context" and "nonce" not in v:
                bad.append("%s: a context that is not the kernel's (%s)" % (head, v["result"]))
                continue
            if v["type"] == "context":
                want = "%02x%02x%02x%02x%s%s" % (v["version"], v["contents_mode"],
                                                 v["filenames_mode"], v["flags"],
                                                 v["key_id"], v["nonce"])
                if v["bytes"] != want:
                    bad.append("%s: context bytes are not its fields" % head)
                values = [v["key_id"], v["nonce"]]
            else:
                values = [x for x in v.values() if isinstance(x, str)
                          and len(x) >= 32 and re.fullmatch(r"[0-9a-f]+", x)]
            if not values:
                bad.append("%s: %s has nothing to look up" % (head, v["type"]))
            for x in values:
                if x not in corpus:
                    bad.append("%s: %s %s... is in no file of %s" % (head, v["type"], x[:24], kdir))
    for b in bad:
        print("FAIL:", b)
    print("%d kernel-labelled blocks, %d problems" % (blocks, len(bad)))
    return 1 if bad or blocks < 5 else 0


if __name__ == "__main__":
    sys.exit(main())
