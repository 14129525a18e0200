"""The webhooks part (issue 34; `BENCH_ONLY=webhooks`, and part of a full run): on a dataset of
its own (a shop of `BENCH_WEBHOOK_VARIANTS` tracked variants, two to a product, imported with
`shop-api import`), a `shop-api serve` with
`WEBHOOK_ALLOW_PRIVATE_NETWORKS=true` and two endpoints (`stock.updated`) on one receiver, the
`webhook-sink` binary of crates/bench (answers 204 at once and records each delivery's arrival
time, `webhook-id`, `timestamp`, variant and stock). Four measurements, in this order:

1. **latency**: `BENCH_WEBHOOK_RATE` adjustments a second (200), paced, for
   `BENCH_WEBHOOK_LATENCY_SECONDS` (30), each to a variant of its own while the run lasts;
   each delivery's latency is its arrival time minus its body's `timestamp` (the change's
   time, in ms: same machine, same clock). Every event must arrive at both endpoints.
2. **throughput**: wrk's adjustments (the throughput settings: `BENCH_CONNECTIONS`,
   `BENCH_SECONDS`, a warm-up) with the two endpoints enabled against both disabled (no
   delivery is queued for a disabled endpoint), in `BENCH_THROUGHPUT_ROUNDS` rounds
   alternating which goes first, each run starting on an empty queue. A run's rate is its
   adjustments over the time until the last delivery they queued has ended (wrk's seconds
   plus the wait for an empty queue after it): deliveries left for after the run are work it
   did not finish, not work saved. The ratio is the median of the rounds' ratios
   (benchlib/rounds.py).
3. **drain**: with both endpoints disabled, one adjustment to each of
   `BENCH_WEBHOOK_DRAIN_EVENTS` distinct variants (10,000); then `POST .../recover {since}` on
   each endpoint (which queues the newest event of every resource changed since then and
   enables it: a disabled endpoint queues nothing until then) and the time until every one
   of the 2 x 10,000 deliveries has arrived, counted from the first recover request.
4. **memory**: the receiver stopped (connections refused), a fresh server up while imports
   (`shop-api import`, another process, as an ERP's nightly import would) change every
   variant's stock until `BENCH_WEBHOOK_BACKLOG_EVENTS` (100,000) `stock.updated` events are
   queued for both endpoints, its workers attempting and rescheduling them (the default
   retry schedule), then `BENCH_WEBHOOK_RSS_SECONDS` (20) more; then a new server starts on
   that backlog and runs as long. The peak RSS (VmHWM) of each. (Imports, because
   adjustments against a dead receiver slow down as the backlog grows, on SQLite to tens a
   second at a few thousand events: 100,000 of them would take most of an hour.)
"""

import http.client
import json
import math
import statistics
import threading
import time
from datetime import datetime, timedelta, timezone

from . import datasets, rounds, wrk
from .api import Api, wait_until_ready
from .config import OUT_DIR
from .processes import Failure, Server, free_port, tail

# What the benchmark's key needs: the datasets' scopes (stock:read among them, which
# stock.updated requires) and the webhooks'.
SCOPES = datasets.KEY_SCOPES + ",webhooks:read,webhooks:write"
EVENTS = ["stock.updated"]
ENDPOINTS = ("/endpoint-1", "/endpoint-2")
# Loopback receivers need it (README: development and tests only).
SERVER_ENV = {"WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true"}
V2 = "/api/v2/webhook-endpoints"
# How long the queue may take to empty between two throughput runs, and a drain to end (a
# slow drain is a figure to report, not a failure of the run, within reason).
QUEUE_TIMEOUT_S = 900
# How long the latency phase waits for its last deliveries after its last adjustment.
LATENCY_WAIT_S = 180
# Threads sending the paced adjustments: enough that 200 a second are sent on time while
# each takes tens of milliseconds (an adjustment waits for its commit's fsync on SQLite).
SENDERS = 16
# The latency is measured at the asked rate only if the adjustments were sent at least this
# close to it (the API itself may be too slow to take them).
RATE_REACHED = 0.95


EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)


