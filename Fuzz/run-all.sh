#!/usr/bin/env bash
# Builds and runs every libFuzzer target with a time budget, and records what each run reached in
# Fuzz/REPORT.md (one row per run, plus totals per target across all recorded runs).
#
#   Fuzz/run-all.sh [--seconds-per-target N] [--targets "FuzzJWS FuzzJWKS" | FuzzJWS,FuzzJWKS]
#                   [--jobs J] [--nice N] [--asan] [--no-build] [--keep-going] [--report FILE]
#   Fuzz/run-all.sh --import-log TARGET LOGFILE     # record an earlier libFuzzer run from its log
#
# Defaults: 60 s per target, all twelve targets, one fuzzer at a time, nice 10. The working corpus of
# each target lives in .build-fuzz/corpus/TARGET and is kept between runs, so coverage accumulates;
# the checked-in seeds (Tests/FuzzCorpus/DIR) are copied into it before every run and never written.
# Each target runs with -max_len just above the largest input its parser accepts (max_len below).
# --asan builds with AddressSanitizer as well (.build-fuzz-asan). A binary without libFuzzer's coverage
# sections (__sancov_cntrs, __sancov_pcs) is refused: libFuzzer would run it blind.
# --keep-going runs libFuzzer in fork mode with -ignore_crashes/-ignore_timeouts/-ignore_ooms, so a known,
# not yet fixed finding does not end the run: every crash is still written as an artifact and counted.
# Exit status: 0 when every run ended without a crash/timeout/OOM artifact, 1 on any finding,
# 2 on a usage or build error.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
scratch="$root/.build-fuzz"
report="$root/Fuzz/REPORT.md"
seconds=60
jobs=1
nice_level=10
build=1
keep_going=0
asan=0
all_targets=(FuzzJWS FuzzJWKS FuzzJSON FuzzHTTPResponse FuzzTokenFile FuzzHTTPURL FuzzAuthenticationChallenge FuzzPEMPrivateKey FuzzClientIdentity FuzzCredentialRequest FuzzClientMetadata FuzzTokenExchangeAnswer FuzzResourceMetadata)
targets=("${all_targets[@]}")
import_target=""
import_log=""

usage() { sed -n '2,17p' "${BASH_SOURCE[0]}" | sed 's/^# \{0,1\}//'; exit 2; }

seed_dir() {
    case "$1" in
        FuzzJWS) echo jws ;;
        FuzzJWKS) echo jwks ;;
        FuzzJSON) echo json ;;
        FuzzHTTPResponse) echo http ;;
        FuzzTokenFile) echo tokenfile ;;
        FuzzHTTPURL) echo url ;;
        FuzzAuthenticationChallenge) echo challenge ;;
        FuzzPEMPrivateKey) echo pem ;;
        FuzzClientIdentity) echo clientidentity ;;
        FuzzCredentialRequest) echo credential ;;
        FuzzClientMetadata) echo clientmetadata ;;
        FuzzTokenExchangeAnswer) echo exchange ;;
        FuzzResourceMetadata) echo resourcemetadata ;;
        *) echo "unknown target: $1" >&2; exit 2 ;;
    esac
}

# The largest input each target's parser takes, plus a little, so libFuzzer (4096 bytes without
# -max_len) reaches every size limit: JWS.maxSize (64 KiB); JSONParser.maxBytes (1 MiB) for JWK Sets,
# response bodies and registration metadata; the target's own 2 KiB header block + 4 KiB body limits
# (plus chunk framing) for FuzzHTTPResponse; TokenFile.maximumByteCount (1 MiB); HTTPURL's 8 KiB for
# each of FuzzHTTPURL's two parts; the 8 KiB WWW-Authenticate bound; the 64 KiB key file read
# (KeyMaterial) for a PEM key, twice for a chain and a key; CredentialRequest.maxBytes (64 KiB).
max_len() {
    case "$1" in
        FuzzJWS) echo $(( 64 * 1024 + 64 )) ;;
        FuzzJWKS|FuzzJSON|FuzzClientMetadata|FuzzTokenExchangeAnswer|FuzzTokenFile) echo $(( 1024 * 1024 + 64 )) ;;
        FuzzResourceMetadata) echo $(( 64 * 1024 + 8192 + 64 )) ;;
        FuzzHTTPResponse) echo 8192 ;;
        FuzzHTTPURL) echo $(( 8192 + 128 )) ;;
        FuzzAuthenticationChallenge) echo $(( 8192 + 64 )) ;;
        FuzzPEMPrivateKey|FuzzCredentialRequest) echo $(( 64 * 1024 + 64 )) ;;
        FuzzClientIdentity) echo $(( 2 + 2 * 64 * 1024 + 64 )) ;;
        *) echo "unknown target: $1" >&2; exit 2 ;;
    esac
}

