"""BENCH_REPLICA=1 (issue 22): the list pages' throughput with reads on a PostgreSQL streaming
replica against the primary alone, as a ratio, in one run.

The pair is scripts/replica/up.sh's (primary 127.0.0.1:5433, replica 127.0.0.1:5434), brought
up without its lag on purpose (REPLICA_APPLY_DELAY=0). The big dataset is seeded into a fresh
database on the primary, which the replica receives by streaming; nothing is measured before
the replica has replayed the primary's WAL up to where it stood after the seed. Then two
`shop-api serve` on that database, both up throughout: one started with
`--database-replica-urls <the replica's URL of the database>` (reads on the replica), one
without (the primary alone). Each list page is measured with the harness's usual throughput
settings (wrk, BENCH_CONNECTIONS on BENCH_WRK_THREADS, BENCH_WARMUP_SECONDS then
BENCH_SECONDS) on both servers, one right after the other, in BENCH_REPLICA_ROUNDS rounds that
alternate which server goes first; a page's ratio is the median of its rounds' ratios
(replica req/s / primary req/s). The CPU that the PostgreSQL backends of each member spend per
request tells whether the reads reached the replica at all.

On one machine the replica shares the cores with the primary, the server and wrk: the ratio
measures what routing reads to a replica costs and how the replica serves them, not a
scale-out.
"""

import os
import re
import statistics
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path

from . import cpu, latency, wrk
from .markdown import table as _table
from .api import API
from .config import ROOT
from .processes import Failure

SCRIPTS = ROOT / "scripts" / "replica"
UP, DOWN, CTL = SCRIPTS / "up.sh", SCRIPTS / "down.sh", SCRIPTS / "ctl.sh"
MEMBERS = ("primary", "replica")
# The benchmark's replica applies the primary's commits as they come (up.sh's default lags
# 1 s on purpose, for the read-your-writes tests).
APPLY_DELAY = "0"
# name -> (request shown in the report, API path)
PAGES = {
    "products": ("GET /api/v1/products?limit=20", f"{API}/products?limit=20"),
    "orders": ("GET /api/v1/orders?limit=20", f"{API}/orders?limit=20"),
}
# The two servers of a ratio: reads on the replica (numerator), the primary alone.
TARGETS = ("replica", "primary")
LABELS = {"replica": "reads on the replica", "primary": "the primary alone"}
LSN = re.compile(r"^[0-9A-F]{1,8}/[0-9A-F]{1,8}$")


def _run(path, *args, env=None, timeout_s=180):
    """stdout of one of scripts/replica/; a failure carries its stderr (its messages)."""
    try:
        done = subprocess.run([str(path), *args], capture_output=True, text=True,
                              timeout=timeout_s, env={**os.environ, **(env or {})})
    except subprocess.TimeoutExpired:
        raise Failure(f"{path.relative_to(ROOT)} {' '.join(args)} did not finish within "
                      f"{timeout_s} s")
    if done.returncode != 0:
        raise Failure(f"{path.relative_to(ROOT)} {' '.join(args)} failed "
                      f"({done.returncode}):\n{done.stderr.strip()}")
    return done.stdout


def parse_pair_urls(stdout):
    """(primary URL, replica URL) from up.sh's stdout: its last line, the two admin URLs."""
    lines = [line for line in stdout.splitlines() if line.strip()]
    urls = lines[-1].split() if lines else []
    if len(urls) != 2 or not all(url.startswith("postgres://") for url in urls):
        raise Failure(f"scripts/replica/up.sh printed {stdout!r}, expected the primary's and "
                      "the replica's URLs on one line")
    return urls[0], urls[1]


def database_url(admin_url, database):
    """The URL of `database` on the server of `admin_url` (its path replaced)."""
    base, _, _ = admin_url.rpartition("/")
    return f"{base}/{database}"


