#!/usr/bin/env python3
"""Webhooks under faults (issue 34).

crash (SQLite and PostgreSQL): clients adjust the stock of 1,000 variants while the server
pushes their `stock.updated` events to two endpoints of a receiver (`webhook-sink`, which
answers after a delay, as a real receiver does, so that attempts are in flight); the server
gets SIGKILL while those deliveries are under way and is started again on the same database
(on PostgreSQL the dead instance's claims hold their pairs for 70 s, so a run takes about a
minute and a half).
Checked: for every endpoint and variant, the last stock the receiver got equals the API's
stock; a variant's events never arrive older after newer; a `webhook-id` received twice at an
endpoint was first received before the kill by an attempt the dead server had not recorded (an
attempt in flight, or ended and not yet recorded: a claim it held, stored in
`webhook_inflight` or, for SQLite's first attempts from the event log, in the process), and
there are no more of those than the workers' bound of claims for two endpoints (128); and the
adjustments themselves are neither lost nor doubled.

two instances (PostgreSQL): two `shop-api deliver` processes share the queue while one import
commits 10,000 `stock.updated` events of distinct variants: every event arrives once, none
twice, and both instances made attempts (counted per instance by a trigger of the scratch
database, NOTE_INSTANCES below: the service logs nothing per attempt).

    webhooks_crash.py --backend sqlite|postgres [--variants 1000] [--endpoints 2]
                      [--clients 6] [--load-seconds 3] [--receiver-delay-ms 20]
    webhooks_crash.py --two-instances [--events 10000]
    webhooks_crash.py --backend ... --graceful   # SIGTERM instead: no claim left, no duplicate
"""

import argparse
import json
import os
import random
import sys
import threading
import time

sys.dont_write_bytecode = True

from faultlib import scenario as scenarios
from faultlib.catalogue import random_delta, wide_catalogue
from faultlib.http import Adjustment, Client, TransportError
from faultlib.ledger import Ledger, audit, record_answer
from faultlib.postgres import ADMIN_URL, psql, scratch_database
from faultlib.server import ShopApi, stop_process
from faultlib.stored import StoredData, query
from faultlib.webhooks import (
    CLAIMS_PER_SLOT, PER_ENDPOINT, SCOPES, TOTAL, WEBHOOK_ENV, Sink, all_stock, claims,
    create_endpoint, delivery_counts, duplicates, first_arrivals, holding, mismatches, per_path,
    recorded_attempts)

SLUG = "faults-webhooks"
# Claims of a dead instance are taken over once expired: the timeouts (10 s each) of the
# CLAIMS_PER_SLOT attempts a claim may wait for and make, plus the claim's margin (30 s),
# shop_ports::usecase::webhooks::dispatch.
CLAIM_EXPIRY_S = 10 * CLAIMS_PER_SLOT + 30


def adjust_until_killed(base_url, key, share, variants, ledger, killed, covered, seed):
    """One client: first each variant of its share once (so that every variant has an
    event), then random variants, until the server dies under it."""
    rng = random.Random(seed)
    client = Client(base_url, timeout=10)
    queue = list(share)
    if not queue:
        covered.release()
    while not killed.is_set():
        variant = queue.pop() if queue else rng.choice(variants)
        entry = ledger.open(Adjustment.new(variant, random_delta(rng)))
        entry.attempts += 1
        try:
            reply = entry.adjustment.send(client, key)
        except TransportError:
            return  # cut off by the kill: the audit finds out whether it was stored
        record_answer(entry, reply)
        if share and not queue:
            covered.release()  # every variant of this client's share has been adjusted
            share = None


def unrecorded(log_path) -> int:
    """The dispatcher's warnings of an attempt whose outcome was not recorded."""
    text = log_path.read_text(errors="replace") if log_path.exists() else ""
    return sum(1 for line in text.splitlines()
               if "could not reach the database" in line or "could not be recorded" in line)


