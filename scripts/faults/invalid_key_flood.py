#!/usr/bin/env python3
"""Invalid-key flood: while another process floods the server with wrong keys (a new random
prefix on half the requests, the real key's prefix with a wrong secret on a quarter, malformed
keys on the rest), a valid key's p99 latency must stay within 3x of its quiet value.

The server keeps the default failed-authentication budgets (AUTH_FAILURES_PER_MINUTE = 30 per
client address, and per client and key for wrong secrets; no flag): those budgets, and the
cache of verified keys that lets a verified key through them, are the defence under test. The
first wrong keys of the minute are checked: 30 without a verification (unknown prefixes,
malformed keys) and 30 wrong secrets for the real prefix (an argon2 run each; an address over
its first budget is looked up ten times a second, so these take a few seconds). From then on
the flood gets 429. The p99 that must stay within 3x is measured from that point, while the
flood goes on; the latency while the budgets are spent is reported beside it.

One backend is enough (SQLite): the defence runs in the process before any query, and a wrong
key that reaches the database costs one indexed key lookup on either backend.

    invalid_key_flood.py [--samples 1200] [--flood-threads 8]
"""

import argparse
import multiprocessing
import os
import random
import sys
import threading
import time
from collections import Counter

sys.dont_write_bytecode = True

from faultlib import scenario as scenarios
from faultlib.catalogue import tracked_catalogue
from faultlib.http import Client, TransportError
from faultlib.server import UNLIMITED, ShopApi, die_with_parent

SLUG = "faults-flood"
DEFAULT_AUTH_FAILURES_PER_MINUTE = 30
ALLOWED_RATIO = 3.0
PROBE = "/api/v1/stock?limit=20"
PACING_SECONDS = 0.005
ROUNDS = 4


def wrong_key(rng: random.Random, real_prefix: str, n: int) -> tuple[str, str]:
    def hex_digits(count):
        return "".join(rng.choice("0123456789abcdef") for _ in range(count))
    match n % 4:
        case 0 | 1:
            return "unknown prefix", f"svc_live_{hex_digits(8)}_{hex_digits(64)}"
        case 2:
            return "real prefix, wrong secret", f"svc_live_{real_prefix}_{hex_digits(64)}"
        case _:
            return "malformed", f"svc_live_{hex_digits(8)}"


def flood_thread(base_url, real_prefix, seed, active, stop, checked, budget_spent_at, counts):
    rng = random.Random(seed)
    client = Client(base_url, timeout=10)
    n = 0
    while not stop.is_set():
        if not active.wait(0.05):
            continue
        kind, key = wrong_key(rng, real_prefix, n)
        try:
            status = client.request("GET", PROBE, key=key).status
        except TransportError:
            status = None
        if status == 401:
            with checked.get_lock():
                checked[1 if kind == "real prefix, wrong secret" else 0] += 1
                spent = min(checked) >= DEFAULT_AUTH_FAILURES_PER_MINUTE
            if spent and not budget_spent_at.value:
                with budget_spent_at.get_lock():
                    budget_spent_at.value = budget_spent_at.value or time.monotonic()
        counts[(kind, status)] += 1
        n += 1


