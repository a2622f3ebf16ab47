# Shared by nofollow.sh and force.sh: the sample image, the trap image of
# hostile_names.py, and a victim directory outside the output directory
# with symlinks to it planted in DIR.
# Needs: E4DUMP, W set; defines ok, bad, check, top, S, K, plant, victim_sum.
top=$(cd "$(dirname "$0")/../.." && pwd)
S=$top/testvectors/sample
K=$S/sample.key
rm -rf "$W" && mkdir -p "$W"
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { fail=$((fail + 1)); echo "FAIL: $*"; }
check() { if eval "$2"; then ok; else bad "$1"; fi; }

xz -dc "$S/sample.img.xz" >"$W/sample.img"
/usr/bin/python3 "$top/tests/cli/hostile_names.py" "$W/sample.img" "$K" "$W/h" \
	"$W/victim/evil" || { echo "FAIL: hostile_names.py"; exit 1; }
mkdir -p "$W/victim/subdir"
printf 'original\n' >"$W/victim/file"

# Everything about the victim tree: names, types, sizes, modes, contents.
victim_sum() {
	(cd "$W/victim" && find . -printf '%p %y %s %m %l\n' | LC_ALL=C sort &&
		find . -type f -exec sha256sum {} + | LC_ALL=C sort)
}

# plant DIR: symlinks in DIR pointing outside, where the extraction goes.
plant() {
	mkdir -p "$1/plain"
	ln -s "$W/victim" "$1/secret"
	ln -s "$W/victim/file" "$1/plain/hello.txt"
	ln -s "$W/victim/subdir" "$1/plain/sub"
	ln -s "$W/victim/newfile" "$1/plain/link"     # dangling
	ln -s "$W/victim/newdir" "$1/plain/empty"     # dangling
}
