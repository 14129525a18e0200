#!/usr/bin/env bash
# The fault scenarios of docs/RELIABILITY.md, each bounded in time, on loopback only; every
# server a scenario starts dies with it. Figures are printed and written to target/faults/*.json.
#
#   scripts/faults/run.sh            # all of them (PostgreSQL needed at 127.0.0.1:5432)
#   FAULTS_PG_CLUSTER=shared ...     # restart the machine's PostgreSQL instead of a private one
#   SHOP_API_BIN=target/release/shop-api ...   # one binary for all (default: the debug build,
#                                               # and the release build for the flood)
#   SHOP_SINK_BIN=target/release/webhook-sink ...   # the webhook receiver (default: the debug
#                                               # build, made by the same `cargo test --no-run`)
#
# The cross-shop probe is a Rust black-box test (tests/api/cross_shop_probe.rs); it is run
# again here with --nocapture for its figures (its PostgreSQL half needs TEST_DATABASE_URL).
set -uo pipefail
cd "$(dirname "$0")/../.."

SCENARIO_SECONDS=${FAULTS_SCENARIO_SECONDS:-120}
export PYTHONDONTWRITEBYTECODE=1
# Each step says when it began, in seconds since the scenarios began (as .ci/run's steps do).
step() { printf '\n==> [+%ss] %s\n' "$SECONDS" "$*"; }

if [ -z "${SHOP_API_BIN:-}" ]; then
    # The debug binary as the README's test command builds it (the same features): after
    # `cargo test --workspace` nothing is left to build, where `cargo build -p shop-app`
    # resolved other features and built the workspace's crates again.
    step "cargo test --workspace --no-run (debug binary: target/debug/shop-api)"
    cargo test --quiet --workspace --no-run || exit 1
fi
mkdir -p target/faults
rm -f target/faults/*.json

# A scenario stops its private PostgreSQL itself, unless it was SIGKILLed: then this does.
private_pgdata=target/faults/work/pg_restart/pgdata
stop_private_postgres() {
    if [ -f "$private_pgdata/postmaster.pid" ]; then
        local as_user=() pg_ctl
        pg_ctl="/usr/lib/postgresql/$(ls /etc/postgresql | sort -n | tail -n 1)/bin/pg_ctl"
        [ "$(id -u)" = 0 ] && as_user=(runuser -u postgres --)
        "${as_user[@]}" "$pg_ctl" -D "$private_pgdata" -m immediate -w stop >/dev/null 2>&1 || true
    fi
}
trap stop_private_postgres EXIT

failed=()
# scenario NAME SECONDS COMMAND ARGS...
scenario() {
    local name=$1 seconds=$2
    shift 2
    step "fault: $name (at most ${seconds}s)"
    # SIGTERM first, so that the scenario stops what it started; SIGKILL 20 s later.
    timeout --kill-after=20 "$seconds" "$@" || failed+=("$name")
}

scenario crash_sqlite "$SCENARIO_SECONDS" python3 scripts/faults/crash.py --backend sqlite
scenario crash_postgres "$SCENARIO_SECONDS" python3 scripts/faults/crash.py --backend postgres
# Webhooks (issue 34): SIGKILL while 1,000 variants' events are delivered, on both databases
# (two `deliver` instances sharing PostgreSQL's queue run below, on the release build).
scenario webhooks_crash_sqlite "$SCENARIO_SECONDS" python3 scripts/faults/webhooks_crash.py --backend sqlite
# On PostgreSQL the dead instance's claims expire after 70 s before the run can converge.
scenario webhooks_crash_postgres $((SCENARIO_SECONDS + 60)) python3 scripts/faults/webhooks_crash.py --backend postgres
# The same load stopped by SIGTERM (RELIABILITY.md, finding 8): every attempt made is recorded
# before the server exits, so no claim is left and nothing is sent twice.
scenario webhooks_graceful_sqlite "$SCENARIO_SECONDS" python3 scripts/faults/webhooks_crash.py --backend sqlite --graceful
scenario pg_restart "$SCENARIO_SECONDS" python3 scripts/faults/pg_restart.py --cluster "${FAULTS_PG_CLUSTER:-private}"
# A latency figure is taken on the binary that ships: the release build. The debug build spends
# 5-10x more CPU per request, so the flood saturates its core and the ratio measures the debug
# build's cost rather than the defence (6.3-6.7x there, 0.9x in release, same machine).
if [ -z "${SHOP_API_BIN:-}" ]; then
    step "cargo build --release -p shop-app (for the flood's latency figures)"
    cargo build --quiet --release -p shop-app || exit 1
fi
scenario invalid_key_flood $((SCENARIO_SECONDS + 60)) \
    env SHOP_API_BIN="${SHOP_API_BIN:-$PWD/target/release/shop-api}" python3 scripts/faults/invalid_key_flood.py
scenario auth_burst "$SCENARIO_SECONDS" \
    env SHOP_API_BIN="${SHOP_API_BIN:-$PWD/target/release/shop-api}" python3 scripts/faults/auth_burst.py
# 10,000 deliveries by two `deliver` instances: a throughput, so the release build too (the
# debug build's attempts are several times slower and would not fit the time bound).
scenario webhooks_two_instances $((SCENARIO_SECONDS + 30)) \
    env SHOP_API_BIN="${SHOP_API_BIN:-$PWD/target/release/shop-api}" \
    python3 scripts/faults/webhooks_crash.py --two-instances --deliver-timeout 100

step "fault: cross_shop_probe (tests/api/cross_shop_probe.rs)"
probe_log=target/faults/cross_shop_probe.log
# --workspace, as in the README's test command: `-p shop-tests` resolves the dependencies'
# features for that package alone and rebuilds the test binary (two minutes of CI).
cargo test --quiet --workspace --test api --no-run || failed+=(cross_shop_probe)
timeout --kill-after=20 "$SCENARIO_SECONDS" \
    cargo test --quiet --workspace --test api cross_shop_probe -- --nocapture --test-threads 1 \
    2>&1 | tee "$probe_log"
probe_status=${PIPESTATUS[0]}
python3 scripts/faults/probe_figures.py "$probe_log" "$probe_status" || failed+=(cross_shop_probe)

step "faults: summary"
python3 scripts/faults/summary.py
if [ ${#failed[@]} -gt 0 ]; then
    echo "FAILED: ${failed[*]}" >&2
    exit 1
fi
