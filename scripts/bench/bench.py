#!/usr/bin/env python3
"""`just bench`: builds the release binaries, seeds a big and a small dataset on SQLite and on
PostgreSQL, drives each endpoint with wrk (reading the CPU time the server and, on PostgreSQL,
its backends spend per request: benchlib/cpu.py), measures the two ceilings (A: the framework,
the `ceiling` binary serving the endpoint's captured body; B: the database running the
request's SQL, pgbench on PostgreSQL, `ceiling-sqlite` for the SQLite list pages),
the flat-with-size latencies (the big and the small dataset's servers both up, every request
of a ratio measured in several rounds, the two sides one after the other in alternating order,
each ratio the median of its rounds' ratios: benchlib/latency.py and benchlib/targets.py), the
server's memory and a soak, captures the query plans, and writes docs/PERFORMANCE.md (between
its markers) and target/bench/results-*.json.

    python3 scripts/bench/bench.py           # the full run (about 80 minutes on 2 cores)
    python3 scripts/bench/bench.py --quick   # tiny sizes and short runs: proves the harness
    BENCH_ONLY=flat python3 scripts/bench/bench.py   # seeding and the flat-with-size rounds only
    BENCH_ONLY=writes python3 scripts/bench/bench.py   # the two API v2 writes alone
    BENCH_ONLY=webhooks python3 scripts/bench/bench.py   # the webhooks part only
    BENCH_REPLICA=1 python3 scripts/bench/bench.py   # list pages: reads on a replica / primary

Every BENCH_* variable overrides one setting (scripts/bench/benchlib/config.py):
BENCH_BACKENDS=sqlite,postgres  BENCH_{BIG,SMALL}_{PRODUCTS,ORDERS,CLIENTS}
BENCH_WARMUP_SECONDS  BENCH_SECONDS  BENCH_CONNECTIONS  BENCH_WRK_THREADS
BENCH_THROUGHPUT_ROUNDS (a throughput ratio with a target: rounds of the API and that ceiling,
alternating which goes first, the ratio the median of the rounds' ratios; 3, --quick 2)
BENCH_LATENCY_ROUNDS (flat with size: rounds of each request after one warm-up; 5, --quick 2)
BENCH_LATENCY_SECONDS (flat with size: seconds measured per request and round; 5, --quick 2)
BENCH_WORKERS  BENCH_SOAK_SECONDS (0: no soak)  BENCH_SOAK_SAMPLE_SECONDS  BENCH_DEEP_ROWS
BENCH_SEARCH_TERM  BENCH_RARE_SEARCH_TERM  BENCH_PG_ADMIN_URL  BENCH_SHOP_API  BENCH_CEILING  BENCH_SKIP_BUILD=1
BENCH_KEEP_DATA=1  BENCH_DOC  BENCH_SEED_TIMEOUT_SECONDS  BENCH_DEEP_WALK_TIMEOUT_SECONDS
BENCH_ONLY=flat (a partial run: the seeding and the flat-with-size rounds, the deep cursor's
walk included; no throughput, ceilings, memory, soak or query plans. Its report says so and
goes to target/bench/PERFORMANCE-flat.md, or BENCH_DOC, which may not be docs/PERFORMANCE.md:
that file's generated section keeps the last full run)
BENCH_ONLY=writes (a partial run: the API v2 writes of the throughput step alone, a product's
PATCH and a loyalty credit with their ceilings A and B, on the small dataset alone (the only one
seeded); its report goes to target/bench/PERFORMANCE-writes.md, or BENCH_DOC, never
docs/PERFORMANCE.md. BENCH_WRITES=0 leaves the writes out of a full run)
BENCH_ONLY=webhooks (the webhooks part alone, benchlib/webhooks.py: latency, adjustments with
and without endpoints, a drain, memory with a backlog, on a dataset of its own; its knobs
BENCH_WEBHOOK_{VARIANTS,RATE,LATENCY_SECONDS,DRAIN_EVENTS,BACKLOG_EVENTS,RSS_SECONDS} and
BENCH_WEBHOOK_SINK. It writes only its own section of docs/PERFORMANCE.md (or BENCH_DOC; a
reduced run: target/bench/PERFORMANCE-webhooks.md), which a full run writes too;
BENCH_WEBHOOKS=0 leaves the part out of a full run)
BENCH_REPLICA=1 (a run of its own, PostgreSQL only, outside the default run: the pair of
scripts/replica/up.sh with no apply delay, the big dataset seeded on its primary, then the
products and orders pages with reads on the replica against the primary alone, in
BENCH_REPLICA_ROUNDS alternated rounds (2), as a ratio; benchlib/replica.py. Its report goes to
target/bench/PERFORMANCE-replica.md or BENCH_DOC, never docs/PERFORMANCE.md;
BENCH_REPLICA_CATCHUP_TIMEOUT_SECONDS bounds the wait for the replica to replay the seed;
REPLICA_ROOT, REPLICA_PRIMARY_PORT and REPLICA_PORT go to the pair's scripts)

Servers listen on 127.0.0.1 only and are stopped on exit, Ctrl-C included; the PostgreSQL
databases it creates (shop_bench_<pid>_*) are dropped, the SQLite files deleted.
"""

