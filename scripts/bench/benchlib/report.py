"""docs/PERFORMANCE.md: the generated part between the markers, rewritten on every run; the
hand-written text around the markers is kept."""

from pathlib import Path

from . import config, latency, replica, targets, webhooks
from .markdown import table as _table

BEGIN = "<!-- bench:begin -->"
END = "<!-- bench:end -->"
# The webhooks part's own section (config.OWN_SECTION): written by a full run and by
# BENCH_ONLY=webhooks, which leaves the full run's section above alone.
WEBHOOKS_BEGIN = "<!-- bench-webhooks:begin -->"
WEBHOOKS_END = "<!-- bench-webhooks:end -->"

NEW_DOC = f"""# Performance

How fast the API is on one machine, against two ceilings: **A**, the framework (the same
actix-web server configuration answering the endpoint's own response body, pre-serialized:
`crates/bench`, binary `ceiling`), and **B**, the database (pgbench running the SQL of one
request at the same concurrency: `scripts/bench/sql/postgres/`). Reproduce with `just bench`
(or `python3 scripts/bench/bench.py`); the section between the markers is generated.

{BEGIN}
{END}
"""

YES = {True: "yes", False: "**no**", None: "n/a"}
# What each part of a run (config.PARTS) covers, as a partial run's report names what it
# left out.
PART_NAMES = {
    "throughput": "throughput with ceilings A and B (the reads and the stock adjustments)",
    "writes": "the API v2 writes' throughput (a product's PATCH, a loyalty credit) with "
              "ceilings A and B",
    "flat": "the flat-with-size rounds",
    "memory": "memory and the soak",
    "plans": "the query plans",
    "webhooks": "the webhooks part",
}


def parts_run(results):
    """The parts the run measured; results from before BENCH_ONLY were full runs."""
    return tuple(results["meta"].get("parts") or config.PARTS)


def _partial(results):
    """The warning a partial run's report opens with, or "" for a full run: what ran, what
    did not, and that the missing figures are absent rather than zero or failed."""
    ran = parts_run(results)
    # A part with a section of its own is reported there, never in this one.
    skipped = [PART_NAMES[p] for p in config.PARTS
               if p not in ran and p not in config.OWN_SECTION]
    if not skipped:
        return ""
    only = results["meta"].get("only")
    knob = f" (`{config.knob(only)}`)" if only else ""
    where = (f", on the {config.WRITES_DATASET} dataset alone (a full run measures them on the "
             "big one)" if tuple(ran) == ("writes",) else "")
    return (
        f"**Partial run**{knob}: only {' and '.join(PART_NAMES[p] for p in ran)}, with the "
        f"seeding they need{where}. Not run, so not measured: {', '.join(skipped)}; their "
        "tables and targets are absent below, neither met nor missed. The last full run's "
        "figures are in docs/PERFORMANCE.md."
    )


def _ms(value):
    return "–" if value is None else f"{value:.2f}"


def _latency_rounds(settings):
    """How the flat-with-size latencies were taken (older results: one run per side)."""
    rounds = settings.get("latency_rounds")
    if rounds is None:
        return f"{settings['latency_s']} s"
    return (
        f"{rounds} round{'' if rounds == 1 else 's'} of {settings['latency_s']} s per request "
        f"after one {settings['warmup_s']} s warm-up each, the small and the big dataset's "
        "servers both up; the two sides of each ratio in alternating order (small, or the first "
        "page, first in even rounds; big, or the deep page, first in odd ones), each ratio "
        "the median of its rounds' ratios"
    )


def _versions(meta):
    """The tools' versions, each named once."""
    return ", ".join(v if v.lower().startswith(k) else f"{k} {v}"
                     for k, v in meta["versions"].items())


def _reduced(meta):
    """The warning a reduced run's report opens its machine paragraph with, or nothing."""
    if not meta["reduced"]:
        return ""
    return ("\n\n**Reduced run** (`--quick` or smaller BENCH_* sizes/durations): the figures "
            "prove the harness, not the service.")


