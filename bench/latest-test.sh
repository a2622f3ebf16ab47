#!/bin/bash
# ctest bench.latest: bench/latest.py's table from raw rows written here by
# hand, each expected figure worked out by hand from them (never from the
# script), so that a wrong median, ratio, side or goal fails.  Also the
# README block replacement.
# usage: latest-test.sh WORKDIR
set -u
E4DUMP=none
. "$(dirname "$0")/../tests/lib/common.sh"
workdir "$1"
d=$W/all
mkdir -p "$d"
tab=$(printf '\t')
row() { local IFS=$tab; echo "$*"; }

{
	row n 3; row scale 1; row large_bytes 1000000000; row commit abc1234
	row base "/b/e4dump (e4dump 1)"; row load_before "0.50 0.40 0.30"
} >"$d/facts"
# aes2 = 10 GB/s; cat's walls 0.20, 0.125, 0.10 s: median 0.125 s = 8 GB/s = 0.80 (met)
printf 'raw 5000000000\naes1 5000000000\naes2 10000000000\n' >"$d/run-limits"
{
	row cat-large e4dump 1 0.20 0.20 0.10 20480 0        # CPU/wall 1.5
	row cat-large e4dump 2 0.125 0.15 0.05 20480 0       # 1.6
	row cat-large e4dump 3 0.10 0.15 0.02 30720 0        # 1.7 -> median 1.6 (met)
	row cat-large e4dump.base 1 0.20 0.1 0.1 20480 0
	row cat-large e4dump.base 2 0.10 0.1 0.1 20480 0
	row cat-large e4dump.base 3 0.10 0.1 0.1 20480 0     # pairs 1.0, 1.25, 1.0 -> 1.00
	row cat-large debugfs 1 0.50 0.3 0.2 3000 0
	row cat-large debugfs 2 0.50 0.3 0.2 3000 0
	row cat-large debugfs 3 0.50 0.3 0.2 3000 0          # 0.125 / 0.5 = 0.25
	row extract-small e4dump 1 0.60 0.3 0.3 16000 0
	row extract-small e4dump 2 0.50 0.3 0.3 16000 0
	row extract-small e4dump 3 0.70 0.3 0.3 16000 0      # median 0.60
	row extract-small debugfs 1 1.00 0.5 0.5 3000 0
	row extract-small debugfs 2 1.00 0.5 0.5 3000 0
	row extract-small debugfs 3 1.00 0.5 0.5 3000 0      # 0.60 (missed), geo mean sqrt(0.25*0.6)
	row extract-small e4dump.base 1 0.40 0.3 0.3 16000 0
	row extract-small e4dump.base 2 0.50 0.3 0.3 16000 0
	row extract-small e4dump.base 3 0.50 0.3 0.3 16000 0 # pairs 1.5, 1.0, 1.4 -> 1.40: regression
	row mount-cat mount 1 0.40 0.1 0.1 40000 0
	row mount-cat mount 2 0.40 0.1 0.1 40000 0
	row mount-cat mount 3 0.40 0.1 0.1 40000 0
	row mount-cat e4dump 1 0.20 0.1 0.1 20000 0
	row mount-cat e4dump 2 0.20 0.1 0.1 20000 0
	row mount-cat e4dump 3 0.20 0.1 0.1 20000 0          # 2.00
	row mount-cat mount.base 1 0.50 0.1 0.1 40000 0
	row mount-cat mount.base 2 0.40 0.1 0.1 40000 0
	row mount-cat mount.base 3 0.50 0.1 0.1 40000 0      # pairs 0.8, 1.0, 0.8 -> 0.80
} >"$d/run-results.tsv"
{
	for r in 1 2 3; do
		row "cat of /enc/large.bin" raw E4DUMP $r 0.20 20 0 0.3
		row "cat of /enc/large.bin" E01 E4DUMP $r 0.40 70 0 0.6   # 0.50, 70 MiB: missed
		row "cat of /enc/large.bin" qcow2 E4DUMP $r 0.22 30 0 0.3 # 0.91: met
		row verify raw E4DUMP $r 0.10 25 0 0.1
		row verify E01 E4DUMP $r 0.12 40 0 0.1                    # 0.83: met
	done
} >"$d/containers.tsv"
{
	for r in 1 2 3; do
		row journal e4dump $r 0.70 0.6 0.1 35000 0 -
		row journal jls $r 1.00 0.9 0.1 1000000 0 -          # 0.70
		row undelete e4dump $r 4.00 3 1 38000 0 100
		row undelete ext4magic $r 0.70 0.5 0.2 9000 139 4    # crashed: not comparable
		row undelete extundelete $r 8.00 5 1 9000 0 50       # 0.50
	done
} >"$d/journal.tsv"
{
	row --version before 5.000 4.000 6.000 29
	row --version after 12.500 10.000 15.000 17                # 12.5 ms: missed
	row "ls IMAGE" after 6.000 5.000 7.000 17
} >"$d/start.tsv"

