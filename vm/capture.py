#!/usr/bin/env python3
"""The host side of a RAM capture (vm/make-image.sh, a scenario ending with
`capture`; issue 30).  Pure Python, no e4dump.

  capture.py monitor QMP_SOCKET CONSOLE_LOG QEMU_PID MEM_BYTES ELF RAW TIMEOUT
      wait until the guest prints E4DUMP-GUEST-CAPTURE-READY on its console,
      then through QEMU's QMP monitor: dump-guest-memory ELF (an ELF core,
      no paging), pmemsave 0 MEM_BYTES RAW (physical memory from address 0),
      quit.  Exits 1 when the guest fails, QEMU exits or the time runs out.
  capture.py lime ELF LIME
      a LiME file from the ELF core's PT_LOAD segments: per segment a
      32-byte header (LiME doc/README.md, "LiME Memory Range Header Version
      1 Specification": u32 magic 0x4C694D45, u32 version 1, u64 s_addr,
      u64 e_addr (inclusive), 8 reserved bytes, little-endian), then the
      segment's bytes.
  capture.py keys SCENARIO MANIFEST MEM_BYTES OUT KEYS_DIR
      the capture manifest OUT (vm/README.md, "RAM captures"): per key of the
      run, how it was added, whether a keyscan of the capture must recover
      it, and as which kind of memory_key record; and the raw key files of
      the v1 keys added with FS_IOC_ADD_ENCRYPTION_KEY.
"""
import json
import os
import socket
import struct
import sys
import time

MARK = b"E4DUMP-GUEST-CAPTURE-READY"


def qemu_alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(")")[-1].split()[0] != "Z"
    except OSError:
        return False


class Qmp:
    def __init__(self, path):
        self.s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.s.connect(path)
        self.f = self.s.makefile("rwb", buffering=0)
        greeting = self.read()
        if "QMP" not in greeting:
            raise RuntimeError(f"no QMP greeting: {greeting}")
        self.cmd("qmp_capabilities")

    def read(self):
        while True:
            line = self.f.readline()
            if not line:
                raise RuntimeError("QMP connection closed")
            msg = json.loads(line)
            if "event" not in msg:
                return msg

    def cmd(self, name, **args):
        req = {"execute": name}
        if args:
            req["arguments"] = args
        self.f.write(json.dumps(req).encode() + b"\n")
        if name == "quit":
            # its return, the SHUTDOWN event, then QEMU closes the socket;
            # closing it first can lose the command
            try:
                while self.f.readline():
                    pass
            except OSError:
                pass
            return None
        msg = self.read()
        if "error" in msg:
            raise RuntimeError(f"{name}: {msg['error']}")
        return msg.get("return")


def monitor(sock, console, pid, mem, elf, raw, timeout):
    end = time.monotonic() + float(timeout)
    while True:
        try:
            with open(console, "rb") as f:
                text = f.read()
        except OSError:
            text = b""
        if b"E4DUMP-GUEST-FAIL" in text:
            sys.exit("capture: the guest failed")
        if MARK in text:
            break
        if not qemu_alive(pid):
            sys.exit("capture: QEMU exited before the guest was ready")
        if time.monotonic() > end:
            sys.exit(f"capture: the guest was not ready after {timeout} s")
        time.sleep(0.2)
    for _ in range(50):
        if os.path.exists(sock):
            break
        time.sleep(0.1)
    q = Qmp(sock)
    # the guest is paused first, so that the two dumps hold one instant
    # (dump-guest-memory pauses it only while it runs; an idle guest's
    # timers and page cache moved 16 MiB between the two otherwise)
    q.cmd("stop")
    t0 = time.monotonic()
    q.cmd("dump-guest-memory", paging=False, protocol="file:" + os.path.abspath(elf))
    t1 = time.monotonic()
    q.cmd("pmemsave", val=0, size=int(mem), filename=os.path.abspath(raw))
    t2 = time.monotonic()
    q.cmd("quit")
    for p in (elf, raw):
        os.chmod(p, 0o644)  # QEMU creates the ELF core 0400
    print(f"capture: ELF core {os.path.getsize(elf)} bytes in {t1 - t0:.1f} s, "
          f"raw {os.path.getsize(raw)} bytes in {t2 - t1:.1f} s", file=sys.stderr)