import argparse
import dataclasses
import json
import re
import signal
import sys
import time
import urllib.parse
from dataclasses import dataclass
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from benchlib import (  # noqa: E402
    config, cpu, datasets, latency, pgbench, plans, processes, replica, report, rounds,
    soak, sqlite_ceiling, targets, tools, webhooks, wrk, writes)
from benchlib.api import (  # noqa: E402
    API, Api, deep_orders_cursor, first_page_extent, instant_before, newest_order_created_at,
    tracked_variants, wait_until_ready)
from benchlib.processes import Failure  # noqa: E402

OUT = config.OUT_DIR
# Enough distinct variants that each wrk thread cycles through far more than its connections.
ADJUSTED_VARIANTS = 2048

# name -> (method and path shown in the report, API path). The name is also the path of the
# endpoint's captured body on the ceiling server (`/{name}`: letters, digits, `-` and `_`). A
# read by id's `{id}` is filled in by capture() (endpoint_paths).
ENDPOINTS = {
    "me": ("GET /api/v1/me", f"{API}/me"),
    "products": ("GET /api/v1/products?limit=20", f"{API}/products?limit=20"),
    "product": ("GET /api/v1/products/{id}", f"{API}/products/{{id}}"),
    "orders": ("GET /api/v1/orders?limit=20", f"{API}/orders?limit=20"),
    "order": ("GET /api/v1/orders/{id}", f"{API}/orders/{{id}}"),
    "adjustments": ("POST /api/v1/stock/adjustments", f"{API}/stock/adjustments"),
    # The API v2 writes (issue 35, benchlib/writes.py): `{id}` is each request's target, from
    # the write's own list (load.lua's patch and credit modes).
    "product_patch": ("PATCH /api/v2/products/{id}", "/api/v2/products/{id}"),
    "loyalty_credit": ("POST /api/v2/clients/{id}/loyalty/adjustments",
                       "/api/v2/clients/{id}/loyalty/adjustments"),
}
# The reads by id -> the list endpoint whose captured first page gives their id (its first
# row), so that nothing here depends on how the seed names its rows. Each list comes before its
# read by id in ENDPOINTS.
BY_ID = {"product": "products", "order": "orders"}
# "Orders changed since T": T is this many days before the small dataset's newest order, so
# that both pages are full (about 95 orders of 10,000 seeded over two years change in a week,
# about 9,600 of 1,000,000) while the big one has a hundred times more rows before T.
CHANGED_DAYS = 7


def url(port, path):
    return f"http://127.0.0.1:{port}{path}"


def serve_argv(settings, dataset, port, replica_url=None):
    """`shop-api serve` on the dataset, loopback only; with `replica_url` (BENCH_REPLICA=1),
    its GET endpoints read from that replica (benchlib/replica.py)."""
    return [settings.shop_api, "--database-url", dataset.url, "serve",
            "--bind", f"127.0.0.1:{port}", "--workers", settings.workers,
            # Far beyond any load here: the benchmark measures the service, not its 429s.
            "--rate-limit-reads-per-minute", 1_000_000_000,
            "--rate-limit-writes-per-minute", 1_000_000_000,
            "--auth-failures-per-minute", 1_000_000_000,
            *replica.serve_args(replica_url)]


def start_api(settings, dataset, key, replica_url=None, role=""):
    """A server on the dataset (`role`, when given, names it in its name and log file)."""
    port = processes.free_port()
    suffix = f"-{role}" if role else ""
    server = processes.Server(
        f"shop-api ({dataset.backend}, {dataset.size}{', ' + role if role else ''})",
        serve_argv(settings, dataset, port, replica_url),
        OUT / "logs" / f"serve-{dataset.backend}-{dataset.size}{suffix}.log",
    )
    wait_until_ready(server, port, key)
    return server, port


