# gdb script: write the memory of the stopped inferior that a core dump
# holds by default (coredump_filter 0x33): every writable mapping and every
# anonymous one, not read-only file pages (the executable's own strings),
# nor mappings marked "dd" (MADV_DONTDUMP, such as ASan's terabytes of
# shadow memory, which gdb 13's gcore reads anyway on some kernels).  It
# goes to the file named by the gdb variable $memdump_out, one mapping
# after another: only the bytes matter, keys.sh searches them for keys.
import re
import gdb

out = gdb.parse_and_eval("$memdump_out").string()
pid = gdb.selected_inferior().pid
regions, cur = [], None
with open("/proc/%d/smaps" % pid) as f:
    for line in f:
        m = re.match(r"^([0-9a-f]+)-([0-9a-f]+) (\S+) \S+ \S+ \S+\s*(.*)$", line)
        if m:
            name = m.group(4).strip()
            anon = not name or name.startswith("[")
            cur = [int(m.group(1), 16), int(m.group(2), 16), m.group(3), "", anon]
            regions.append(cur)
        elif line.startswith("VmFlags:") and cur:
            cur[3] = line.split(":", 1)[1]
total = 0
with open("/proc/%d/mem" % pid, "rb", buffering=0) as mem, open(out, "wb") as dst:
    for start, end, perm, flags, anon in regions:
        if perm[0] != "r" or "dd" in flags.split() or not (anon or "w" in perm):
            continue
        for off in range(start, end, 1 << 20):
            try:
                mem.seek(off)
                data = mem.read(min(1 << 20, end - off))
            except OSError:
                continue
            dst.write(data)
            total += len(data)
gdb.write("memdump: %d bytes\n" % total)
