#!/usr/bin/env python3
"""PostgreSQL restart: stop PostgreSQL under a read and write load, keep it down a few
seconds, start it again. The service must answer 503 (with Retry-After) while it is down and
2xx again within 5 s after it is back; writers retry on 5xx and on cut connections with the
SAME Idempotency-Key, and every logical adjustment must end up applied exactly once.

    pg_restart.py [--cluster private|shared] [--outage-seconds 5]

`private` (default) restarts a throw-away cluster of its own; `shared` restarts the
machine's cluster with pg_ctlcluster (CI only: it cuts everyone's connections).
"""

import argparse
import random
import statistics
import sys
import threading
import time
from collections import Counter
from dataclasses import dataclass

sys.dont_write_bytecode = True

from faultlib import scenario as scenarios
from faultlib.catalogue import random_delta, tracked_catalogue
from faultlib.http import Adjustment, Client, TransportError
from faultlib.ledger import Ledger, api_stock, audit, record_answer
from faultlib.postgres import PrivateCluster, SharedCluster, scratch_database
from faultlib.server import ShopApi
from faultlib.stored import StoredData

SLUG = "faults-pg"
RECOVERY_TARGET_SECONDS = 5
RETRY_PAUSE_SECONDS = 0.2  # well under Retry-After: the point is to see recovery promptly
GIVE_UP_AFTER_SECONDS = 60


@dataclass
class Exchange:
    kind: str  # "read" or "write"
    sent_at: float
    answered_at: float
    status: int | None  # None: no HTTP answer (refused, cut or timed out)
    retry_after: str | None


class Traffic:
    def __init__(self):
        self.exchanges: list[Exchange] = []
        self.lock = threading.Lock()
        self.stopping = threading.Event()

    def record(self, kind, sent_at, reply=None):
        exchange = Exchange(kind, sent_at, time.monotonic(), reply and reply.status,
                            reply and reply.headers.get("retry-after"))
        with self.lock:
            self.exchanges.append(exchange)


def write_load(base_url, key, variants, ledger, traffic, seed):
    """Logical adjustments one after the other, each retried until acknowledged."""
    rng = random.Random(seed)
    client = Client(base_url, timeout=15)
    while not traffic.stopping.is_set():
        entry = ledger.open(Adjustment.new(rng.choice(variants), random_delta(rng)))
        begun = time.monotonic()
        while time.monotonic() - begun < GIVE_UP_AFTER_SECONDS:
            entry.attempts += 1
            sent_at = time.monotonic()
            try:
                reply = entry.adjustment.send(client, key)
            except TransportError:
                traffic.record("write", sent_at)
                time.sleep(RETRY_PAUSE_SECONDS)
                continue
            traffic.record("write", sent_at, reply)
            if reply.status < 500:
                record_answer(entry, reply)
                break
            time.sleep(RETRY_PAUSE_SECONDS)


def read_load(base_url, key, traffic):
    client = Client(base_url, timeout=15)
    paths = ["/api/v1/stock?limit=50", "/api/v1/products?limit=20"]
    n = 0
    while not traffic.stopping.is_set():
        sent_at = time.monotonic()
        try:
            traffic.record("read", sent_at, client.request("GET", paths[n % 2], key=key))
        except TransportError:
            traffic.record("read", sent_at)
        n += 1
        time.sleep(0.02)


def seconds(value: float | None) -> float | None:
    return None if value is None else round(value, 2)


