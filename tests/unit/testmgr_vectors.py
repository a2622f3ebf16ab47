#!/usr/bin/python3
"""Turn selected test-vector templates of Linux 6.1 crypto/testmgr.h into a
line-oriented file for tests/unit/test_modes_kat.c.

    testmgr_vectors.py SOURCE OUT

SOURCE is the kernel source tarball (linux-source-6.1.tar.xz; testmgr.h is
read from it) or testmgr.h itself.  Each output line is

    TEMPLATE field=HEX field=HEX ...

with the fields of one vector (key, iv, ptext, ctext for ciphers; key,
plaintext, digest for hashes) cut to their stated lengths.  testmgr.h itself
is never copied into the project.
"""
import re
import sys
import tarfile

TEMPLATES = [
    "xchacha12_tv_template",
    "nhpoly1305_tv_template",
    "polyval_tv_template",
    "aes_xctr_tv_template",
    "adiantum_xchacha12_aes_tv_template",
    "aes_hctr2_tv_template",
]
MEMBER = "linux-source-6.1/crypto/testmgr.h"
ESCAPES = {"n": 10, "t": 9, "r": 13, "a": 7, "b": 8, "f": 12, "v": 11,
           "\\": 92, '"': 34, "'": 39, "?": 63}


def read_source(path):
    if path.endswith(".h"):
        with open(path, encoding="utf-8", errors="replace") as f:
            return f.read()
    with tarfile.open(path) as tar:
        f = tar.extractfile(MEMBER)
        if f is None:
            sys.exit(f"{path}: no {MEMBER}")
        return f.read().decode("utf-8", errors="replace")


def c_string(lit):
    """Bytes of one C string literal body (between the quotes)."""
    out = bytearray()
    i = 0
    while i < len(lit):
        ch = lit[i]
        if ch != "\\":
            out += ch.encode()
            i += 1
            continue
        nxt = lit[i + 1]
        if nxt == "x":
            j = i + 2
            while j < len(lit) and lit[j] in "0123456789abcdefABCDEF":
                j += 1
            v = int(lit[i + 2:j], 16)
            if v > 255:
                raise ValueError("hex escape out of range: " + lit[i:j])
            out.append(v)
            i = j
        elif nxt in "01234567":
            j = i + 1
            while j < len(lit) and j < i + 4 and lit[j] in "01234567":
                j += 1
            out.append(int(lit[i + 1:j], 8))
            i = j
        else:
            out.append(ESCAPES[nxt])
            i += 2
    return bytes(out)


def strip_comments(text):
    return re.sub(r"/\*.*?\*/", "", re.sub(r"//[^\n]*", "", text), flags=re.S)


def template_body(src, name):
    m = re.search(r"static const struct \w+ " + name + r"\[\]\s*=\s*\{", src)
    if not m:
        sys.exit(f"template {name} not found")
    i = m.end()
    depth, start, entries = 1, None, []
    in_str = False
    while depth:
        ch = src[i]
        if in_str:
            if ch == "\\":
                i += 1
            elif ch == '"':
                in_str = False
        elif ch == '"':
            in_str = True
        elif ch == "{":
            depth += 1
            if depth == 2:
                start = i + 1
        elif ch == "}":
            if depth == 2:
                entries.append(src[start:i])
            depth -= 1
        i += 1
    return entries


FIELD = re.compile(r'\.(\w+)\s*=\s*((?:"(?:\\.|[^"\\])*"\s*)+|[^,]+)')
STRING = re.compile(r'"((?:\\.|[^"\\])*)"')
LENGTHS = {"key": ("klen", "ksize"), "iv": (), "ptext": ("len",),
           "ctext": ("len",), "plaintext": ("psize",), "digest": ()}


def vectors(src, name):
    for entry in template_body(src, name):
        fields, ints = {}, {}
        for m in FIELD.finditer(strip_comments(entry)):
            key, val = m.group(1), m.group(2).strip()
            if val.startswith('"'):
                fields[key] = b"".join(c_string(s) for s in STRING.findall(val))
            else:
                ints[key] = int(val, 0)
        out = []
        for key, data in fields.items():
            if key not in LENGTHS:
                continue
            for ln in LENGTHS[key]:
                if ln in ints:
                    data = data[:ints[ln]]
            out.append(f"{key}={data.hex()}")
        yield " ".join(out)


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    src = read_source(sys.argv[1])
    lines = []
    for name in TEMPLATES:
        for v in vectors(src, name):
            lines.append(f"{name} {v}\n")
    with open(sys.argv[2], "w", encoding="ascii") as f:
        f.write(f"# from {sys.argv[1]} (Linux crypto/testmgr.h)\n")
        f.writelines(lines)


if __name__ == "__main__":
    main()
