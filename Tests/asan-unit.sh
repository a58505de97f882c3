#!/usr/bin/env bash
# Runs the unit suites once under AddressSanitizer (with LeakSanitizer):
#
#   Tests/asan-unit.sh [--scratch PATH] [--suites "LatchkeyCryptoTests LatchkeyJOSETests ..."]
#
# Default suites: LatchkeyCryptoTests LatchkeyJOSETests LatchkeyHTTPTests LatchkeyTests LatchkeyStoreTests
# (the process-level CLITests/IntegrationTests are not unit suites: they need the IdP and the built binary).
# Build dir: <root>/.build-asan (env LATCHKEY_ASAN_SCRATCH or --scratch), kept apart from the normal build
# because every module is recompiled with -sanitize=address.
#
# Leaks: LeakSanitizer stays on. XCTest's own runner leaks a few objects at exit (XCTMainMisc /
# XCTestSuiteRun, ~368 bytes, reported after the empty XCTest pass even with no XCTest tests), which is
# not ours; those are suppressed by module (the one-line suppression file is written below). Any other
# leak, and every ASan error, fails the run.
#
# Exit status: 0 when the tests passed and the log holds no sanitizer report; 1 otherwise.
set -uo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="${LATCHKEY_ASAN_SCRATCH:-$root/.build-asan}"
suites="LatchkeyCryptoTests LatchkeyJOSETests LatchkeyHTTPTests LatchkeyTests LatchkeyStoreTests"
while [ $# -gt 0 ]; do
    case "$1" in
        --scratch) scratch="$2"; shift 2 ;;
        --suites) suites="$2"; shift 2 ;;
        -h|--help) sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "unknown option: $1" >&2; exit 2 ;;
    esac
done
mkdir -p "$scratch"
log="$scratch/asan-unit.log"
supp="$scratch/lsan.supp"
# Suppressions: only frames inside XCTest's own library (see above).
printf 'leak:libXCTest.so\n' > "$supp"

# One regex over "Target.Suite/test" names: anchored on the target so other targets never match.
filter="^($(echo $suites | tr ' ' '|'))\\."
export ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=1:halt_on_error=1:abort_on_error=0:strict_string_checks=1:detect_stack_use_after_return=0}"
export LSAN_OPTIONS="${LSAN_OPTIONS:-suppressions=$supp:print_suppressions=1}"
# Swift's backtracer installs its own signal handlers; ASan's report is the one we want.
export SWIFT_BACKTRACE=enable=no

start=$(date +%s)
echo "== building tests with --sanitize=address in $scratch"
cd "$root"
if ! swift build --build-tests --sanitize=address --scratch-path "$scratch" > "$scratch/asan-build.log" 2>&1; then
    tail -40 "$scratch/asan-build.log"
    echo "asan-unit: build failed after $(( $(date +%s) - start )) s (log: $scratch/asan-build.log)" >&2
    exit 1
fi
built=$(date +%s)
echo "== build took $(( built - start )) s; running: $suites"
swift test --skip-build --sanitize=address --scratch-path "$scratch" --filter "$filter" > "$log" 2>&1
rc=$?
end=$(date +%s)

# A sanitizer report in any process (including children the tests start) is a failure even if the
# runner's exit code missed it.
reports=$(grep -cE '^==[0-9]+==ERROR: (AddressSanitizer|LeakSanitizer)|^SUMMARY: (AddressSanitizer|UndefinedBehaviorSanitizer)' "$log")
grep -E '^(✔|✘|􀟈|􁁛)? ?Test run with|Executed [0-9]+ tests|^==[0-9]+==ERROR|^SUMMARY:' "$log" | tail -12
echo "asan-unit: tests $(( end - built )) s, build $(( built - start )) s, total $(( end - start )) s; swift test exit $rc; sanitizer reports $reports (log: $log)"
if [ "$rc" != 0 ] || [ "$reports" != 0 ]; then
    grep -nE -A12 '^==[0-9]+==ERROR' "$log" | head -80
    exit 1
fi
exit 0
