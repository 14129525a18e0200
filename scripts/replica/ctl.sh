#!/usr/bin/env bash
# The scratch PostgreSQL pair of scripts/replica/ (README.md there): one member at a time.
#
#   scripts/replica/ctl.sh stop|start|status replica|primary
#
# stop:   `pg_ctl -m fast stop` (already down: says so, succeeds)
# start:  `pg_ctl -w start`, back once the member accepts connections (already up: succeeds)
# status: prints `up` (running and accepting connections) or `down`; exits 0 either way
# Any other failure (no pair under REPLICA_ROOT, pg_ctl failing) exits non-zero with a message.
#
# up.sh and down.sh source this file for its settings and helpers; it acts only when run.
set -euo pipefail

REPLICA_ROOT="${REPLICA_ROOT:-/tmp/shop-replica}"
REPLICA_ROOT="${REPLICA_ROOT%/}"
PRIMARY_PORT="${REPLICA_PRIMARY_PORT:-5433}"
REPLICA_PORT="${REPLICA_PORT:-5434}"
REPLICA_HOST=127.0.0.1
REPLICA_SLOT=shop_replica1
PRIMARY_DIR="$REPLICA_ROOT/primary"
REPLICA_DIR="$REPLICA_ROOT/replica"
LOG_DIR="$REPLICA_ROOT/logs"

die() {
    echo "shop-replica: FATAL: $*" >&2
    exit 1
}

note() { echo "shop-replica: $*" >&2; }

pg_bin() {
    local major
    major="$(ls /usr/lib/postgresql 2>/dev/null | sort -V | tail -n 1)"
    [ -n "$major" ] && [ -x "/usr/lib/postgresql/$major/bin/pg_ctl" ] \
        || die "no PostgreSQL server binaries under /usr/lib/postgresql/<major>/bin"
    echo "/usr/lib/postgresql/$major/bin"
}
PG_BIN="$(pg_bin)"

# Runs a PostgreSQL program as the `postgres` OS user (initdb and the servers refuse root),
# without fd 9, up.sh's and down.sh's lock: a server started with it would hold the lock.
as_postgres() {
    if [ "$(id -u)" = 0 ]; then
        runuser -u postgres -- "$@" 9>&-
    elif [ "$(id -un)" = postgres ]; then
        "$@" 9>&-
    else
        die "run as root (the scripts switch to the postgres user) or as postgres"
    fi
}

member_dir() {
    case "$1" in
        primary) echo "$PRIMARY_DIR" ;;
        replica) echo "$REPLICA_DIR" ;;
        *) die "unknown member '$1' (primary or replica)" ;;
    esac
}

member_port() {
    case "$1" in
        primary) echo "$PRIMARY_PORT" ;;
        replica) echo "$REPLICA_PORT" ;;
        *) die "unknown member '$1' (primary or replica)" ;;
    esac
}

admin_url() { echo "postgres://postgres@$REPLICA_HOST:$(member_port "$1")/postgres"; }

# psql on a member's `postgres` database, unaligned, tuples only, stopping at the first error.
member_sql() {
    local member="$1"
    shift
    psql -X -q -At -v ON_ERROR_STOP=1 -h "$REPLICA_HOST" -p "$(member_port "$member")" \
        -U postgres -d postgres "$@"
}

# Whether the member's postmaster runs (pg_ctl status on its data directory).
member_running() {
    local dir
    dir="$(member_dir "$1")"
    [ -f "$dir/PG_VERSION" ] && as_postgres "$PG_BIN/pg_ctl" -D "$dir" status >/dev/null 2>&1
}

# Running from our data directory and accepting connections on its port.
member_up() {
    member_running "$1" && pg_isready -q -h "$REPLICA_HOST" -p "$(member_port "$1")" -t 2
}

log_tail() {
    local log="$LOG_DIR/$1.log"
    [ -f "$log" ] && { echo "--- last lines of $log:"; tail -n 15 "$log"; } >&2
    return 0
}

member_stop() {
    local member="$1" dir
    dir="$(member_dir "$member")"
    if ! member_running "$member"; then
        note "$member: already down"
        return 0
    fi
    as_postgres "$PG_BIN/pg_ctl" -D "$dir" -m fast -w -t 60 stop >/dev/null \
        || { log_tail "$member"; die "$member: pg_ctl stop failed"; }
    note "$member: stopped"
}

member_start() {
    local member="$1" dir
    dir="$(member_dir "$member")"
    [ -f "$dir/PG_VERSION" ] || die "$member: no data directory at $dir (run scripts/replica/up.sh)"
    if member_up "$member"; then
        note "$member: already up"
        return 0
    fi
    if member_running "$member"; then
        die "$member: running but not accepting connections on port $(member_port "$member")"
    fi
    as_postgres "$PG_BIN/pg_ctl" -D "$dir" -l "$LOG_DIR/$member.log" -w -t 60 start >/dev/null \
        || { log_tail "$member"; die "$member: pg_ctl start failed"; }
    pg_isready -q -h "$REPLICA_HOST" -p "$(member_port "$member")" -t 10 \
        || { log_tail "$member"; die "$member: started but not accepting connections"; }
    note "$member: started on port $(member_port "$member")"
}

ctl_main() {
    [ $# -eq 2 ] || die "usage: $0 stop|start|status replica|primary"
    local action="$1" member="$2"
    member_dir "$member" >/dev/null
    case "$action" in
        stop) member_stop "$member" ;;
        start) member_start "$member" ;;
        status) if member_up "$member"; then echo up; else echo down; fi ;;
        *) die "unknown action '$action' (stop, start, status)" ;;
    esac
}

if [ "${BASH_SOURCE[0]}" = "$0" ]; then
    ctl_main "$@"
fi