@dataclass
class Pair:
    """The pair of scripts/replica/ as the benchmark found it and uses it. `restore` leaves it
    as it was: a pair that was up is kept, with the apply delay up.sh gives it by default
    (REPLICA_APPLY_DELAY of the caller's environment, else 1 s); one the benchmark created is
    removed (kept with BENCH_KEEP_DATA=1)."""

    root: Path
    primary_url: str = ""
    replica_url: str = ""
    was_up: bool = False
    started: bool = False

    @classmethod
    def from_environment(cls):
        return cls(Path(os.environ.get("REPLICA_ROOT", "/tmp/shop-replica")))

    def status(self, member):
        return _run(CTL, "status", member, timeout_s=30).strip()

    def up(self):
        self.was_up = all(self.status(member) == "up" for member in MEMBERS)
        print(f" the pair of scripts/replica/up.sh ({'already up' if self.was_up else 'created'}"
              f", REPLICA_APPLY_DELAY={APPLY_DELAY}):", flush=True)
        started = time.monotonic()
        self.primary_url, self.replica_url = parse_pair_urls(
            _run(UP, env={"REPLICA_APPLY_DELAY": APPLY_DELAY}))
        self.started = True
        print(f"  primary {self.primary_url}, replica {self.replica_url} "
              f"({time.monotonic() - started:.1f} s)", flush=True)
        return self

    def restore(self, keep):
        if not self.started:
            return
        try:
            if self.was_up:
                _run(UP, env={"REPLICA_APPLY_DELAY": os.environ.get("REPLICA_APPLY_DELAY", "1s")})
            elif not keep:
                _run(DOWN)
        except Failure as failure:  # cleanup: report, do not hide the run's own outcome
            print(f"warning: could not restore the replica pair: {failure}", flush=True)

    def to_json(self):
        return {"primary": self.primary_url, "replica": self.replica_url,
                "root": str(self.root), "was_up": self.was_up, "apply_delay": APPLY_DELAY}


