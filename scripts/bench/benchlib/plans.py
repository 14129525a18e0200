"""Query plans at scale, from the explain files of scripts/bench/sql/ (written with the
queries they mirror; their format is described in scripts/bench/sql/README.md):

- postgres/explain.sql runs through psql; the parameters below are given as `-v name=value`
  (the file defaults or looks up any it is not given);
- sqlite/explain.sql holds `-- param name = value` defaults and `-- name: <label>` sections of
  one statement each; they run through python3's sqlite3 module with the defaults overridden
  by the parameters below. That SQLite is the system's, which may be older than the one
  bundled in the server (the report gives both versions).

The parameters point at this dataset's rows: its shop, first products and orders, a product
halfway through the catalogue, the order `deep_rows` deep, a client with orders, a rare term
(the halfway product's SKU or EAN, in one product) and the benchmark's common search term.
"""

import json
import re
import sqlite3
import subprocess

from .config import ROOT, SQL_DIR
from .processes import Failure


def explain_file(backend):
    path = SQL_DIR / backend / "explain.sql"
    return path if path.is_file() else None


def _query(dataset, sql):
    """Rows of a read-only query on the dataset, as lists of strings (ints on SQLite)."""
    if dataset.backend == "sqlite":
        with sqlite3.connect(dataset.sqlite_path) as db:
            return [list(row) for row in db.execute(sql)]
    done = subprocess.run(["psql", dataset.url, "-X", "-At", "-F", "\t", "-c", sql],
                          capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise Failure(f"psql failed on {sql!r}: {done.stderr.strip()}")
    return [line.split("\t") for line in done.stdout.splitlines()]


def _literal(text):
    return "'" + str(text).replace("'", "''") + "'"


def _like(term):
    escaped = term.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _index_range(term):
    """The suffix index's range for a term (catalogue/search.rs): its first 16 characters, and
    those with the last one's code point plus one (the bench's terms end in no U+10FFFF)."""
    low = term[:16]
    return low, low[:-1] + chr(ord(low[-1]) + 1)


def parameters(dataset, shop_id, common_term, deep_rows):
    shop = _literal(shop_id)
    products = f"FROM products WHERE shop_id = {shop} AND active"
    newest = f"FROM orders WHERE shop_id = {shop}"
    by_date = "ORDER BY created_at_ms DESC, id DESC"
    first = [row[0] for row in _query(dataset, f"SELECT id {products} ORDER BY id LIMIT 3")]
    count = int(_query(dataset, f"SELECT count(*) {products}")[0][0])
    middle_id, sku, ean = _query(
        dataset, f"SELECT id, sku, ean {products} ORDER BY id LIMIT 1 OFFSET {count // 2}")[0]
    orders = [row[0] for row in _query(dataset, f"SELECT id {newest} {by_date} LIMIT 3")]
    deep_at, deep_id = _query(
        dataset, f"SELECT created_at_ms, id {newest} {by_date} LIMIT 1 OFFSET {deep_rows - 1}")[0]
    client = _query(dataset, f"SELECT client_id {newest} AND client_id IS NOT NULL {by_date} "
                             "LIMIT 1")
    rare = (sku or ean or middle_id).lower()
    common = common_term.lower()
    (rare_low, rare_high), (common_low, common_high) = _index_range(rare), _index_range(common)
    found = {
        "shop_id": shop_id,
        "product_after": middle_id,
        "rare_term": rare, "rare_like": _like(rare), "rare_low": rare_low, "rare_high": rare_high,
        "rare_ids_json": json.dumps([middle_id]),
        "common_term": common, "common_like": _like(common),
        "common_low": common_low, "common_high": common_high,
        "deep_at": int(deep_at), "deep_id": deep_id,
    }
    # SQLite binds a list of ids as one JSON array (crates/persistence/src/sql/one_of.rs).
    found.update(product_ids_json=json.dumps(first), order_ids_json=json.dumps(orders))
    if client:
        found["client_id"] = client[0][0]
    return found


def postgres(url, path, params):
    argv = ["psql", url, "-X", "-v", "ON_ERROR_STOP=1", "-P", "pager=off"]
    for name, value in params.items():
        argv += ["-v", f"{name}={value}"]
    argv += ["-f", str(path)]
    done = subprocess.run(argv, capture_output=True, text=True, timeout=900)
    if done.returncode != 0:
        return f"(failed: {done.stderr.strip()})\n{done.stdout}"
    return done.stdout


def _defaults(text):
    return {name: int(value) if re.fullmatch(r"-?\d+", value) else value
            for name, value in re.findall(r"^-- param (\S+) = (.*)$", text, re.M)}


def _sections(text):
    return re.findall(r"^-- name: (\S+)\n(.*?);\n", text, re.M | re.S)


def _render_plan(rows):
    """EXPLAIN QUERY PLAN rows (id, parent, notused, detail) as an indented tree."""
    depth = {0: -1}
    lines = []
    for node, parent, _, detail in rows:
        depth[node] = depth.get(parent, -1) + 1
        lines.append("  " * depth[node] + detail)
    return "\n".join(lines)


def sqlite(path_to_db, path, params):
    text = path.read_text()
    bound = {**_defaults(text), **params}
    out = [f"-- system SQLite {sqlite3.sqlite_version}"]
    # Not `mode=ro`: a read-only open of a WAL database whose -shm file is gone fails. The
    # file holds EXPLAIN QUERY PLAN statements only.
    with sqlite3.connect(path_to_db) as db:
        for name, statement in _sections(text):
            try:
                plan = _render_plan(db.execute(statement, bound).fetchall())
            except sqlite3.Error as error:
                plan = f"(failed: {error})"
            out.append(f"== {name}\n{plan}")
    return "\n".join(out) + "\n"


def capture(dataset, params):
    """[{"file", "text"}] for the dataset's backend; empty without an explain file."""
    path = explain_file(dataset.backend)
    if path is None:
        return []
    if dataset.backend == "postgres":
        text = postgres(dataset.url, path, params)
    else:
        text = sqlite(dataset.sqlite_path, path, params)
    return [{"file": str(path.relative_to(ROOT)), "text": text}]
