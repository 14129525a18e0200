#!/usr/bin/env bash
# A scratch PostgreSQL primary (127.0.0.1:5433) and its streaming replica (127.0.0.1:5434),
# data under REPLICA_ROOT (default /tmp/shop-replica); see README.md in this directory.
#
#   scripts/replica/up.sh
#   PAIR="$(scripts/replica/up.sh)" && read -r PRIMARY_URL REPLICA_URL <<<"$PAIR"
#
# Idempotent: when both are up and the replica streams from the primary through the slot
# shop_replica1, it changes nothing (but the apply delay, below) and prints the URLs again.
# Otherwise it stops whatever of a previous pair still runs, removes it and creates a new one.
# Prints ONE line on stdout, the two admin URLs separated by a space (primary first); progress
# goes to stderr. Exits non-zero with a message (and the server's log) on any failure.
#
# REPLICA_APPLY_DELAY: the replica's recovery_min_apply_delay (default 1s, the lag on purpose
# of issue 22; 0 for the benchmark). A PostgreSQL duration: 0, 500ms, 1s, 2min; a bare number
# is milliseconds. A running pair with another delay is reloaded with the one asked for.
set -Eeuo pipefail
# shellcheck source=ctl.sh
source "$(dirname "${BASH_SOURCE[0]}")/ctl.sh"

APPLY_DELAY="${REPLICA_APPLY_DELAY:-1s}"
STREAM_TIMEOUT_S="${REPLICA_STREAM_TIMEOUT_SECONDS:-30}"
STARTED_MS=$(($(date +%s%N) / 1000000))

# A PostgreSQL duration as milliseconds (recovery_min_apply_delay's unit).
duration_ms() {
    local value="${1// /}" number unit
    [[ "$value" =~ ^([0-9]+)(ms|s|min|h)?$ ]] \
        || die "REPLICA_APPLY_DELAY='$1': expected a duration such as 0, 500ms, 1s or 2min"
    number="${BASH_REMATCH[1]}"
    unit="${BASH_REMATCH[2]:-ms}"
    case "$unit" in
        ms) echo $((number)) ;;
        s) echo $((number * 1000)) ;;
        min) echo $((number * 60000)) ;;
        h) echo $((number * 3600000)) ;;
    esac
}
DELAY_MS="$(duration_ms "$APPLY_DELAY")"
[ "$PRIMARY_PORT" != "$REPLICA_PORT" ] \
    || die "REPLICA_PRIMARY_PORT and REPLICA_PORT are both $PRIMARY_PORT: the pair needs two ports"

elapsed() {
    local ms=$(($(date +%s%N) / 1000000 - STARTED_MS))
    printf '%d.%d' $((ms / 1000)) $((ms % 1000 / 100))
}

print_urls() { echo "$(admin_url primary) $(admin_url replica)"; }

# The server answering on a member's port runs from our data directory.
serves_our_dir() {
    local shown
    shown="$(member_sql "$1" -c "SHOW data_directory" 2>/dev/null)" || return 1
    [ "$(realpath -m "$shown")" = "$(realpath -m "$(member_dir "$1")")" ]
}

# The replica streams from the primary through our slot.
streaming() {
    local count
    count="$(member_sql primary -c "SELECT count(*) FROM pg_stat_replication r
        JOIN pg_replication_slots s ON s.active_pid = r.pid
        WHERE s.slot_name = '$REPLICA_SLOT' AND r.state = 'streaming'" 2>/dev/null)" || return 1
    [ "$count" = 1 ]
}

pair_streaming() {
    member_up primary && member_up replica && serves_our_dir primary && serves_our_dir replica \
        && [ "$(member_sql replica -c "SELECT pg_is_in_recovery()" 2>/dev/null)" = t ] \
        && streaming
}

# A running replica with another recovery_min_apply_delay gets the one asked for (the setting
# is reloadable; ALTER SYSTEM writes postgresql.auto.conf, which a standby may do).
ensure_delay() {
    local current
    current="$(member_sql replica -c \
        "SELECT setting FROM pg_settings WHERE name = 'recovery_min_apply_delay'")"
    [ "$current" = "$DELAY_MS" ] && return 0
    member_sql replica -c "ALTER SYSTEM SET recovery_min_apply_delay = '${DELAY_MS}ms'" \
        -c "SELECT pg_reload_conf()" >/dev/null
    for _ in $(seq 1 50); do
        current="$(member_sql replica -c \
            "SELECT setting FROM pg_settings WHERE name = 'recovery_min_apply_delay'")"
        if [ "$current" = "$DELAY_MS" ]; then
            note "replica: recovery_min_apply_delay is now ${DELAY_MS} ms (reloaded)"
            return 0
        fi
        sleep 0.1
    done
    die "replica: recovery_min_apply_delay still $current ms after reload, wanted $DELAY_MS ms"
}

# Nothing but this pair may answer on its ports once the old one is gone.
port_free() {
    if pg_isready -q -h "$REPLICA_HOST" -p "$1" -t 1; then
        die "another PostgreSQL answers on $REPLICA_HOST:$1 (not one under $REPLICA_ROOT);" \
            "stop it or set REPLICA_PRIMARY_PORT / REPLICA_PORT"
    fi
    if (exec 3<>"/dev/tcp/$REPLICA_HOST/$1") 2>/dev/null; then
        die "port $1 on $REPLICA_HOST is taken by another program"
    fi
}