def _throughput_rounds(settings):
    rounds = settings.get("throughput_rounds", 1)
    if rounds <= 1:
        return ""
    return (f"a ratio with a target (÷ A or ÷ B below) in {rounds} rounds, the API and that "
            "ceiling one right after the other and alternating which goes first, the ratio "
            "the median of its rounds' ratios (the other columns: the first round); ")


def _machine(results):
    meta = results["meta"]
    m, s = meta["machine"], meta["settings"]
    versions = _versions(meta)
    reduced = _reduced(meta)
    partial = _partial(results)
    throughput = (
        f"wrk, {s['connections']} connections on {s['wrk_threads']} threads, "
        f"{s['warmup_s']} s warm-up then {s['duration_s']} s measured per run; "
        f"{_throughput_rounds(s)}"
        if _throughput_ran(results) else ""
    )
    latency = (f"latency runs (flat with size) 1 connection, {_latency_rounds(s)}. "
               if "flat" in parts_run(results) else "")
    if throughput and not latency:  # the throughput text ends with "; " or "per run; "
        throughput = throughput.rstrip("; ") + ". "
    return (
        (f"{partial}\n\n" if partial else "")
        + f"Run of {meta['date']} on {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, "
        f"Linux {m['kernel']} ({m['os']}). Versions: {versions}.\n\n"
        f"Load: {throughput}{latency}Server: `shop-api serve` "
        f"(release), {s['workers']} workers, rate limits raised out of the way. Load generator, "
        f"server and database share the same {m['cores']} cores; the machine's load average "
        f"(1, 5, 15 min) was {meta['load_average_start']} before the run started (other work, "
        "which lowers and scatters the figures) and "
        f"{meta['load_average_end']} at its end. Raw results: "
        f"`{meta['raw_results']}`.{reduced}"
    )


def _seeding(results):
    rows = []
    for backend, measured in results["backends"].items():
        for size, seed in measured["seed"].items():
            sizes = seed["sizes"]
            rows.append([backend, size, f"{sizes['products']:,}", f"{sizes['orders']:,}",
                         f"{sizes['clients']:,}", f"{seed['rows']:,}", f"{seed['seconds']:.1f}",
                         f"{seed['rows_per_s']:,.0f}"])
    return _table(["backend", "dataset", "products", "orders", "clients", "rows written",
                   "seed s", "rows/s"], rows)


def _us(value):
    return "–" if value is None else f"{value:,.0f}"


def _throughput(results):
    rows = []
    for backend, measured in results["backends"].items():
        for name, entry in measured["throughput"].items():
            api, a, b = entry["api"], entry.get("ceiling_a"), entry.get("ceiling_b")
            ratio_a = targets.throughput_ratio(entry, "ceiling_a")
            ratio_b = targets.throughput_ratio(entry, "ceiling_b")
            used = api.get("cpu_us_per_request") or {}
            rows.append([
                f"`{entry['request']}`", backend, f"{api['rps']:,.0f}", _ms(api["p50_ms"]),
                _ms(api["p99_ms"]), f"{entry['body_bytes']:,}",
                f"{a['rps']:,.0f}" if a else "–", f"{ratio_a:.2f}" if ratio_a else "–",
                f"{b['tps']:,.0f}" if b else "–", f"{ratio_b:.2f}" if ratio_b else "–",
                _us(used.get("api")), _us(used.get("postgres")),
            ])
    return _table(["request", "backend", "req/s", "p50 ms", "p99 ms", "body bytes",
                   "ceiling A req/s", "÷ A", "ceiling B tps", "÷ B", "API CPU µs/req",
                   "PostgreSQL CPU µs/req"], rows)


def _targets(results, rows=None):
    rows = [[r["target"], r["backend"], r["measured"], r["limit"], YES[r["met"]]]
            for r in (targets.evaluate(results, with_webhooks=False) if rows is None else rows)]
    return _table(["target", "backend", "measured", "limit", "met"], rows)


