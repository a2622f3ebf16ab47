# Sourced by bench/make-image.sh and bench/make-journal-image.sh: what the
# two share about an image made in QEMU and kept in $E4DUMP_CACHE/bench/
# (its key file's name, the fixed key, the cache key, the guest run, the
# delivery).  Each script keeps its own scenario, locks and pruning.

# OUT.key beside OUT.img (or OUT + .key)
image_keyout() {
	case $1 in
		*.img) echo "${1%.img}.key" ;;
		*) echo "$1.key" ;;
	esac
}

# "KEYHEX DESCRIPTOR": a fixed key, so that the same scenario gives the same
# image; the descriptor by e4crypt's rule (SHA-512 twice), which is how
# e4dump matches key and policy.
image_master_key() {
	python3 -c '
import hashlib
k = hashlib.sha512(b"e4dump benchmark master key").digest()
print(k.hex(), hashlib.sha512(hashlib.sha512(k).digest()).hexdigest()[:16])'
}

# The cache key of an image: TAG (the recipe; bump it when what the image
# holds changes otherwise), the scenario SCN, the kernel KERNEL, the guest
# sources and vm/make-image.sh (this file and the scripts are not in it).
image_cache_key() {
	{ echo "$1"; echo "$2"; echo "$3";
	  sha256sum "$top"/vm/guest/*.c "$top"/vm/guest/*.h "$top/vm/make-image.sh" |
	  cut -d' ' -f1; } | sha256sum | cut -c1-16
}

# Run scenario CDIR/SCN_NAME in the guest into CDIR/image.img (the key of
# descriptor DESC into CDIR/image.key); 1 after printing the log's tail.
image_generate() {
	local cdir=$1 scn_name=$2 kernel=$3 timeout=$4 desc=$5
	if ! bash "$top/vm/make-image.sh" --kernel "$kernel" --timeout "$timeout" \
		--keys-dir "$cdir/keys" "$cdir/$scn_name" "$cdir/image.img" >"$cdir/make-image.log" 2>&1; then
		tail -n 30 "$cdir/make-image.log" >&2
		rm -f "$cdir/image.img" # GBs; the logs stay
		echo "vm/make-image.sh failed (log: $cdir/make-image.log)" >&2
		return 1
	fi
	cp "$cdir/keys/$desc.key" "$cdir/image.key"
}

# CDIR's image to OUT (hard link when the cache is on the same filesystem,
# instant; else a sparse copy), with its key (KEYOUT), manifest, console
# log and scenario (CDIR/SCN_NAME, to OUT.scn).
image_deliver() {
	local src=$1 scn_name=$2 out=$3 keyout=$4 f
	mkdir -p "$(dirname "$out")" || return 1
	rm -f "$out" "$keyout" "$out.manifest" "$out.console.log" "$out.scn"
	ln "$src/image.img" "$out" 2>/dev/null || cp --sparse=always "$src/image.img" "$out" || return 1
	for f in manifest console.log; do
		cp "$src/image.img.$f" "$out.$f" || return 1
	done
	cp "$src/$scn_name" "$out.scn" || return 1
	cp "$src/image.key" "$keyout"
}

# How long generation took (from T0 to T1, date +%s.%N) into
# CDIR/generation-seconds, and the image marked finished.
image_done() {
	awk -v a="$2" -v b="$3" 'BEGIN { printf "%.1f\n", b - a }' >"$1/generation-seconds"
	touch "$1/.done"
}
