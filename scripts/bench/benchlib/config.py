"""Settings of a run, from the environment (every knob is a BENCH_* variable)."""

import os
from dataclasses import dataclass, asdict, replace
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
OUT_DIR = ROOT / "target" / "bench"
SQL_DIR = ROOT / "scripts" / "bench" / "sql"
LUA_SCRIPT = ROOT / "scripts" / "bench" / "wrk" / "load.lua"
# The hand-written document whose generated section holds the last full run.
DOC = ROOT / "docs" / "PERFORMANCE.md"

# The parts of a run after the seeding (which every part but webhooks needs): throughput with
# its ceilings (the reads and the stock adjustments), the API v2 writes' throughput with
# theirs (a product's PATCH and a loyalty credit, issue 35: measured in the same throughput
# step, after the adjustments), the flat-with-size rounds (the deep cursor's walk included),
# memory with the soak, the query plans; and webhooks (issue 34: benchlib/webhooks.py), on a
# dataset of its own.
PARTS = ("throughput", "writes", "flat", "memory", "plans", "webhooks")
# The parts that run on the big and small datasets (seeded only when one of them runs).
DATASET_PARTS = ("throughput", "writes", "flat", "memory", "plans")
# The parts that need the big dataset (a run of the writes alone seeds only the small one).
BIG_DATASET_PARTS = ("throughput", "flat", "memory", "plans")
# BENCH_ONLY=<name> -> the parts it keeps: a few minutes on what one change is meant to
# move, instead of the 40 of a full run. Memory and the query plans need throughput (the
# variants the soak adjusts, the shop id it captures), the plans flat too (the common search
# term): a set with them keeps those.
ONLY = {"flat": ("flat",), "writes": ("writes",), "webhooks": ("webhooks",)}
# BENCH_ONLY=writes seeds the small dataset alone (BENCH_SMALL_* sizes: 1,000 products, 10,000
# orders, 1,000 clients) and measures the two writes on it: the big one's 100,000 products take
# minutes to seed (their search index's triggers), most of a ten-minute run, while the writes
# touch a few thousand rows of it. A full run measures them on the big dataset.
WRITES_DATASET = "small"
# BENCH_ONLY names whose report has a section of its own in docs/PERFORMANCE.md (between
# markers of its own, benchlib/report.py): such a run writes that section only, and the full
# run's section is left as it is. A reduced run of it goes to target/bench/ unless BENCH_DOC.
OWN_SECTION = ("webhooks",)
# BENCH_REPLICA=1: a run of its own, outside the default run (benchlib/replica.py): the list
# pages' throughput with reads on a streaming replica of scripts/replica/up.sh against the
# primary alone, on PostgreSQL only. Like BENCH_ONLY, it never writes docs/PERFORMANCE.md.
REPLICA = "replica"
RUNS_OF_THEIR_OWN = {**ONLY, REPLICA: (REPLICA,)}

# What the issue asks for; BENCH_* variables override any of them.
FULL = {
    "BENCH_BIG_PRODUCTS": 100_000,
    "BENCH_BIG_ORDERS": 1_000_000,
    "BENCH_BIG_CLIENTS": 100_000,
    "BENCH_SMALL_PRODUCTS": 1_000,
    "BENCH_SMALL_ORDERS": 10_000,
    "BENCH_SMALL_CLIENTS": 1_000,
    "BENCH_WARMUP_SECONDS": 3,
    "BENCH_SECONDS": 10,
    # A throughput ratio with a target: API and ceiling measured in this many rounds, the two
    # alternating which goes first; the ratio is the median of the rounds' ratios.
    "BENCH_THROUGHPUT_ROUNDS": 3,
    # Flat with size: each latency request measured this many times, for this long each.
    "BENCH_LATENCY_ROUNDS": 5,
    "BENCH_LATENCY_SECONDS": 5,
    "BENCH_SOAK_SECONDS": 600,
    "BENCH_DEEP_ROWS": 500_000,
    # Webhooks (issue 34): the dataset's tracked variants (at least the drain's distinct
    # resources; each import of the memory phase changes them all), the latency's paced rate
    # and duration, the drain's events, the memory phase's backlog and how long each server
    # is watched after it.
    "BENCH_WEBHOOK_VARIANTS": 20_000,
    "BENCH_WEBHOOK_RATE": 200,
    "BENCH_WEBHOOK_LATENCY_SECONDS": 30,
    "BENCH_WEBHOOK_DRAIN_EVENTS": 10_000,
    "BENCH_WEBHOOK_BACKLOG_EVENTS": 100_000,
    "BENCH_WEBHOOK_RSS_SECONDS": 20,
}

