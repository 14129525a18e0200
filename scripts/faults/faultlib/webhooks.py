"""Webhooks for the scenarios: the receiver (`webhook-sink`, crates/bench), the endpoints of
API v2, the delivery queue read directly from the database, and what the receiver ends up
holding for each variant."""

import json
import os
import subprocess
import urllib.parse
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

from .http import Client
from .scenario import REPO
from .server import die_with_parent, stop_process
from .stored import query

# The receiver: the debug build that `cargo test --workspace --no-run` makes (the crate's
# integration test runs it); SHOP_SINK_BIN picks another.
SINK_BINARY = Path(os.environ.get("SHOP_SINK_BIN", REPO / "target" / "debug" / "webhook-sink"))
# The workers' bounds, per instance: attempts in flight per endpoint (set below, so the bound
# the scenarios check is the one the server runs with) and in all (the fixed `total` of
# shop_ports::usecase::webhooks::DispatchSettings); the claims an instance holds, at most
# CLAIMS_PER_SLOT times either (shop_ports::usecase::webhooks::dispatch::CLAIMS_PER_SLOT: the
# claims beyond the bound wait in the process for a slot).
PER_ENDPOINT = 16
TOTAL = 256
CLAIMS_PER_SLOT = 4
# Loopback receivers need this; a short schedule keeps a retry inside the scenario's time.
WEBHOOK_ENV = {"WEBHOOK_ALLOW_PRIVATE_NETWORKS": "true",
               "WEBHOOK_RETRY_SCHEDULE": "1s,1s,1s,1s,1s,1s,1s,1s,1s,1s",
               "WEBHOOK_MAX_IN_FLIGHT_PER_ENDPOINT": str(PER_ENDPOINT)}
# What a key needs to create endpoints for stock events and read the stock back.
SCOPES = "stock:read,stock:write,products:read,webhooks:read,webhooks:write"


class Sink:
    """The `webhook-sink` process: answers every delivery (204 after `delay_ms`) and records
    it; its records are read incrementally."""

    def __init__(self, work: Path, binary: Path = SINK_BINARY):
        self.binary = binary
        self.work = work
        self.process: subprocess.Popen | None = None
        self.base_url = ""
        self._records: list[dict] = []

    def start(self, delay_ms: int = 0) -> str:
        if not self.binary.is_file():
            raise RuntimeError(f"{self.binary} is missing: `cargo test --workspace --no-run` "
                               "builds it (or set SHOP_SINK_BIN)")
        log = open(self.work / "sink.log", "wb")
        self.process = subprocess.Popen(
            [str(self.binary), "--bind", "127.0.0.1:0", "--delay-ms", str(delay_ms)],
            stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL,
            preexec_fn=die_with_parent)
        log.close()
        line = self.process.stdout.readline().decode().strip()
        if not line.startswith("listening on http://"):
            raise RuntimeError(f"webhook-sink did not start: {line!r}")
        self.base_url = line.removeprefix("listening on ")
        return self.base_url

    def url(self, path: str) -> str:
        return f"{self.base_url}{path}"

    def _get(self, path: str) -> bytes:
        reply = Client(self.base_url, timeout=30).request("GET", path)
        if reply.status != 200:
            raise RuntimeError(f"webhook-sink {path}: {reply.status}")
        return reply.body

    def records(self) -> list[dict]:
        """Every record so far, in arrival order (only the new ones are fetched)."""
        text = self._get(f"/_sink/records?from={len(self._records)}").decode()
        self._records += [json.loads(line) for line in text.splitlines() if line]
        return self._records

    def stats(self) -> dict:
        return json.loads(self._get("/_sink/stats"))

    def stop(self) -> None:
        if self.process is not None:
            stop_process(self.process, grace=5)
            self.process.stdout.close()
            self.process = None


def create_endpoint(client: Client, key: str, url: str, events: list[str]) -> str:
    reply = client.request("POST", "/api/v2/webhook-endpoints", key=key,
                           body={"url": url, "events": events})
    if reply.status != 201:
        raise RuntimeError(f"POST /api/v2/webhook-endpoints answered {reply.status}: "
                           f"{reply.body[:300]!r}")
    return reply.json()["data"]["id"]


