"""The two datasets of a backend (big and small, in separate databases so that the
flat-with-size comparison compares table sizes, not shops), seeded with `shop-api seed`."""

import os
import re
import subprocess
import time
from dataclasses import dataclass

from .config import OUT_DIR
from .processes import Failure, tail

SLUG = "bench"
# The v2 writes (issue 35) need products:write and loyalty:write.
KEY_SCOPES = ("products:read,products:write,orders:read,stock:read,stock:write,clients:read,"
              "loyalty:read,loyalty:write")
SEED_SUMMARY = re.compile(r"^seeded (\d+) rows in ([\d.]+) s \(([\d.]+) rows/s\)")

_created_pg = []


@dataclass
class Dataset:
    backend: str
    size: str  # "big" or "small"
    url: str
    sqlite_path: str = ""
    pg_name: str = ""


def psql(admin_url, sql):
    # On standard input, not as an argument: the writes' targets table is a few hundred KB of
    # SQL on the big dataset, past the kernel's limit for one argument (128 KiB).
    done = subprocess.run(
        ["psql", admin_url, "-X", "-q", "-v", "ON_ERROR_STOP=1", "-f", "-"],
        input=sql, capture_output=True, text=True, timeout=300,
    )
    if done.returncode != 0:
        raise Failure(f"psql failed on {sql[:200]!r}: {done.stderr.strip()}")


def pg_url(admin_url, database):
    base, _, _ = admin_url.rpartition("/")
    return f"{base}/{database}"


def create(backend, size, settings):
    if backend == "sqlite":
        path = OUT_DIR / f"sqlite-{size}.db"
        for suffix in ("", "-wal", "-shm"):
            try:
                os.remove(f"{path}{suffix}")
            except FileNotFoundError:
                pass
        return Dataset(backend, size, f"sqlite://{path}", sqlite_path=str(path))
    name = f"shop_bench_{os.getpid()}_{size}"
    psql(settings.pg_admin_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
    psql(settings.pg_admin_url, f"CREATE DATABASE {name}")
    _created_pg.append((settings.pg_admin_url, name))
    return Dataset(backend, size, pg_url(settings.pg_admin_url, name), pg_name=name)


def drop_all(keep_data):
    """Drops the PostgreSQL databases made by this run (and SQLite files unless kept)."""
    while _created_pg:
        admin_url, name = _created_pg.pop()
        try:
            psql(admin_url, f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        except Exception as error:  # cleanup must reach every database
            print(f"warning: could not drop {name}: {error}")
    if not keep_data:
        for path in OUT_DIR.glob("sqlite-*.db*"):
            path.unlink(missing_ok=True)


def shop_api(settings, dataset, *args, timeout_s=120):
    argv = [str(settings.shop_api), "--database-url", dataset.url, *map(str, args)]
    log = OUT_DIR / "logs" / f"{dataset.backend}-{dataset.size}-{args[0]}.log"
    log.parent.mkdir(parents=True, exist_ok=True)
    with open(log, "w") as stderr:
        try:
            done = subprocess.run(argv, stdout=subprocess.PIPE, stderr=stderr, text=True,
                                  timeout=timeout_s)
        except subprocess.TimeoutExpired:
            raise Failure(f"`shop-api {args[0]}` did not finish within {timeout_s} s")
    if done.returncode != 0:
        raise Failure(f"`shop-api {' '.join(map(str, args))}` failed ({done.returncode}):\n"
                      f"{tail(log)}")
    return done.stdout.strip()


def seed(settings, dataset, sizes):
    """Runs `shop-api seed`; returns its summary figures and the wall time seen from here."""
    started = time.monotonic()
    out = shop_api(
        settings, dataset, "seed", "--shop", SLUG, "--products", sizes.products,
        "--orders", sizes.orders, "--clients", sizes.clients, "--seed", 1,
        timeout_s=settings.seed_timeout_s,
    )
    summary = next((l for l in out.splitlines() if SEED_SUMMARY.match(l)), None)
    if summary is None:
        raise Failure(f"`shop-api seed` printed no summary line: {out!r}")
    rows, secs, rate = SEED_SUMMARY.match(summary).groups()
    print(f"  {dataset.backend} {dataset.size}: {summary}", flush=True)
    return {
        "summary": summary,
        "rows": int(rows),
        "seconds": float(secs),
        "rows_per_s": float(rate),
        "wall_s": round(time.monotonic() - started, 1),
        "sizes": {"products": sizes.products, "orders": sizes.orders, "clients": sizes.clients},
    }


def gather_statistics(settings, dataset):
    """`ANALYZE` of the catalogue a PostgreSQL database got from `shop-api import` (the seed
    tool analyzes its own): in production autovacuum gathers the planner's statistics within
    a minute of a big import, and this machine's PostgreSQL runs without it. Without them the
    planner takes `shop_id = …` for a rare value and reads every variant of the shop for one
    product's (docs/performance-log.md, 28 November). The webhook tables are left out: still
    empty here, their statistics would say so long after they have filled, which autovacuum
    would not let happen either. SQLite's plans are written not to need any."""
    if dataset.pg_name:
        psql(pg_url(settings.pg_admin_url, dataset.pg_name), "ANALYZE products, variants")


def settle(settings, datasets):
    """Puts what the seeds wrote on disk before anything is measured: a PostgreSQL CHECKPOINT
    per database (otherwise its checkpointer writes the seed's dirty buffers during some
    later measurement), then sync(2) for what the page cache still holds. Returns the
    seconds taken."""
    started = time.monotonic()
    for dataset in datasets:
        if dataset.pg_name:
            psql(pg_url(settings.pg_admin_url, dataset.pg_name), "CHECKPOINT")
    os.sync()
    return round(time.monotonic() - started, 1)


def create_key(settings, dataset, scopes=KEY_SCOPES):
    key = shop_api(settings, dataset, "key", "create", "--shop", SLUG, "--label", "bench",
                   "--scopes", scopes)
    if not key or "\n" in key:
        raise Failure(f"`shop-api key create` printed {key!r}, expected one key")
    return key


def key_prefix(settings, dataset):
    """The public prefix of the benchmark's key, from `shop-api key list`."""
    listing = shop_api(settings, dataset, "key", "list", "--shop", SLUG).splitlines()
    header = listing[0].split("\t") if listing else []
    for line in listing[1:]:
        row = dict(zip(header, line.split("\t")))
        if row.get("LABEL") == "bench":
            return row["PREFIX"]
    raise Failure(f"`shop-api key list` shows no key labelled bench: {listing!r}")


def count_search_matches(dataset, term):
    """How many products of the dataset contain `term` in their (case-folded) search text:
    the report says how selective the searched term is. None when it cannot be counted."""
    folded = term.lower()
    try:
        if dataset.backend == "sqlite":
            import sqlite3

            # Read-only by use, not by flag: a read-only open of a WAL database whose -shm file
            # is gone (the server closed it) fails.
            with sqlite3.connect(dataset.sqlite_path) as db:
                sql = "SELECT count(*) FROM products WHERE instr(search_text, ?) > 0"
                return db.execute(sql, (folded,)).fetchone()[0]
        # psql interpolates :'term' (quoted) in its input, not in -c.
        done = subprocess.run(
            ["psql", dataset.url, "-X", "-At", "-v", f"term={folded}"],
            input="SELECT count(*) FROM products WHERE strpos(search_text, :'term') > 0;\n",
            capture_output=True, text=True, timeout=300,
        )
        return int(done.stdout.strip()) if done.returncode == 0 else None
    except Exception:
        return None