def _flat(results):
    rows, notes = [], []
    for backend, measured in results["backends"].items():
        flat = measured["flat"]
        runs = [("orders first page, small table", flat.get("orders_small")),
                ("orders first page, big table", flat.get("orders_big")),
                (f"orders page {flat['deep_rows']:,} rows deep, big table",
                 flat.get("orders_deep")),
                ("orders changed since T, first page, small table",
                 flat.get("orders_changed_small")),
                ("orders changed since T, first page, big table",
                 flat.get("orders_changed_big"))]
        for kind, search in flat["searches"].items():
            runs += [(f"products q={search['term']!r} ({kind}), small table", search.get("small")),
                     (f"products q={search['term']!r} ({kind}), big table", search.get("big"))]
        for label, run in runs:
            spread = latency.p50_range(run)
            rows.append([label, backend, _ms(run and run["p50_ms"]),
                         f"{spread[0]:.2f}-{spread[1]:.2f}" if spread else "–",
                         _ms(run and run["p99_ms"]), f"{run['rps']:,.0f}" if run else "–"])
        for kind, search in flat["searches"].items():
            matches = search.get("matches", {})
            notes.append(f"- {backend}: `q={search['term']}` ({kind}) matches "
                         f"{matches.get('small')} products of the small table and "
                         f"{matches.get('big')} of the big one.")
        walk = (f"was reached by paging the API (limit=100) in {flat['deep_walk_s']:.1f} s"
                if flat.get("orders_deep") else
                f"was **not** reached by paging the API within {flat['deep_walk_s']:.0f} s")
        notes.append(f"- {backend}: the cursor {flat['deep_rows']:,} orders deep {walk}.")
        if flat.get("changed_since"):
            notes.append(f"- {backend}: {_changed_note(flat['changed_since'])}")
    return _table(["request (1 connection)", "backend", "p50 ms", "p50 per round", "p99 ms",
                   "req/s"], rows) + \
        "\n\n" + "\n".join(notes)


def _page_extent(extent):
    """"20 orders (more matched: `hasMore`)" / "12 orders (all that matched)"."""
    rows = extent["rows"]
    more = "more matched: `hasMore`" if extent["has_more"] else "all that matched"
    return f"{rows} order{'' if rows == 1 else 's'} ({more})"


def _changed_note(changed):
    """What T of "orders changed since T" was, and how full its first page was each side
    (`pageInfo.hasMore`: the pages were not walked to count every match)."""
    pages = changed["first_page"]
    return (f"T = `{changed['since']}`, the small table's newest order's `createdAt` minus "
            f"{changed['days']} days; the first page of `updatedSince=T` (limit 20) held "
            f"{_page_extent(pages['small'])} on the small table and "
            f"{_page_extent(pages['big'])} on the big one.")


def _memory(results):
    rows = []
    for backend, measured in results["backends"].items():
        memory, soak = measured["memory"], measured.get("soak")
        rows.append([
            backend, f"{memory['peak_mb_benchmark']:.1f}", f"{memory['peak_mb_total']:.1f}",
            f"{memory['ceiling_peak_mb']:.1f}" if memory.get("ceiling_peak_mb") else "–",
            f"{soak['rss_start_mb']:.1f} / {soak['rss_end_mb']:.1f} / {soak['rss_max_mb']:.1f}"
            if soak else "not run",
            f"{soak['slope_mb_per_min']:+.3f}" if soak else "–",
            f"{soak['load']['rps']:,.0f} req/s, {soak['failed_requests']} failed" if soak else "–",
        ])
    table = _table(["backend", "server peak RSS, benchmarks (MB)", "server peak RSS, with soak",
                    "ceiling peak RSS", "soak RSS start / end / max", "slope MB/min, settled",
                    "soak load"], rows)
    parts = []
    for backend, measured in results["backends"].items():
        soak = measured.get("soak")
        if soak and "breakdown_start" in soak:
            start, end = soak["breakdown_start"], soak["breakdown_end"]
            parts.append([backend] + [f"{start[k]} → {end[k]}" for k in
                                      ("rss_mb", "anon_mb", "file_mb", "shmem_mb", "threads")])
    if parts:
        table += "\n\nWhere the server's resident memory was at the start and the end of the soak " \
                 "(/proc/<pid>/status):\n\n" + _table(
                     ["backend", "RSS MB", "anonymous (heap, stacks)", "files", "shared memory",
                      "threads"], parts)
    return table


