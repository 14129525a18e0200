"""The API v2 writes of the throughput step (issue 35): a product's PATCH and a loyalty credit.

What they write to (their targets), read from the dataset's database: the products of the one
shape the ceilings' scripts are written for (scripts/bench/sql/README.md: one variant, a
category and a brand, every code, a swatch colour and a low-stock threshold, no compare-at
price), and the shop's clients, both in id order. wrk's threads, pgbench's clients and
`ceiling-sqlite`'s threads each cycle through a share of them of their own, so that no two
requests in flight write one row. The event bodies the ceilings insert are the ones the API
rendered for the captured requests (their size is what costs)."""

import json
import sqlite3
import subprocess
from pathlib import Path

from .datasets import psql
from .processes import Failure

# endpoint name -> (wrk mode of load.lua, target kind, event type)
WRITES = {
    "product_patch": ("patch", "product", "product.updated"),
    "loyalty_credit": ("credit", "client", "client.updated"),
}
# Targets per write, at most: as many as the adjustments' tracked variants.
MAX_TARGETS = 2048
# The pgbench scripts pick their target in this table of the benchmarked database (the
# harness's: the application never reads it), filled with the ids wrk cycles through.
PGBENCH_TARGETS_TABLE = "bench_write_targets"

# The products of the scripts' shape, in id order. Portable SQL (SQLite and PostgreSQL).
SHAPED_PRODUCTS = """
SELECT p.id FROM products p
JOIN variants v ON v.shop_id = p.shop_id AND v.product_id = p.id
WHERE p.shop_id = {shop} AND p.ean IS NOT NULL AND p.sku IS NOT NULL
  AND p.compare_at_price_cents IS NULL AND p.category_id IS NOT NULL
  AND p.brand_id IS NOT NULL AND v.sku IS NOT NULL AND v.barcode IS NOT NULL
  AND v.swatch_color IS NOT NULL AND v.low_stock_threshold IS NOT NULL
  AND NOT EXISTS (SELECT 1 FROM variants o
                  WHERE o.shop_id = p.shop_id AND o.product_id = p.id AND o.id <> v.id)
ORDER BY p.id LIMIT {limit}
"""
CLIENTS = "SELECT id FROM clients WHERE shop_id = {shop} ORDER BY id LIMIT {limit}"
EVENT_BODY = ("SELECT body FROM webhook_events WHERE shop_id = {shop} AND resource = {resource} "
              "ORDER BY seq DESC LIMIT 1")


def quote(text):
    return "'" + text.replace("'", "''") + "'"


def query(dataset, sql):
    """The first column of every row of `sql` on the dataset's database."""
    if dataset.backend == "sqlite":
        with sqlite3.connect(dataset.sqlite_path) as db:
            return [row[0] for row in db.execute(sql)]
    done = subprocess.run(["psql", dataset.url, "-X", "-A", "-t", "-v", "ON_ERROR_STOP=1",
                           "-c", sql], capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise Failure(f"psql failed on {sql!r}: {done.stderr.strip()}")
    # psql -At separates rows by newlines; a value here (an id, a JSON body) holds none.
    return [line for line in done.stdout.split("\n") if line]


def usable(found, connections):
    """How many of `found` targets a run uses: all of them when fewer than the connections
    (then some requests in flight share a row), else a multiple of the connections, so that
    pgbench's clients split them into equal, disjoint shares."""
    found = min(found, MAX_TARGETS)
    if found < connections:
        return found
    return found - found % connections


def targets(dataset, shop_id, kind, connections):
    """The ids a write cycles through, in id order."""
    template = SHAPED_PRODUCTS if kind == "product" else CLIENTS
    ids = query(dataset, template.format(shop=quote(shop_id), limit=MAX_TARGETS))
    if not ids:
        what = ("product of the benchmarked shape (scripts/bench/sql/README.md)"
                if kind == "product" else "client")
        raise Failure(f"the {dataset.size} dataset has no {what} to write to")
    return ids[:usable(len(ids), connections)]


def event_body(dataset, shop_id, resource):
    """The body of the newest event of `resource` (`product:<id>`), as the API rendered it."""
    found = query(dataset, EVENT_BODY.format(shop=quote(shop_id), resource=quote(resource)))
    if not found:
        raise Failure(f"no event of {resource} after its captured write: the outbox is off?")
    return found[0]


def capture_request(api, name, target):
    """One write to `target`, which must succeed: (request path, its response body)."""
    if name == "product_patch":
        path = f"/api/v2/products/{target}"
        status, body = api.send("PATCH", path, json.dumps({"priceCents": 4242}),
                                content_type="application/merge-patch+json")
        expected = 200
    else:
        path = f"/api/v2/clients/{target}/loyalty/adjustments"
        status, body = api.send("POST", path, json.dumps({"points": 1, "reason": "bench"}))
        expected = 201
    if status != expected:
        raise Failure(f"{path} answered {status}: {body[:300]!r}")
    return path, body


def pgbench_targets_sql(targets_by_kind):
    """The statements that (re)make PGBENCH_TARGETS_TABLE with the given ids: kind -> ids,
    each numbered from 0 in its order."""
    rows = [f"({quote(kind)}, {k}, {quote(target)})"
            for kind, ids in targets_by_kind.items() for k, target in enumerate(ids)]
    return (f"DROP TABLE IF EXISTS {PGBENCH_TARGETS_TABLE}; "
            f"CREATE TABLE {PGBENCH_TARGETS_TABLE} (kind text, k int, id text NOT NULL, "
            "PRIMARY KEY (kind, k)); "
            f"INSERT INTO {PGBENCH_TARGETS_TABLE} VALUES {', '.join(rows)}")


def prepare_pgbench(dataset, targets_by_kind):
    """PGBENCH_TARGETS_TABLE in the dataset's PostgreSQL database."""
    if dataset.backend == "postgres" and targets_by_kind:
        psql(dataset.url, pgbench_targets_sql(targets_by_kind))


def pgbench_variables(shop_id, key_prefix, event_body_text, clients, target_count):
    """The -D variables of product_patch.sql and loyalty_credit.sql."""
    return {"shop_id": shop_id, "key_prefix": key_prefix, "event_body": event_body_text,
            "clients": clients, "targets": target_count, "turn": 0}


def write_file(path, text):
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return path