# `--quick`: proves the harness end to end in a few minutes; its numbers mean little.
QUICK = {
    "BENCH_BIG_PRODUCTS": 400,
    "BENCH_BIG_ORDERS": 2_000,
    "BENCH_BIG_CLIENTS": 200,
    "BENCH_SMALL_PRODUCTS": 100,
    "BENCH_SMALL_ORDERS": 500,
    "BENCH_SMALL_CLIENTS": 50,
    "BENCH_WARMUP_SECONDS": 1,
    "BENCH_SECONDS": 3,
    "BENCH_THROUGHPUT_ROUNDS": 2,
    "BENCH_LATENCY_ROUNDS": 2,
    "BENCH_LATENCY_SECONDS": 2,
    "BENCH_SOAK_SECONDS": 20,
    "BENCH_DEEP_ROWS": 1_000,
    "BENCH_WEBHOOK_VARIANTS": 5_000,
    "BENCH_WEBHOOK_RATE": 200,
    "BENCH_WEBHOOK_LATENCY_SECONDS": 5,
    "BENCH_WEBHOOK_DRAIN_EVENTS": 1_000,
    "BENCH_WEBHOOK_BACKLOG_EVENTS": 5_000,
    "BENCH_WEBHOOK_RSS_SECONDS": 5,
}


@dataclass(frozen=True)
class Sizes:
    products: int
    orders: int
    clients: int


@dataclass(frozen=True)
class Settings:
    backends: tuple
    big: Sizes
    small: Sizes
    warmup_s: int
    duration_s: int
    throughput_rounds: int
    latency_s: int
    latency_rounds: int
    connections: int
    wrk_threads: int
    workers: int
    soak_s: int
    soak_sample_s: int
    deep_rows: int
    search_term: str
    rare_search_term: str
    pg_admin_url: str
    shop_api: Path
    ceiling: Path
    ceiling_sqlite: Path
    skip_build: bool
    keep_data: bool
    doc: Path
    seed_timeout_s: int
    deep_walk_timeout_s: int
    quick: bool
    # BENCH_ONLY: "" for the full run, else a key of ONLY; REPLICA with BENCH_REPLICA=1
    only: str = ""
    # BENCH_REPLICA=1: rounds of the two servers (reads on the replica, the primary alone),
    # alternated, and how long the replica may take to replay the seed.
    replica_rounds: int = 2
    replica_catchup_timeout_s: int = 600
    # Webhooks (benchlib/webhooks.py): see FULL.
    webhook_variants: int = FULL["BENCH_WEBHOOK_VARIANTS"]
    webhook_rate: int = FULL["BENCH_WEBHOOK_RATE"]
    webhook_latency_s: int = FULL["BENCH_WEBHOOK_LATENCY_SECONDS"]
    webhook_drain_events: int = FULL["BENCH_WEBHOOK_DRAIN_EVENTS"]
    webhook_backlog_events: int = FULL["BENCH_WEBHOOK_BACKLOG_EVENTS"]
    webhook_rss_s: int = FULL["BENCH_WEBHOOK_RSS_SECONDS"]
    webhook_sink: Path = ROOT / "target" / "release" / "webhook-sink"
    # BENCH_WEBHOOKS=0: a full run without the webhooks part (scripts/bench/alternate.py's
    # default, since an earlier commit may have no webhooks).
    webhooks: bool = True
    # BENCH_WRITES=0: a full run without the API v2 writes (alternate.py's default too: an
    # earlier commit may not serve them).
    writes: bool = True

    @property
    def parts(self):
        """The parts of PARTS this run measures, in PARTS order (BENCH_REPLICA=1: its own)."""
        if self.only:
            return RUNS_OF_THEIR_OWN[self.only]
        left_out = {"webhooks"} if not self.webhooks else set()
        if not self.writes:
            left_out.add("writes")
        return tuple(p for p in PARTS if p not in left_out)

    @property
    def replica(self):
        return self.only == REPLICA

    def runs(self, part):
        return part in self.parts

    def runs_datasets(self):
        """Whether a part on the big and small datasets runs (they are seeded only then)."""
        return any(self.runs(part) for part in DATASET_PARTS)

    def runs_big_dataset(self):
        """Whether a part needs the big dataset (BENCH_ONLY=writes does not: it runs on the
        small one, WRITES_DATASET)."""
        return any(self.runs(part) for part in BIG_DATASET_PARTS)

    def runs_throughput_step(self):
        """Whether the throughput step runs: for the reads and adjustments, the writes, or
        both (a full run)."""
        return self.runs("throughput") or self.runs("writes")

    def to_json(self):
        data = asdict(self)
        data["pg_admin_url"] = redact_password(self.pg_admin_url)
        return {k: str(v) if isinstance(v, Path) else v for k, v in data.items()}


