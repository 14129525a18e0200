"""The scenario's side of the books: every logical adjustment sent and what the API said,
audited against what the database holds."""

import threading
from collections import Counter, defaultdict
from dataclasses import dataclass

from .http import Adjustment, Reply
from .stored import Movement


@dataclass
class Entry:
    adjustment: Adjustment
    attempts: int = 0
    # The final answer: 201 with its movement, another status, or None (never answered).
    status: int | None = None
    movement_id: str | None = None
    replayed: bool = False


class Ledger:
    def __init__(self):
        self._entries: list[Entry] = []
        self._lock = threading.Lock()

    def open(self, adjustment: Adjustment) -> Entry:
        """Records the adjustment *before* it is sent: one cut off by a fault is still known."""
        entry = Entry(adjustment)
        with self._lock:
            self._entries.append(entry)
        return entry

    def entries(self) -> list[Entry]:
        with self._lock:
            return list(self._entries)


def record_answer(entry: Entry, reply: Reply) -> None:
    entry.status = reply.status
    if reply.status == 201:
        entry.movement_id = reply.json()["data"]["movementId"]
        entry.replayed = reply.headers.get("idempotent-replayed") == "true"


@dataclass
class Audit:
    stored: int
    acknowledged: int
    found: int
    lost: list[str]
    doubled: list[str]
    unexplained: list[str]
    unanswered: int
    unanswered_applied: int
    rejected_but_applied: list[str]
    broken_movements: list[str]
    stock_mismatches: list[str]

    @property
    def violations(self) -> list[str]:
        found = []
        for label, items in [("acknowledged adjustments lost", self.lost),
                             ("logical adjustments applied more than once", self.doubled),
                             ("movements from no adjustment of the scenario", self.unexplained),
                             ("refused adjustments applied anyway", self.rejected_but_applied),
                             ("movements unlike their adjustment, or new != previous + delta",
                              self.broken_movements),
                             ("variants whose stock != initial + sum of movements",
                              self.stock_mismatches)]:
            if items:
                found.append(f"{len(items)} {label}: {', '.join(items[:5])}")
        return found


def audit(entries: list[Entry], movements: list[Movement], stock: dict[str, int],
          initial: dict[str, int]) -> Audit:
    by_adjustment: dict[str, list[Movement]] = defaultdict(list)
    for movement in movements:
        by_adjustment[movement.reason].append(movement)
    ours = {entry.adjustment.idempotency_key: entry.adjustment for entry in entries}
    acknowledged = [e for e in entries if e.status == 201]
    lost = [e.adjustment.idempotency_key for e in acknowledged
            if e.movement_id not in {m.id for m in by_adjustment[e.adjustment.idempotency_key]}]
    unanswered = [e for e in entries if e.status is None]
    sums: Counter[str] = Counter()
    for movement in movements:
        sums[movement.variant] += movement.delta
    return Audit(
        stored=len(movements),
        acknowledged=len(acknowledged),
        found=len(acknowledged) - len(lost),
        lost=lost,
        doubled=[key for key, found in by_adjustment.items() if key in ours and len(found) > 1],
        unexplained=[m.id for m in movements if m.reason not in ours],
        unanswered=len(unanswered),
        unanswered_applied=sum(1 for e in unanswered if by_adjustment[e.adjustment.idempotency_key]),
        rejected_but_applied=[e.adjustment.idempotency_key for e in entries
                              if e.status not in (None, 201) and by_adjustment[e.adjustment.idempotency_key]],
        broken_movements=[m.id for m in movements if m.new != m.previous + m.delta
                          or (m.reason in ours and (m.variant, m.delta)
                              != (ours[m.reason].variant, ours[m.reason].delta))],
        stock_mismatches=[f"{variant}: {stock.get(variant)} != {start} + {sums[variant]}"
                          for variant, start in initial.items()
                          if stock.get(variant) != start + sums[variant]],
    )


def api_stock(client, key: str) -> dict[str, int]:
    """Each tracked variant's stock as the API shows it (what the ERP reads back)."""
    reply = client.request("GET", "/api/v1/stock?limit=100", key=key)
    if reply.status != 200:
        raise RuntimeError(f"GET /api/v1/stock answered {reply.status}: {reply.body[:200]!r}")
    return {entry["variantId"]: entry["stock"] for entry in reply.json()["data"]}
