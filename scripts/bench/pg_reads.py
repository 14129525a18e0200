#!/usr/bin/env python3
"""PostgreSQL's share of a read, for two builds of `shop-api` alternated on one database.

For each of the four reads that load rows with their children (a products page, a product by
id, an orders page, an order by id) it reports requests per second, the API process's CPU per
request and PostgreSQL's CPU per request: the CPU time of the server's backends connected to
the benchmark's database over the run, divided by the requests wrk counted (from
/proc/<pid>/stat; the backends live as long as the API's pool, so a run's CPU is the
difference of two readings of the same processes, plus any backend that appeared in between).

    python3 scripts/bench/pg_reads.py --old /tmp/shop-api-old --new target/release/shop-api

Rounds alternate which build goes first, so that a drift of the machine falls on both; a
figure is the median of its rounds. The dataset is seeded once with `--new` (10,000 products,
10,000 orders). Used for issue 20's "one statement per read" (docs/PERFORMANCE.md).
"""

import argparse
import json
import os
import re
import signal
import socket
import statistics
import subprocess
import sys
import time
import urllib.request

API = "/api/v1"

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from benchlib import cpu  # noqa: E402  (the benchmark's own CPU readings from /proc)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(binary, url, *args, capture=True):
    done = subprocess.run([binary, "--database-url", url, *map(str, args)],
                          capture_output=capture, text=True, timeout=900, check=True)
    return done.stdout.strip() if capture else ""


class Server:
    def __init__(self, binary, url, key, workers):
        self.port = free_port()
        self.process = subprocess.Popen(
            [binary, "--database-url", url, "serve", "--bind", f"127.0.0.1:{self.port}",
             "--workers", str(workers),
             "--rate-limit-reads-per-minute", "1000000000",
             "--rate-limit-writes-per-minute", "1000000000",
             "--auth-failures-per-minute", "1000000000"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
            env={**os.environ, "RUST_LOG": "warn"})
        deadline = time.monotonic() + 30
        while True:
            try:
                self.get("/me", key)
                return
            except OSError:
                if time.monotonic() > deadline:
                    raise
                time.sleep(0.1)

    def get(self, path, key):
        request = urllib.request.Request(f"http://127.0.0.1:{self.port}{API}{path}",
                                         headers={"Authorization": f"Bearer {key}"})
        with urllib.request.urlopen(request, timeout=10) as response:
            return response.read()

    def stop(self):
        self.process.send_signal(signal.SIGTERM)
        self.process.wait(timeout=60)


def wrk(port, path, key, seconds, connections):
    out = subprocess.run(
        ["wrk", "-t2", f"-c{connections}", f"-d{seconds}s", "-H", f"Authorization: Bearer {key}",
         f"http://127.0.0.1:{port}{API}{path}"],
        capture_output=True, text=True, check=True).stdout
    requests = int(re.search(r"(\d+) requests in", out).group(1))
    if "Non-2xx" in out:
        raise SystemExit(f"wrk saw non-2xx answers on {path}:\n{out}")
    return requests


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--old", required=True)
    parser.add_argument("--new", required=True)
    parser.add_argument("--admin-url", default="postgres://postgres@127.0.0.1:5432/postgres")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seconds", type=int, default=8)
    parser.add_argument("--connections", type=int, default=16)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    args = parser.parse_args()

    database = f"shop_pg_reads_{os.getpid()}"
    url = args.admin_url.rpartition("/")[0] + "/" + database
    psql = ["psql", args.admin_url, "-X", "-q", "-c"]
    subprocess.run(psql + [f"CREATE DATABASE {database}"], check=True)
    try:
        run(args.new, url, "seed", "--shop", "reads", "--products", 10000, "--orders", 10000,
            "--clients", 1000)
        subprocess.run(["psql", url, "-X", "-q", "-c", "VACUUM ANALYZE"], check=True)
        key = run(args.new, url, "key", "create", "--shop", "reads", "--label", "bench",
                  "--scopes", "products:read,orders:read").splitlines()[-1]
        probe = Server(args.new, url, key, args.workers)
        product = json.loads(probe.get("/products?limit=1", key))["data"][0]["id"]
        order = json.loads(probe.get("/orders?limit=1", key))["data"][0]["id"]
        probe.stop()
        reads = {
            "products page": "/products?limit=20",
            "product by id": f"/products/{product}",
            "orders page": "/orders?limit=20",
            "order by id": f"/orders/{order}",
        }
        figures = {(build, name): [] for build in ("old", "new") for name in reads}
        for round_ in range(args.rounds):
            order_ = ("old", "new") if round_ % 2 == 0 else ("new", "old")
            for build in order_:
                binary = args.old if build == "old" else args.new
                server = Server(binary, url, key, args.workers)
                try:
                    for name, path in reads.items():
                        wrk(server.port, path, key, 2, args.connections)  # warm-up
                        meter = cpu.Meter(server.process.pid, database)
                        before = meter.read()
                        requests = wrk(server.port, path, key, args.seconds, args.connections)
                        used = cpu.per_request(meter.read().since(before), requests)
                        figure = (requests / args.seconds, used["api"], used["postgres"])
                        figures[(build, name)].append(figure)
                        print(f"round {round_ + 1} {build:3} {name:14} {figure[0]:8.0f} req/s "
                              f"API {figure[1]:6.1f} µs  PostgreSQL {figure[2]:6.1f} µs",
                              flush=True)
                finally:
                    server.stop()
        print("\nmedians of the rounds (old → new):")
        print("| request | req/s old | req/s new | API µs old | API µs new "
              "| PostgreSQL µs old | PostgreSQL µs new | PostgreSQL change |")
        print("|---|---|---|---|---|---|---|---|")
        for name in reads:
            old = [statistics.median(f[i] for f in figures[("old", name)]) for i in range(3)]
            new = [statistics.median(f[i] for f in figures[("new", name)]) for i in range(3)]
            print(f"| {name} | {old[0]:,.0f} | {new[0]:,.0f} | {old[1]:.0f} | {new[1]:.0f} "
                  f"| {old[2]:.0f} | {new[2]:.0f} | {(new[2] / old[2] - 1) * 100:+.0f}% |")
    finally:
        subprocess.run(psql + [f"DROP DATABASE IF EXISTS {database} WITH (FORCE)"])


if __name__ == "__main__":
    sys.exit(main())