# libFuzzer needs the inline counters and PC tables that -sanitize=fuzzer puts in every object; a
# binary without them still runs, blind ("Is the code instrumented for coverage?").
# (Read whole first: with pipefail, `objdump | grep -q` fails whenever grep stops reading early.)
has_coverage() {
    local sections
    sections=$(objdump -h "$1" 2>/dev/null) || return 1
    grep -q '__sancov_cntrs' <<< "$sections" && grep -q '__sancov_pcs' <<< "$sections"
}

while [ $# -gt 0 ]; do
    case "$1" in
        --seconds-per-target) seconds="$2"; shift 2 ;;
        --targets) IFS=', ' read -r -a targets <<< "$2"; shift 2 ;;
        --jobs) jobs="$2"; shift 2 ;;
        --nice) nice_level="$2"; shift 2 ;;
        --no-build) build=0; shift ;;
        --keep-going) keep_going=1; shift ;;
        --asan) asan=1; shift ;;
        --report) report="$2"; shift 2 ;;
        --import-log) import_target="$2"; import_log="$3"; shift 3 ;;
        -h|--help) usage ;;
        *) echo "unknown option: $1" >&2; usage ;;
    esac
done
for t in "${targets[@]}"; do seed_dir "$t" > /dev/null; max_len "$t" > /dev/null; done
command -v objdump > /dev/null || { echo "objdump (binutils) is needed to check the fuzz build's coverage" >&2; exit 2; }
# Swift 6.3 keeps only the last --sanitize= of `swift build`, so two of them give no coverage; the
# driver flag takes both at once. --sanitize=fuzzer is still given: it is what makes SwiftPM rename
# the executable's own main so libFuzzer's runs (with -Xswiftc alone the binary runs nothing).
sanitize=(--sanitize=fuzzer)
if [ "$asan" = 1 ]; then
    scratch="$root/.build-fuzz-asan"
    sanitize=(--sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address)
fi
mkdir -p "$scratch/logs" "$scratch/corpus" "$scratch/artifacts"

# --- report -------------------------------------------------------------------------------------

# Pulls the figures out of a libFuzzer log: seconds executions exec/s cov ft.
parse_log() {
    local log="$1" wall="$2"
    local execs secs rate cov ft status
    execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
    secs=$(sed -n 's/^Done [0-9]* runs in \([0-9]*\) second.*/\1/p' "$log" | tail -1)
    # The last status line carries the coverage reached: "#N  DONE cov: .. ft: .." in a normal run,
    # "#N: cov: .. ft: .. corp: .. time: Ts" from the parent in fork mode (--keep-going).
    status=$(grep -E '^#[0-9]+(:|[[:space:]]+[A-Z]+) +cov: ' "$log" | tail -1 || true)
    cov=$(sed -n 's/.* cov: \([0-9]*\) .*/\1/p' <<< "$status")
    ft=$(sed -n 's/.* ft: \([0-9]*\) .*/\1/p' <<< "$status")
    if [ -z "$execs" ]; then execs=$(sed -n 's/^#\([0-9]*\).*/\1/p' <<< "$status"); fi
    if [ -z "$secs" ]; then secs=$(sed -n 's/^INFO: exiting: [0-9]* time: \([0-9]*\)s.*/\1/p' "$log" | tail -1); fi
    [ -n "$secs" ] || secs="$wall"
    if [ -z "$rate" ] && [ "${secs:-0}" -gt 0 ]; then rate=$(( ${execs:-0} / secs )); fi
    echo "${secs:-0} ${execs:-0} ${rate:-0} ${cov:-0} ${ft:-0}"
}

