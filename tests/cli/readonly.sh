#!/bin/bash
# Every command leaves the image untouched and opens it read-only: under
# strace no open of the image asks for write access (and no other call
# that changes a file names it), its SHA-256 is the same afterwards, and
# every command works on an image that is immutable (chattr +i, where the
# filesystem has it) and on a 0444 image owned by another user (run as
# nobody, when runuser exists).
# usage: readonly.sh E4DUMP WORKDIR
set -u
E4DUMP=$1
W=$2
. "$(dirname "$0")/../lib/common.sh"
S=$top/testvectors/sample
[ -d "$W" ] && chattr -R -i "$W" 2>/dev/null
workdir "$W"
command -v strace >/dev/null || give_up "strace not installed (scripts/install-deps.sh)"
# LeakSanitizer does not work under ptrace.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0"

IMG=$W/img/sample.img
mkdir -p "$W/img"
xz -dc "$S/sample.img.xz" >"$IMG"
cp "$S/sample.key" "$W/img/key"
chmod 0444 "$IMG" "$W/img/key"
sum=$(sha256sum <"$IMG")

# The image is opened without EXT2_FLAG_RW (only the comment mentions it).
check "EXT2_FLAG_RW used in e4dump/" \
	'test -f "$top"/e4dump/image/fs/fs.c &&
	 ! grep -rn --include="*.c" "EXT2_FLAG_RW" "$top"/e4dump | grep -v "/\*.*EXT2_FLAG_RW"'

# run NAME WANT_RC IMG KEY OUT -- e4dump arguments (IMAGE, KEY, OUT: placeholders)
run() {
	local name=$1 want=$2 img=$3 key=$4 out=$5
	shift 6
	local args=()
	for a in "$@"; do
		case $a in IMAGE) args+=("$img") ;; KEY) args+=("$key") ;; OUT) args+=("$out") ;; *) args+=("$a") ;; esac
	done
	"${PREFIX[@]}" "$E4DUMP" "${args[@]}" >"$W/$name.out" 2>"$W/$name.err"
	local rc=$?
	check "$name: exit $rc, want $want: $(grep -v '^+' "$W/$name.err" | head -2)" '[ $rc = $want ]'
	check "$name: image changed" '[ "$(sha256sum <"$img")" = "$sum" ]'
	check "$name: sanitizer report" '! sanitizer_report "$W/$name.err"'
}

COMMANDS=(
	"info 0 -- info IMAGE"
	"info-key 0 -- info --key-file KEY IMAGE"
	"ls 0 -- ls -l IMAGE"
	"ls-R 0 -- ls -R -l IMAGE"
	"ls-R-key 0 -- ls -R -l --key-file KEY IMAGE"
	"cat 0 -- cat --key-file KEY IMAGE /secret/hello.txt"
	"extract 0 -- extract --key-file KEY IMAGE -o OUT"
	"extract-nokey 1 -- extract IMAGE /secret -o OUT"
	"verify 0 -- verify IMAGE"
	"verify-key 0 -- verify --key-file KEY IMAGE"
	"verify-json 0 -- verify --json --key-file KEY IMAGE"
)

# 1. strace: every call naming the image path.
for c in "${COMMANDS[@]}"; do
	set -- $c
	name=$1
	PREFIX=(strace -f -qq -e trace=%file,%desc -o "$W/$name.strace")
	run "st-$name" "$2" "$IMG" "$W/img/key" "$W/out-st-$name" "${@:3}"
	calls=$(grep -F "\"$IMG\"" "$W/$name.strace")
	check "st-$name: image not opened: $(head -3 "$W/$name.strace")" \
		'echo "$calls" | grep -q "open.*O_RDONLY"'
	check "st-$name: writable open or change of the image: $(echo "$calls" | grep -E "O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|^[0-9]+ +(truncate|unlink|rename|chmod|fchmodat|chown|fchownat|utime|link|symlink|mknod|setxattr|lsetxattr|removexattr)" | head -2)" \
		'! echo "$calls" | grep -Eq "O_WRONLY|O_RDWR|O_CREAT|O_TRUNC|^[0-9]+ +(truncate|unlink|rename|chmod|fchmodat|chown|fchownat|utime|link|symlink|mknod|setxattr|lsetxattr|removexattr)"'
done
PREFIX=()

# 2. An immutable image (even root cannot open it for writing).
if chattr +i "$IMG" 2>/dev/null; then
	check "immutable: root can still write it?" '! (exec 3>>"$IMG") 2>/dev/null'
	for c in "${COMMANDS[@]}"; do
		set -- $c
		run "immutable-$1" "$2" "$IMG" "$W/img/key" "$W/out-imm-$1" "${@:3}"
	done
	chattr -i "$IMG"
else
	echo "note: chattr +i not supported here; immutable image not tested"
fi

# 3. Mode 0444, owned by root, e4dump run as nobody.
if [ "$(id -u)" = 0 ] && command -v runuser >/dev/null &&
	runuser -u nobody -- test -r "$IMG" 2>/dev/null; then
	mkdir -m 0777 "$W/nobody"
	PREFIX=(runuser -u nobody --)
	for c in "${COMMANDS[@]}"; do
		set -- $c
		run "nobody-$1" "$2" "$IMG" "$W/img/key" "$W/nobody/out-$1" "${@:3}"
	done
	PREFIX=()
	check "nobody: extract wrote the tree" 'cmp -s "$W/nobody/out-extract/secret/hello.txt" "$W/out-st-extract/secret/hello.txt"'
else
	echo "note: not root, no runuser or nobody cannot read $IMG; other-user run not tested"
fi
check "image changed at the end" '[ "$(sha256sum <"$IMG")" = "$sum" ]'
finish
