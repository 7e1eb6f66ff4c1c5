#!/bin/sh
# Checks that fault_shim.c defines every OpenCL function called in the
# library's sources, so that unit.faults can fail each of them. A definition
# starts a line: written out ("cl_int clFlush("), or made by one of the
# shim's macros, which names the function first ("INFO_FUNCTION(clGetEventInfo,")
# or after its pair ("REFERENCE_FUNCTIONS(clRetainEvent, clReleaseEvent,").
# Usage: check_fault_shim.sh SRC_DIR FAULT_SHIM_C
set -eu
src=$1
shim=$2
missing=0
for f in $(grep -ohE '\bcl[A-Z][A-Za-z]*\(' "$src"/*.c | tr -d '(' | sort -u); do
    if ! grep -qE "^([a-z_]+ \**|[A-Z_]+\((cl[A-Za-z]+, )?)$f[(,]" "$shim"; then
        echo "fault_shim.c does not define $f, which the library calls"
        missing=1
    fi
done
[ "$missing" -eq 0 ] && echo "fault_shim.c defines every OpenCL function the library calls"
exit "$missing"
