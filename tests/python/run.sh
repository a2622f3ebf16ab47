#!/bin/bash
# Run a test of the Python module with the module of this build.
# usage: run.sh PYTHON PYTHONPATH SANITIZE(ON/OFF/"") SCRIPT ARGS...
# In a build with E4DUMP_SANITIZE the module carries ASan and UBSan, which
# must be the first libraries of the process: the interpreter (not built
# with them) runs with their runtimes preloaded; leak checking is off
# (CPython keeps its own objects to the end by design), any other report
# ends the run.
set -u
py=$1 pp=$2 san=${3:-OFF}
shift 3
export PYTHONPATH=$pp${PYTHONPATH:+:$PYTHONPATH}
export PYTHONDONTWRITEBYTECODE=1
case $san in
ON|on|1|TRUE|true|YES|yes)
	asan=$(gcc -print-file-name=libasan.so)
	ubsan=$(gcc -print-file-name=libubsan.so)
	if [ ! -e "$asan" ] || [ ! -e "$ubsan" ]; then
		echo "run.sh: SKIP: the sanitizers' runtimes (libasan.so, libubsan.so) are not found" >&2
		exit 77
	fi
	export LD_PRELOAD="$asan:$ubsan"
	# ours last: the last of a flag given twice wins (tests/run-all.sh
	# sets detect_leaks=1 for the whole ASan suite)
	export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}detect_leaks=0:abort_on_error=1
	export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
	export E4DUMP_PY_SANITIZE=1
	;;
esac
exec "$py" "$@"
