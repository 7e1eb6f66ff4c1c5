#!/bin/sh
# Runs a test program under Oclgrind, the OpenCL device simulator, and fails
# when Oclgrind reports anything. Oclgrind only reports problems, it never
# fails the program, so its log is kept and any report in it fails the test.
#
#   tests/oclgrind.sh [OCLGRIND OPTIONS] -- PROGRAM [ARGS...]
#
# The options choose the checks besides out-of-bounds accesses, which are
# always on: --data-races, --uninitialized, --check-api. The device reports
# 4 compute units, so that grid-sized kernels run several work-groups,
# unless the options say otherwise (--compute-units N).
# Oclgrind stops reporting after --max-errors reports (1000 by default), so
# the limit is lifted: a test that accepts some reports must see them all.
#
# Exit status: the program's, 1 if Oclgrind reported anything, 77 (skipped)
# if Oclgrind is not installed.
if ! command -v oclgrind >/dev/null 2>&1; then
    echo "SKIP: oclgrind is not installed (Debian: apt-get install oclgrind)"
    exit 77
fi
options=
while [ $# -gt 0 ] && [ "$1" != -- ]; do
    options="$options $1"
    shift
done
if [ $# -lt 2 ]; then
    echo "usage: $0 [OCLGRIND OPTIONS] -- PROGRAM [ARGS...]" >&2
    exit 2
fi
shift
log=$(mktemp "${TMPDIR:-/tmp}/clreduce-oclgrind.XXXXXX") || exit 1
trap 'rm -f "$log"' EXIT
# shellcheck disable=SC2086 # the options are words
oclgrind --compute-units 4 $options --max-errors 1000000 --log "$log" "$@"
status=$?
if [ -s "$log" ]; then
    echo "Oclgrind reported problems:" >&2
    head -c 65536 "$log" >&2
    case $status in 0 | 77) status=1 ;; esac
fi
exit "$status"
