#!/usr/bin/env python3
"""Crash: while clients send stock adjustments, SIGKILL the server, start it again, and check
that every adjustment answered 201 is stored, that no adjustment is stored twice, and that each
variant's stock equals its initial stock plus the sum of its movements. Then retry, with their
Idempotency-Keys, the adjustments cut off by the kill, as an ERP would: each must end up
applied exactly once.

    crash.py --backend sqlite|postgres [--clients 6] [--load-seconds 3]
"""

import argparse
import os
import random
import sys
import threading
import time

sys.dont_write_bytecode = True

from faultlib import scenario as scenarios
from faultlib.catalogue import random_delta, tracked_catalogue
from faultlib.http import Adjustment, Client, TransportError
from faultlib.ledger import Ledger, api_stock, audit, record_answer
from faultlib.postgres import ADMIN_URL, scratch_database
from faultlib.server import ShopApi
from faultlib.stored import StoredData

SLUG = "faults-crash"


def send_until_killed(base_url, key, variants, ledger, killed, seed):
    """One client: adjustments back to back until the server dies under it."""
    rng = random.Random(seed)
    client = Client(base_url, timeout=10)
    while not killed.is_set():
        entry = ledger.open(Adjustment.new(rng.choice(variants), random_delta(rng)))
        entry.attempts += 1
        try:
            reply = entry.adjustment.send(client, key)
        except TransportError:
            return  # cut off by the kill: its fate is for the audit to find out
        record_answer(entry, reply)


def main(s: scenarios.Scenario, args) -> None:
    if args.backend == "sqlite":
        url = f"sqlite://{s.work / 'shop.db'}"
    else:
        url = scratch_database(ADMIN_URL, f"faults_crash_{os.getpid()}", s.cleanup)
    api = ShopApi(scenarios.BINARY, url, s.work)
    s.cleanup.callback(api.stop)
    data, initial = tracked_catalogue()
    api.create_shop(SLUG, data)
    key = api.create_key(SLUG, "stock:read,stock:write")

    base_url = api.start()
    api.wait_ready(key)
    s.log(f"{args.backend}: {args.clients} clients adjusting {len(initial)} variants")
    ledger, killed = Ledger(), threading.Event()
    clients = [threading.Thread(target=send_until_killed,
                                args=(base_url, key, sorted(initial), ledger, killed, seed))
               for seed in range(args.clients)]
    for client in clients:
        client.start()
    time.sleep(args.load_seconds)
    killed.set()
    api.kill9()
    for client in clients:
        client.join(timeout=30)
    s.log("server killed (SIGKILL); restarting on the same database")

    base_url = api.start()
    s.figure("restart to ready (s)", round(api.wait_ready(key), 2))
    entries = ledger.entries()
    stored = StoredData(url, SLUG)
    after_kill = audit(entries, stored.movements(), stored.stock(), initial)
    s.figure("backend", args.backend)
    s.figure("requests sent", len(entries))
    s.figure("answered 201 (acknowledged)", after_kill.acknowledged)
    s.figure("answered otherwise", sum(1 for e in entries if e.status not in (None, 201)))
    s.figure("acknowledged found after restart", after_kill.found)
    s.figure("lost", len(after_kill.lost))
    s.figure("doubled", len(after_kill.doubled))
    s.figure("movements from nowhere", len(after_kill.unexplained))
    s.figure("in flight at the kill (no answer)", after_kill.unanswered)
    s.figure("  of which stored before the kill", after_kill.unanswered_applied)
    s.figure("stock mismatches (stored)", len(after_kill.stock_mismatches))
    for violation in after_kill.violations:
        s.require(False, f"after the restart: {violation}")
    s.require(all(e.status in (None, 201) for e in entries),
              "an adjustment before the kill was answered other than 201")
    client = Client(base_url)
    s.require(api_stock(client, key) == stored.stock(),
              "GET /api/v1/stock differs from the stored stock after the restart")

    # The ERP's side: what got no answer is retried with the same key, and must be applied
    # exactly once, whether or not it was stored before the kill.
    replayed = applied = 0
    for entry in entries:
        if entry.status is None:
            entry.attempts += 1
            reply = entry.adjustment.send(client, key)
            record_answer(entry, reply)
            replayed += entry.replayed
            applied += entry.status == 201 and not entry.replayed
    final = audit(entries, stored.movements(), stored.stock(), initial)
    s.figure("retried after restart", after_kill.unanswered)
    s.figure("  replayed (Idempotent-Replayed: true)", replayed)
    s.figure("  applied by the retry", applied)
    s.figure("acknowledged in the end", final.acknowledged)
    s.figure("movements stored in the end", final.stored)
    s.require(replayed == after_kill.unanswered_applied,
              f"{after_kill.unanswered_applied} cut-off adjustments were stored but "
              f"{replayed} retries were replayed")
    s.require(final.acknowledged == len(entries), "a retried adjustment was not acknowledged")
    for violation in final.violations:
        s.require(False, f"after the retries: {violation}")
    s.require(api_stock(client, key) == stored.stock(),
              "GET /api/v1/stock differs from the stored stock after the retries")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres"], required=True)
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--load-seconds", type=float, default=3)
    arguments = parser.parse_args()
    scenarios.run(f"crash_{arguments.backend}", lambda s: main(s, arguments))