def flood(base_url, real_prefix, threads, cpus, active, stop, checked, budget_spent_at, results):
    """The flooding process: an interpreter of its own, so that its work does not hold up the
    measuring client (Python runs one thread at a time per process)."""
    die_with_parent()
    if cpus:
        os.sched_setaffinity(0, cpus)
    # The measuring client shares these cores: it must run as soon as its answer arrives.
    os.nice(19)
    counts: Counter = Counter()
    workers = [threading.Thread(target=flood_thread,
                                args=(base_url, real_prefix, seed, active, stop, checked,
                                      budget_spent_at, counts))
               for seed in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join()
    results.put(dict(counts))


def split_cpus() -> tuple[set[int] | None, set[int] | None]:
    """A flood comes over the network, not from the server's own cores: the server gets one
    core to itself, the flooder and the measuring client share the others. With one core there
    is nothing to split (the figures then include the flooder's own CPU use).

    The measuring client is not put beside the server: a server kept busy by the flood holds
    its core, and a client waking up there waits for the scheduler's next turn (a few ms),
    which is the client's latency, not the server's. Beside the flooder it does not wait,
    because the flooder runs at the lowest priority (`nice` 19, see `flood`)."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2:
        return None, None
    return {cpus[0]}, set(cpus[1:])


def percentile(values: list[float], fraction: float) -> float:
    """Nearest rank."""
    ordered = sorted(values)
    return ordered[max(0, min(len(ordered) - 1, round(fraction * len(ordered)) - 1))]


class Probe:
    """Valid-key reads, paced so that the client never queues behind itself."""

    def __init__(self, base_url: str, key: str):
        self.client, self.key = Client(base_url), key
        self.statuses: Counter = Counter()

    def once(self) -> float:
        reply = self.client.request("GET", PROBE, key=self.key)
        self.statuses[reply.status] += 1
        time.sleep(PACING_SECONDS)
        return reply.seconds

    def many(self, samples: int) -> list[float]:
        return [self.once() for _ in range(samples)]


def ms(value: float) -> float:
    return round(value * 1000, 2)


def main(s: scenarios.Scenario, args) -> None:
    api = ShopApi(scenarios.BINARY, f"sqlite://{s.work / 'shop.db'}", s.work)
    s.cleanup.callback(api.stop)
    api.create_shop(SLUG, tracked_catalogue()[0])
    key = api.create_key(SLUG, "stock:read")
    real_prefix = key.split("_")[2]
    server_cpus, flood_cpus = split_cpus()
    if flood_cpus:
        os.sched_setaffinity(0, flood_cpus)  # the measuring client, beside the niced flooder
    base_url = api.start(reads=UNLIMITED, auth_failures=None, cpus=server_cpus)
    api.wait_ready(key)

    context = multiprocessing.get_context("fork")
    active, stop, results = context.Event(), context.Event(), context.Queue()
    # The flood's 401s: failures without a verification, wrong secrets for the real prefix.
    checked = context.Array("i", 2)
    budget_spent_at = context.Value("d", 0.0)
    flooder = context.Process(target=flood, daemon=True, args=(
        base_url, real_prefix, args.flood_threads, flood_cpus, active, stop, checked,
        budget_spent_at, results))
    flooder.start()
    s.cleanup.callback(flooder.kill)

    probe = Probe(base_url, key)
    probe.many(50)  # warm-up: connection, caches
    s.log("the flood starts: first the failed-auth budgets are spent")
    cpu_before = api.cpu_seconds()
    flood_begun = time.monotonic()
    active.set()
    spending = []
    while not budget_spent_at.value and time.monotonic() - flood_begun < 40:
        spending.append(probe.once())
    spent_after = budget_spent_at.value - flood_begun if budget_spent_at.value else None

    # Quiet and flood phases alternate, so that a change in the machine's own load during the
    # run weighs on both alike.
    quiet, loud = [], []
    flood_on_seconds = time.monotonic() - flood_begun
    for round_ in range(ROUNDS):
        active.clear()
        time.sleep(0.1)  # the flooder's requests in flight drain
        quiet += probe.many(args.samples // ROUNDS)
        active.set()
        flood_on = time.monotonic()
        loud += probe.many(args.samples // ROUNDS)
        flood_on_seconds += time.monotonic() - flood_on
        s.log(f"round {round_ + 1}/{ROUNDS}: quiet p99 {ms(percentile(quiet, 0.99))} ms, "
              f"flood p99 {ms(percentile(loud, 0.99))} ms")
    stop.set()
    counts = results.get(timeout=30)
    flooder.join(timeout=10)
    server_cpu = api.cpu_seconds() - cpu_before

    sent = sum(counts.values())
    by_status: Counter = Counter()
    for (_, status), n in counts.items():
        by_status[status] += n
    quiet_p99, loud_p99 = percentile(quiet, 0.99), percentile(loud, 0.99)
    ratio = loud_p99 / quiet_p99
    s.figure("binary", str(scenarios.BINARY.relative_to(scenarios.REPO))
             if scenarios.BINARY.is_relative_to(scenarios.REPO) else str(scenarios.BINARY))
    s.figure("backend", "sqlite")
    s.figure("failed-auth budget per client address",
             f"{DEFAULT_AUTH_FAILURES_PER_MINUTE}/min (default)")
    s.figure("cores: server / probe and flooder (nice 19)",
             f"{sorted(server_cpus)} / {sorted(flood_cpus)}" if server_cpus else "not pinned (one core)")
    s.figure("valid-key probe", f"GET {PROBE}, {len(quiet)} quiet and {len(loud)} flood "
             f"requests in {ROUNDS} alternating rounds")
    s.figure("budgets spent after (s)", spent_after and round(spent_after, 2))
    s.figure("  valid-key requests meanwhile / their max (ms)",
             f"{len(spending)} / {ms(max(spending)) if spending else None}")
    s.figure("quiet p50 / p99 (ms)", f"{ms(percentile(quiet, 0.5))} / {ms(quiet_p99)}")
    s.figure("flood p50 / p99 (ms)", f"{ms(percentile(loud, 0.5))} / {ms(loud_p99)}")
    s.figure("p99 ratio (flood / quiet)", round(ratio, 2))
    s.figure("flood requests (wrong keys)", sent)
    s.figure("flood rate while on (req/s)", round(sent / flood_on_seconds))
    s.figure("server CPU during the measurement (s)", round(server_cpu, 2))
    # Reported, not asserted here: the property under test is the valid key's latency (the
    # budgets' exactness is auth_burst's).
    s.figure("wrong keys checked (401) / flood lasted (s)",
             f"{by_status[401]} / {round(time.monotonic() - flood_begun)}")
    s.figure("flood answers", {str(status): n for status, n in sorted(by_status.items(), key=str)})
    s.figure("flood answers by kind", {f"{kind} -> {status}": n
                                       for (kind, status), n in sorted(counts.items(), key=str)})
    s.figure("valid-key answers", dict(probe.statuses))
    s.require(set(probe.statuses) == {200}, "the valid key was not answered 200 every time")
    s.require(spent_after is not None, "the flood's budgets were never spent")
    s.require(ratio <= ALLOWED_RATIO, f"valid-key p99 rose {ratio:.2f}x under the flood "
              f"(allowed: {ALLOWED_RATIO}x)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--samples", type=int, default=1200,
                        help="valid-key requests per phase, over all rounds")
    parser.add_argument("--flood-threads", type=int, default=8)
    arguments = parser.parse_args()
    scenarios.run("invalid_key_flood", lambda s: main(s, arguments))