def pick_search_terms(api, settings):
    """Three `q` terms of 3+ characters found at both sizes: a common one, the longest word of
    the small table's first product's name (an index-less walk of the list finds a page of
    those quickly), a rare one, that product's own code (SKU, EAN or a variant's code: only an
    index finds it without reading the whole table), and a code prefix, that code without its
    last two characters (seeded codes end with the product's number, so the prefix is held by
    the few products numbered in the same hundred, at both sizes). Seeding is deterministic, so
    the first product is the same at both sizes. BENCH_SEARCH_TERM / BENCH_RARE_SEARCH_TERM
    override the first two; the prefix follows the rare term."""
    first = api.get_json(f"{API}/products?limit=1")["data"]
    if not first:
        raise Failure("the small dataset has no product to take search terms from")
    product = first[0]
    common = settings.search_term
    if not common:
        words = [w.lower() for w in re.findall(r"\w+", product["name"])
                 if len(w) >= 3 and not w.isdigit()]
        if not words:
            raise Failure(f"no word of 3+ letters in {product['name']!r}: set BENCH_SEARCH_TERM")
        common = max(words, key=len)
    rare = settings.rare_search_term
    if not rare:
        codes = [product.get("sku"), product.get("ean")]
        for variant in product.get("variants", []):
            codes += [variant.get("sku"), variant.get("barcode")]
        rare = next((c.lower() for c in codes if c and len(c) >= 3), None)
        if rare is None:
            raise Failure(f"product {product['id']} has no code: set BENCH_RARE_SEARCH_TERM")
    return {"common": common, "rare": rare, "prefix": rare[:max(3, len(rare) - 2)]}


def search_path(term):
    return f"{API}/products?limit=20&q={urllib.parse.quote(term)}"


def changed_orders_path(since):
    """The first page of the orders changed since `since`, walked by (updatedAt, id)."""
    return f"{API}/orders?{urllib.parse.urlencode({'limit': 20, 'updatedSince': since})}"


def pick_changed_since(api):
    """T of the "orders changed since T" pair, one instant for both sides: CHANGED_DAYS before
    the newest order of the dataset `api` serves (the small one: both datasets end at the
    same instant, and the small one's week must fill a page too)."""
    return instant_before(newest_order_created_at(api), CHANGED_DAYS)


def changed_since(small_api, big_api):
    """T and how full its first page is on each side (flat["changed_since"]): the report
    says what T was and whether more orders than a page matched, without paging them all."""
    since = pick_changed_since(small_api)
    path = changed_orders_path(since)
    return {"since": since, "days": CHANGED_DAYS,
            "first_page": {"small": first_page_extent(small_api, path),
                           "big": first_page_extent(big_api, path)}}


def latency_requests(small, big, flat, cursor, deep_rows):
    """The requests of a latency round, in the order of the even rounds: the orders first page
    on the small then the big table, the page `deep_rows` deep (big; left out when its cursor
    was not reached), the first page of the orders changed since T (flat["changed_since"]) on
    the small then the big table, then each search term on the small then the big table.
    `small` and `big` are (port, key) of the two servers. The two sides of a ratio are next to
    each other in both orders, so that they are measured seconds apart."""
    def load(server, path):
        port, key = server
        return wrk.Load(url(port, path), key)

    orders = f"{API}/orders?limit=20"
    requests = [
        latency.Request(("orders_small",), load(small, orders), "orders first page (small)"),
        latency.Request(("orders_big",), load(big, orders), "orders first page (big)"),
    ]
    if cursor:
        requests.append(latency.Request(
            ("orders_deep",), load(big, f"{orders}&cursor={urllib.parse.quote(cursor)}"),
            f"orders {deep_rows:,} deep (big)"))
    changed = changed_orders_path(flat["changed_since"]["since"])
    requests += [
        latency.Request(("orders_changed_small",), load(small, changed),
                        "orders changed since T (small)"),
        latency.Request(("orders_changed_big",), load(big, changed),
                        "orders changed since T (big)"),
    ]
    for kind, search in flat["searches"].items():
        path = search_path(search["term"])
        for size, server in (("small", small), ("big", big)):
            requests.append(latency.Request(("searches", kind, size), load(server, path),
                                            f"q={search['term']} ({size})"))
    return requests


def measure_flat(settings, small_dataset, small_key, big, cursor, flat):
    """The flat-with-size latencies, into `flat`: the small dataset's server is started beside
    the big one's (`big`: its (port, key)), so that both sides of each ratio are measured in
    the same minutes, in alternating rounds (benchlib/latency.py), then stopped. The search
    terms and T of the orders changed since T are read from the small one first."""
    server, port = start_api(settings, small_dataset, small_key)
    try:
        api, big_api = Api(port, small_key), Api(*big)
        flat["searches"] = {kind: {"term": term}
                            for kind, term in pick_search_terms(api, settings).items()}
        changed = flat["changed_since"] = changed_since(api, big_api)
        api.close()
        big_api.close()
        pages = changed["first_page"]
        print(f" orders changed since T = {changed['since']}: first page "
              f"{pages['small']['rows']} rows (small), {pages['big']['rows']} rows (big)",
              flush=True)
        print(f" latency, 1 connection, {settings.latency_rounds} rounds of "
              f"{settings.latency_s} s per request (small and big servers both up):", flush=True)
        requests = latency_requests((port, small_key), big, flat, cursor, settings.deep_rows)
        sides = latency.run(requests, settings)
    finally:
        server.stop()
    for slot, side in sides.items():
        latency.place(flat, slot, side)
    flat.setdefault("orders_deep", None)  # its cursor was not reached: not measured


