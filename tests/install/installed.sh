#!/bin/bash
# The installed library, as another program uses it: `cmake --install` into
# a prefix, then tests/install/example.c (the README's example) built
# against it through `pkg-config --cflags --libs e4dump` (shared) and
# `pkg-config --static` (static), run on the bundled kernel-written
# sample: it lists exactly the manifest's paths and copies
# /secret/sub/nested file.bin byte for byte (the manifest's generator);
# the README shows the same program.
# usage: installed.sh E4DUMP BUILDDIR WORKDIR
set -u
E4DUMP=$1
. "$(dirname "$0")/../lib/common.sh"
workdir "$3"
S=$top/testvectors/sample
P=$W/prefix
cmake --install "$2" --prefix "$P" >"$W/install.log" 2>&1 || give_up "cmake --install: $(tail -3 "$W/install.log")"
pc=$(find "$P" -name e4dump.pc | head -1)
check "e4dump.pc installed" '[ -n "$pc" ]'
check "headers: $(ls "$P/include/e4dump" | wc -l)" '[ -f "$P/include/e4dump/e4dump.h" ] && [ -f "$P/include/e4dump/walk.h" ] && [ ! -e "$P/include/e4dump/fs_private.h" ]'
libdir=$(dirname "$(dirname "$pc")")
for l in libe4dump.a libe4dump.so libe4core.a libe4core.so; do
	check "$l installed" '[ -e "$libdir/$l" ]'
done
export PKG_CONFIG_PATH=$(dirname "$pc")
extra=()
sanitized "$E4DUMP" && extra=(-fsanitize=address,undefined)
cc -std=c11 -Wall -Wextra -Werror "${extra[@]}" "$top/tests/install/example.c" \
	$(pkg-config --cflags --libs e4dump) -Wl,-rpath,"$libdir" -o "$W/example" \
	>"$W/cc.log" 2>&1 || give_up "cc (shared): $(head -5 "$W/cc.log")"
# the archives by path, what they need from `pkg-config --static`
needs=$(pkg-config --static --libs e4dump | sed 's/-le4dump//; s/-le4core//')
cc -std=c11 -Wall -Wextra -Werror "${extra[@]}" "$top/tests/install/example.c" \
	$(pkg-config --cflags e4dump) "$libdir/libe4dump.a" "$libdir/libe4core.a" \
	$needs -o "$W/example-static" \
	>"$W/cc-static.log" 2>&1 || give_up "cc (static): $(head -5 "$W/cc-static.log")"
check "shared: linked to the installed libe4dump" 'ldd "$W/example" | grep -q "$libdir/libe4dump.so"'
xz -dc "$S/sample.img.xz" >"$W/sample.img"
check_extract "$S/sample.manifest" --list | LC_ALL=C sort >"$W/want.list" ||
	bad "manifest listing"
/usr/bin/python3 -c '
import sys
sys.path.insert(0, sys.argv[1] + "/tests/vm")
import check_extract as ce
for e in ce.parse_manifest(sys.argv[2])[1]:
    if e.path == b"secret/sub/nested file.bin":
        sys.stdout.buffer.write(ce.generate(e.seed, e.size))
' "$top" "$S/sample.manifest" >"$W/want.bin"
check "manifest content: $(stat -c %s "$W/want.bin") bytes" '[ -s "$W/want.bin" ]'
for ex in example example-static; do
	"$W/$ex" "$W/sample.img" "$S/sample.key" "/secret/sub/nested file.bin" "$W/$ex.bin" \
		>"$W/$ex.list" 2>"$W/$ex.err"
	rc=$?
	check "$ex: exit $rc: $(head -3 "$W/$ex.err")" '[ $rc = 0 ] && [ ! -s "$W/$ex.err" ]'
	grep -v "^lost+found$" "$W/$ex.list" | LC_ALL=C sort >"$W/$ex.sorted"
	check "$ex: the manifest's paths: $(diff "$W/want.list" "$W/$ex.sorted" | head -3)" \
		'[ -s "$W/$ex.sorted" ] && cmp -s "$W/want.list" "$W/$ex.sorted"'
	check "$ex: the file byte for byte" 'cmp -s "$W/want.bin" "$W/$ex.bin"'
done
# The README shows this very program.
awk '/^```c$/ { on = 1; next } /^```$/ { on = 0 } on' "$top/README.md" >"$W/readme.c"
check "README's example is tests/install/example.c: $(diff "$W/readme.c" "$top/tests/install/example.c" | head -3)" \
	'[ -s "$W/readme.c" ] && cmp -s "$W/readme.c" "$top/tests/install/example.c"'
finish