def all_stock(client: Client, key: str) -> dict[str, int]:
    """Every tracked variant's stock as the API shows it, every page walked."""
    stock, cursor = {}, None
    while True:
        query_string = {"limit": 100, **({"cursor": cursor} if cursor else {})}
        reply = client.request("GET", f"/api/v1/stock?{urllib.parse.urlencode(query_string)}",
                               key=key)
        if reply.status != 200:
            raise RuntimeError(f"GET /api/v1/stock answered {reply.status}: {reply.body[:200]!r}")
        page = reply.json()
        stock.update({entry["variantId"]: entry["stock"] for entry in page["data"]})
        cursor = page["pageInfo"]["nextCursor"]
        if not cursor:
            return stock


# --- the queue, read directly from the database ---------------------------------------------

def delivery_counts(url: str) -> dict[str, int]:
    """Deliveries by status: pending, succeeded, superseded, failed."""
    rows = query(url, "SELECT status, count(*) FROM webhook_deliveries GROUP BY status")
    return {status: int(count) for status, count in rows}


@dataclass(frozen=True)
class Claim:
    endpoint_id: str
    resource: str
    claimed_by: str


def claims(url: str) -> list[Claim]:
    """The claims stored (`webhook_inflight`): one per attempt from the queue's rows in flight,
    whichever instance made it, until it is recorded or expires. SQLite's first attempts
    claimed straight from the event log are held in the process only."""
    return [Claim(*row) for row in
            query(url, "SELECT endpoint_id, resource, claimed_by FROM webhook_inflight")]


def recorded_attempts(url: str) -> set[tuple[str, str]]:
    """(endpoint id, event id) of every attempt recorded."""
    return {(endpoint, event) for endpoint, event in query(
        url, "SELECT a.endpoint_id, e.id FROM webhook_attempts a "
             "JOIN webhook_deliveries d ON d.id = a.delivery_id "
             "JOIN webhook_events e ON e.seq = d.event_seq")}


# --- what the receiver holds -------------------------------------------------------------

@dataclass
class Holding:
    """The receiver's records of stock events, per endpoint path and variant."""
    last_stock: dict[tuple[str, str], int]
    received: Counter  # (path, webhook-id) -> times received
    out_of_order: list[str]  # (path, variant) whose event timestamps went backwards
    requests: int


def holding(records: list[dict]) -> Holding:
    last_stock: dict[tuple[str, str], int] = {}
    last_time: dict[tuple[str, str], str] = {}
    received: Counter = Counter()
    out_of_order = []
    for record in records:  # arrival order
        received[(record["path"], record["webhook_id"])] += 1
        if record.get("type") != "stock.updated" or record.get("variant_id") is None:
            continue
        key = (record["path"], record["variant_id"])
        # RFC 3339 in UTC with milliseconds: text order is time order.
        if key in last_time and record["timestamp"] < last_time[key]:
            out_of_order.append(f"{key[0]} {key[1]}: {record['timestamp']} after {last_time[key]}")
        last_time[key] = max(last_time.get(key, ""), record["timestamp"])
        last_stock[key] = record["stock"]
    return Holding(last_stock, received, out_of_order, len(records))


def mismatches(held: Holding, paths: list[str], stock: dict[str, int],
               variants: list[str]) -> list[str]:
    """Each (path, variant) whose last received stock is not the API's stock (or which
    received nothing)."""
    found = []
    for path in paths:
        for variant in variants:
            got = held.last_stock.get((path, variant))
            if got != stock.get(variant):
                found.append(f"{path} {variant}: received {got}, API {stock.get(variant)}")
    return found


def duplicates(held: Holding) -> list[tuple[str, str]]:
    """(path, webhook-id) received more than once."""
    return [key for key, times in held.received.items() if times > 1]


def first_arrivals(records: list[dict]) -> dict[tuple[str, str], int]:
    """(path, webhook-id) -> index of its first record."""
    first: dict[tuple[str, str], int] = {}
    for index, record in enumerate(records):
        first.setdefault((record["path"], record["webhook_id"]), index)
    return first


def per_path(records: list[dict]) -> dict[str, int]:
    counts: dict[str, int] = defaultdict(int)
    for record in records:
        counts[record["path"]] += 1
    return dict(counts)