@dataclass
class Captured:
    """What the ceilings need from the API on the measured dataset."""

    shop_id: str
    bodies: dict  # endpoint name -> file holding its response body, byte for byte
    variants_file: Path  # tracked variants to adjust, one a line
    first_page_ids: dict  # "products"/"orders" -> the ids of the captured first page
    key_prefix: str  # of the benchmark's key (the adjustments' movements record it)
    # endpoint name -> (request shown in the report, API path): ENDPOINTS with the reads by
    # id's paths filled in (endpoint_paths), for the endpoints this run measures
    endpoints: dict
    # A v2 write's name -> file of its targets' ids, one a line (benchlib/writes.py)
    write_ids: dict = dataclasses.field(default_factory=dict)
    # A v2 write's name -> file holding the body of the event its captured request appended
    event_bodies: dict = dataclasses.field(default_factory=dict)
    # On PostgreSQL, the captured adjustment's two events: adjustment.sql's variable
    # (`stock_event_body`, `product_event_body`) -> file holding the body the API rendered
    adjustment_events: dict = dataclasses.field(default_factory=dict)

    def targets(self, name):
        """How many targets the write `name` cycles through."""
        return len(self.write_ids[name].read_text().split())

    def by_id(self, name):
        """The id that the read by id `name` ("product", "order") asks for."""
        return self.first_page_ids[BY_ID[name]][0]


def page_ids(body):
    """The ids of a list page's response body, in its order."""
    return [row["id"] for row in json.loads(body)["data"]]


def endpoint_path(name, first_page_ids):
    """The API path of endpoint `name`; a read by id's `{id}` is the first id of its list's
    first page (first_page_ids: list endpoint name -> ids)."""
    request, path = ENDPOINTS[name]
    if name in BY_ID:
        ids = first_page_ids.get(BY_ID[name])
        if not ids:
            raise Failure(f"the first page of {BY_ID[name]} is empty: no id for {request}")
        path = path.replace("{id}", urllib.parse.quote(ids[0], safe=""))
    return path


def endpoint_paths(first_page_ids, names=None):
    """ENDPOINTS (or the `names` of them) with each read by id's path filled in
    (endpoint_path)."""
    return {name: (request, endpoint_path(name, first_page_ids))
            for name, (request, _) in ENDPOINTS.items() if names is None or name in names}


def measured_endpoints(settings):
    """The endpoints of the throughput step, in ENDPOINTS order: the reads and the
    adjustments (part "throughput"), the v2 writes (part "writes"), or both."""
    return [name for name in ENDPOINTS
            if settings.runs("writes" if name in writes.WRITES else "throughput")]


def adjustment_event_resources(variant_id, body):
    """adjustment.sql's event body variables -> the resource of that event (stock.updated,
    product.updated) of the adjustment of `variant_id` whose response body is `body`."""
    product_id = json.loads(body)["data"]["productId"]
    return {"stock_event_body": f"stock:{variant_id}",
            "product_event_body": f"product:{product_id}"}


def capture(api, backend, key_prefix, dataset=None, connections=32, names=None):
    """Every measured endpoint's response body (`names`, all of ENDPOINTS by default), in
    ENDPOINTS order: a list's first page before the read by id that asks for its first row,
    the writes last. A v2 write also gets its targets, read from the dataset's database, and
    the body of the event its captured request appended; the adjustment, on PostgreSQL, the
    bodies of its two events (only pgbench's adjustment.sql uses them)."""
    names = list(ENDPOINTS) if names is None else names
    bodies, first_page_ids, write_ids, event_bodies = {}, {}, {}, {}
    adjustment_events = {}
    variants_file = OUT / f"variants-{backend}.txt"
    if "adjustments" in names:
        variants = tracked_variants(api, ADJUSTED_VARIANTS)
        variants_file.write_text("\n".join(variants) + "\n")
    # /me's body when it is captured (first), else /me read for it alone.
    shop_id = None if "me" in names else api.get_json(f"{API}/me")["shop"]["id"]
    for name in names:
        if name == "adjustments":
            body = api.post_adjustment(variants[0])
            on_postgres = dataset is not None and dataset.backend == "postgres"
            resources = adjustment_event_resources(variants[0], body) if on_postgres else {}
            for variable, resource in resources.items():
                adjustment_events[variable] = writes.write_file(
                    OUT / "bodies" / f"{backend}-{name}-{variable}.json",
                    writes.event_body(dataset, shop_id, resource))
        elif name in writes.WRITES:
            _mode, kind, _event = writes.WRITES[name]
            ids = writes.targets(dataset, shop_id, kind, connections)
            write_ids[name] = writes.write_file(OUT / f"{kind}s-{backend}.txt",
                                                "\n".join(ids) + "\n")
            _path, body = writes.capture_request(api, name, ids[0])
            event_bodies[name] = writes.write_file(
                OUT / "bodies" / f"{backend}-{name}-event.json",
                writes.event_body(dataset, shop_id, f"{kind}:{ids[0]}"))
        else:
            body = api.get(endpoint_path(name, first_page_ids))
        if name in BY_ID.values():
            first_page_ids[name] = page_ids(body)
        if name == "me":
            shop_id = json.loads(body)["shop"]["id"]
        bodies[name] = OUT / "bodies" / f"{backend}-{name}.json"
        bodies[name].parent.mkdir(parents=True, exist_ok=True)
        bodies[name].write_bytes(body)
    if dataset is not None:
        writes.prepare_pgbench(dataset, {writes.WRITES[name][1]: path.read_text().split()
                                         for name, path in write_ids.items()})
    return Captured(shop_id, bodies, variants_file, first_page_ids, key_prefix,
                    endpoint_paths(first_page_ids, names), write_ids, event_bodies,
                    adjustment_events)