def psql_value(url, sql):
    done = subprocess.run(["psql", url, "-X", "-At", "-v", "ON_ERROR_STOP=1", "-c", sql],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise Failure(f"psql failed on {sql!r}: {done.stderr.strip()}")
    return done.stdout.strip()


def replayed_sql(lsn):
    """Whether the server is a replica, and whether it has replayed the WAL up to `lsn`."""
    if not LSN.match(lsn or ""):
        raise Failure(f"{lsn!r} is not a WAL location (pg_current_wal_lsn())")
    return (f"SELECT pg_is_in_recovery(), "
            f"coalesce(pg_wal_lsn_diff(pg_last_wal_replay_lsn(), '{lsn}') >= 0, false)")


def replayed(row, url):
    """replayed_sql's answer ("t|f") as a bool; a server out of recovery is no replica."""
    in_recovery, reached = (row.split("|") + ["", ""])[:2]
    if in_recovery != "t":
        raise Failure(f"{url} is not in recovery: not a replica ({row!r})")
    return reached == "t"


def wait_replayed(primary_url, replica_url, timeout_s, query=psql_value, sleep=time.sleep,
                  clock=time.monotonic):
    """Waits until the replica has replayed the primary's WAL up to the primary's
    pg_current_wal_lsn() of now; returns {"lsn", "seconds"}."""
    lsn = query(primary_url, "SELECT pg_current_wal_lsn()")
    sql = replayed_sql(lsn)
    started = clock()
    while not replayed(query(replica_url, sql), replica_url):
        if clock() - started > timeout_s:
            raise Failure(f"the replica had not replayed the primary's WAL up to {lsn} after "
                          f"{timeout_s} s (BENCH_REPLICA_CATCHUP_TIMEOUT_SECONDS)")
        sleep(0.2)
    return {"lsn": lsn, "seconds": round(clock() - started, 1)}


def postmaster_pids(root):
    """{"primary": pid, "replica": pid} of the pair's postmasters, from their postmaster.pid."""
    pids = {}
    for member in MEMBERS:
        path = Path(root) / member / "postmaster.pid"
        try:
            pids[member] = int(path.read_text().split("\n", 1)[0])
        except (OSError, ValueError) as error:
            raise Failure(f"the {member} of the pair does not run ({path}: {error})")
    return pids


@dataclass(frozen=True)
class PairReading:
    api: float
    backends: dict  # pid -> (member, seconds)

    def since(self, before):
        """{"api", "primary", "replica"}: the seconds spent since `before`; a backend counts
        from 0 when it appeared in between."""
        spent = {"api": self.api - before.api, "primary": 0.0, "replica": 0.0}
        for pid, (member, seconds) in self.backends.items():
            earlier = before.backends.get(pid)
            spent[member] += seconds - (earlier[1] if earlier else 0.0)
        return spent


class PairMeter:
    """CPU of one API server and of the backends connected to `database`, told apart by the
    postmaster they belong to (their parent): the primary's or the replica's."""

    def __init__(self, api_pid, database, postmasters, proc=cpu.PROC):
        self.api_pid, self.database, self.proc = api_pid, database, proc
        self.members = {pid: member for member, pid in postmasters.items()}

    def read(self):
        api = cpu.cpu_seconds(self.api_pid, self.proc)
        if api is None:
            raise Failure(f"the API server (pid {self.api_pid}) has gone: no CPU reading")
        backends = {}
        for pid in cpu.postgres_backends(self.database, self.proc):
            member = self.members.get(cpu.parent_pid(pid, self.proc))
            seconds = cpu.cpu_seconds(pid, self.proc)
            if member is not None and seconds is not None:
                backends[pid] = (member, seconds)
        return PairReading(api, backends)


def serve_args(replica_url):
    """What `shop-api serve` is given on top of the usual for reads on the replica; after
    `serve`, where a global option and one of serve's are both taken."""
    return ["--database-replica-urls", replica_url] if replica_url else []


def round_targets(index):
    """The servers in round `index` (from 0): the replica's first in even rounds, the
    primary's first in odd ones, so that a machine getting slower or faster weighs on both
    sides of a ratio alike."""
    return TARGETS if index % 2 == 0 else tuple(reversed(TARGETS))


def side(rounds):
    """One server's figures for a page: latency.aggregate's medians and rounds, and the median
    of each CPU figure over the rounds that have it."""
    entry = latency.aggregate(rounds)
    names = sorted({name for r in rounds for name in (r.get("cpu_us_per_request") or {})})
    used = {}
    for name in names:
        values = [r["cpu_us_per_request"][name] for r in rounds
                  if (r.get("cpu_us_per_request") or {}).get(name) is not None]
        if values:
            used[name] = round(statistics.median(values), 1)
    if used:
        entry["cpu_us_per_request"] = used
    return entry


def measure(settings, ports, key, meters, measure_run=wrk.measure):
    """Both servers (ports: target -> port; meters: target -> a CPU reading function) on each
    page, in rounds (round_targets). Returns {page: {"request", "replica", "primary"}}."""
    runs = {page: {target: [] for target in TARGETS} for page in PAGES}
    for index in range(settings.replica_rounds):
        print(f"  round {index + 1} of {settings.replica_rounds}:", flush=True)
        for page, (request, path) in PAGES.items():
            for target in round_targets(index):
                load = wrk.Load(f"http://127.0.0.1:{ports[target]}{path}", key)
                result = measure_run(load, settings, what=f" {request}, {LABELS[target]}",
                                     read_cpu=meters[target])
                runs[page][target].append(result.to_json())
    return {page: {"request": PAGES[page][0],
                   **{target: side(runs[page][target]) for target in TARGETS}}
            for page in PAGES}


def round_ratios(entry):
    """replica req/s / primary req/s of each round, in round order."""
    return [r["rps"] / p["rps"]
            for r, p in zip(entry["replica"]["rounds"], entry["primary"]["rounds"]) if p["rps"]]


def ratio(entry):
    """The page's ratio: the median of its rounds' ratios; None when not measured."""
    ratios = round_ratios(entry)
    return statistics.median(ratios) if ratios else None


def reached_replica(entry):
    """Whether the replica's backends, not the primary's, did the reads of the replica side
    (its CPU per request); None without CPU figures."""
    used = entry["replica"].get("cpu_us_per_request") or {}
    if used.get("replica") is None or used.get("primary") is None:
        return None
    return used["replica"] > used["primary"]


def _us(value):
    return "–" if value is None else f"{value:,.0f}"


REACHED = {True: "yes", False: "**no**", None: "not measured"}


def ratio_rows(pages):
    rows = []
    for entry in pages.values():
        value = ratio(entry)
        rounds = ", ".join(f"{r:.2f}" for r in round_ratios(entry))
        rows.append([f"`{entry['request']}`", f"{entry['replica']['rps']:,.0f}",
                     f"{entry['primary']['rps']:,.0f}",
                     "–" if value is None else f"**{value:.2f}** (rounds {rounds})",
                     REACHED[reached_replica(entry)]])
    return rows


def detail_rows(pages):
    rows = []
    for entry in pages.values():
        for target in TARGETS:
            figures = entry[target]
            used = figures.get("cpu_us_per_request") or {}
            rows.append([f"`{entry['request']}`", LABELS[target],
                         " / ".join(f"{r['rps']:,.0f}" for r in figures["rounds"]),
                         f"{figures['p50_ms']:.2f}", f"{figures['p99_ms']:.2f}",
                         _us(used.get("api")), _us(used.get("primary")),
                         _us(used.get("replica"))])
    return rows


def section(measured):
    """The report's tables and notes for measured["replica"]."""
    pages, pair, caught = measured["pages"], measured["pair"], measured["catch_up"]
    ratios = _table(["request", "req/s, reads on the replica", "req/s, the primary alone",
                     "replica / primary", "reads reached the replica"], ratio_rows(pages))
    detail = _table(["request", "server", "req/s per round", "p50 ms", "p99 ms",
                     "API CPU µs/req", "primary CPU µs/req", "replica CPU µs/req"],
                    detail_rows(pages))
    missed = [entry["request"] for entry in pages.values() if reached_replica(entry) is False]
    warning = (
        f"\n\n**The reads did not reach the replica** for {', '.join(missed)}: its backends "
        "spent less CPU per request than the primary's while the replica's server was "
        "measured, so that ratio compares the primary with itself (the server's replica "
        "routing off, or the replica out of rotation)." if missed else "")
    return (
        f"{ratios}\n\n{detail}{warning}\n\n"
        "Reads on the replica: `shop-api serve --database-replica-urls "
        f"{database_url(pair['replica'], measured['database'])}`; the primary alone: the same "
        "server without it. Both on the same database, both up throughout; a page's ratio is "
        "the median of its rounds' ratios, each round measuring the two servers one right "
        "after the other (the replica's first in even rounds, the primary's in odd ones). "
        "\"reads reached the replica\": whether the replica's backends spent more CPU per "
        "request than the primary's during the replica's server's runs (CPU µs/req: "
        "`/proc/<pid>/stat` of the server and of the backends connected to the database, each "
        "counted to the postmaster it belongs to). "
        f"The pair: `scripts/replica/up.sh` (primary `{pair['primary']}`, replica "
        f"`{pair['replica']}`) with `REPLICA_APPLY_DELAY={pair['apply_delay']}`; the replica "
        f"had replayed the primary's WAL up to {caught['lsn']} {caught['seconds']} s after the "
        "seed, before anything was measured. On one machine the replica shares its cores with "
        "the primary, the server and wrk: the ratio measures what routing the reads costs and "
        "how the replica serves them, not a scale-out (a replica on a machine of its own "
        "brings that machine's cores too).")