python3 "$top/bench/latest.py" "$d" >"$W/latest.md"
rc=$?
check "latest.py exit $rc" '[ $rc = 0 ]'
has() { grep -qF -- "$1" "$W/latest.md"; }
check "cat rate 0.80 of 8 GB/s of 10, met" \
	'has "| 2 | cat of /enc/large.bin, rate / \`openssl speed -evp aes-256-xts -multi 2\` | >= 0.8 | 0.80 (8.00 of 10.00 GB/s; wall 0.125 s, 0.100-0.200) | met |"'
check "cat CPU/wall median 1.60, met" 'has "| 2 | cat: CPU / wall | >= 1.6 | 1.60 | met |"'
check "extract-small 0.60 of debugfs, missed" \
	'has "| 2 | extract of /enc/small / \`debugfs rdump\` of /plain/small | <= 0.5 | 0.60 (0.600 s / 1.000 s) | **MISSED** |"'
check "mount-cat 2.00, after/before 0.80" \
	'has "| 5 | cat through the mount / e4dump cat | no regression | 2.00 (0.400 s / 0.200 s); after / before 0.80 | met |"'
check "geometric mean of 2 workloads 0.39" \
	'has "geometric mean of 2 workloads | - | 0.39 (0.25-0.60) |"'
check "E01 cat 0.50 and 70 MiB: missed" \
	'has "| 1 | cat of /enc/large.bin through the E01: raw time / E01 time (peak RSS) | >= 0.8 (<= 64 MiB) | 0.50 (0.200 s / 0.400 s; 70 MiB) | **MISSED** |"'
check "qcow2 cat 0.91: met" 'has "through the qcow2: raw time / qcow2 time (peak RSS) | >= 0.8 (<= 64 MiB) | 0.91 ("'
check "verify E01 0.83: met" 'has "| 1 | verify through the E01: raw time / E01 time (peak RSS) | >= 0.8 (<= 64 MiB) | 0.83 "'
check "journal 0.70 of jls: met" 'has "| 3 | journal --json / jls (1 GiB journal) | < 1 | 0.70 (0.70 s / 1.00 s) | met |"'
check "ext4magic crashed: not comparable, no verdict" \
	'has "| 3 | undelete / ext4magic -r | < 1 | 5.71 (4.00 s / 0.70 s); not comparable: ext4magic exited 139 with 4 files |  |"'
check "extundelete 0.50: met" 'has "| 3 | undelete / extundelete --restore-all | < 1 | 0.50 (4.00 s / 8.00 s) | met |"'
check "undelete RSS 37 MiB: met" 'has "| 3 | peak RSS of undelete | <= 256 MiB | 37 MiB | met |"'
check "--version 12.5 ms: missed" \
	'has "| 4 | e4dump --version | < 10 ms | 12.50 ms (p10-p90 10.00-15.00); 17 shared objects; before 5.00 ms, 29 objects | **MISSED** |"'
check "regression of extract-small found (1.40)" \
	'has "| extract-small | e4dump | 0.600 | 0.500 | 1.40 | **MISSED** |"'
check "cat-large no regression (1.00)" 'has "| cat-large | e4dump | 0.125 | 0.100 | 1.00 | met |"'
check "items in order, context rows last" \
	'[ "$(grep -o "^| [-0-9] |" "$W/latest.md" | tr -d "| " | tr -d "\n")" = "11122233333445--" ]'

# --readme: the block between the marks is replaced, the rest kept
printf 'before\n<!-- latest:begin -->\nold table\n<!-- latest:end -->\nafter\n' >"$W/README.md"
python3 "$top/bench/latest.py" --readme "$W/README.md" "$d"
check "README: old block gone, rest kept" \
	'! grep -q "old table" "$W/README.md" && [ "$(head -n1 "$W/README.md")" = before ] && [ "$(tail -n1 "$W/README.md")" = after ]'
check "README: the table inside the marks" \
	'sed -n "/latest:begin/,/latest:end/p" "$W/README.md" | grep -q "| 3 | journal --json / jls"'
printf 'no marks\n' >"$W/nomarks.md"
python3 "$top/bench/latest.py" --readme "$W/nomarks.md" "$d" 2>/dev/null
rc=$?
check "README without marks: refused ($rc)" '[ $rc != 0 ] && [ "$(cat "$W/nomarks.md")" = "no marks" ]'
finish