def wait_for(predicate, timeout, every=0.5):
    """Polls `predicate()` until it returns a true value (returned) or `timeout` passes
    (None)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(every)
    return None


def crash(s: scenarios.Scenario, args) -> None:
    if args.backend == "sqlite":
        url = f"sqlite://{s.work / 'shop.db'}"
    else:
        url = scratch_database(ADMIN_URL, f"faults_webhooks_{os.getpid()}", s.cleanup)
    api = ShopApi(scenarios.BINARY, url, s.work)
    s.cleanup.callback(api.stop)
    sink = Sink(s.work)
    s.cleanup.callback(sink.stop)
    data, initial = wide_catalogue(args.variants)
    variants = sorted(initial)
    api.create_shop(SLUG, data)
    key = api.create_key(SLUG, SCOPES)
    sink.start(delay_ms=args.receiver_delay_ms)
    base_url = api.start(env=WEBHOOK_ENV)
    api.wait_ready(key)
    client = Client(base_url)
    paths = [f"/endpoint-{i}" for i in range(args.endpoints)]
    endpoint_ids = {path: create_endpoint(client, key, sink.url(path), ["stock.updated"])
                    for path in paths}
    s.log(f"{args.backend}: {args.clients} clients adjusting {len(variants)} variants, "
          f"{len(paths)} endpoints, the receiver answering after {args.receiver_delay_ms} ms")

    ledger, killed, covered = Ledger(), threading.Event(), threading.Semaphore(0)
    order = list(variants)
    random.Random(0).shuffle(order)
    clients = [threading.Thread(target=adjust_until_killed,
                                args=(base_url, key, order[i::args.clients], variants, ledger,
                                      killed, covered, i))
               for i in range(args.clients)]
    started = time.monotonic()
    for thread in clients:
        thread.start()
    for _ in clients:  # every variant adjusted at least once before the kill
        if not covered.acquire(timeout=60):
            raise RuntimeError("the clients did not adjust every variant within 60 s")
    time.sleep(max(0.0, args.load_seconds - (time.monotonic() - started)))
    pending_before = delivery_counts(url).get("pending", 0)
    # SQLite's first attempts in flight have no row: deliveries still arriving after this
    # moment show that the stop (or the kill) came while some were under way.
    received_before = len(sink.records())
    killed.set()
    if args.graceful:
        api.stop()  # SIGTERM: the workers are to finish and record their attempts
    else:
        api.kill9()
    load_seconds = time.monotonic() - started
    for thread in clients:
        thread.join(timeout=30)
    # Nothing reaches the receiver while the server is down: what it holds now is everything
    # received before the kill.
    before_kill = list(sink.records())
    stored_claims = claims(url)
    recorded = recorded_attempts(url)
    # Received before the kill, and not recorded by the dead server: its attempts in flight.
    not_recorded = {(r["path"], r["webhook_id"]) for r in before_kill
                  if (endpoint_ids[r["path"]], r["webhook_id"]) not in recorded}
    queue_at_kill = delivery_counts(url)
    s.log(f"server {'stopped' if args.graceful else 'killed'} after {load_seconds:.1f} s: "
          f"the receiver had {len(before_kill)} deliveries, {len(not_recorded)} of them not "
          f"recorded; {len(stored_claims)} claims stored, "
          f"{queue_at_kill.get('pending', 0)} deliveries pending")

    base_url = api.start(env=WEBHOOK_ENV)
    restarted = time.monotonic()
    s.figure("restart to ready (s)", round(api.wait_ready(key), 2))
    client = Client(base_url)
    # The ERP's side, as in crash.py: what got no answer is sent again with the same key.
    for entry in ledger.entries():
        if entry.status is None:
            entry.attempts += 1
            record_answer(entry, entry.adjustment.send(client, key))

    def converged():
        if delivery_counts(url).get("pending", 0) or claims(url):
            return None
        stock = all_stock(client, key)
        if mismatches(holding(sink.records()), paths, stock, variants):
            return None
        return stock

    stock = wait_for(converged, CLAIM_EXPIRY_S + args.settle_seconds)
    settle_s = time.monotonic() - restarted
    records = sink.records()
    held = holding(records)
    if stock is None:
        stock = all_stock(client, key)
    wrong = mismatches(held, paths, stock, variants)
    doubled = duplicates(held)
    first = first_arrivals(records)
    unexplained = [f"{path} {webhook_id}" for path, webhook_id in doubled
                   if (path, webhook_id) not in not_recorded
                   or first[(path, webhook_id)] >= len(before_kill)]
    entries = ledger.entries()
    stored = StoredData(url, SLUG)
    final = audit(entries, stored.movements(), stored.stock(), initial)
    events = int(query(url, "SELECT count(*) FROM webhook_events "
                            "WHERE type = 'stock.updated'")[0][0]) - len(variants)

    s.figure("backend", args.backend)
    s.figure("variants / endpoints", f"{len(variants)} / {len(paths)}")
    s.figure("adjustments sent (acknowledged)",
             f"{len(entries)} ({sum(1 for e in entries if e.status == 201)})")
    s.figure("stock.updated events of the scenario", events)
    s.figure("load before the kill (s)", round(load_seconds, 1))
    s.figure("deliveries received before the kill", len(before_kill))
    s.figure("deliveries pending just before / at the kill",
             f"{pending_before} / {queue_at_kill.get('pending', 0)}")
    s.figure("received before the kill, not recorded (attempts in flight)", len(not_recorded))
    s.figure("claims stored at the kill (webhook_inflight)", len(stored_claims))
    s.figure("restart to every endpoint holding the API's stock (s)", round(settle_s, 1))
    s.figure("deliveries received in all (per endpoint)",
             f"{len(records)} ({', '.join(f'{p}: {n}' for p, n in per_path(records).items())})")
    s.figure("queue at the end", json.dumps(delivery_counts(url), sort_keys=True))
    s.figure("(endpoint, variant) whose last stock != the API's", len(wrong))
    s.figure("variants received older after newer", len(held.out_of_order))
    s.figure("duplicates (webhook-id received twice at an endpoint)", len(doubled))
    s.figure("  of which not an attempt in flight at the kill", len(unexplained))
    s.figure("adjustments lost / doubled", f"{len(final.lost)} / {len(final.doubled)}")
    s.figure("attempts the first server could not record (its log)",
             unrecorded(s.work / "server-1.log"))

    s.require(events >= len(variants), "fewer stock events than variants adjusted")
    if args.graceful:
        # A stop is no crash: every attempt made is recorded, none is sent twice.
        s.require(pending_before > 0 or len(before_kill) > received_before,
                  "nothing was being delivered at the stop")
        s.require(not stored_claims, f"{len(stored_claims)} claims left by a graceful stop")
        s.require(not not_recorded,
                  f"{len(not_recorded)} attempts not recorded at a graceful stop")
        s.require(not doubled, f"{len(doubled)} duplicates after a graceful stop")
    s.require(args.graceful or len(records) > len(before_kill),
              "nothing was left to deliver at the kill: the scenario proved nothing")
    s.require(stock is not None and not wrong,
              f"{len(wrong)} (endpoint, variant) do not hold the API's stock: {wrong[:5]}")
    s.require(not held.out_of_order, f"older after newer: {held.out_of_order[:5]}")
    s.require(not unexplained,
              f"duplicates of no attempt in flight at the kill: {unexplained[:5]}")
    bound = CLAIMS_PER_SLOT * min(TOTAL, PER_ENDPOINT * len(paths))
    s.require(len(not_recorded) <= bound,
              f"{len(not_recorded)} attempts not recorded at the kill, over the workers' "
              f"bound of claims ({bound})")
    for violation in final.violations:
        s.require(False, f"adjustments: {violation}")


# --- two instances ---------------------------------------------------------------------------

# Each attempt's instance, noted by a trigger of the scratch database (not the service's
# schema): when an attempt is recorded, its claim (webhook_inflight, deleted at the end of the
# same transaction) still names the instance that made it.
NOTE_INSTANCES = """
CREATE TABLE faults_attempt_instance (attempt_id text PRIMARY KEY, instance text NOT NULL);
CREATE FUNCTION faults_note_instance() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO faults_attempt_instance
    SELECT NEW.id, i.claimed_by FROM webhook_inflight i
      JOIN webhook_deliveries d ON d.id = NEW.delivery_id
     WHERE i.endpoint_id = NEW.endpoint_id AND i.resource = d.resource;
  RETURN NEW;
