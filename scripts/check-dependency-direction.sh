#!/usr/bin/env bash
# Proves that dependencies point inward: the domain knows no I/O framework, the ports no
# database or HTTP framework. Lists each crate's normal dependency tree and looks for the
# forbidden packages by exact name.
set -euo pipefail
cd "$(dirname "$0")/.."

status=0
forbid() {
    local crate=$1; shift
    local tree
    tree=$(cargo tree -p "$crate" -e normal --prefix none --format '{p}' | awk '{print $1}' | sort -u)
    for package in "$@"; do
        if grep -qx "$package" <<<"$tree"; then
            echo "FAIL: $crate depends on $package (cargo tree -p $crate -e normal -i $package)" >&2
            status=1
        else
            echo "ok: no $package under $crate"
        fi
    done
}

forbid shop-domain diesel diesel-async actix-web tokio serde_json redis deadpool-redis
forbid shop-ports diesel diesel-async actix-web redis deadpool-redis
# The owners' console is a delivery adapter beside the API's: the use cases, never the
# database adapter, nor the API's HTTP crate.
forbid shop-console shop-persistence shop-http diesel diesel-async redis
# The webhook sender is a driven adapter: the ports and the domain, and HTTP out; no database,
# no delivery adapter, and neither of them depends on it.
forbid shop-webhook-sender shop-persistence shop-http shop-console diesel diesel-async actix-web
forbid shop-http shop-webhook-sender
forbid shop-persistence shop-webhook-sender
# The integrators' client shares nothing with the server but its contract.
forbid shop-api-client shop-domain shop-ports shop-persistence shop-http diesel actix-web
# Benchmark seeding lives in shop-seed, which no production crate needs: the API, the console,
# the ports and the domain never; the database adapter only with its `seed` feature (the
# BulkLoader on diesel), which only shop-app turns on for `shop-api seed`, so not by default.
forbid shop-domain shop-seed
forbid shop-ports shop-seed
forbid shop-http shop-seed
forbid shop-console shop-seed
forbid shop-persistence shop-seed
# shop-seed itself is generator, use case and port: no database or HTTP framework, no adapter.
forbid shop-seed diesel diesel-async actix-web redis shop-persistence shop-http shop-console
# The benchmark's ceilings measure the database without the adapter: ceiling-sqlite runs the
# adapter's statements from their text (scripts/bench/sql/sqlite/), never its code.
forbid shop-bench shop-persistence diesel-async
exit $status
