"""Ceiling B: pgbench running, at the API's concurrency, the SQL that one request runs
(scripts/bench/sql/postgres/*.sql, written to mirror exactly what the API sends)."""

import re
import subprocess
import urllib.parse
from dataclasses import dataclass, asdict

from .config import SQL_DIR
from .processes import Failure

SCRIPTS = {
    "products": "products_page.sql",
    "product": "product.sql",
    "orders": "orders_page.sql",
    "order": "order.sql",
    "adjustments": "adjustment.sql",
    "product_patch": "product_patch.sql",
    "loyalty_credit": "loyalty_credit.sql",
}


@dataclass
class PgbenchResult:
    script: str
    tps: float
    latency_ms: float
    transactions: int
    failed: int

    def to_json(self):
        return asdict(self)


def script_path(endpoint):
    return SQL_DIR / "postgres" / SCRIPTS[endpoint]


def plaintext(url):
    """`url` with `sslmode=disable`: the API talks to PostgreSQL over plain TCP (diesel-async's
    tokio-postgres connection has no TLS), while libpq's default, `sslmode=prefer`, negotiates
    TLS whenever the server offers it, as Debian's does. Over TLS, libcrypto and libssl were
    about 9% of the machine's CPU samples, work the API never does, and pgbench reached a
    quarter fewer transactions (docs/PERFORMANCE.md): ceiling B must use the API's transport."""
    parts = urllib.parse.urlsplit(url)
    query = [(k, v) for k, v in urllib.parse.parse_qsl(parts.query) if k != "sslmode"]
    query.append(("sslmode", "disable"))
    return urllib.parse.urlunsplit(parts._replace(query=urllib.parse.urlencode(query)))


def run(url, script, variables, seconds, clients, threads):
    argv = ["pgbench", "-n", "-M", "prepared", "-c", str(clients), "-j", str(threads),
            "-T", str(seconds), "-f", str(script)]
    for name, value in variables.items():
        argv += ["-D", f"{name}={value}"]
    argv.append(plaintext(url))
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=seconds + 120)
    except subprocess.TimeoutExpired:
        raise Failure(f"pgbench {script.name} did not finish within {seconds + 120} s")
    if done.returncode != 0:
        raise Failure(f"pgbench {script.name} failed:\n{done.stdout}\n{done.stderr}")
    out = done.stdout

    def number(pattern, default=None):
        found = re.search(pattern, out)
        if found:
            return float(found.group(1))
        if default is None:
            raise Failure(f"pgbench {script.name}: no {pattern!r} in its output:\n{out}")
        return default

    return PgbenchResult(
        script=script.name,
        tps=round(number(r"tps = ([\d.]+) \(without initial connection time\)"), 1),
        latency_ms=number(r"latency average = ([\d.]+) ms"),
        transactions=int(number(r"number of transactions actually processed: (\d+)")),
        failed=int(number(r"number of failed transactions: (\d+)", 0)),
    )


def measure(url, script, variables, settings, warm=True):
    """A warm-up run (not kept; `warm=False` when this script was warmed up already), then the
    measured run."""
    clients = settings.connections
    threads = min(settings.wrk_threads, clients)
    if warm and settings.warmup_s:
        run(url, script, variables, settings.warmup_s, clients, threads)
    result = run(url, script, variables, settings.duration_s, clients, threads)
    if result.failed:
        raise Failure(f"pgbench {script.name}: {result.failed} failed transactions")
    print(f"  pgbench {script.name:<36} {result.tps:>9.1f} tps    avg {result.latency_ms:.3f} ms",
          flush=True)
    return result