def pgbench_variables(captured, name, clients=32):
    """The variables of scripts/bench/sql/README.md: `shop_id`; the reads by id's
    `product_id` (product.sql) / `order_id` (order.sql); the adjustment's `slug` (its variants
    are {slug}-p{client_id + 1:07}-v0), `key_prefix` and its events' bodies
    (`stock_event_body`, `product_event_body`); a v2 write's `key_prefix`,
    `event_body`, `clients` (pgbench's -c), `targets` and `turn` (benchlib/writes.py). The
    pages need no more than `shop_id`: their one statement selects the page's ids itself."""
    if name in writes.WRITES:
        return writes.pgbench_variables(captured.shop_id, captured.key_prefix,
                                        captured.event_bodies[name].read_text(), clients,
                                        captured.targets(name))
    variables = {"shop_id": captured.shop_id}
    if name == "product":
        variables["product_id"] = captured.by_id("product")
    elif name == "order":
        variables["order_id"] = captured.by_id("order")
    elif name == "adjustments":
        variables.update(slug=datasets.SLUG, key_prefix=captured.key_prefix)
        variables.update({variable: path.read_text()
                          for variable, path in captured.adjustment_events.items()})
    return variables


def measure_throughput(settings, dataset, port, key, captured, measured, api_pid):
    """Each endpoint, then its ceilings right after it, so that the three runs of a ratio
    see the same machine (other work on a shared machine comes and goes). The API's runs also
    measure CPU per request: the server process's (`api_pid`) and, on PostgreSQL, its
    backends' (benchlib/cpu.py). A ratio with a target is measured in more rounds, API and
    that ceiling alternating which goes first (benchlib/rounds.py)."""
    meter = cpu.Meter(api_pid, dataset.pg_name)
    ceiling, ceiling_port = processes.start_ceiling(
        settings.ceiling, settings.workers, captured.bodies,
        OUT / "logs" / f"ceiling-{dataset.backend}.log")
    try:
        print(f" throughput, {settings.connections} connections (API, ceiling A, ceiling B"
              " where the request has one)", flush=True)
        throughput = measured["throughput"] = {}
        for name, (request, path) in captured.endpoints.items():
            api_load, ceiling_load = loads(name, path, port, ceiling_port, key, captured)
            entry = throughput[name] = {
                "request": request,
                "body_bytes": captured.bodies[name].stat().st_size,
                "api": wrk.measure(api_load, settings, what=request,
                                   read_cpu=meter.read).to_json(),
                "ceiling_a": wrk.measure(ceiling_load, settings,
                                         what="  ceiling A, same body").to_json(),
            }
            ceiling_b = ceiling_b_run(settings, dataset, captured, name)
            if ceiling_b:
                entry["ceiling_b"] = ceiling_b().to_json()
            goal = targets.THROUGHPUT_TARGETS.get(name, {}).get(dataset.backend)
            if goal and entry.get(goal[0]) and settings.throughput_rounds > 1:
                def api_rate():
                    return wrk.measure(api_load, settings, what=f"{request} (round)",
                                       warm=False).rps

                def ceiling_rate():
                    if goal[0] == "ceiling_a":
                        return wrk.measure(ceiling_load, settings, warm=False,
                                           what="  ceiling A, same body (round)").rps
                    return ceiling_b(warm=False).tps

                first = (entry["api"]["rps"], targets.reference_rate(entry, goal[0]))
                entry["ratio_rounds"] = rounds.alternate(
                    goal[0], first, api_rate, ceiling_rate, settings.throughput_rounds)
        if "memory" in measured:
            measured["memory"]["ceiling_peak_mb"] = ceiling.memory_mb()["peak"]
    finally:
        ceiling.stop()