def _plans(results):
    parts = []
    for backend, measured in results["backends"].items():
        if not measured["plans"]:
            parts.append(f"- {backend}: no explain file under `scripts/bench/sql/{backend}/`.")
        for plan in measured["plans"]:
            parts.append(f"#### {backend}: `{plan['file']}` (big dataset)\n\n```text\n"
                         f"{plan['text'].rstrip()}\n```")
    return "\n\n".join(parts)


def _throughput_ran(results):
    """Whether the throughput step ran: for the reads and adjustments, the writes, or both."""
    return any(part in parts_run(results) for part in ("throughput", "writes"))


def _section(results, part, title, body):
    """A section of the report: `body()` when `part` was measured, else a line saying that
    it was not (a partial run), so that no absent figure reads as measured. The throughput
    section stands for the v2 writes too."""
    if part in parts_run(results) or (part == "throughput" and _throughput_ran(results)):
        return f"{title}\n\n{body()}"
    only = results["meta"].get("only")
    return f"{title}\n\n_Not run: a partial run (`{config.knob(only)}`), see above._"


THROUGHPUT_NOTE = (
    "The adjustments run without `Idempotency-Key`, each wrk thread cycling through "
    "its own share of tracked variants, so the requests in flight never share a variant. "
    "The reads by id (`{id}`) ask for the first product or order of the captured first "
    "page. CPU µs/req: the CPU "
    "time (user + system, `/proc/<pid>/stat`) spent over the API's measured run divided "
    "by its requests, by the server process (\"API\", SQLite's work included) and by "
    "the PostgreSQL backends connected to the dataset's database (the API's pool); "
    "the load generator shares the machine and is not counted. "
    "The API v2 writes (issue 35): `PATCH /api/v2/products/{id}` "
    "(`application/merge-patch+json`, `{\"priceCents\": N}`, a new price each time, no "
    "`If-Match`) of products of the one shape their ceiling B scripts are written for (one "
    "variant, a category and a brand: scripts/bench/sql/README.md), and `POST "
    "/api/v2/clients/{id}/loyalty/adjustments` (`{\"points\": 1, \"reason\": \"bench\"}`, no "
    "`Idempotency-Key`), each wrk thread cycling through its own share of up to 2,048 targets; "
    "their ceiling B runs the same transaction's statements on the same targets (pgbench's "
    "clients, or `ceiling-sqlite --write`'s 8 threads taking the process's one write turn as "
    "the adapter's writers do)."
)