def pt_loads(path):
    """[(paddr, file offset, filesz)] of an ELF64 little-endian core"""
    with open(path, "rb") as f:
        eh = f.read(64)
        if eh[:4] != b"\x7fELF" or eh[4] != 2 or eh[5] != 1:
            raise SystemExit(f"{path}: not an ELF64 little-endian file")
        phoff, = struct.unpack_from("<Q", eh, 32)
        phentsize, phnum = struct.unpack_from("<HH", eh, 54)
        f.seek(phoff)
        ph = f.read(phentsize * phnum)
    out = []
    for i in range(phnum):
        p_type, _flags, off, _vaddr, paddr, filesz, _memsz, _align = \
            struct.unpack_from("<IIQQQQQQ", ph, i * phentsize)
        if p_type == 1 and filesz:
            out.append((paddr, off, filesz))
    return out


def lime(elf, out):
    segs = pt_loads(elf)
    with open(elf, "rb") as src, open(out + ".tmp", "wb") as dst:
        for paddr, off, size in segs:
            dst.write(struct.pack("<IIQQ8s", 0x4C694D45, 1, paddr, paddr + size - 1, bytes(8)))
            src.seek(off)
            left = size
            while left:
                chunk = src.read(min(left, 1 << 22))
                if not chunk:
                    raise SystemExit(f"{elf}: segment at {off:#x} is cut short")
                dst.write(chunk)
                left -= len(chunk)
    os.replace(out + ".tmp", out)
    print(f"capture: LiME {len(segs)} ranges: " +
          ", ".join(f"{p:#x}..{p + s - 1:#x}" for p, _, s in segs), file=sys.stderr)


def keys(scenario, manifest, mem, out, keysdir):
    """One line per key: key VERSION KEYHEX HOW RECOVERABLE KIND TREES.
    Also KEYSDIR/<deschex>.key for each `fskey-add N v1 DESCHEX KEYHEX` line
    of the scenario that the kernel took (make-image.sh writes those of
    `key` and `key2` lines only)."""
    recs = [l.split() for l in open(manifest, encoding="ascii")]
    added = {r[1] for r in recs if r[0] == "fskey-add" and r[2] == "0"}
    for l in open(scenario, encoding="utf-8"):
        w = l.split()
        if w[:1] == ["fskey-add"] and len(w) == 5 and w[2] == "v1" and w[1] in added:
            with open(os.path.join(keysdir, w[3].lower() + ".key"), "wb") as f:
                f.write(bytes.fromhex(w[4]))
    trees = {}
    for r in recs:
        if r[0] == "tree" and r[2] in ("enc", "enc2"):
            trees.setdefault(r[3].lower(), []).append(r[1])
    forbidden = {"forget-keys", "fskey-remove", "remount"} & {r[0] for r in recs}
    if forbidden:
        sys.exit(f"{manifest}: {', '.join(sorted(forbidden))}: not supported before a capture")
    gone = {}
    for r in recs:
        if r[0] in ("key-unlink", "key-revoke"):
            gone[r[1].split(":", 1)[1]] = r[0]
    lines = []
    for r in recs:
        if r[0] == "key":
            desc = r[1].split(":", 1)[1]
            how = {"key-unlink": "logon-unlinked", "key-revoke": "logon-revoked"}.get(
                gone.get(desc), "logon")
            # an unlinked or revoked key is recoverable only from the AES
            # schedules of inodes read while it was there (spec §17.5)
            kind = "v1-logon" if how == "logon" else "v1-file-key"
            ok = "yes" if trees.get(desc) else "no"
            lines.append(("1", desc, how, ok, kind))
        elif r[0] == "fskey-add" and r[2] == "0":
            spec = r[3]
            v = "1" if len(spec) == 16 else "2"
            lines.append((v, spec, "ioctl", "yes", "v1-ioctl" if v == "1" else "v2-hkdf"))
        elif r[0] == "key2":
            lines.append(("2", r[1], "ioctl", "yes", "v2-hkdf"))
    with open(out + ".tmp", "w", encoding="ascii") as f:
        f.write("# e4dump-capture-keys 1\n")
        f.write(f"memory {int(mem)}\n")
        for v, k, how, ok, kind in lines:
            t = trees.get(k, [])
            if not t:
                ok = "no"
            f.write(f"key {v} {k} {how} {ok} {kind} {','.join(t) or '-'}\n")
        f.write(f"end {len(lines)}\n")
    os.replace(out + ".tmp", out)


def main():
    a = sys.argv[1:]
    if a[:1] == ["monitor"] and len(a) == 8:
        monitor(*a[1:])
    elif a[:1] == ["lime"] and len(a) == 3:
        lime(*a[1:])
    elif a[:1] == ["keys"] and len(a) == 6:
        keys(*a[1:])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