def loads(name, path, port, ceiling_port, key, captured):
    """wrk's loads of endpoint `name` on the API and on ceiling A (its captured body at
    `/{name}`): GETs, the adjustments (post) or a v2 write (patch, credit: each request to a
    target of this thread's share)."""
    variants = str(captured.variants_file)
    if name in writes.WRITES:
        mode = writes.WRITES[name][0]
        ids = str(captured.write_ids[name])
        return (wrk.Load(url(port, "/api/v2/"), key, mode=mode, ids_file=ids,
                         path_template=path),
                wrk.Load(url(ceiling_port, f"/{name}"), key, mode=mode, ids_file=ids,
                         path_template=f"/{name}"))
    mode = "post" if name == "adjustments" else "get"
    return (wrk.Load(url(port, path), key, mode=mode, variants_file=variants),
            wrk.Load(url(ceiling_port, f"/{name}"), key, mode=mode, variants_file=variants,
                     post_path=f"/{name}"))


def ceiling_b_run(settings, dataset, captured, name):
    """A call that measures ceiling B of endpoint `name` once (`warm=False`: without its
    warm-up), or None when the endpoint has none on this backend."""
    if dataset.backend == "sqlite" and name in sqlite_ceiling.PAGES:
        return lambda warm=True: sqlite_ceiling.measure(
            settings.ceiling_sqlite, dataset.sqlite_path, name, captured.shop_id, settings,
            warm=warm)
    if dataset.backend == "sqlite" and name in sqlite_ceiling.WRITES:
        values = {"key_prefix": captured.key_prefix, "event_body": captured.event_bodies[name]}
        return lambda warm=True: sqlite_ceiling.measure_write(
            settings.ceiling_sqlite, dataset.sqlite_path, name, captured.shop_id,
            captured.write_ids[name], values, settings, warm=warm)
    if dataset.backend != "postgres" or name not in pgbench.SCRIPTS:
        return None
    script = pgbench.script_path(name)
    if not script.is_file():
        print(f"  no {script.relative_to(config.ROOT)}: no ceiling B", flush=True)
        return None
    variables = pgbench_variables(captured, name, settings.connections)
    return lambda warm=True: pgbench.measure(dataset.url, script, variables, settings,
                                             warm=warm)


def measure_flat_on_big(settings, port, key, small_dataset, small_key, flat):
    """The deep cursor, walked on the big dataset's server (`port`, `key`), then the
    flat-with-size latencies, into `flat`."""
    api = Api(port, key)
    cursor, flat["deep_walk_s"] = deep_orders_cursor(api, settings.deep_rows,
                                                     settings.deep_walk_timeout_s)
    api.close()
    print(f" the cursor {settings.deep_rows:,} orders deep was "
          f"{'reached' if cursor else 'NOT reached'} by paging the API in "
          f"{flat['deep_walk_s']:.1f} s", flush=True)
    measure_flat(settings, small_dataset, small_key, (port, key), cursor, flat)


def measure_memory(settings, server, port, key, captured, measured):
    """The big server's peak RSS after the benchmarks, then the soak and the peak after it."""
    # The big server's own peak (VmHWM of its process): the small one's is not counted.
    measured["memory"]["peak_mb_benchmark"] = server.memory_mb()["peak"]
    measured["soak"] = None
    if settings.soak_s:
        print(f" soak, {settings.soak_s} s of mixed load:", flush=True)
        mixed = wrk.Load(url(port, f"{API}/me"), key, mode="mixed",
                         variants_file=str(captured.variants_file))
        measured["soak"] = soak.run(server, mixed, settings)
        if measured["soak"]["failed_requests"]:
            raise Failure(f"the soak had {measured['soak']['failed_requests']} failed "
                          "requests")
    measured["memory"]["peak_mb_total"] = server.memory_mb()["peak"]


def measure_big(settings, dataset, key, small_dataset, small_key, measured):
    """Throughput and its ceilings, the deep cursor, the flat-with-size latencies (with the
    small dataset's server up beside it for their duration), then memory and the soak of the
    big dataset's server, into `measured`; returns what the API told (ids for the query
    plans). A partial run (BENCH_ONLY) does only its parts and returns None when throughput,
    which captures that, did not run. BENCH_ONLY=writes gives the small dataset as `dataset`
    (config.WRITES_DATASET) and no other."""
    server, port = start_api(settings, dataset, key)
    try:
        captured = None
        if settings.runs_throughput_step():
            api = Api(port, key)
            captured = capture(api, dataset.backend, datasets.key_prefix(settings, dataset),
                               dataset, settings.connections, measured_endpoints(settings))
            api.close()
            measure_throughput(settings, dataset, port, key, captured, measured, server.pid)
        if settings.runs("flat"):
            measure_flat_on_big(settings, port, key, small_dataset, small_key,
                                measured["flat"])
        if settings.runs("memory"):
            measure_memory(settings, server, port, key, captured, measured)
        return captured
    finally:
        server.stop()