def _replica_run(results):
    """The report of a BENCH_REPLICA=1 run: the list pages with reads on a streaming replica
    against the primary alone, and nothing else."""
    meta = results["meta"]
    m, s = meta["machine"], meta["settings"]
    versions = _versions(meta)
    reduced = _reduced(meta)
    measured = results["backends"]["postgres"]
    return "\n\n".join([
        "_Generated by `scripts/bench/bench.py`; edit outside the markers only._",
        "**Replica run** (`BENCH_REPLICA=1`): the list pages' throughput with reads on a "
        "PostgreSQL streaming replica against the primary alone, on the big dataset. Not run, "
        "so not measured: the ceilings, the flat-with-size rounds, memory and the soak, the "
        "query plans. The last full run's figures are in docs/PERFORMANCE.md.",
        f"Run of {meta['date']} on {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB RAM, "
        f"Linux {m['kernel']} ({m['os']}). Versions: {versions}.\n\n"
        f"Load: wrk, {s['connections']} connections on {s['wrk_threads']} threads, "
        f"{s['warmup_s']} s warm-up then {s['duration_s']} s measured per run, "
        f"{s.get('replica_rounds', 1)} rounds. Server: `shop-api serve` (release), "
        f"{s['workers']} workers, rate limits raised out of the way. Load generator, servers, "
        f"primary and replica share the same {m['cores']} cores; the machine's load average "
        f"(1, 5, 15 min) was {meta['load_average_start']} before the run and "
        f"{meta['load_average_end']} at its end. Raw results: `{meta['raw_results']}`.{reduced}",
        f"### List pages: reads on the replica / the primary alone "
        f"({s['connections']} connections)\n\n" + replica.section(measured["replica"]),
        "### Data\n\n" + _seeding(results),
    ])


def generated(results):
    if config.REPLICA in parts_run(results):
        return _replica_run(results)
    connections = results["meta"]["settings"]["connections"]
    return "\n\n".join([
        "_Generated by `scripts/bench/bench.py`; edit outside the markers only._",
        _machine(results),
        "### Targets\n\n" + _targets(results)
        + ("\n\nFlat with size: the median of the per-round ratios, each round measuring the "
           "two sides one right after the other (\"rounds\": each round's ratio, in order); in "
           "brackets too, each side's median p50 over its rounds. T, of the orders changed "
           "since T: one instant for both tables, a week before the end of the data (its value "
           "under \"Flat with size\")." if "flat" in parts_run(results) else ""),
        _section(results, "throughput", f"### Throughput ({connections} connections)",
                 lambda: _throughput(results) + "\n\n" + THROUGHPUT_NOTE),
        _section(results, "flat", "### Flat with size (p50, 1 connection)",
                 lambda: "Each figure is the median of the request's rounds (p50, p99 and req/s "
                         "each taken on its own); \"p50 per round\": its lowest and highest "
                         "round's p50.\n\n" + _flat(results)),
        _section(results, "memory", "### Memory", lambda: _memory(results)),
        "### Data\n\n" + _seeding(results),
        _section(results, "plans", "### Query plans at scale", lambda: _plans(results)),
    ])


def _replace_between(text, begin, end, body):
    """`text` with what lies between the markers replaced by `body` (the markers appended at
    the end when absent)."""
    if begin not in text or end not in text:
        text = text.rstrip() + f"\n\n{begin}\n{end}\n"
    before, rest = text.split(begin, 1)
    _, after = rest.split(end, 1)
    return f"{before}{begin}\n{body}\n{end}{after}"


def has_webhooks(results):
    return any("webhooks" in measured for measured in results["backends"].values())


def write(path, results):
    """A run's report into `path`: the full run's section (unless the run has a section of
    its own only: BENCH_ONLY=webhooks) and, when the webhooks part ran, its section."""
    path = Path(path)
    text = path.read_text() if path.exists() else NEW_DOC
    if results["meta"].get("only") not in config.OWN_SECTION:
        text = _replace_between(text, BEGIN, END, generated(results))
    if has_webhooks(results):
        text = _replace_between(text, WEBHOOKS_BEGIN, WEBHOOKS_END, webhooks_generated(results))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


# --- the webhooks part's section ------------------------------------------------------------

def _num(value, digits=1):
    return "–" if value is None else f"{value:,.{digits}f}"