on_error() {
    local status=$?
    log_tail primary
    log_tail replica
    echo "shop-replica: FATAL: up.sh failed (status $status) after $(elapsed) s; the pair may be" \
        "half made: scripts/replica/down.sh removes it, up.sh recreates it" >&2
    exit "$status"
}

mkdir -p "$(dirname "$REPLICA_ROOT")"
exec 9>"$REPLICA_ROOT.lock"
flock -w 120 9 || die "another up.sh/down.sh holds $REPLICA_ROOT.lock for more than 120 s"

if pair_streaming; then
    ensure_delay
    note "already up and streaming ($(elapsed) s): not recreated"
    print_urls
    exit 0
fi

trap on_error ERR
note "creating the pair under $REPLICA_ROOT (PostgreSQL $(basename "$(dirname "$PG_BIN")"))"
member_stop replica
member_stop primary
rm -rf "$PRIMARY_DIR" "$REPLICA_DIR" "$LOG_DIR"
port_free "$PRIMARY_PORT"
port_free "$REPLICA_PORT"

mkdir -p "$REPLICA_ROOT" "$PRIMARY_DIR" "$REPLICA_DIR" "$LOG_DIR"
chown postgres: "$REPLICA_ROOT" "$PRIMARY_DIR" "$REPLICA_DIR" "$LOG_DIR"
chmod 700 "$PRIMARY_DIR" "$REPLICA_DIR"
as_postgres test -w "$REPLICA_ROOT" \
    || die "the postgres user cannot write $REPLICA_ROOT (a parent directory shuts it out?)"

# The primary: trust on loopback, no Unix socket (everything connects to 127.0.0.1), the
# encoding and locale of the machine's cluster.
as_postgres "$PG_BIN/initdb" -D "$PRIMARY_DIR" -A trust -U postgres -E UTF8 \
    --locale=C.UTF-8 --no-sync >"$LOG_DIR/initdb.log" 2>&1 \
    || { cat "$LOG_DIR/initdb.log" >&2; die "initdb failed"; }
cat >>"$PRIMARY_DIR/postgresql.conf" <<EOF

# scripts/replica/up.sh: a scratch primary for the replica tests
port = $PRIMARY_PORT
listen_addresses = '$REPLICA_HOST'
unix_socket_directories = ''
max_connections = 200
shared_buffers = 64MB
wal_level = replica
# Scratch data, recreated by up.sh whenever the pair is not up and streaming: no fsync (the
# replica's first start would otherwise spend seconds syncing the copied data directory).
fsync = off
max_wal_senders = 10
max_replication_slots = 10
# Read by the replica (the base backup copies this file): replica queries hold back the
# primary's vacuum instead of being cancelled by its replay.
hot_standby_feedback = on
EOF
echo "host replication all $REPLICA_HOST/32 trust" >>"$PRIMARY_DIR/pg_hba.conf"
as_postgres "$PG_BIN/pg_ctl" -D "$PRIMARY_DIR" -l "$LOG_DIR/primary.log" -w -t 60 start >/dev/null
note "primary: up on $REPLICA_HOST:$PRIMARY_PORT ($(elapsed) s)"

as_postgres "$PG_BIN/pg_basebackup" -h "$REPLICA_HOST" -p "$PRIMARY_PORT" -U postgres \
    -D "$REPLICA_DIR" -R -X stream -C -S "$REPLICA_SLOT" --checkpoint=fast --no-sync \
    >"$LOG_DIR/basebackup.log" 2>&1 \
    || { cat "$LOG_DIR/basebackup.log" >&2; die "pg_basebackup failed"; }
cat >>"$REPLICA_DIR/postgresql.conf" <<EOF

# scripts/replica/up.sh: the streaming replica (standby.signal and primary_conninfo come from
# pg_basebackup -R, in postgresql.auto.conf)
port = $REPLICA_PORT
hot_standby = on
# A hot standby refuses to start with fewer connections than its primary.
max_connections = 200
# Lag on purpose (REPLICA_APPLY_DELAY): commits are applied this long after the primary's.
recovery_min_apply_delay = '${DELAY_MS}ms'
EOF
as_postgres "$PG_BIN/pg_ctl" -D "$REPLICA_DIR" -l "$LOG_DIR/replica.log" -w -t 60 start >/dev/null
note "replica: up on $REPLICA_HOST:$REPLICA_PORT ($(elapsed) s)"

deadline=$(($(date +%s) + STREAM_TIMEOUT_S))
until streaming; do
    [ "$(date +%s)" -lt "$deadline" ] \
        || { log_tail replica; die "the replica is not streaming after $STREAM_TIMEOUT_S s"; }
    sleep 0.1
done
[ "$(member_sql replica -c "SELECT pg_is_in_recovery()")" = t ] \
    || die "the server on $REPLICA_PORT is not in recovery: not a replica"
trap - ERR
note "streaming through slot $REPLICA_SLOT, recovery_min_apply_delay ${DELAY_MS} ms," \
    "in $(elapsed) s"
print_urls
