"""Ceiling B for SQLite: `ceiling-sqlite` (crates/bench) running, on the benchmarked database
file, the one statement a products or an orders page runs (scripts/bench/sql/sqlite/*.sql,
checked against the adapter by crates/persistence's `bench_statements` test), from as many
threads as the API's pool has connections, each with a connection of its own: SQLite and
diesel's row decoding alone, no HTTP, async runtime or pool."""

import json
import subprocess
from dataclasses import dataclass, asdict

from .config import SQL_DIR
from .processes import Failure

# endpoint -> (the binary's --page, statement file)
PAGES = {
    "products": ("products", "products_page.sql"),
    "orders": ("orders", "orders_page.sql"),
}
# The API's SQLite pool: `--database-pool-size`'s default (crates/app), which bench.py keeps.
API_POOL_SIZE = 8


@dataclass
class CeilingResult:
    statement: str
    tps: float  # pages per second, named as pgbench's transactions so that ratios read alike
    pages: int
    rows_per_page: int
    connections: int

    def to_json(self):
        return asdict(self)


def statement_path(endpoint):
    return SQL_DIR / "sqlite" / PAGES[endpoint][1]


def argv(binary, database, endpoint, shop_id, warmup_s, seconds, connections=API_POOL_SIZE):
    page, _ = PAGES[endpoint]
    return [str(binary), "--database", str(database), "--page", page,
            "--statement", str(statement_path(endpoint)), "--shop", shop_id,
            "--connections", str(connections), "--warm-up", str(warmup_s),
            "--seconds", str(seconds)]


def parse(endpoint, stdout):
    """The binary's one JSON line."""
    try:
        line = json.loads(stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise Failure(f"ceiling-sqlite {endpoint}: no result line in {stdout!r}")
    if not line.get("pages") or not line.get("rows_per_page"):
        raise Failure(f"ceiling-sqlite {endpoint}: read nothing ({line})")
    return CeilingResult(statement=PAGES[endpoint][1], tps=line["pages_per_second"],
                         pages=line["pages"], rows_per_page=line["rows_per_page"],
                         connections=line["connections"])


def measure(binary, database, endpoint, shop_id, settings, warm=True):
    """The binary's run: its warm-up (none with `warm=False`, when this page was warmed up
    already), then the measured seconds."""
    warmup_s = settings.warmup_s if warm else 0
    command = argv(binary, database, endpoint, shop_id, warmup_s, settings.duration_s)
    timeout = warmup_s + settings.duration_s + 120
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"ceiling-sqlite {endpoint} did not finish within {timeout} s")
    if done.returncode != 0:
        raise Failure(f"ceiling-sqlite {endpoint} failed:\n{done.stdout}\n{done.stderr}")
    result = parse(endpoint, done.stdout)
    print(f"  ceiling-sqlite {result.statement:<35} {result.tps:>9.1f} pages/s "
          f"({result.rows_per_page} rows a page)", flush=True)
    return result