def _webhook_latency(results):
    rows = []
    for backend, measured in results["backends"].items():
        latency = measured.get("webhooks", {}).get("latency")
        if not latency:
            continue
        load = latency["load"]
        rows.append([backend, f"{latency['rate']} for {latency['seconds']} s",
                     f"{load['sent']:,} at {load['rate']:,.1f}/s",
                     f"{latency['received']:,} of {latency['expected']:,}",
                     _num(latency["p50_ms"]), _num(latency["p90_ms"]), _num(latency["p99_ms"]),
                     _num(latency["max_ms"]), latency["duplicates"],
                     f"{_num(load['api_p50_ms'])} / {_num(load['api_p99_ms'])}"])
    return _table(["backend", "adjustments/s asked", "adjustments sent", "deliveries received",
                   "p50 ms", "p90 ms", "p99 ms", "max ms", "received twice",
                   "adjustment's own p50 / p99 ms"], rows)


def _webhook_throughput(results):
    rows = []
    for backend, measured in results["backends"].items():
        throughput = measured.get("webhooks", {}).get("throughput")
        if not throughput:
            continue
        runs = throughput["ratio_rounds"]
        value = webhooks.ratio(throughput)
        rows.append([backend,
                     ", ".join(f"{r:,.0f}" for r in runs["reference"]),
                     ", ".join(f"{r:,.0f}" for r in runs["api"]),
                     _num(value, 2),
                     f"{throughput['two']['p50_ms']:.2f} / {throughput['two']['p99_ms']:.2f}",
                     ", ".join(f"{s:.1f}" for s in throughput.get("drained_after_s", []))])
    return _table(["backend", "adjustments/s, no endpoint (per round)",
                   "adjustments/s until their deliveries ended, 2 endpoints (per round)",
                   "ratio (median of rounds)",
                   "p50 / p99 ms with endpoints (round 1)",
                   "queue emptied after each run with endpoints (s)"], rows)


def _webhook_drain(results):
    rows = []
    for backend, measured in results["backends"].items():
        drain = measured.get("webhooks", {}).get("drain")
        if not drain:
            continue
        recover = ", ".join(f"{r['seconds']:.2f} s" for r in drain["recover"])
        rows.append([backend, f"{drain['events']:,} ({drain['adjusted_s']:.1f} s)",
                     recover, _num(drain.get("first_arrival_s"), 2),
                     f"{drain['received']:,} of {drain['expected']:,}",
                     _num(drain["seconds"], 2), _num(drain["per_second"], 0),
                     _num(drain["first_to_last_per_second"], 0), drain["duplicates"]])
    return _table(["backend", "events queued while disabled (adjusting took)",
                   "recover requests", "first arrival after (s)", "deliveries received",
                   "last arrival after (s)", "deliveries/s", "first to last arrival, /s",
                   "received twice"], rows)


def _webhook_memory(results):
    rows = []
    for backend, measured in results["backends"].items():
        memory = measured.get("webhooks", {}).get("memory")
        if not memory:
            continue
        backlog, restart = memory["backlog"], memory["restart"]
        imports = ", ".join(f"{s:.0f}" for s in backlog["imports_s"])
        rows.append([backend, f"{backlog['events']:,} ({imports} s)",
                     f"{backlog['peak_mb']:.1f}", _breakdown(backlog),
                     f"{backlog['pending']:,}", f"{restart['peak_mb']:.1f}",
                     _breakdown(restart), f"{restart['pending']:,}"])
    return _table(["backend", "events queued (each import's s)",
                   "peak RSS while queued (MB)",
                   f"RSS {_seconds(results)} s later: anonymous + files (MB)",
                   "deliveries pending then", "peak RSS restarted on them (MB)",
                   f"its RSS {_seconds(results)} s later: anonymous + files",
                   "deliveries pending then"], rows)


def _breakdown(side):
    parts = side.get("breakdown")
    if not parts:
        return _num(side.get("rss_after_mb"))
    return f"{parts['rss_mb']:.1f}: {parts['anon_mb']:.1f} + {parts['file_mb']:.1f}"


def _seconds(results):
    for measured in results["backends"].values():
        memory = measured.get("webhooks", {}).get("memory")
        if memory:
            return memory["seconds"]
    return "–"


