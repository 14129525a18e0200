"""The flat-with-size latencies (1 connection): every request of the ratios measured in rounds,
the two sides of each ratio in alternating order, each side reported as the median of its
rounds.

Why rounds: one 10 s sample per side, the small side taken on its own server minutes before
the big side, let one unlucky moment of a shared 2-core machine decide a target (a PostgreSQL
page 500,000 deep at 1.39 of the first page, where the runs before measured 1.10-1.14 and
alternated re-measurements 1.01-1.06). Both datasets' servers are up during the rounds, so
that the two sides of a ratio are measured seconds apart, not minutes.
"""

import statistics
from dataclasses import dataclass

from . import wrk

# The figures of a side that are medians over its rounds, each taken on its own (the median
# p99 may come from another round than the median p50).
MEDIAN_FIELDS = ("rps", "p50_ms", "p90_ms", "p99_ms", "mean_ms")


@dataclass(frozen=True)
class Request:
    """One latency request. `slot` is where its side goes in the results' "flat" entry:
    ("orders_small",), or ("searches", "common", "big")."""

    slot: tuple
    load: wrk.Load
    what: str


def round_order(requests, index):
    """The requests of round `index` (from 0): even rounds run them as listed (the small
    side, or the first page, before the big side of each ratio), odd rounds backwards (big
    before small, deep before first). Over each pair of rounds every request then has the same
    mean time, so that a machine getting slower or faster (other work coming and going) weighs
    on both sides of every ratio alike instead of on whichever side came second."""
    return list(requests) if index % 2 == 0 else list(reversed(requests))


def aggregate(rounds):
    """One side of a ratio from its rounds' wrk results (dicts): the median of each of
    MEDIAN_FIELDS, and every round's result, in round order, under "rounds"."""
    if not rounds:
        raise ValueError("a side needs at least one round")
    entry = {field: round(statistics.median(r[field] for r in rounds), 4)
             for field in MEDIAN_FIELDS}
    entry["rps"] = round(entry["rps"], 1)
    entry["rounds"] = list(rounds)
    return entry


def p50_range(entry):
    """(lowest, highest) per-round p50 of a side, in ms; None without rounds."""
    p50s = [r["p50_ms"] for r in (entry or {}).get("rounds", [])]
    return (min(p50s), max(p50s)) if p50s else None


def place(flat, slot, value):
    """flat[slot[0]]...[slot[-1]] = value."""
    *path, last = slot
    for name in path:
        flat = flat[name]
    flat[last] = value


def run(requests, settings, warm_up=wrk.warm_up, measure=wrk.measure):
    """Warms each request up once (BENCH_WARMUP_SECONDS), then runs BENCH_LATENCY_ROUNDS
    rounds of every request for BENCH_LATENCY_SECONDS each, in round_order. Every measured run
    refuses failed requests (wrk.measure). Returns {slot: aggregate of its rounds}."""
    for request in requests:
        warm_up(request.load, settings, 1, 1)
    rounds = {request.slot: [] for request in requests}
    for index in range(settings.latency_rounds):
        print(f"  round {index + 1} of {settings.latency_rounds}:", flush=True)
        for request in round_order(requests, index):
            result = measure(request.load, settings, connections=1, threads=1,
                             what=f" {request.what}", warm=False)
            rounds[request.slot].append(result.to_json())
    sides = {slot: aggregate(results) for slot, results in rounds.items()}
    print(f"  medians over {settings.latency_rounds} rounds:", flush=True)
    for request in requests:
        side = sides[request.slot]
        low, high = p50_range(side)
        print(f"   {request.what:<43} p50 {side['p50_ms']:.3f} ms (rounds {low:.3f}-{high:.3f})"
              f"  p99 {side['p99_ms']:.3f} ms", flush=True)
    return sides
