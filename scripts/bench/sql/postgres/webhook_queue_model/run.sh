#!/usr/bin/env bash
# What the webhook queue's rows cost PostgreSQL per delivery, by design: the models of this
# directory (each a pgbench script of 20 deliveries a transaction) run alternately on a
# throw-away database migrated by shop-api, each for 20 s with 2 clients. Prints, per run, the
# machine's busy CPU (/proc/stat: user, nice, system, irq, softirq) less pgbench's own, per
# delivery. Nothing else may run on the machine meanwhile. See docs/performance-log.md,
# "What the queue's rows cost PostgreSQL, by design". The models' resources are named
# `stock_v…`, not the API's `stock:…`: pgbench would take the `:v` of a literal for a
# variable.
#
#   scripts/bench/sql/postgres/webhook_queue_model/run.sh [ROUNDS]   # 2 rounds by default
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../../../../.." && pwd)
admin=${BENCH_PG_ADMIN_URL:-postgres://postgres@127.0.0.1:5432/postgres}
db="webhook_queue_model_$$"
url="${admin%/*}/$db"
shop_api=${BENCH_SHOP_API:-$root/target/release/shop-api}
psql -q "$admin" -c "CREATE DATABASE $db"
trap 'psql -q "$admin" -c "DROP DATABASE IF EXISTS $db WITH (FORCE)" >/dev/null' EXIT
"$shop_api" --database-url "$url" shop create --slug model --name Model >/dev/null 2>&1
psql -q "$url" <<'SQL'
INSERT INTO webhook_endpoints (id, shop_id, url, events, receives, creator_scopes, description,
                               status, secret, created_at_ms, updated_at_ms)
SELECT 'we_model', id, 'https://example.com/h', '*', ',stock.updated,', 'stock:read', '',
       'enabled', 'whsec_model', 0, 0 FROM shops;
INSERT INTO webhook_events (id, shop_id, type, resource, body, created_at_ms)
SELECT 'evt_' || g, (SELECT id FROM shops), 'stock.updated', 'stock_v' || g, repeat('x', 300), 0
FROM generate_series(1, 200000) g;
SQL
# user, nice, system, irq and softirq, in clock ticks
busy() { awk '/^cpu /{print $2 + $3 + $4 + $7 + $8}' /proc/stat; }
hz=$(getconf CLK_TCK)
for round in $(seq 1 "${1:-2}"); do
    for model in current lean lean_claims attempts; do
        before=$(busy)
        out=$({ /usr/bin/time -f "pgbench_cpu %U %S" pgbench -n -M prepared -c 2 -j 2 -T 20 \
            -f "$here/$model.sql" "$url"; } 2>&1 || true)
        after=$(busy)
        tx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' <<<"$out")
        own=$(awk '/^pgbench_cpu/ {print $2 + $3}' <<<"$out")
        if [ -z "$tx" ] || [ "$tx" = 0 ] || grep -q "aborted" <<<"$out"; then
            echo "round $round  $model: pgbench did not complete its run:" >&2
            echo "$out" >&2
            exit 1
        fi
        python3 -c "
busy = ($after - $before) / $hz
print(f'round $round  $model: {$tx} transactions, {(busy - $own) * 1e6 / ($tx * 20):.0f} µs of the machine per delivery')"
    done
done