def _webhook_data(results):
    rows = []
    for backend, measured in results["backends"].items():
        part = measured.get("webhooks")
        if not part:
            continue
        data = part["data"]
        rows.append([backend, f"{data['variants']:,}", f"{data['import_s']:.1f}",
                     _num(part.get("server_peak_mb")), f"{part.get('sink_requests', 0):,}"])
    return _table(["backend", "tracked variants (imported)", "import s",
                   "server peak RSS, phases 1-3 (MB)", "deliveries the receiver took"], rows)


def webhooks_generated(results):
    """The webhooks part's section: its own header, so that it stands whichever run wrote it."""
    meta = results["meta"]
    m, s = meta["machine"], meta["settings"]
    only = meta.get("only")
    run = f"`{config.knob(only)}`" if only else "a full run"
    reduced = _reduced(meta)
    return "\n\n".join([
        "_Generated by `scripts/bench/bench.py` (the webhooks part, benchlib/webhooks.py); "
        "edit outside the markers only._",
        f"Run of {meta['date']} ({run}) on {m['cpu']}, {m['cores']} cores, {m['ram_gib']} GiB "
        f"RAM, Linux {m['kernel']} ({m['os']}). Versions: {_versions(meta)}. Server: "
        f"`shop-api serve` (release), {s['workers']} workers, "
        "`WEBHOOK_ALLOW_PRIVATE_NETWORKS=true`, the default retry schedule, rate limits "
        "raised out of the way; two endpoints (`stock.updated`) on one `webhook-sink` "
        "(crates/bench), which answers 204 at once. Load generator, server, receiver and "
        f"database share the same {m['cores']} cores; the machine's load average (1, 5, 15 min) "
        f"was {meta['load_average_start']} before the run and {meta['load_average_end']} at "
        f"its end. Raw results: `{meta['raw_results']}`.{reduced}",
        "### Webhooks: targets\n\n" + _targets(results, targets.evaluate_webhooks(results)),
        "### Commit-to-receipt latency\n\nPaced adjustments "
        f"({webhooks.SENDERS} threads, each request at its scheduled instant), each to a "
        "variant of its own for the run; a delivery's latency is "
        "its arrival at the receiver (after its body was read) minus its body's `timestamp` "
        "(the change's time, in ms, so up to 1 ms is truncation). Percentiles over every "
        "delivery, both endpoints.\n\n" + _webhook_latency(results),
        f"### Adjustments with and without endpoints\n\nwrk, {s['connections']} connections "
        f"on {s['wrk_threads']} threads, {s['duration_s']} s a run after a "
        f"{s['warmup_s']} s warm-up, each run on an empty queue, in "
        f"{s.get('throughput_rounds', 1)} rounds alternating which goes first. A run's rate "
        "is its adjustments over its seconds plus the time its queue then took to empty: the "
        "deliveries it left for after its window count as its own work. \"No "
        "endpoint\": both disabled, so no delivery is queued (the events are still logged for "
        "`GET /api/v2/events`).\n\n" + _webhook_throughput(results),
        "### Drain\n\nThe endpoints disabled, one adjustment to each of the distinct variants "
        "(a disabled endpoint queues nothing); then `POST /api/v2/webhook-endpoints/{id}/recover "
        "{since}` on each, which queues the newest event of each resource and enables the "
        "endpoint. Deliveries/s: all of them over the time from the first recover request to "
        "the last arrival.\n\n" + _webhook_drain(results),
        "### Memory with a backlog\n\nThe receiver stopped (its port refuses connections); "
        "a fresh server up while `shop-api import` changes every variant's stock until the "
        "events are queued (another process, as a nightly import would), its workers "
        "attempting and rescheduling the deliveries meanwhile; then a new server started on "
        "that backlog. Peak: `VmHWM`; anonymous memory holds the heap (jemalloc, which keeps "
        "freed pages for a while before returning them) and the threads' stacks.\n\n"
        + _webhook_memory(results),
        "### Webhooks: data\n\n" + _webhook_data(results),
    ])