def redact_password(url):
    """postgres://user:secret@host/db -> postgres://user:***@host/db, for the report."""
    scheme, sep, rest = url.partition("://")
    credentials, at, host = rest.rpartition("@")
    if at and ":" in credentials:
        credentials = credentials.split(":", 1)[0] + ":***"
    return f"{scheme}{sep}{credentials}{at}{host}"


def only_from(raw, replica=False):
    """BENCH_ONLY's value: "" (everything) or a key of ONLY; anything else stops the run
    before it builds or seeds anything. BENCH_REPLICA=1 (`replica`) is a run of its own:
    REPLICA, and not together with BENCH_ONLY."""
    only = (raw or "").strip().lower()
    if replica:
        if only:
            raise SystemExit(f"BENCH_REPLICA=1 is a run of its own: unset BENCH_ONLY={raw!r}")
        return REPLICA
    if only and only not in ONLY:
        raise SystemExit(f"BENCH_ONLY={raw!r}: expected one of {', '.join(ONLY)} (or unset)")
    return only


def knob(only):
    """How the run was asked for, for messages and reports: BENCH_ONLY=flat, BENCH_REPLICA=1."""
    return "BENCH_REPLICA=1" if only == REPLICA else f"BENCH_ONLY={only}"


def backends_from(raw, replica=False):
    """BENCH_BACKENDS (None: unset) as a tuple. BENCH_REPLICA=1 measures PostgreSQL's
    streaming replicas, so it runs on PostgreSQL alone: unset means postgres, anything else
    than postgres stops the run before it builds or seeds anything."""
    if replica:
        if raw is not None and raw.strip() and [b.strip() for b in raw.split(",")
                                                if b.strip()] != ["postgres"]:
            raise SystemExit(f"BENCH_REPLICA=1 needs PostgreSQL (its streaming replicas): "
                             f"BENCH_BACKENDS={raw!r} must be postgres, or unset")
        return ("postgres",)
    backends = tuple(b.strip() for b in (raw or "sqlite,postgres").split(",") if b.strip())
    for backend in backends:
        if backend not in ("sqlite", "postgres"):
            raise SystemExit(f"BENCH_BACKENDS: unknown backend {backend!r} (sqlite, postgres)")
    return backends


