#!/bin/bash
# unlock-kept's memory and work are bounded: on an export of many locked
# directories (tests/cli/unlock_kept_many.py: 1,000 directories of 100
# stored names each, made from the sample's export in seconds, no image),
# with eight wrong keys beside the right one, its peak resident set (GNU
# time) stays under 64 MiB: one directory's entries at a time, each key's
# trial of the policy ended after 256 names (c2c72ac's successor held every
# locked directory's names for the whole run: about 175 MiB here).  Every
# directory stays kept (its names do not decrypt) and is an export again.
# And its work: a locked directory of 8,000 entries whose stored names all
# decrypt to one name (unlock_kept_many.py dups) is made unique in 8,000
# tries, not 8,000^2/2, as extract does: the run's user CPU time stays
# under 1.5 s (measured: 0.07 s, 0.26 s under ASan; with the per-name k
# removed, 4.96 s).  User time only: the system time of 8,000 creates in
# one directory depends on the disk and on what else runs (a CI run under
# ASan beside other tests took over 2 s of it), the tries are all user time.
# usage: unlock_kept_bounds.sh E4DUMP WORKDIR
set -u
. "$(dirname "$0")/../lib/common.sh"
E4DUMP=$1
workdir "$2"
sample s.img
LIMIT_MB=64
"$E4DUMP" extract --keep-locked "$W/s.img" -o "$W/kl" >/dev/null 2>&1
[ -f "$W/kl/%e4dump-export.json" ] || give_up "extract --keep-locked made no export"
/usr/bin/python3 "$top/tests/cli/unlock_kept_many.py" "$W/kl" "$W/many" 1000 100 ||
	give_up "unlock_kept_many.py"
keys=()
for i in 1 2 3 4 5 6 7 8; do
	head -c 64 /dev/urandom >"$W/wrong$i.key"
	keys+=(--key-file "$W/wrong$i.key")
done
peak_rss "$W/u.out" -- "$E4DUMP" unlock-kept "${keys[@]}" --key-file "$K" "$W/many" -o "$W/u"
check "exit $RC, want 1 (every directory kept)" '[ "$RC" = 1 ]'
check "sanitizer report" '! sanitizer_report "$W/u.out.err"'
check "the run said so: $(tail -1 "$W/u.out.err")" \
	'grep -q "unlock-kept: 1000 directories, .* 0 skipped" "$W/u.out.err"'
check "each directory kept, an export again: $(ls "$W/u" | wc -l) entries" \
	'[ "$(find "$W/u" -name "%e4dump-dir.json" | wc -l)" = 1000 ]'
if sanitized "$E4DUMP"; then
	echo "peak RSS not judged under a sanitizer (${RSS_MB} MiB)"
else
	check "peak RSS ${RSS_MB} MiB, want under ${LIMIT_MB} MiB" '[ "$RSS_MB" -lt "$LIMIT_MB" ]'
fi
/usr/bin/python3 "$top/tests/cli/unlock_kept_many.py" "$W/kl" "$W/dups" dups 8000 ||
	give_up "unlock_kept_many.py dups"
USER_LIMIT=1.5
(ulimit -t 60; exec /usr/bin/time -f "%x %U" -o "$W/ud.time" \
	"$E4DUMP" unlock-kept --key-file "$K" "$W/dups" -o "$W/ud") >/dev/null 2>"$W/ud.err"
read -r rc user < <(tail -1 "$W/ud.time")
check "8,000 names of one name: exit ${rc:-killed}: $(tail -1 "$W/ud.err")" '[ "$rc" = 0 ]'
check "8,000 names of one name: ${user:-?} s of user CPU, want under $USER_LIMIT s" \
	'awk -v u="${user:-99}" -v l="$USER_LIMIT" "BEGIN { exit !(u < l) }"'
check "sanitizer report" '! sanitizer_report "$W/ud.err"'
check "8,000 distinct names made: $(ls "$W/ud/d" 2>/dev/null | wc -l)" \
	'[ "$(ls "$W/ud/d" | grep -vc "^%e4dump")" = 8000 ]'
finish
