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
# BUILD_DIR-asan), CLREDUCE_DEVICE for bench, CLREDUCE_FULL_TESTS=1 for the
# heavy suites too (fault injection on Intel's runtime). The benchmark runs
# in the directory run.sh was called from, so that --csv and --json paths
# are relative to it.
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
    packages+=(libcmocka-dev valgrind oclgrind python3-pip make cmake python3-numpy
               python3-pyopencl python3-pytest python3-setuptools python3-venv
               libopenmpi-dev openmpi-bin)
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
    options=(--buildtype=release -Dtests=disabled)
else
    options=(--buildtype=debugoptimized -Dwerror=true -Db_ndebug=false -Dtests=enabled)
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
# Configures only when an option differs: configuring marks the build out of
# date, and ninja would then run the whole configuration again. An existing
# directory is set up again (`meson setup --reconfigure`, here and below)
# rather than changed with `meson configure`, which rejects values of an
# option whose type changed since the directory was made.
if [ ! -f "$build/build.ninja" ]; then
    meson setup "$build" "${options[@]}"
elif ! options_match "$build" "${options[@]}"; then
    meson setup --reconfigure "$build" "${options[@]}" >/dev/null
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
# What failed, by name, repeated at the end: a log's tail is often all that
# is kept of a run, and the tally alone does not say where to look.
failed_names=()
fail() {
    failed_names+=("$1")
    failed=$((failed + 1))
}
count_results() {
    # meson test's summary lines: "Ok: N", "Fail: N", "Skipped: N", ...
    local file=$1 n
    n=$(awk '/^Ok:/ {print $2}' "$file" | tail -1); passed=$((passed + ${n:-0}))
    n=$(awk '/^Expected Fail:/ {print $3}' "$file" | tail -1); passed=$((passed + ${n:-0}))
    n=$(awk '/^Fail:/ {print $2}' "$file" | tail -1); failed=$((failed + ${n:-0}))
    n=$(awk '/^Unexpected Pass:/ {print $3}' "$file" | tail -1); failed=$((failed + ${n:-0}))
    n=$(awk '/^Timeout:/ {print $2}' "$file" | tail -1); failed=$((failed + ${n:-0}))
    n=$(awk '/^Skipped:/ {print $2}' "$file" | tail -1); skipped=$((skipped + ${n:-0}))
    # meson's result lines: " 3/23 clreduce:device / unit.scan   FAIL   12.3s ..."
    local line
    while IFS= read -r line; do
        failed_names+=("$2: $line")
    done < <(grep -E '^ *[0-9]+/[0-9]+ .* (FAIL|TIMEOUT|UNEXPECTEDPASS|ERROR) ' "$file" |
             sed -E 's/^ +//; s/ {2,}/ /g')
    # and cmocka's, which name the test function: "[  FAILED  ] test_scan".
    while IFS= read -r line; do
        failed_names+=("$2: $line")
    done < <(grep -E '^\[  (FAILED|ERROR)   ?\] test_' "$file" | sort -u)
}
run_suite() {
    local dir=$1 title=$2
    shift 2
    local out
    out=$(mktemp)
    log "$title"
    # cmocka's own summary of every test program is in the verbose output.
    meson test -C "$dir" --print-errorlogs --verbose "$@" 2>&1 | tee "$out" || true
    count_results "$out" "$title"
    rm -f "$out"
}

