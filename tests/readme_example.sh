#!/bin/sh
# Compiles the first C block of README.md against the header and links it
# with the library, so that the front page's example cannot rot.
#   readme_example.sh README.md OUTDIR CC [compiler and linker flags...]
set -eu
readme=$1 out=$2 cc=$3
shift 3
src=$out/readme_example.c
awk '/^```c$/ {inside = 1; next} /^```$/ && inside {exit} inside' "$readme" >"$src"
[ -s "$src" ] || { echo "no C block in $readme" >&2; exit 1; }
$cc -std=c11 -Wall -Wextra -Werror "$src" -o "$out/readme_example" "$@"
echo "README.md's example compiles and links"