# Rewrites REPORT.md with one more run row, then recomputes the totals from all rows.
# Serialised with flock: several runs may finish at once.
add_row() {
    local row="$1"
    (
        flock 9
        local rows
        rows=$(mktemp)
        if [ -f "$report" ]; then
            awk '/^## Runs/{r=1; next} r && /^\| [0-9][0-9][0-9][0-9]-/{print}' "$report" > "$rows"
        fi
        echo "$row" >> "$rows"
        # Chronological order (imported rows may be older than rows already there), so "latest" is right.
        sort -s -t'|' -k2,2 "$rows" -o "$rows"
        {
            echo "# Fuzzing report"
            echo
            echo "Written by \`Fuzz/run-all.sh\` (do not edit by hand): one row per libFuzzer run, and the totals per"
            echo "target across every recorded run. cov/ft are libFuzzer's coverage counters (edges, features) at the"
            echo "end of the target's latest run; each target keeps its working corpus between runs, so the latest"
            echo "run starts from everything reached before. Rows marked *imported* were read from the logs of earlier"
            echo "runs made by hand before this script existed."
            echo
            echo "## Totals per target"
            echo
            echo "| target | runs | seconds | executions | cov (latest) | ft (latest) | crashes |"
            echo "| --- | ---: | ---: | ---: | ---: | ---: | ---: |"
            awk -F'|' '
                { gsub(/ /, "", $3); t=$3; gsub(/[ ,]/, "", $4); gsub(/[ ,]/, "", $5)
                  gsub(/ /, "", $7); gsub(/ /, "", $8); gsub(/ /, "", $10)
                  if (!(t in runs)) order[n++]=t
                  runs[t]++; secs[t]+=$4; ex[t]+=$5; cov[t]=$7; ft[t]=$8; cr[t]+=$10 }
                function commas(x,   s, out) { s=sprintf("%d", x); out=""
                    while (length(s) > 3) { out="," substr(s, length(s)-2) out; s=substr(s, 1, length(s)-3) }
                    return s out }
                END { for (i=0; i<n; i++) { t=order[i]
                        printf "| %s | %d | %s | %s | %s | %s | %d |\n", t, runs[t], commas(secs[t]), commas(ex[t]), cov[t], ft[t], cr[t] } }
            ' <(sort -t'|' -k3,3 -s "$rows")
            echo
            echo "## Runs"
            echo
            echo "| ended (UTC) | target | seconds | executions | exec/s | cov | ft | corpus files | crashes | log |"
            echo "| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | --- |"
            cat "$rows"
        } > "$report.tmp"
        mv "$report.tmp" "$report"
        rm -f "$rows"
    ) 9> "$scratch/report.lock"
}

commas() { printf "%d" "$1" | sed -e ':a' -e 's/\([0-9]\)\([0-9]\{3\}\)\($\|,\)/\1,\2\3/; ta'; }