def doc_path(only, raw_doc, reduced_run=False):
    """Where the report goes. A full run: BENCH_DOC, else docs/PERFORMANCE.md. A partial run
    (BENCH_ONLY): BENCH_DOC, else target/bench/PERFORMANCE-<only>.md; never
    docs/PERFORMANCE.md, whose generated section must keep the last full run's figures
    rather than a report where most of them are absent. Refused here, at the start, not
    after the run. A run with a section of its own (OWN_SECTION: webhooks) writes that
    section of BENCH_DOC, else of docs/PERFORMANCE.md, and nothing else of it; when it is
    reduced (`reduced_run`) and BENCH_DOC is unset, target/bench/PERFORMANCE-<only>.md."""
    if only in OWN_SECTION:
        if raw_doc:
            return Path(raw_doc)
        return OUT_DIR / f"PERFORMANCE-{only}.md" if reduced_run else DOC
    if not only:
        return Path(raw_doc) if raw_doc else DOC
    if not raw_doc:
        return OUT_DIR / f"PERFORMANCE-{only}.md"
    path = Path(raw_doc)
    if path.resolve() == DOC.resolve():
        raise SystemExit(f"{knob(only)} writes a partial report: BENCH_DOC must not be "
                         f"{DOC.relative_to(ROOT)}, which keeps the last full run")
    return path


def reduced(settings):
    """Whether the run measured less than the issue asks for (the report then says its
    figures prove the harness, not the service). BENCH_SECONDS counts only when throughput
    (or BENCH_REPLICA=1's throughput) ran: a flat-only run does not use it; the latency
    settings only when the flat-with-size rounds ran."""
    throughput = (settings.runs_throughput_step() or settings.runs(REPLICA)
                  or settings.runs("webhooks"))
    # The writes alone run on the small dataset (WRITES_DATASET), by design: its sizes count.
    writes_only = settings.parts == ("writes",)
    return (settings.quick
            or ((settings.runs_datasets() or settings.runs(REPLICA)) and not writes_only
                and settings.big.orders < FULL["BENCH_BIG_ORDERS"])
            or (writes_only
                and (settings.small.products < FULL["BENCH_SMALL_PRODUCTS"]
                     or settings.small.clients < FULL["BENCH_SMALL_CLIENTS"]))
            or (settings.runs("webhooks") and webhooks_reduced(settings))
            or (throughput and settings.duration_s < FULL["BENCH_SECONDS"])
            or (settings.runs_throughput_step()
                and settings.throughput_rounds < FULL["BENCH_THROUGHPUT_ROUNDS"])
            or (settings.runs("flat")
                and (settings.latency_s < FULL["BENCH_LATENCY_SECONDS"]
                     or settings.latency_rounds < FULL["BENCH_LATENCY_ROUNDS"])))


def webhooks_reduced(settings):
    """Whether the webhooks part measures less than the issue asks: a smaller drain or
    backlog, a shorter latency run, a lower rate, or fewer throughput rounds (more
    variants is not less)."""
    return (settings.webhook_drain_events < FULL["BENCH_WEBHOOK_DRAIN_EVENTS"]
            or settings.webhook_backlog_events < FULL["BENCH_WEBHOOK_BACKLOG_EVENTS"]
            or settings.webhook_latency_s < FULL["BENCH_WEBHOOK_LATENCY_SECONDS"]
            or settings.webhook_rate < FULL["BENCH_WEBHOOK_RATE"]
            or settings.throughput_rounds < FULL["BENCH_THROUGHPUT_ROUNDS"])


