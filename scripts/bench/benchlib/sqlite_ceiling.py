"""Ceiling B for SQLite: `ceiling-sqlite` (crates/bench) running, on the benchmarked database
file, the one statement a products or an orders page runs (scripts/bench/sql/sqlite/*.sql,
checked against the adapter by crates/persistence's `bench_statements` test), from as many
threads as the API's pool has connections, each with a connection of its own: SQLite and
diesel's row decoding alone, no HTTP, async runtime or pool. For the API v2 writes, the same
binary runs the write's transaction (scripts/bench/sql/sqlite/{product_patch,loyalty_credit}
.sql: its statements and binds as the adapter sends them), each thread writing to a share of
the targets of its own, each transaction in the process's one write turn as the adapter's."""

import json
import subprocess
from dataclasses import dataclass, asdict
from pathlib import Path

from .config import SQL_DIR
from .processes import Failure

# endpoint -> (the binary's --page, statement file)
PAGES = {
    "products": ("products", "products_page.sql"),
    "orders": ("orders", "orders_page.sql"),
}
# endpoint -> write script (`--write`)
WRITES = {
    "product_patch": "product_patch.sql",
    "loyalty_credit": "loyalty_credit.sql",
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


def write_script_path(endpoint):
    return SQL_DIR / "sqlite" / WRITES[endpoint]


def write_argv(binary, database, endpoint, shop_id, ids_file, values, warmup_s, seconds,
               connections=API_POOL_SIZE):
    """`values`: the script's command-line variables (name -> text, or Path: its file)."""
    argv = [str(binary), "--database", str(database), "--write",
            str(write_script_path(endpoint)), "--ids", str(ids_file), "--shop", shop_id,
            "--connections", str(connections), "--warm-up", str(warmup_s),
            "--seconds", str(seconds)]
    for name, value in values.items():
        argv += ["--value", f"{name}=@{value}" if isinstance(value, Path) else f"{name}={value}"]
    return argv


def parse_write(endpoint, stdout):
    """The binary's one JSON line for a write: transactions per second, as pgbench's tps."""
    try:
        line = json.loads(stdout.strip().splitlines()[-1])
    except (IndexError, ValueError):
        raise Failure(f"ceiling-sqlite {endpoint}: no result line in {stdout!r}")
    if not line.get("transactions"):
        raise Failure(f"ceiling-sqlite {endpoint}: committed nothing ({line})")
    return WriteCeilingResult(script=WRITES[endpoint], tps=line["transactions_per_second"],
                              transactions=line["transactions"],
                              statements=line["statements"], targets=line["targets"],
                              connections=line["connections"])


@dataclass
class WriteCeilingResult:
    script: str
    tps: float  # transactions (one a request) per second, as pgbench's
    transactions: int
    statements: int
    targets: int
    connections: int

    def to_json(self):
        return asdict(self)


def measure_write(binary, database, endpoint, shop_id, ids_file, values, settings, warm=True):
    """The write's transactions: a warm-up (none with `warm=False`), then the measured
    seconds."""
    warmup_s = settings.warmup_s if warm else 0
    command = write_argv(binary, database, endpoint, shop_id, ids_file, values, warmup_s,
                         settings.duration_s)
    timeout = warmup_s + settings.duration_s + 120
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        raise Failure(f"ceiling-sqlite {endpoint} did not finish within {timeout} s")
    if done.returncode != 0:
        raise Failure(f"ceiling-sqlite {endpoint} failed:\n{done.stdout}\n{done.stderr}")
    result = parse_write(endpoint, done.stdout)
    print(f"  ceiling-sqlite {result.script:<35} {result.tps:>9.1f} tps "
          f"({result.statements} statements, {result.targets} targets)", flush=True)
    return result
