#!/usr/bin/env bash
# Removes the scratch pair of scripts/replica/up.sh (README.md in this directory): stops the
# replica, drops its replication slot while the primary still runs, stops the primary, deletes
# the data directories and logs under REPLICA_ROOT. Idempotent: nothing there, nothing to do.
# Exits non-zero when a member cannot be stopped or still answers afterwards.
set -euo pipefail
# shellcheck source=ctl.sh
source "$(dirname "${BASH_SOURCE[0]}")/ctl.sh"

if [ ! -d "$REPLICA_ROOT" ]; then
    note "nothing under $REPLICA_ROOT: already down"
    exit 0
fi
exec 9>"$REPLICA_ROOT.lock"
flock -w 120 9 || die "another up.sh/down.sh holds $REPLICA_ROOT.lock for more than 120 s"

member_stop replica
if member_up primary; then
    dropped="$(member_sql primary -c "SELECT count(pg_drop_replication_slot(slot_name))
        FROM pg_replication_slots WHERE slot_name = '$REPLICA_SLOT'")" \
        || die "primary: could not drop the replication slot $REPLICA_SLOT"
    if [ "$dropped" = 1 ]; then note "primary: dropped the replication slot $REPLICA_SLOT"; fi
fi
member_stop primary

for member in primary replica; do
    if member_running "$member"; then
        die "$member still runs from $(member_dir "$member"); not removing it"
    fi
done
rm -rf "$PRIMARY_DIR" "$REPLICA_DIR" "$LOG_DIR"
rmdir "$REPLICA_ROOT" 2>/dev/null || true
note "removed the pair under $REPLICA_ROOT"
