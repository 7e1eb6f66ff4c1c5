#!/usr/bin/env bash
# Sets up a Debian/Ubuntu machine for clreduce, builds it, and runs one job:
#
#   tools/run.sh bench [clreduce-bench options]   the bandwidth benchmark on
#                                                 the default device
#   tools/run.sh test                             every test suite on every
#                                                 CPU OpenCL runtime found,
#                                                 Oclgrind's kernel checks,
#                                                 and ASan+UBSan on PoCL
#
# Packages come from apt (as root, when something is missing). The test job
# also installs Intel's CPU OpenCL runtime from PyPI, when it can, because it
# has the sub-groups that PoCL lacks; CLREDUCE_NO_INTEL_RUNTIME=1 skips it.
# Environment: BUILD_DIR (default build-<job>; the test job also builds
# BUILD_DIR-asan), CLREDUCE_DEVICE for bench. The benchmark runs in the
# directory run.sh was called from, so that --csv and --json paths are
# relative to it.
set -euo pipefail

job=${1:-}
[ $# -gt 0 ] && shift
case "$job" in
bench | test) ;;
*)
    echo "usage: tools/run.sh bench|test [options]" >&2
    exit 2
    ;;
esac

caller=$PWD
cd "$(dirname "$0")/.."
root=$PWD
build=${BUILD_DIR:-$root/build-$job}
case $build in /*) ;; *) build=$root/$build ;; esac

log() { printf '== %s\n' "$*"; }

# ---- packages --------------------------------------------------------------
packages=(meson ninja-build pkg-config gcc ocl-icd-opencl-dev opencl-c-headers
          pocl-opencl-icd clinfo python3)
if [ "$job" = test ]; then
    packages+=(libcmocka-dev valgrind oclgrind python3-pip make)
fi
missing=()
for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
# A machine without apt (or not root) must bring the tools itself.
if [ ${#missing[@]} -gt 0 ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
        log "installing ${missing[*]}"
        export DEBIAN_FRONTEND=noninteractive
        apt-get update -qq
        apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
    else
        log "not installing ${missing[*]} (needs root and apt); using what is on PATH"
    fi
fi

# ---- Intel's CPU runtime (test job) -----------------------------------------
install_intel_runtime() {
    local prefix=/opt/intel-opencl-cpu lib
    lib=$(find "$prefix" -name libintelocl.so -print -quit 2>/dev/null || true)
    if [ -z "$lib" ]; then
        log "installing Intel's CPU OpenCL runtime from PyPI into $prefix"
        # Debian's own pip: --prefix is allowed on an externally managed Python.
        # intel-cmplr-lib-rt holds math libraries the runtime needs but does
        # not declare.
        /usr/bin/python3 -m pip install --no-cache-dir --disable-pip-version-check -q \
            --prefix "$prefix" intel-opencl-rt==2026.2.0 intel-cmplr-lib-rt==2026.2.0 ||
            return 1
        lib=$(find "$prefix" -name libintelocl.so -print -quit)
    fi
    [ -n "$lib" ] || return 1
    mkdir -p /etc/OpenCL/vendors
    echo "$lib" >/etc/OpenCL/vendors/intel-cpu-runtime.icd
}
if [ "$job" = test ] && [ "${CLREDUCE_NO_INTEL_RUNTIME:-0}" != 1 ] && [ "$(id -u)" = 0 ]; then
    install_intel_runtime || log "WARNING: Intel's CPU runtime could not be installed: sub-group variants run on no CPU device"
fi

command -v clinfo >/dev/null && clinfo -l || true

# ---- build -----------------------------------------------------------------
if [ "$job" = bench ]; then
    options=(--buildtype=release -Dtests=false)
else
    options=(--buildtype=debugoptimized -Dwerror=true -Db_ndebug=false)
fi
# Whether the build directory $1 already has every option that follows
# ("--buildtype=X" or "-Dname=value"), as meson introspect reports them.
options_match() {
    local dir=$1
    shift
    meson introspect "$dir" --buildoptions 2>/dev/null | python3 -c '
import json, sys
have = {}
for o in json.load(sys.stdin):
    v = o["value"]
    if isinstance(v, bool):
        v = "true" if v else "false"
    elif isinstance(v, list):
        v = ",".join(str(x) for x in v)
    have[o["name"]] = str(v)
for arg in sys.argv[1:]:
    name, _, value = arg.lstrip("-").partition("=")
    if name.startswith("D"):
        name = name[1:]
    if have.get(name) != value:
        sys.exit(1)
' "$@"
}
# Configures only when an option differs: meson configure marks the build
# out of date, and ninja would then run the whole configuration again.
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "${options[@]}"
elif ! options_match "$build" "${options[@]}"; then
    meson configure "$build" "${options[@]}" >/dev/null
fi
ninja -C "$build"

# ---- bench -----------------------------------------------------------------
if [ "$job" = bench ]; then
    cd "$caller"
    exec "$build/bench/clreduce-bench" "$@"
fi

# ---- test ------------------------------------------------------------------
passed=0
failed=0
skipped=0
count_results() {
    # meson test's summary lines: "Ok: N", "Fail: N", "Skipped: N", ...
    local file=$1 n
    n=$(awk '/^Ok:/ {print $2}' "$file" | tail -1); passed=$((passed + ${n:-0}))
    n=$(awk '/^Expected Fail:/ {print $3}' "$file" | tail -1); passed=$((passed + ${n:-0}))
    n=$(awk '/^Fail:/ {print $2}' "$file" | tail -1); failed=$((failed + ${n:-0}))
    n=$(awk '/^Unexpected Pass:/ {print $3}' "$file" | tail -1); failed=$((failed + ${n:-0}))
    n=$(awk '/^Timeout:/ {print $2}' "$file" | tail -1); failed=$((failed + ${n:-0}))
    n=$(awk '/^Skipped:/ {print $2}' "$file" | tail -1); skipped=$((skipped + ${n:-0}))
}
run_suite() {
    local dir=$1 title=$2
    shift 2
    local out
    out=$(mktemp)
    log "$title"
    # cmocka's own summary of every test program is in the verbose output.
    meson test -C "$dir" --print-errorlogs --verbose "$@" 2>&1 | tee "$out" || true
    count_results "$out"
    rm -f "$out"
}

run_suite "$build" "host suite" --suite host
platforms=()
clinfo -l 2>/dev/null | grep -q 'Portable Computing Language' && platforms+=(pocl)
clinfo -l 2>/dev/null | grep -q 'Intel(R) OpenCL' && platforms+=(intel)
[ ${#platforms[@]} -gt 0 ] || platforms+=("")
for p in "${platforms[@]}"; do
    # Not unit.threads on Intel's runtime: once in about twenty runs on a
    # loaded 2-core machine two of its threads stayed asleep for good in
    # blocking reads inside the runtime's TBB scheduler, with no clreduce
    # lock held (docs/RELIABILITY.md). It runs on PoCL, and under
    # ThreadSanitizer there.
    skip=()
    [ "$p" = intel ] && skip=(--no-suite threads)
    CLREDUCE_DEVICE=$p run_suite "$build" "device suite on ${p:-the default device}" \
        --suite device "${skip[@]}"
done
if command -v valgrind >/dev/null; then
    CLREDUCE_DEVICE=${platforms[0]} run_suite "$build" \
        "valgrind memcheck on ${platforms[0]:-the default device}" \
        --setup valgrind unit.errors unit.cache
fi
# Every kernel in Oclgrind's simulator, with its checks (skipped without it).
run_suite "$build" "Oclgrind checks of every kernel" --suite oclgrind

# The host and device suites again, built with AddressSanitizer and
# UndefinedBehaviorSanitizer (leaks included) in a second build directory,
# on PoCL: any report fails the test (tests/meson.build, tests/lsan.supp).
# Not on Intel's runtime, only for time: with the whole stacks the leak
# suppressions need, its in-process compiler runs many times slower.
# Warnings are not errors there: GCC warns of paths that only the
# sanitizers' checks add.
asan_build=$build-asan
asan_options=(--buildtype=debugoptimized -Db_ndebug=false -Dwerror=false -Dbench=false
              -Dexamples=false -Db_sanitize=address,undefined -Db_lundef=false)
asan_device=${platforms[0]}
[[ " ${platforms[*]} " == *" pocl "* ]] && asan_device=pocl
if [ -f "$asan_build/build.ninja" ]; then
    meson configure "$asan_build" "${asan_options[@]}" >/dev/null
else
    meson setup "$asan_build" "${asan_options[@]}" >/dev/null
fi
if ninja -C "$asan_build" >/dev/null; then
    CLREDUCE_DEVICE=$asan_device run_suite "$asan_build" \
        "ASan+UBSan: host and device suites on ${asan_device:-the default device}" \
        --setup asan --suite host --suite device
else
    log "the sanitizer build failed"
    failed=$((failed + 1))
fi

# ThreadSanitizer on the multi-threaded test, on PoCL (about 10 s with its
# build): a build directory of its own, since every object changes.
if [[ " ${platforms[*]} " == *" pocl "* ]]; then
    tsan_build=$build-tsan
    tsan_options=("${options[@]}" -Db_sanitize=thread -Db_lundef=false -Dbench=false -Dexamples=false)
    if [ -f "$tsan_build/build.ninja" ]; then
        meson configure "$tsan_build" "${tsan_options[@]}" >/dev/null
    else
        meson setup "$tsan_build" "${tsan_options[@]}" >/dev/null
    fi
    if ninja -C "$tsan_build" >/dev/null; then
        CLREDUCE_DEVICE=pocl run_suite "$tsan_build" "ThreadSanitizer on pocl" --setup tsan unit.threads
    else
        log "the ThreadSanitizer build failed"
        failed=$((failed + 1))
    fi
fi

# The installed library must be usable through pkg-config: install into a
# staging directory and build the example against it.
log "install and pkg-config check"
stage=$(mktemp -d)
if meson install -C "$build" --destdir "$stage" --quiet >/dev/null; then
    pc=$(find "$stage" -name clreduce.pc -print -quit)
    libdir=$(dirname "$(dirname "$pc")")
    if PKG_CONFIG_PATH=$(dirname "$pc") PKG_CONFIG_SYSROOT_DIR=$stage \
        make -s -C examples -B reduce_array scan_offsets \
            CFLAGS="-O2 -Wall -Wextra -Werror -Wl,-rpath,$libdir" &&
        ./examples/reduce_array 100000 && ./examples/scan_offsets 100000; then
        passed=$((passed + 1))
    else
        failed=$((failed + 1))
    fi
else
    failed=$((failed + 1))
fi
rm -f examples/reduce_array examples/scan_offsets
rm -rf "$stage"

echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