if [ -n "$import_target" ]; then
    seed_dir "$import_target" > /dev/null
    [ -f "$import_log" ] || { echo "no such log: $import_log" >&2; exit 2; }
    read -r secs execs rate cov ft <<< "$(parse_log "$import_log" 0)"
    when=$(date -u -r "$import_log" '+%Y-%m-%d %H:%M')
    corpus=$(sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p' <(grep -E '^#[0-9]+' "$import_log" | tail -1))
    crashes=$(grep -cE '^==[0-9]+== ERROR|deadly signal|^artifact_prefix=|Test unit written to' "$import_log" || true)
    add_row "| $when | $import_target | $secs | $(commas "$execs") | $rate | $cov | $ft | ${corpus:-?} | $crashes | imported: ${import_log#"$root/"} |"
    echo "recorded $import_target: $secs s, $execs executions, cov $cov ft $ft"
    exit 0
fi

# --- build --------------------------------------------------------------------------------------

if [ "$build" = 1 ]; then
    for t in "${targets[@]}"; do
        echo "== building $t"
        # One build per product: `swift build --sanitize=fuzzer` is the only way that yields a working
        # fuzzer (a plain -sanitize=fuzzer swiftc flag links a binary that runs nothing).
        if ! (cd "$root" && nice -n "$nice_level" swift build "${sanitize[@]}" --scratch-path "$scratch" --product "$t" \
                > "$scratch/logs/build-$t.log" 2>&1); then
            tail -30 "$scratch/logs/build-$t.log" >&2
            echo "build of $t failed (log: $scratch/logs/build-$t.log)" >&2
            exit 2
        fi
    done
fi

# Every binary is checked before any run starts, so a blind build is a build error (exit 2), not a run.
for t in "${targets[@]}"; do
    bin="$scratch/debug/$t"
    [ -x "$bin" ] || { echo "$t: no binary at $bin (build first)" >&2; exit 2; }
    has_coverage "$bin" || {
        echo "$t: $bin has no coverage instrumentation (no __sancov_cntrs/__sancov_pcs section): libFuzzer would run blind." >&2
        echo "  Build with --sanitize=fuzzer (with ASan: --sanitize=fuzzer -Xswiftc -sanitize=fuzzer,address, not two --sanitize=)." >&2
        exit 2
    }
done

# --- run ----------------------------------------------------------------------------------------

run_one() {
    local t="$1" stamp bin corpus artifacts log start wall rc
    stamp=$(date -u '+%Y%m%dT%H%M%S')
    bin="$scratch/debug/$t"
    [ -x "$bin" ] || { echo "$t: no binary at $bin (build first)" >&2; return 2; }
    corpus="$scratch/corpus/$t"
    artifacts="$scratch/artifacts/$t/$stamp"
    log="$scratch/logs/$t-$stamp.log"
    mkdir -p "$corpus" "$artifacts"
    # Seeds are copied in (not passed as a second directory) so new units land only in the work corpus.
    cp -n "$root/Tests/FuzzCorpus/$(seed_dir "$t")"/* "$corpus"/ 2>/dev/null || true
    start=$(date +%s)
    rc=0
    local mode=()
    if [ "$keep_going" = 1 ]; then mode=(-fork=1 -ignore_crashes=1 -ignore_timeouts=1 -ignore_ooms=1); fi
    (cd "$artifacts" && SWIFT_BACKTRACE=enable=no nice -n "$nice_level" "$bin" "${mode[@]}" \
        -max_total_time="$seconds" -max_len="$(max_len "$t")" -print_final_stats=1 -timeout=10 -rss_limit_mb=2048 \
        -artifact_prefix="$artifacts/" "$corpus" > "$log" 2>&1) || rc=$?
    wall=$(( $(date +%s) - start ))
    local crashes
    crashes=$(find "$artifacts" -maxdepth 1 -type f \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' \
        -o -name 'leak-*' \) | wc -l)
    if [ "$rc" != 0 ] && [ "$crashes" = 0 ]; then crashes=1; fi  # died without writing an artifact
    read -r secs execs rate cov ft <<< "$(parse_log "$log" "$wall")"
    local files
    files=$(find "$corpus" -maxdepth 1 -type f | wc -l)
    local note="${log#"$root/"}"
    [ "$keep_going" = 1 ] && note="$note (--keep-going)"
    [ "$asan" = 1 ] && note="$note (--asan)"
    add_row "| $(date -u '+%Y-%m-%d %H:%M') | $t | $secs | $(commas "$execs") | $rate | $cov | $ft | $files | $crashes | $note |"
    printf '%-17s %6ss %12s execs %7s/s  cov %5s  ft %6s  corpus %5s  crashes %s\n' \
        "$t" "$secs" "$(commas "$execs")" "$rate" "$cov" "$ft" "$files" "$crashes"
    if [ "$crashes" != 0 ]; then
        echo "$t: FINDING (libFuzzer exit $rc) — log $log, artifacts in $artifacts:" >&2
        ls "$artifacts" >&2
        grep -m5 -E 'ERROR|Fatal error|deadly signal|SUMMARY' "$log" >&2 || true
        return 1
    fi
    rmdir "$artifacts" 2>/dev/null || true
    return 0
}

failed=0
running=0
for t in "${targets[@]}"; do
    if [ "$running" -ge "$jobs" ]; then
        wait -n || failed=1
        running=$((running - 1))
    fi
    run_one "$t" &
    running=$((running + 1))
done
while [ "$running" -gt 0 ]; do
    wait -n || failed=1
    running=$((running - 1))
done

echo "report: ${report#"$root/"}"
exit "$failed"