# --- pure parts (unit-tested) -----------------------------------------------------------

def instant_ms(text):
    """An RFC 3339 instant (`2026-11-27T10:00:00.123Z`, any offset) as Unix milliseconds."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no offset")
    return (moment - EPOCH) / timedelta(milliseconds=1)  # exact, unlike timestamp() * 1000


def rfc3339_ms(unix_s):
    """Unix seconds as the API writes instants: UTC, milliseconds, `Z`."""
    moment = datetime.fromtimestamp(unix_s, timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def percentile(values, fraction):
    """The nearest-rank percentile (`fraction` 0.5, 0.99) of `values`; None when empty."""
    if not values:
        return None
    ordered = sorted(values)
    return ordered[max(0, math.ceil(fraction * len(ordered)) - 1)]


def latency_summary(records, expected):
    """The commit-to-receipt latencies (ms) of `records` (the sink's, this phase's): arrival
    minus the body's `timestamp`. `expected` deliveries were due (events x endpoints); a
    delivery received twice counts once, at its first arrival."""
    first = {}
    for record in records:
        first.setdefault((record["path"], record["webhook_id"]), record)
    # In integer nanoseconds first: Unix ns do not fit a float's 53 bits.
    latencies = [(r["received_ns"] - round(instant_ms(r["timestamp"]) * 1_000_000)) / 1e6
                 for r in first.values()]
    return {
        "expected": expected,
        "received": len(first),
        "duplicates": len(records) - len(first),
        "p50_ms": percentile(latencies, 0.50),
        "p90_ms": percentile(latencies, 0.90),
        "p99_ms": percentile(latencies, 0.99),
        "max_ms": max(latencies) if latencies else None,
    }


def drain_summary(records, started_ns, expected):
    """The drain's figures from the sink's records of the phase: deliveries a second from
    `started_ns` (the first recover request) to the last arrival, and from the first arrival
    to the last (the recover requests' own time left out)."""
    first = {}
    for record in records:
        first.setdefault((record["path"], record["webhook_id"]), record["received_ns"])
    arrivals = sorted(first.values())
    if not arrivals:
        return {"expected": expected, "received": 0, "duplicates": len(records),
                "seconds": None, "per_second": None, "first_to_last_per_second": None}
    seconds = (arrivals[-1] - started_ns) / 1e9
    spread = (arrivals[-1] - arrivals[0]) / 1e9
    return {
        "expected": expected,
        "received": len(arrivals),
        "duplicates": len(records) - len(arrivals),
        "seconds": round(seconds, 3),
        "first_arrival_s": round((arrivals[0] - started_ns) / 1e9, 3),
        "per_second": round(len(arrivals) / seconds, 1) if seconds > 0 else None,
        "first_to_last_per_second": round(len(arrivals) / spread, 1) if spread > 0 else None,
    }


def catalogue(variants, stock_offset=0):
    """The import file of the webhooks' shop: `variants` tracked variants, two to a product,
    each variant's stock `stock_offset` above its first import's; and the variant ids."""
    products, ids = [], []
    for p in range((variants + 1) // 2):
        rows = []
        for v in range(min(2, variants - 2 * p)):
            variant_id = f"whv_{p:06}_{v}"
            ids.append(variant_id)
            rows.append({"id": variant_id, "label": f"V{v}", "priceCents": 1000,
                         "stock": 1000 + v + stock_offset, "lowStockThreshold": 1})
        products.append({"id": f"whp_{p:06}", "name": f"Webhook product {p}",
                         "priceCents": 1000, "taxRate": "20.00", "trackStock": True,
                         "variants": rows})
    return {"products": products}, ids


def imports_for(backlog, variants):
    """How many imports of every variant's stock queue at least `backlog` events."""
    return max(1, math.ceil(backlog / max(1, variants)))


def ratio(throughput):
    """Adjustments/s with two endpoints over none: the median of the rounds' ratios."""
    per_round = rounds.ratios(throughput, "none")
    return statistics.median(per_round) if per_round else None


# --- the receiver -------------------------------------------------------------------------

class Sink:
    """The `webhook-sink` process and its records, fetched incrementally."""

    def __init__(self, binary, log_path):
        self.server = Server("webhook-sink", [binary, "--bind", "127.0.0.1:0"], log_path,
                             capture_stdout=True)
        line = self.server.process.stdout.readline().decode().strip()
        if not line.startswith("listening on http://"):
            self.server.stop()
            raise Failure(f"webhook-sink did not start ({line!r}); log:\n{tail(log_path)}")
        self.port = int(line.rsplit(":", 1)[1])
        self._records = []

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def _get(self, path):
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
        try:
            connection.request("GET", path)
            response = connection.getresponse()
            body = response.read()
        finally:
            connection.close()
        if response.status != 200:
            raise Failure(f"webhook-sink {path} answered {response.status}")
        return body

    def records(self):
        """Every record so far, in arrival order."""
        text = self._get(f"/_sink/records?from={len(self._records)}").decode()
        self._records += [json.loads(line) for line in text.splitlines() if line]
        return self._records

    def count(self):
        return json.loads(self._get("/_sink/stats"))["requests"]

    def stop(self):
        self.server.stop()


def wait_for_count(sink, wanted, timeout_s):
    """Polls the sink until it has `wanted` records (True) or `timeout_s` passes (False)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if sink.count() >= wanted:
            return True
        time.sleep(0.2)
    return sink.count() >= wanted


# --- the API and the queue ----------------------------------------------------------------

def request(api, method, path, body=None, expect=(200,)):
    status, data = api.send(method, path, None if body is None else json.dumps(body))
    if status not in expect:
        raise Failure(f"{method} {path} answered {status}: {data[:300]!r}")
    return json.loads(data) if data else None


def create_endpoints(api, sink):
    return [request(api, "POST", V2, {"url": sink.url(path), "events": EVENTS},
                    expect=(201,))["data"]["id"] for path in ENDPOINTS]


def set_enabled(api, endpoint_ids, enabled):
    for endpoint_id in endpoint_ids:
        request(api, "PATCH", f"{V2}/{endpoint_id}",
                {"status": "enabled" if enabled else "disabled"})


def scalar(dataset, sql):
    """One number from the dataset's database, read directly (not through the server)."""
    if dataset.backend == "sqlite":
        import sqlite3

        with sqlite3.connect(dataset.sqlite_path, timeout=30) as db:
            return db.execute(sql).fetchone()[0]
    import subprocess

    done = subprocess.run(["psql", dataset.url, "-X", "-At", "-c", sql], capture_output=True,
                          text=True, timeout=120)
    if done.returncode != 0:
        raise Failure(f"psql failed on {sql!r}: {done.stderr.strip()}")
    return int(done.stdout.strip())


# The deliveries not ended yet: those queued, and on SQLite also the events its workers have
# not queued the deliveries of yet (its deferred fan-out, past the cursor of
# crates/persistence/src/webhooks/queue/fan_out.rs), each counted once: zero exactly when
# nothing waits.
PENDING_SQL = {
    "postgres": "SELECT count(*) FROM webhook_deliveries WHERE status = 'pending'",
    "sqlite": "SELECT (SELECT count(*) FROM webhook_deliveries WHERE status = 'pending') "
              "+ (SELECT count(*) FROM webhook_events WHERE receivers IS NOT NULL "
              "AND seq > (SELECT through_seq FROM webhook_fan_out WHERE id = 1))",
}
# How often the queue is looked at while it empties: its wait is counted in a run's time.
QUEUE_POLL_S = 0.05


def pending(dataset):
    return scalar(dataset, PENDING_SQL[dataset.backend])


def stock_events(dataset):
    return scalar(dataset, "SELECT count(*) FROM webhook_events WHERE type = 'stock.updated'")


def wait_for_empty_queue(dataset, timeout_s=QUEUE_TIMEOUT_S):
    """Seconds until no delivery is pending; fails after `timeout_s`."""
    begun = time.monotonic()
    while pending(dataset):
        if time.monotonic() - begun > timeout_s:
            raise Failure(f"{pending(dataset)} deliveries still pending after {timeout_s} s")
        time.sleep(QUEUE_POLL_S)
    return round(time.monotonic() - begun, 2)


# --- load ---------------------------------------------------------------------------------

def paced_adjustments(port, key, variants, rate, seconds, senders=SENDERS):
    """`rate` adjustments a second for `seconds`, spread over `senders` threads each with its
    own connection, the i-th sent at start + i / rate (at once when late); each to the next
    variant of `variants` (cycled). Returns the number sent, the achieved rate and the
    adjustments' own latencies (ms)."""
    total = int(rate * seconds)
    start = time.monotonic() + 0.2
    latencies, errors = [], []
    lock = threading.Lock()

    def sender(index):
        api = Api(port, key)
        try:
            for i in range(index, total, senders):
                delay = start + i / rate - time.monotonic()
                if delay > 0:
                    time.sleep(delay)
                sent = time.monotonic()
                api.post_adjustment(variants[i % len(variants)])
                with lock:
                    latencies.append((time.monotonic() - sent) * 1000)
        except Exception as error:  # reported after the join
            errors.append(error)
        finally:
            api.close()

    threads = [threading.Thread(target=sender, args=(i,)) for i in range(senders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise Failure(f"a paced adjustment failed: {errors[0]}")
    elapsed = time.monotonic() - start
    return {"sent": total, "rate": round(total / elapsed, 1),
            "api_p50_ms": percentile(latencies, 0.5), "api_p99_ms": percentile(latencies, 0.99)}


def adjust_each_once(port, key, variants, senders=8):
    """One adjustment to each variant, from `senders` threads; returns the seconds taken."""
    begun = time.monotonic()
    errors = []

    def sender(index):
        api = Api(port, key)
        try:
            for variant in variants[index::senders]:
                api.post_adjustment(variant)
        except Exception as error:
            errors.append(error)
        finally:
            api.close()

    threads = [threading.Thread(target=sender, args=(i,)) for i in range(senders)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    if errors:
        raise Failure(f"an adjustment failed: {errors[0]}")
    return round(time.monotonic() - begun, 2)


# --- the four measurements ----------------------------------------------------------------

def measure_latency(settings, port, key, sink, variants):
    """1: paced adjustments, both endpoints enabled."""
    already = len(sink.records())
    seconds = settings.webhook_latency_s
    print(f" latency: {settings.webhook_rate} adjustments/s for {seconds} s "
          f"({SENDERS} threads), "
          f"{len(ENDPOINTS)} endpoints", flush=True)
    load = paced_adjustments(port, key, variants, settings.webhook_rate, seconds)
    expected = load["sent"] * len(ENDPOINTS)
    # Long enough for a backlog to drain, so that the percentiles cover every delivery
    # rather than the ones quick enough to be counted.
    wait_for_count(sink, already + expected, LATENCY_WAIT_S)
    summary = latency_summary(sink.records()[already:], expected)
    summary.update(rate=settings.webhook_rate, seconds=seconds, load=load,
                   rate_reached=load["rate"] >= RATE_REACHED * settings.webhook_rate)
    print(f"  {summary['received']:,} of {expected:,} deliveries; latency p50 "
          f"{_ms(summary['p50_ms'])} ms, p99 {_ms(summary['p99_ms'])} ms, max "
          f"{_ms(summary['max_ms'])} ms (adjustments sent at {load['rate']}/s, their own p50 "
          f"{_ms(load['api_p50_ms'])} ms)", flush=True)
    return summary


def rate_until_delivered(result, drained_after_s):
    """A run's adjustments a second, counted until the last delivery they queued ended."""
    return round(result.requests / (result.seconds + drained_after_s), 1)


def measure_throughput(settings, dataset, port, key, endpoint_ids, variants_file):
    """2: wrk's adjustments with the two endpoints enabled against both disabled, alternated;
    each run starts on an empty queue and lasts until the queue is empty again, and the time
    the queue took to empty after each run with endpoints is kept."""
    load = wrk.Load(f"http://127.0.0.1:{port}/api/v1/stock/adjustments", key, mode="post",
                    variants_file=str(variants_file))
    drained_after = []

    def run(enabled, warm=False):
        set_enabled(Api(port, key), endpoint_ids, enabled)
        if warm:
            wrk.warm_up(load, settings, settings.connections, settings.wrk_threads)
        wait_for_empty_queue(dataset)
        label = "2 endpoints" if enabled else "no endpoint"
        result = wrk.measure(load, settings, what=f"  adjustments, {label}", warm=False)
        # Both sides wait alike (with no endpoint, nothing is queued: no wait but a look).
        drained = wait_for_empty_queue(dataset)
        if enabled:
            drained_after.append(drained)
        return result, rate_until_delivered(result, drained)

    print(f" throughput: adjustments with {len(ENDPOINTS)} endpoints against none, "
          f"{settings.throughput_rounds} rounds, each until its deliveries ended", flush=True)
    two, two_rate = run(True, warm=True)
    none, none_rate = run(False, warm=True)
    measured = {"two": two.to_json(), "none": none.to_json()}
    measured["ratio_rounds"] = rounds.alternate(
        "none", (two_rate, none_rate), lambda: run(True)[1], lambda: run(False)[1],
        settings.throughput_rounds)
    measured["drained_after_s"] = drained_after
    value = ratio(measured)
    print(f"  ratio {value:.2f} (rounds "
          f"{', '.join(f'{r:.2f}' for r in rounds.ratios(measured, 'none'))})", flush=True)
    return measured


def measure_drain(settings, dataset, port, key, sink, endpoint_ids, variants):
    """3: distinct resources queued while disabled, then recovered and timed to the last
    arrival."""
    api = Api(port, key)
    set_enabled(api, endpoint_ids, False)
    wait_for_empty_queue(dataset)
    since = rfc3339_ms(time.time() - 0.001)
    count = settings.webhook_drain_events
    print(f" drain: {count:,} distinct variants adjusted with the endpoints disabled", flush=True)
    adjusted_s = adjust_each_once(port, key, variants[:count])
    if pending(dataset):
        raise Failure("deliveries were queued for a disabled endpoint")
    already = len(sink.records())
    started_ns = time.time_ns()
    recovers = []
    for endpoint_id in endpoint_ids:
        begun = time.monotonic()
        answer = request(api, "POST", f"{V2}/{endpoint_id}/recover", {"since": since},
                         expect=(202,))
        recovers.append({"seconds": round(time.monotonic() - begun, 3),
                         "answer": answer.get("data")})
    api.close()
    expected = count * len(endpoint_ids)
    wait_for_count(sink, already + expected, QUEUE_TIMEOUT_S)
    summary = drain_summary(sink.records()[already:], started_ns, expected)
    summary.update(events=count, adjusted_s=adjusted_s, recover=recovers)
    print(f"  {summary['received']:,} of {expected:,} deliveries in {summary['seconds']} s: "
          f"{summary['per_second']} deliveries/s (first to last arrival "
          f"{summary['first_to_last_per_second']}/s; recover requests "
          f"{', '.join(str(r['seconds']) for r in recovers)} s)", flush=True)
    return summary


def _observe(server, seconds):
    """RSS samples (MB) every second for `seconds`; returns (samples, peak VmHWM)."""
    samples = []
    for _ in range(int(seconds)):
        server.check_alive()
        samples.append(server.memory_mb()["rss"])
        time.sleep(1)
    return samples, server.memory_mb()["peak"]


def import_stock(settings, dataset, variants, offset):
    """`shop-api import` of every variant's stock, `offset` above the first import's: one
    `stock.updated` event a variant. Returns the seconds it took."""
    data, _ids = catalogue(variants, offset)
    path = OUT_DIR / f"webhook-import-{dataset.backend}.json"
    path.write_text(json.dumps(data))
    begun = time.monotonic()
    datasets.shop_api(settings, dataset, "import", "--shop", datasets.SLUG, path,
                      timeout_s=1800)
    return round(time.monotonic() - begun, 1)


def measure_memory(settings, dataset, start_server, variants):
    """4: the receiver down (its port closed), a backlog of undelivered events queued by
    imports, two servers' peak RSS: the one up while they were queued, and a new one
    started on them."""
    target = settings.webhook_backlog_events
    imports = imports_for(target, variants)
    begun_events = stock_events(dataset)
    server, _port = start_server("backlog")
    print(f" memory: receiver down, {imports} imports of {variants:,} variants' stock "
          f"(>= {target:,} stock.updated events)", flush=True)
    try:
        import_s = []
        # Far above what the adjustments before moved a stock (one each, by 1): every
        # variant's stock changes, so every import is one event a variant.
        for number in range(1, imports + 1):
            import_s.append(import_stock(settings, dataset, variants, number * 1_000_000))
            server.check_alive()
        queued = stock_events(dataset) - begun_events
        samples, peak = _observe(server, settings.webhook_rss_s)
        taking = {"events": queued, "imports_s": import_s, "peak_mb": peak,
                  "rss_after_mb": samples[-1] if samples else None,
                  "breakdown": server.memory_breakdown(), "pending": pending(dataset)}
    finally:
        server.stop()
    restarted, _port = start_server("restart")
    try:
        samples, peak = _observe(restarted, settings.webhook_rss_s)
        on_restart = {"peak_mb": peak, "rss_after_mb": samples[-1] if samples else None,
                      "breakdown": restarted.memory_breakdown(), "pending": pending(dataset)}
    finally:
        restarted.stop()
    print(f"  {queued:,} events queued (imports {', '.join(map(str, import_s))} s); peak RSS "
          f"{taking['peak_mb']:.1f} MB while they were, {on_restart['peak_mb']:.1f} MB "
          f"restarted on them ({on_restart['pending']:,} deliveries still pending)", flush=True)
    return {"backlog": taking, "restart": on_restart, "seconds": settings.webhook_rss_s}


def run(settings, backend, serve_argv):
    """The webhooks part on `backend`: its own dataset, created then dropped. `serve_argv`
    is bench.py's (settings, dataset, port) -> the server's command line."""
    measured = {}
    dataset = datasets.create(backend, "webhooks", settings)
    datasets.shop_api(settings, dataset, "shop", "create", "--slug", datasets.SLUG,
                      "--name", "Webhooks bench")
    count = settings.webhook_variants
    if count < settings.webhook_drain_events:
        raise Failure(f"BENCH_WEBHOOK_VARIANTS={count:,} is fewer than the drain's "
                      f"{settings.webhook_drain_events:,} distinct variants")
    measured["data"] = {"variants": count,
                        "import_s": import_stock(settings, dataset, count, 0)}
    datasets.gather_statistics(settings, dataset)
    datasets.settle(settings, [dataset])
    key = datasets.create_key(settings, dataset, SCOPES)
    _data, variants = catalogue(count)
    variants_file = OUT_DIR / f"webhook-variants-{backend}.txt"
    variants_file.write_text("\n".join(variants) + "\n")

    def start_server(role):
        port = free_port()
        server = Server(f"shop-api ({backend}, webhooks, {role})",
                        serve_argv(settings, dataset, port),
                        OUT_DIR / "logs" / f"serve-{backend}-webhooks-{role}.log", env=SERVER_ENV)
        wait_until_ready(server, port, key)
        return server, port

    sink = Sink(settings.webhook_sink, OUT_DIR / "logs" / f"webhook-sink-{backend}.log")
    try:
        server, port = start_server("main")
        try:
            api = Api(port, key)
            endpoint_ids = create_endpoints(api, sink)
            api.close()
            measured["latency"] = measure_latency(settings, port, key, sink, variants)
            measured["throughput"] = measure_throughput(settings, dataset, port, key,
                                                        endpoint_ids, variants_file)
            measured["drain"] = measure_drain(settings, dataset, port, key, sink,
                                              endpoint_ids, variants)
            measured["server_peak_mb"] = server.memory_mb()["peak"]
        finally:
            server.stop()
        measured["sink_requests"] = sink.count()
    finally:
        sink.stop()
    measured["memory"] = measure_memory(settings, dataset, start_server, count)
    return measured


def _ms(value):
    return "–" if value is None else f"{value:.1f}"