def new_measured(settings):
    """The results of one backend before anything is measured: an entry only for the parts
    this run measures, so that a partial run's report cannot show a part it skipped."""
    measured = {"seed": {}}
    if settings.runs_throughput_step():
        measured["throughput"] = {}
    if settings.runs("flat"):
        measured["flat"] = {"deep_rows": settings.deep_rows}
    if settings.runs("memory"):
        measured["memory"] = {}
    return measured


def bench_backend(settings, backend):
    print(f"\n== {backend}", flush=True)
    measured = new_measured(settings)
    try:
        if settings.runs_datasets():
            bench_datasets(settings, backend, measured)
        if settings.runs("webhooks"):
            print(" webhooks (a dataset of their own):", flush=True)
            measured["webhooks"] = webhooks.run(settings, backend, serve_argv)
        return measured
    finally:
        datasets.drop_all(settings.keep_data)


def bench_datasets(settings, backend, measured):
    """The parts on the big and small datasets (config.DATASET_PARTS), into `measured`."""
    print(" seeding:", flush=True)
    if not settings.runs_big_dataset():  # BENCH_ONLY=writes: the small dataset alone
        small = datasets.create(backend, config.WRITES_DATASET, settings)
        measured["seed"][config.WRITES_DATASET] = datasets.seed(settings, small, settings.small)
        measured["settle_s"] = datasets.settle(settings, [small])
        small_key = datasets.create_key(settings, small)
        captured = measure_big(settings, small, small_key, None, None, measured)
        measured["shop_id"] = captured.shop_id
        return
    big = datasets.create(backend, "big", settings)
    measured["seed"]["big"] = datasets.seed(settings, big, settings.big)
    small = datasets.create(backend, "small", settings)
    measured["seed"]["small"] = datasets.seed(settings, small, settings.small)
    measured["settle_s"] = datasets.settle(settings, [big, small])
    print(f"  on disk (checkpoint, sync) in {measured['settle_s']} s", flush=True)
    big_key = datasets.create_key(settings, big)
    small_key = datasets.create_key(settings, small)

    captured = measure_big(settings, big, big_key, small, small_key, measured)
    if settings.runs("flat"):
        for search in measured["flat"]["searches"].values():
            search["matches"] = {
                "small": datasets.count_search_matches(small, search["term"]),
                "big": datasets.count_search_matches(big, search["term"]),
            }
    if captured is not None:
        measured["shop_id"] = captured.shop_id
    if settings.runs("plans"):  # with throughput's shop id and flat's common term
        common = measured["flat"]["searches"]["common"]["term"]
        measured["plans"] = plans.capture(
            big, plans.parameters(big, captured.shop_id, common, settings.deep_rows))


def same_first_pages(ports, key):
    """Both servers (target -> port) answer each list page's first page with the same rows:
    the replica has the data, and routing the reads changes nothing in what they return."""
    for request, path in replica.PAGES.values():
        pages = {}
        for target, port in ports.items():
            api = Api(port, key)
            pages[target] = api.get_json(path)["data"]
            api.close()
        if len({json.dumps(rows, sort_keys=True) for rows in pages.values()}) != 1:
            raise Failure(f"{request}: the servers answer different rows "
                          f"({', '.join(f'{t}: {len(rows)}' for t, rows in pages.items())})")
        if not pages["primary"]:
            raise Failure(f"{request}: an empty page: nothing to measure")


def measure_replica(settings, pair, dataset, key):
    """The two servers on the seeded, replayed dataset (reads on the replica; the primary
    alone), measured in alternated rounds (benchlib/replica.py), then stopped."""
    replica_url = replica.database_url(pair.replica_url, dataset.pg_name)
    servers = {
        "replica": start_api(settings, dataset, key, replica_url=replica_url, role="replica"),
        "primary": start_api(settings, dataset, key, role="primary"),
    }
    try:
        ports = {target: port for target, (_server, port) in servers.items()}
        same_first_pages(ports, key)
        postmasters = replica.postmaster_pids(pair.root)
        meters = {target: replica.PairMeter(server.pid, dataset.pg_name, postmasters).read
                  for target, (server, _port) in servers.items()}
        print(f" throughput, {settings.connections} connections, reads on the replica and the "
              f"primary alone in {settings.replica_rounds} alternated rounds:", flush=True)
        return replica.measure(settings, ports, key, meters)
    finally:
        for server, _port in servers.values():
            server.stop()