def load(quick=False):
    defaults = QUICK if quick else FULL

    def number(name, default=None):
        raw = os.environ.get(name)
        if raw is None or raw.strip() == "":
            return defaults[name] if default is None else default
        try:
            value = int(raw.replace("_", ""))
        except ValueError:
            raise SystemExit(f"{name}={raw!r}: expected a whole number")
        if value < 0:
            raise SystemExit(f"{name}={raw!r}: must not be negative")
        return value

    def flag(name):
        return os.environ.get(name, "").strip().lower() in ("1", "true", "yes")

    replica = flag("BENCH_REPLICA")
    only = only_from(os.environ.get("BENCH_ONLY"), replica)
    backends = backends_from(os.environ.get("BENCH_BACKENDS"), replica)
    replica_rounds = number("BENCH_REPLICA_ROUNDS", 2)
    if replica_rounds < 1:
        raise SystemExit("BENCH_REPLICA_ROUNDS: at least 1 round")

    duration = number("BENCH_SECONDS")
    big = Sizes(number("BENCH_BIG_PRODUCTS"), number("BENCH_BIG_ORDERS"), number("BENCH_BIG_CLIENTS"))
    small = Sizes(
        number("BENCH_SMALL_PRODUCTS"), number("BENCH_SMALL_ORDERS"), number("BENCH_SMALL_CLIENTS")
    )
    throughput_rounds = number("BENCH_THROUGHPUT_ROUNDS")
    if throughput_rounds < 1:
        raise SystemExit("BENCH_THROUGHPUT_ROUNDS: at least 1 round")
    latency_rounds = number("BENCH_LATENCY_ROUNDS")
    if latency_rounds < 1:
        raise SystemExit("BENCH_LATENCY_ROUNDS: at least 1 round")
    # A reduced run cannot page deeper than its table.
    deep_rows = min(number("BENCH_DEEP_ROWS"), max(big.orders // 2, 1))
    release = ROOT / "target" / "release"
    settings = Settings(
        backends=backends,
        big=big,
        small=small,
        warmup_s=number("BENCH_WARMUP_SECONDS"),
        duration_s=duration,
        throughput_rounds=throughput_rounds,
        latency_s=number("BENCH_LATENCY_SECONDS"),
        latency_rounds=latency_rounds,
        connections=number("BENCH_CONNECTIONS", 32),
        wrk_threads=number("BENCH_WRK_THREADS", 2),
        workers=number("BENCH_WORKERS", os.cpu_count() or 2),
        soak_s=number("BENCH_SOAK_SECONDS"),
        soak_sample_s=number("BENCH_SOAK_SAMPLE_SECONDS", 5),
        deep_rows=deep_rows,
        search_term=os.environ.get("BENCH_SEARCH_TERM", "").strip(),
        rare_search_term=os.environ.get("BENCH_RARE_SEARCH_TERM", "").strip(),
        pg_admin_url=os.environ.get(
            "BENCH_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres"
        ),
        shop_api=Path(os.environ.get("BENCH_SHOP_API", release / "shop-api")),
        ceiling=Path(os.environ.get("BENCH_CEILING", release / "ceiling")),
        ceiling_sqlite=Path(os.environ.get("BENCH_CEILING_SQLITE", release / "ceiling-sqlite")),
        skip_build=flag("BENCH_SKIP_BUILD"),
        keep_data=flag("BENCH_KEEP_DATA"),
        doc=DOC,
        seed_timeout_s=number("BENCH_SEED_TIMEOUT_SECONDS", 3600),
        deep_walk_timeout_s=number("BENCH_DEEP_WALK_TIMEOUT_SECONDS", 900),
        quick=quick,
        only=only,
        replica_rounds=replica_rounds,
        replica_catchup_timeout_s=number("BENCH_REPLICA_CATCHUP_TIMEOUT_SECONDS", 600),
        webhook_variants=number("BENCH_WEBHOOK_VARIANTS"),
        webhook_rate=max(1, number("BENCH_WEBHOOK_RATE")),
        webhook_latency_s=number("BENCH_WEBHOOK_LATENCY_SECONDS"),
        webhook_drain_events=number("BENCH_WEBHOOK_DRAIN_EVENTS"),
        webhook_backlog_events=number("BENCH_WEBHOOK_BACKLOG_EVENTS"),
        webhook_rss_s=number("BENCH_WEBHOOK_RSS_SECONDS"),
        webhook_sink=Path(os.environ.get("BENCH_WEBHOOK_SINK", release / "webhook-sink")),
        webhooks=os.environ.get("BENCH_WEBHOOKS", "1").strip().lower() not in ("0", "false", "no"),
        writes=os.environ.get("BENCH_WRITES", "1").strip().lower() not in ("0", "false", "no"),
    )
    # Where the report goes depends on whether the run is reduced, known only now.
    return replace(settings, doc=doc_path(only, os.environ.get("BENCH_DOC", "").strip(),
                                          reduced(settings)))
