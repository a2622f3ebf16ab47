# Shared by nofollow.sh and force.sh: the sample image, the trap image of
# hostile_names.py, and a victim directory outside the output directory
# with symlinks to it planted in DIR.
# Needs: E4DUMP, W set; defines (with tests/lib/common.sh) S, K, plant,
# victim_sum.
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
S=$top/testvectors/sample
K=$S/sample.key
workdir "$W"

xz -dc "$S/sample.img.xz" >"$W/sample.img"
/usr/bin/python3 "$top/tests/cli/hostile_names.py" "$W/sample.img" "$K" "$W/h" \
	"$W/victim/evil" || give_up "hostile_names.py"
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