END $$;
CREATE TRIGGER faults_note_instance AFTER INSERT ON webhook_attempts
  FOR EACH ROW EXECUTE FUNCTION faults_note_instance();
"""


def two_instances(s: scenarios.Scenario, args) -> None:
    url = scratch_database(ADMIN_URL, f"faults_webhooks_two_{os.getpid()}", s.cleanup)
    api = ShopApi(scenarios.BINARY, url, s.work)
    s.cleanup.callback(api.stop)
    sink = Sink(s.work)
    s.cleanup.callback(sink.stop)
    data, initial = wide_catalogue(args.events)
    api.create_shop(SLUG, data)
    key = api.create_key(SLUG, SCOPES)
    sink.start()
    api.start(env=WEBHOOK_ENV)
    api.wait_ready(key)
    create_endpoint(Client(api.base_url), key, sink.url("/endpoint-0"), ["stock.updated"])
    # The API is not needed any more, and its workers would be a third instance.
    api.stop()
    psql(url, NOTE_INSTANCES)
    delivers = [api.start_deliver(name, env=WEBHOOK_ENV) for name in ("a", "b")]
    for process in delivers:
        s.cleanup.callback(stop_process, process)
    time.sleep(1)  # both listening
    for name, process in zip("ab", delivers):
        if process.poll() is not None:
            raise RuntimeError(f"deliver {name} exited with {process.returncode}")

    changed = json.loads(json.dumps(data))
    expected = {}
    for product in changed["products"]:
        for variant in product["variants"]:
            variant["stock"] += 7
            expected[variant["id"]] = variant["stock"]
    path = s.work / "changed-stock.json"
    path.write_text(json.dumps(changed))
    s.log(f"importing a new stock for {len(expected)} variants: one commit, "
          f"{len(expected)} stock.updated events; two `deliver` instances share the queue")
    begun = time.monotonic()
    api.cli("import", "--shop", SLUG, str(path))
    imported_s = time.monotonic() - begun

    def all_delivered():
        counts = delivery_counts(url)
        return (not counts.get("pending") and not claims(url)
                and len(sink.records()) >= len(expected)) and counts

    counts = wait_for(all_delivered, args.deliver_timeout) or delivery_counts(url)
    elapsed = time.monotonic() - begun
    records = sink.records()
    held = holding(records)
    doubled = duplicates(held)
    wrong = mismatches(held, ["/endpoint-0"], expected, sorted(expected))
    per_instance = dict((instance, int(n)) for instance, n in query(
        url, "SELECT instance, count(*) FROM faults_attempt_instance GROUP BY instance ORDER BY 1"))
    attempts, failed = (int(v) for v in query(
        url, "SELECT count(*), count(*) FILTER (WHERE status <> 'succeeded') "
             "FROM webhook_attempts")[0])
    for name, process in zip("ab", delivers):
        stop_process(process)

    s.figure("events (distinct variants, one import)", len(expected))
    s.figure("import took (s)", round(imported_s, 1))
    s.figure("import start to last delivery (s)", round(elapsed, 1))
    s.figure("deliveries received", len(records))
    s.figure("duplicates", len(doubled))
    s.figure("variants whose last stock != the imported one", len(wrong))
    s.figure("attempts recorded (not succeeded)", f"{attempts} ({failed})")
    s.figure("attempts per instance", per_instance)
    s.figure("queue at the end", json.dumps(counts, sort_keys=True))
    s.require(len(records) == len(expected),
              f"{len(records)} deliveries received for {len(expected)} events")
    s.require(not doubled, f"{len(doubled)} duplicates: {doubled[:5]}")
    s.require(not wrong, f"{len(wrong)} variants not on their imported stock: {wrong[:5]}")
    both = len(per_instance) == 2 and all(n > 0 for n in per_instance.values())
    if not both:
        # What an idle instance said: a failing turn, a lost connection, a panic.
        for name in "ab":
            lines = (s.work / f"deliver-{name}.log").read_text(errors="replace").splitlines()
            s.log(f"deliver {name}'s log, last lines:\n  " + "\n  ".join(lines[-15:]))
    s.require(both, f"both instances must take part: {per_instance}")
    s.require(sum(per_instance.values()) == attempts,
              f"{attempts} attempts but {sum(per_instance.values())} noted per instance")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--backend", choices=["sqlite", "postgres"], default="postgres")
    parser.add_argument("--two-instances", action="store_true",
                        help="PostgreSQL: two `deliver` instances, 10,000 events, no fault")
    parser.add_argument("--variants", type=int, default=1000)
    parser.add_argument("--endpoints", type=int, default=2)
    parser.add_argument("--clients", type=int, default=6)
    parser.add_argument("--load-seconds", type=float, default=3)
    parser.add_argument("--receiver-delay-ms", type=int, default=20)
    parser.add_argument("--settle-seconds", type=float, default=30,
                        help="after the dead instance's claims expire (70 s)")
    parser.add_argument("--graceful", action="store_true",
                        help="SIGTERM instead of SIGKILL: no claim left, no duplicate")
    parser.add_argument("--events", type=int, default=10_000)
    parser.add_argument("--deliver-timeout", type=float, default=60)
    arguments = parser.parse_args()
    if arguments.two_instances:
        scenarios.run("webhooks_two_instances_postgres", lambda s: two_instances(s, arguments))
    else:
        kind = "sigterm" if arguments.graceful else "crash"
        scenarios.run(f"webhooks_{kind}_{arguments.backend}", lambda s: crash(s, arguments))