def bench_replica(settings, pair):
    """BENCH_REPLICA=1: the big dataset seeded on the pair's primary (settings.pg_admin_url
    is its URL), the replica waited for until it has replayed the seed, then the list pages
    with reads on the replica against the primary alone (measure_replica)."""
    print("\n== postgres: reads on a streaming replica against the primary alone", flush=True)
    measured = {"seed": {}}
    try:
        print(" seeding on the pair's primary:", flush=True)
        big = datasets.create("postgres", "big", settings)
        measured["seed"]["big"] = datasets.seed(settings, big, settings.big)
        key = datasets.create_key(settings, big)
        measured["settle_s"] = datasets.settle(settings, [big])
        replica_url = replica.database_url(pair.replica_url, big.pg_name)
        caught = replica.wait_replayed(big.url, replica_url, settings.replica_catchup_timeout_s)
        datasets.psql(replica_url, "CHECKPOINT")  # a restartpoint: the replay's pages on disk
        print(f"  the replica replayed the primary's WAL up to {caught['lsn']} "
              f"{caught['seconds']} s after the seed", flush=True)
        pages = measure_replica(settings, pair, big, key)
        measured["replica"] = {"pair": pair.to_json(), "database": big.pg_name,
                               "catch_up": caught, "rounds": settings.replica_rounds,
                               "pages": pages}
        return measured
    finally:
        datasets.drop_all(settings.keep_data)


def raw_results_names(only, stamp):
    """The raw results' file names (under target/bench/): this run's and the latest's. A
    partial run's carry its BENCH_ONLY, so that results-latest.json stays the last full run's,
    as docs/PERFORMANCE.md does."""
    prefix = f"results-{only}" if only else "results"
    return f"{prefix}-{stamp}.json", f"{prefix}-latest.json"


REACHED_TEXT = {True: "yes", False: "NO, see the report", None: "not measured"}


def _terminate(signum, _frame):
    raise SystemExit(f"stopped by signal {signum}")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true",
                        help="tiny datasets and short runs, to prove the harness works")
    settings = config.load(quick=parser.parse_args().quick)
    signal.signal(signal.SIGTERM, _terminate)
    # Started in the background by a non-interactive shell, SIGINT arrives ignored: take it.
    signal.signal(signal.SIGINT, signal.default_int_handler)
    OUT.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%dT%H%M%S")
    raw_name, latest_name = raw_results_names(settings.only, stamp)
    raw_path = OUT / raw_name
    results = {
        "meta": {
            "date": tools.now_utc(),
            "load_average_start": tools.load_average(),
            "machine": tools.machine(),
            "settings": settings.to_json(),
            "reduced": config.reduced(settings),
            # What this run measured (the report names what it left out): BENCH_ONLY.
            "only": settings.only,
            "parts": list(settings.parts),
            "raw_results": str(raw_path.relative_to(config.ROOT)),
        },
        "backends": {},
    }
    pair = replica.Pair.from_environment() if settings.replica else None
    try:
        if pair:  # BENCH_REPLICA=1: the datasets go to the pair's primary
            settings = dataclasses.replace(settings, pg_admin_url=pair.up().primary_url)
            results["meta"]["settings"] = settings.to_json()
            results["meta"]["replica_pair"] = pair.to_json()
        tools.ensure(settings)
        tools.build(settings)
        results["meta"]["versions"] = tools.versions(settings)
        if pair:
            results["backends"]["postgres"] = bench_replica(settings, pair)
        else:
            for backend in settings.backends:
                results["backends"][backend] = bench_backend(settings, backend)
    except Failure as failure:
        print(f"\nbenchmark failed: {failure}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("\ninterrupted: stopping the servers, dropping the databases", file=sys.stderr)
        return 130
    finally:
        results["meta"]["load_average_end"] = tools.load_average()
        processes.stop_all()
        datasets.drop_all(settings.keep_data)
        if pair:
            pair.restore(settings.keep_data)
        raw_path.write_text(json.dumps(results, indent=2))
        (OUT / latest_name).write_text(json.dumps(results, indent=2))

    report.write(settings.doc, results)
    print(f"\nwrote {settings.doc} and {raw_path}")
    if settings.replica:
        for entry in results["backends"]["postgres"]["replica"]["pages"].values():
            value = replica.ratio(entry)
            print(f"  {entry['request']}: reads on the replica / the primary alone = "
                  f"{'n/a' if value is None else f'{value:.2f}'} "
                  f"({entry['replica']['rps']:,.0f} / {entry['primary']['rps']:,.0f} req/s; "
                  f"reads reached the replica: "
                  f"{REACHED_TEXT[replica.reached_replica(entry)]})", flush=True)
        return 0
    if settings.only:
        print(f"  a partial run ({config.knob(settings.only)}): only the "
              f"{', '.join(settings.parts)} targets", flush=True)
    for row in targets.evaluate(results):
        print(f"  [{report.YES[row['met']]:>6}] {row['backend']:<8} {row['target']}: "
              f"{row['measured']} (limit {row['limit']})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