def main(s: scenarios.Scenario, args) -> None:
    cluster = (PrivateCluster if args.cluster == "private" else SharedCluster)(s.work)
    cluster.create(s.cleanup)
    url = scratch_database(cluster.admin_url, "faults_pg_restart", s.cleanup)
    api = ShopApi(scenarios.BINARY, url, s.work)
    s.cleanup.callback(api.stop)
    data, initial = tracked_catalogue()
    api.create_shop(SLUG, data)
    key = api.create_key(SLUG, "stock:read,stock:write,products:read")
    base_url = api.start()
    api.wait_ready(key)

    ledger, traffic = Ledger(), Traffic()
    loads = [threading.Thread(target=write_load, args=(base_url, key, sorted(initial), ledger,
                                                       traffic, seed)) for seed in range(args.writers)]
    loads += [threading.Thread(target=read_load, args=(base_url, key, traffic))
              for _ in range(args.readers)]
    for load in loads:
        load.start()
    time.sleep(2)
    s.log(f"stopping PostgreSQL ({args.cluster} cluster) under {args.writers} writers "
          f"and {args.readers} readers")
    stop_begun = time.monotonic()
    cluster.stop()
    down_at = time.monotonic()
    time.sleep(args.outage_seconds)
    s.log("starting PostgreSQL")
    cluster.start()
    up_at = time.monotonic()
    s.log(f"PostgreSQL ready again after {up_at - down_at:.1f} s down")
    time.sleep(args.recovery_seconds)
    traffic.stopping.set()
    for load in loads:
        load.join(timeout=GIVE_UP_AFTER_SECONDS + 20)

    exchanges = sorted(traffic.exchanges, key=lambda e: e.answered_at)
    during = [e for e in exchanges if stop_begun <= e.answered_at < up_at]
    refused = [e for e in during if e.status == 503]
    after = [e for e in exchanges if e.answered_at >= up_at]

    def first_success(kind):
        return next((e.answered_at - up_at for e in after
                     if e.kind == kind and e.status is not None and e.status < 300), None)

    failures_after = [e for e in after if e.status is None or e.status >= 300]
    late_failures = [e for e in failures_after if e.sent_at >= up_at + RECOVERY_TARGET_SECONDS]
    s.figure("cluster", args.cluster)
    s.figure("stop took (s)", round(down_at - stop_begun, 2))
    s.figure("PostgreSQL down (s)", round(up_at - down_at, 2))
    s.figure("requests answered before the stop", sum(1 for e in exchanges if e.answered_at < stop_begun))
    s.figure("requests answered while PG stopped or was down", len(during))
    s.figure("  503 SERVICE_UNAVAILABLE", len(refused))
    s.figure("  503 without Retry-After", sum(1 for e in refused if not e.retry_after))
    s.figure("  2xx", sum(1 for e in during if e.status is not None and e.status < 300))
    s.figure("  other statuses", dict(Counter(e.status for e in during
                                              if e.status is not None and e.status >= 300
                                              and e.status != 503)))
    s.figure("  no HTTP answer", sum(1 for e in during if e.status is None))
    s.figure("503 answer time median / max (s)",
             f"{seconds(statistics.median(e.answered_at - e.sent_at for e in refused)) if refused else None}"
             f" / {seconds(max((e.answered_at - e.sent_at for e in refused), default=None))}")
    s.figure("first 2xx read after PG is back (s)", seconds(first_success("read")))
    s.figure("first 2xx write after PG is back (s)", seconds(first_success("write")))
    s.figure("last failure after PG is back (s)",
             seconds(max((e.answered_at - up_at for e in failures_after), default=None)))
    s.figure("failures after PG is back", len(failures_after))
    # Requests finishing while PostgreSQL shuts down may still succeed; nothing may fail
    # other than with 503.
    s.require(bool(refused), "no request was answered 503 while PostgreSQL was down")
    wrong = Counter(e.status or "no answer" for e in during
                    if e.status is None or (e.status >= 300 and e.status != 503))
    s.require(not wrong, f"while PostgreSQL was stopping or down, requests were answered "
              f"neither 2xx nor 503: {dict(wrong)}")
    s.require(all(e.retry_after for e in refused), "a 503 came without Retry-After")
    for kind in ("read", "write"):
        back = first_success(kind)
        s.require(back is not None and back <= RECOVERY_TARGET_SECONDS,
                  f"no 2xx {kind} within {RECOVERY_TARGET_SECONDS} s of PostgreSQL being back "
                  f"(first after {seconds(back)} s)")
    s.require(not late_failures, f"{len(late_failures)} requests sent more than "
              f"{RECOVERY_TARGET_SECONDS} s after PostgreSQL was back still failed")

    entries = ledger.entries()
    stored = StoredData(url, SLUG)
    books = audit(entries, stored.movements(), stored.stock(), initial)
    retried = [e for e in entries if e.attempts > 1]
    s.figure("logical adjustments", len(entries))
    s.figure("  acknowledged 201", books.acknowledged)
    s.figure("  retried (same Idempotency-Key)", len(retried))
    s.figure("  acknowledged by a replay", sum(1 for e in entries if e.replayed))
    s.figure("  refused (4xx)", sum(1 for e in entries if e.status not in (None, 201)))
    s.figure("  unresolved (gave up)", books.unanswered)
    s.figure("movements stored", books.stored)
    s.figure("lost", len(books.lost))
    s.figure("doubled", len(books.doubled))
    s.require(books.unanswered == 0, f"{books.unanswered} adjustments were never acknowledged")
    s.require(all(e.status in (None, 201) for e in entries), "an adjustment was refused")
    for violation in books.violations:
        s.require(False, violation)
    acknowledged_sum = {v: start + sum(e.adjustment.delta for e in entries
                                       if e.status == 201 and e.adjustment.variant == v)
                        for v, start in initial.items()}
    s.require(stored.stock() == acknowledged_sum,
              "stored stock != initial + sum of the acknowledged adjustments")
    s.require(api_stock(Client(base_url), key) == acknowledged_sum,
              "GET /api/v1/stock != initial + sum of the acknowledged adjustments")
    s.figure("PostgreSQL up at the end", cluster.is_ready())


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--cluster", choices=["private", "shared"], default="private")
    parser.add_argument("--writers", type=int, default=4)
    parser.add_argument("--readers", type=int, default=2)
    parser.add_argument("--outage-seconds", type=float, default=5)
    parser.add_argument("--recovery-seconds", type=float, default=10)
    arguments = parser.parse_args()
    scenarios.run("pg_restart", lambda s: main(s, arguments))
