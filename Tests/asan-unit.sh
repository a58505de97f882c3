#!/usr/bin/env bash
# Runs the unit suites once under AddressSanitizer (with LeakSanitizer):
#
#   Tests/asan-unit.sh [--scratch PATH] [--suites "LatchkeyCryptoTests LatchkeyJOSETests ..."] [--build-only | --skip-build]
#
# --build-only builds and stops; --skip-build runs the suites from an earlier build. Tests/run-all.sh
# builds in the background beside waiting-bound steps and runs the suites later on a quiet machine.
# Only the test product is built (LatchkeyPackageTests and what it depends on): the fuzz targets,
# the benchmark and the Foundation example are executables no suite runs, compiled and linked
# once already by the normal build.
#
# Default suites: LatchkeyCryptoTests LatchkeyJOSETests LatchkeyHTTPTests LatchkeyTests LatchkeyStoreTests LatchkeyQRTests LatchkeyTestingTests
# (the process-level CLITests/IntegrationTests are not unit suites: they need the IdP and the built binary).
# Build dir: <root>/.build-asan (env LATCHKEY_ASAN_SCRATCH or --scratch), kept apart from the normal build
# because every module is recompiled with -sanitize=address.
#
# Each suite runs in its own `swift test` process, one after the other: run side by side under ASan on a
# loaded 2-core machine, the HTTP suites' deadline checks (e.g. "a silent server times out in < 5 s")
# failed from CPU starvation alone; the per-suite durations are printed so a subset can be chosen.
#
# Leaks: LeakSanitizer stays on, with two suppressions for leaks in the toolchain's libraries, not ours:
#  - libXCTest.so: XCTest's runner leaks a few objects at exit (XCTMainMisc / XCTestSuiteRun, ~368 bytes),
#    reported after the (empty) XCTest pass of every `swift test`.
#  - readBytesFromFile: swift-foundation 6.3.1 leaks its 4096-byte read buffer on every
#    FileManager.contents(atPath:) / Data(contentsOf:) of an EMPTY file (reproduced in a 5-line program).
#    Only test fixtures read files that way; Sources/ reads files with POSIX calls.
# Any other leak, and every ASan error, fails the run.
#
# Exit status: 0 when the tests passed and the log holds no sanitizer report; 1 otherwise.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="${LATCHKEY_ASAN_SCRATCH:-$root/.build-asan}"
suites="LatchkeyCryptoTests LatchkeyJOSETests LatchkeyHTTPTests LatchkeyTests LatchkeyStoreTests LatchkeyQRTests LatchkeyTestingTests"
mode=all
while [ $# -gt 0 ]; do
    case "$1" in
        --scratch) scratch="$2"; shift 2 ;;
        --suites) suites="$2"; shift 2 ;;
        --build-only) mode=build; shift ;;
        --skip-build) mode=test; shift ;;
        -h|--help) awk 'NR > 1 && /^#/ { sub(/^# ?/, ""); print; next } NR > 1 { exit }' "${BASH_SOURCE[0]}"; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$scratch"
log="$scratch/asan-unit.log"
supp="$scratch/lsan.supp"
# Suppressions: see above.
printf 'leak:libXCTest.so\nleak:readBytesFromFile\n' > "$supp"
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$supp:print_suppressions=1}"
# Swift's backtracer installs its own signal handlers; ASan's report is the one we want.
export SWIFT_BACKTRACE=enable=no

start=$(date +%s)
cd "$root"
if [ "$mode" != test ]; then
    echo "== building the tests with --sanitize=address in $scratch"
    # Other work may edit sources while this builds ("was modified during the build"); then build again.
    attempt=1
    until swift build --product LatchkeyPackageTests --sanitize=address --scratch-path "$scratch" > "$scratch/asan-build.log" 2>&1; do
        if [ "$attempt" -lt 3 ] && grep -q 'was modified during the build' "$scratch/asan-build.log"; then
            attempt=$((attempt + 1)); echo "== a source changed during the build; building again ($attempt/3)"; continue
        fi
        grep -E 'error:' "$scratch/asan-build.log" | head -20
        echo "asan-unit: build failed after $(( $(date +%s) - start )) s (log: $scratch/asan-build.log)" >&2
        exit 1
    done
fi
built=$(date +%s)
[ "$mode" = test ] || echo "== build took $(( built - start )) s"
if [ "$mode" = build ]; then echo "asan-unit: built (the suites run with --skip-build)"; exit 0; fi
: > "$log"
failed=()
summary=()
for suite in $suites; do
    t0=$(date +%s)
    # The filter is anchored on the target name so other targets never match.
    swift test --skip-build --sanitize=address --scratch-path "$scratch" --filter "^$suite\\." > "$log.$suite" 2>&1
    rc=$?
    t1=$(date +%s)
    cat "$log.$suite" >> "$log"
    # A sanitizer report in any process (including children the tests start) is a failure even if the
    # runner's exit code missed it.
    reports=$(grep -cE '^==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer)' "$log.$suite")
    result=$(grep -E 'Test run with [0-9]+ tests' "$log.$suite" | tail -1 | sed 's/^[^A-Za-z]*//')
    line="$suite: $(( t1 - t0 )) s, swift test exit $rc, sanitizer reports $reports; ${result:-no Swift Testing summary}"
    echo "$line"
    summary+=("$line")
    if [ "$rc" != 0 ] || [ "$reports" != 0 ]; then
        failed+=("$suite")
        grep -E '^✘ Test .*recorded an issue' "$log.$suite" | head -10
        grep -nE -A14 '^==[0-9]+==ERROR' "$log.$suite" | head -60
    fi
done
end=$(date +%s)
echo "asan-unit: tests $(( end - built )) s, build $(( built - start )) s, total $(( end - start )) s (log: $log)"
if [ "${#failed[@]}" != 0 ]; then
    echo "asan-unit: FAILED: ${failed[*]}"
    exit 1
fi
echo "asan-unit: all suites passed with no sanitizer report"
exit 0