run_suite "$build" "host suite" --suite host
platforms=()
# The listing is read once, then searched: `clinfo -l | grep -q` fails under
# pipefail whenever grep exits before clinfo has written everything (PoCL
# is listed first), which left PoCL's suites out at random.
listing=$(clinfo -l 2>/dev/null || true)
grep -q 'Portable Computing Language' <<<"$listing" && platforms+=(pocl)
# Selected by its platform's name: "intel" alone would also match PoCL's
# device name on an Intel processor.
grep -q 'Intel(R) OpenCL' <<<"$listing" && platforms+=('Intel(R) OpenCL')
[ ${#platforms[@]} -gt 0 ] || platforms+=("")
for p in "${platforms[@]}"; do
    # Not unit.threads on Intel's runtime: once in about twenty runs on a
    # loaded 2-core machine two of its threads stayed asleep for good in
    # blocking reads inside the runtime's TBB scheduler, with no clreduce
    # lock held (docs/RELIABILITY.md). It runs on PoCL, and under
    # ThreadSanitizer there.
    choice=()
    [ "$p" = 'Intel(R) OpenCL' ] && choice=(--no-suite threads)
    # The device tests may run side by side (tests/meson.build): on PoCL,
    # where building programs on one core each is most of their time, as
    # many as there are cores; on Intel's runtime, whose kernels and
    # compiler take every core already, one at a time.
    [ "$p" = 'Intel(R) OpenCL' ] && choice+=(--num-processes 1)
    # unit.faults exercises the host code's failure paths, the same on
    # every runtime; on Intel's it takes 5 to 13 minutes of two cores, so it
    # runs there only when CLREDUCE_FULL_TESTS=1. So do the rows, segments,
    # operators and user-operator suites (suite 'extended'), for the CI's
    # time: they always run on PoCL.
    [ "$p" = 'Intel(R) OpenCL' ] && [ "${CLREDUCE_FULL_TESTS:-0}" != 1 ] &&
        choice+=(--no-suite faults --no-suite extended)
    # unit.multi (suite 'heavy'): only with CLREDUCE_FULL_TESTS=1, anywhere.
    [ "${CLREDUCE_FULL_TESTS:-0}" != 1 ] && choice+=(--no-suite heavy)
    # MALLOC_PERTURB_, which meson test sets at random, makes Intel's
    # runtime compiler (2026.2) crash inside its own LLVM passes on the
    # segments kernels (docs/RELIABILITY.md): 0 turns it off there.
    if [ "$p" = 'Intel(R) OpenCL' ]; then
        MALLOC_PERTURB_=0 CLREDUCE_DEVICE=$p run_suite "$build" "device suite on $p" \
            --suite device "${choice[@]}"
    else
        CLREDUCE_DEVICE=$p run_suite "$build" "device suite on ${p:-the default device}" \
            --suite device "${choice[@]}"
    fi
done
# unit.cache compiles programs from source again and again, which under
# Valgrind took 8 minutes of two cores: with CLREDUCE_FULL_TESTS=1 only (it
# runs under ASan+UBSan every time).
if command -v valgrind >/dev/null; then
    valgrind_tests=(unit.errors)
    [ "${CLREDUCE_FULL_TESTS:-0}" = 1 ] && valgrind_tests+=(unit.cache)
    # The same tests once without Valgrind first, uncounted (the device
    # suite counted them): PoCL leaks in LLVM for every kernel it compiles
    # that is not in its kernel cache (tests/valgrind.supp), and the device
    # suite does not always leave these tests' kernels there (once,
    # unit.errors compiled two programs under Valgrind that PoCL's cache
    # lacked; its tests share clreduce's disk cache, from which the device
    # suite may load a program another test built).
    CLREDUCE_DEVICE=${platforms[0]} meson test -C "$build" "${valgrind_tests[@]}" >/dev/null ||
        true
    CLREDUCE_DEVICE=${platforms[0]} run_suite "$build" \
        "valgrind memcheck on ${platforms[0]:-the default device}" \
        --setup valgrind "${valgrind_tests[@]}"
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
asan_options=(--buildtype=debugoptimized -Db_ndebug=false -Dwerror=false -Dbench=disabled
              -Dexamples=disabled -Db_sanitize=address,undefined -Db_lundef=false)
asan_device=${platforms[0]}
[[ " ${platforms[*]} " == *" pocl "* ]] && asan_device=pocl
if [ -f "$asan_build/build.ninja" ]; then
    meson setup --reconfigure "$asan_build" "${asan_options[@]}" >/dev/null
else
    meson setup "$asan_build" "${asan_options[@]}" >/dev/null
fi
if ninja -C "$asan_build" >/dev/null; then
    # The rows, segments, operators and user-operator suites (suite
    # 'extended') take minutes each under the sanitizers: with
    # CLREDUCE_FULL_TESTS=1 only.
    # unit.mpi (suite 'mpi') is left out: the sanitizers would report
    # OpenMPI's own allocations.
    asan_skip=(--no-suite mpi)
    [ "${CLREDUCE_FULL_TESTS:-0}" != 1 ] && asan_skip+=(--no-suite extended)
    # Only PoCL's ICD is loaded there, where it is the device: unit.parts
    # would take a second platform's device, Intel's, whose compiler runs
    # many times slower under the sanitizers.
    pocl_icd=/etc/OpenCL/vendors/pocl.icd
    [ "$asan_device" = pocl ] && [ -f $pocl_icd ] && export OCL_ICD_VENDORS=$pocl_icd
    CLREDUCE_DEVICE=$asan_device run_suite "$asan_build" \
        "ASan+UBSan: host and device suites on ${asan_device:-the default device}" \
        --setup asan --suite host --suite device "${asan_skip[@]}"
    unset OCL_ICD_VENDORS
else
    log "the sanitizer build failed"
    fail "the sanitizer build"
fi

# ThreadSanitizer on the multi-threaded test, on PoCL (about 10 s with its
# build): a build directory of its own, since every object changes.
if [[ " ${platforms[*]} " == *" pocl "* ]]; then
    tsan_build=$build-tsan
    tsan_options=("${options[@]}" -Db_sanitize=thread -Db_lundef=false -Dbench=disabled -Dexamples=disabled)
    if [ -f "$tsan_build/build.ninja" ]; then
        meson setup --reconfigure "$tsan_build" "${tsan_options[@]}" >/dev/null
    else
        meson setup "$tsan_build" "${tsan_options[@]}" >/dev/null
    fi
    if ninja -C "$tsan_build" >/dev/null; then
        CLREDUCE_DEVICE=pocl run_suite "$tsan_build" "ThreadSanitizer on pocl" --setup tsan unit.threads
    else
        log "the ThreadSanitizer build failed"
        fail "the ThreadSanitizer build"
    fi
fi

# The installed library must be usable through pkg-config, CMake and
# Python: install into a staging directory, then build and run programs
# against it there, on PoCL where it is installed.
log "install and pkg-config check"
stage=$(mktemp -d)
consumer_device=${platforms[0]}
[[ " ${platforms[*]} " == *" pocl "* ]] && consumer_device=pocl
# Counts a run of tests/consumers/main.c, whose exit status 77 says that
# there is no OpenCL device.
run_consumer() {
    local rc=0
    CLREDUCE_DEVICE=$consumer_device "$1" || rc=$?
    case $rc in
    0) passed=$((passed + 1)) ;;
    77) skipped=$((skipped + 1)) ;;
    *) fail "$1 exited with $rc" ;;
    esac
}
# Installs python/ into a virtual environment that sees Debian's numpy,
# pyopencl and pytest, offline (the system's setuptools builds it), and runs
# its tests against the staged library; their results join the tally.
python_check() {
    local py=/usr/bin/python3 venv=$stage/venv out rc=0 summary failures
    [ -x "$py" ] || py=python3
    if ! "$py" -c 'import numpy, pytest, setuptools' 2>/dev/null; then
        log "skipped: $py lacks numpy, pytest or setuptools"
        skipped=$((skipped + 1))
        return
    fi
    cp -r python "$stage/python-src" # pip builds in the source directory
    if ! "$py" -m venv --without-pip --system-site-packages "$venv" ||
        ! "$venv/bin/python" -m pip install --no-build-isolation --no-deps --no-index \
            --disable-pip-version-check --quiet "$stage/python-src"; then
        log "the Python package did not install"
        fail "the Python package's installation"
        return
    fi
    out=$(mktemp)
    # From $stage, so that the package imported is the installed one. The
    # slowest tests are listed, for the CI's time (9 minutes of two cores
    # in one run).
    (cd "$stage" && CLREDUCE_LIBRARY=$libdir/libclreduce.so \
        CLREDUCE_DEVICE=$consumer_device CLREDUCE_CACHE_DIR=$build/python-clreduce-cache \
        PYTHONDONTWRITEBYTECODE=1 \
        "$venv/bin/python" -m pytest -p no:cacheprovider -q -rfEs --durations=15 \
        "$root/python/tests") 2>&1 |
        tee "$out" || rc=$?
    # pytest's last line: "N failed, N passed, N skipped, N errors in 1.23s".
    summary=$(grep -E ' in [0-9.]+s' "$out" | tail -1 || true)
    local line
    while IFS= read -r line; do
        failed_names+=("Python: $line")
    done < <(grep -E '^(FAILED|ERROR) ' "$out" || true)
    rm -f "$out"
    count_of() {
        awk -v want="^($1),?\$" '{ for (i = 2; i <= NF; i++) if ($i ~ want) s += $(i - 1) }
                                 END { print s + 0 }' <<<"$summary"
    }
    passed=$((passed + $(count_of 'passed|xfailed')))
    skipped=$((skipped + $(count_of 'skipped')))
    failures=$(count_of 'failed|errors?|xpassed')
    # Any other failure (5: no test collected; an internal or usage error)
    # counts once.
    if [ "$rc" -ne 0 ] && [ "$failures" -eq 0 ]; then
        failures=1
        failed_names+=("Python: pytest exited with $rc")
    fi
    failed=$((failed + failures))
}
if meson install -C "$build" --destdir "$stage" --quiet >/dev/null; then
    pc=$(find "$stage" -name clreduce.pc -print -quit)
    libdir=$(dirname "$(dirname "$pc")")
    PKG_CONFIG_PATH=$(dirname "$pc")
    export PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR=$stage
    if make -s -C examples -B reduce_array scan_offsets \
            CFLAGS="-O2 -Wall -Wextra -Werror -Wl,-rpath,$libdir" &&
        ./examples/reduce_array 100000 && ./examples/scan_offsets 100000; then
        passed=$((passed + 1))
    else
        fail "the examples against the installed library"
    fi
    # shellcheck disable=SC2046 # pkg-config's flags are words
    if cc -O2 -Wall -Wextra -Werror tests/consumers/main.c -o "$stage/consumer-pkg-config" \
        $(pkg-config --cflags --libs clreduce) -Wl,-rpath,"$libdir"; then
        run_consumer "$stage/consumer-pkg-config"
    else
        fail "the pkg-config consumer's build"
    fi
    # The staged prefix: the installed one under the sysroot. (Without it
    # the CMake check fails below, rather than set -e ending the job here.)
    prefix=$(pkg-config --variable=prefix clreduce || true)
    unset PKG_CONFIG_PATH PKG_CONFIG_SYSROOT_DIR

    log "install check: CMake's find_package"
    if cmake -S tests/consumers/cmake -B "$stage/consumer-cmake" -DCMAKE_PREFIX_PATH="$prefix" \
            -DCMAKE_C_FLAGS="-O2 -Wall -Wextra -Werror" >/dev/null &&
        cmake --build "$stage/consumer-cmake" >/dev/null; then
        run_consumer "$stage/consumer-cmake/clreduce-consumer"
    else
        fail "the CMake consumer's build"
    fi

    log "install check: the Python package's tests on ${consumer_device:-the default device}"
    python_check
else
    fail "meson install"
fi
rm -f examples/reduce_array examples/scan_offsets
rm -rf "$stage"

for name in "${failed_names[@]}"; do
    echo "failed: $name"
done
echo "tests: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ]
