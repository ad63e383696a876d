#!/bin/sh
# tests/fuzz/run.sh -- run the fuzz harnesses for a while ("make fuzz")
#
# usage: run.sh BINDIR WORKDIR SECONDS [HARNESS...]
#
# Runs each harness (read, eval, ad, api, print; all by default) of BINDIR (built by
# build.sh) for SECONDS seconds of libFuzzer, one after the other.  The
# corpus each run grows is WORKDIR/corpus-NAME (kept between runs; the
# committed seeds in tests/fuzz/corpus-* are read, never written), and
# what it finds goes to WORKDIR/crashes/NAME-crash-..., -timeout-...,
# -oom-....  Prints one summary line per harness (executions, corpus size,
# new findings) and exits 1 if any harness found something.
#
# Environment: FUZZ_SRCDIR (the source tree) [required]; FUZZ_JOBS: run
# that many harness processes at once (libFuzzer -jobs/-workers) [1];
# FUZZ_ARGS: more libFuzzer flags (e.g. -seed=1 -runs=1000).
#
# UBSan reports are fatal (halt_on_error=1), except the open findings in
# tests/fuzz/ubsan.supp; LeakSanitizer is off (Boehm's heap is not
# malloc's).  libFuzzer stops a harness at its first finding.

set -u
test $# -ge 3 || { echo "usage: $0 BINDIR WORKDIR SECONDS [HARNESS...]" >&2; exit 2; }
bin=$1 work=$2 seconds=$3
shift 3
harnesses=${*:-read eval ad api print}
src=${FUZZ_SRCDIR:?FUZZ_SRCDIR is not set}/tests/fuzz
mkdir -p "$work/crashes" || exit 1

ASAN_OPTIONS="detect_leaks=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1:suppressions=$src/ubsan.supp${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
export ASAN_OPTIONS UBSAN_OPTIONS

found=0
for h in $harnesses; do
    exe=$bin/fuzz-$h
    test -x "$exe" || { echo "fuzz: $exe: not built (make fuzz-build)" >&2; exit 2; }
    corpus=$work/corpus-$h
    mkdir -p "$corpus"
    # An input counts as a finding when it crashes, breaks a property or
    # runs past -timeout; libFuzzer's "slow unit" report (10 s by default)
    # is raised to the same bound: under the sanitizers a nest of
    # checkpoint-*j in checkpoint-*j legitimately takes that long (a smoke
    # run found one at 11 s, 1.3 s in the plain build).
    case $h in
    read) seeds="$src/corpus-read $src/corpus-programs"
          flags="-dict=$src/vlad.dict -max_len=4096 -timeout=10 -report_slow_units=10" ;;
    eval) seeds="$src/corpus-eval $src/corpus-programs"
          flags="-dict=$src/vlad.dict -max_len=4096 -timeout=30 -report_slow_units=30" ;;
    ad)   seeds="$src/corpus-ad"
          flags="-max_len=512 -timeout=60 -report_slow_units=60" ;;
    api)  seeds="$src/corpus-api"
          flags="-max_len=2048 -timeout=30 -report_slow_units=30" ;;
    print) seeds="$src/corpus-print"
          flags="-max_len=512 -timeout=30 -report_slow_units=30" ;;
    load) seeds="$src/corpus-load"
          flags="-max_len=8192 -timeout=30 -report_slow_units=30" ;;
    *) echo "fuzz: unknown harness $h" >&2; exit 2 ;;
    esac
    log=$work/fuzz-$h.log
    before=$(ls "$work/crashes" | wc -l)
    echo "fuzz: $h for $seconds s (log: $log)"
    # shellcheck disable=SC2086
    "$exe" $flags -max_total_time="$seconds" -rss_limit_mb=4096 \
        -print_final_stats=1 -artifact_prefix="$work/crashes/$h-" \
        ${FUZZ_ARGS:-} "$corpus" $seeds >"$log" 2>&1
    status=$?
    after=$(ls "$work/crashes" | wc -l)
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
    size=$(ls "$corpus" | wc -l)
    echo "fuzz: $h: ${runs:-?} executions, corpus $size, status $status," \
         "$((after - before)) new finding(s)"
    if test $status -ne 0 || test "$after" -ne "$before"; then
        found=1
        grep -E 'ERROR|runtime error|FINDING|property violated' "$log" | head -5
        ls -t "$work/crashes" | head -n $((after - before)) | sed "s|^|fuzz:   $work/crashes/|"
    fi
done
exit $found
