"""What the database holds after a fault, read directly (not through the server under test):
the stock movements and each variant's stock, for one shop."""

import contextlib
import sqlite3
from dataclasses import dataclass

from .postgres import psql


@dataclass(frozen=True)
class Movement:
    id: str
    variant: str
    delta: int
    previous: int
    new: int
    reason: str


# `?` is the shop's slug; PostgreSQL gets it inlined (it is one of the scenarios' own slugs).
_MOVEMENTS = """SELECT m.id, m.variant_id, m.delta, m.previous_stock, m.new_stock, m.reason
                FROM stock_movements m JOIN shops s ON s.id = m.shop_id WHERE s.slug = ?"""
_STOCK = """SELECT v.id, v.stock FROM variants v JOIN shops s ON s.id = v.shop_id
            WHERE s.slug = ?"""


def query(database_url: str, sql: str, params: tuple = ()) -> list[tuple[str, ...]]:
    """Rows of `sql`, every value as text, read directly from the database (`sqlite3`
    read-only, or `psql`). PostgreSQL gets no parameters: inline only the scenario's own
    constants."""
    if database_url.startswith("sqlite://"):
        path = database_url.removeprefix("sqlite://")
        with contextlib.closing(sqlite3.connect(f"file:{path}?mode=ro", uri=True)) as db:
            return [tuple("" if v is None else str(v) for v in row)
                    for row in db.execute(sql, params)]
    assert not params, "psql takes its values inlined"
    text = psql(database_url, sql)
    return [tuple(line.split("\t")) for line in text.splitlines() if line]


class StoredData:
    def __init__(self, database_url: str, slug: str):
        assert slug.replace("-", "").isalnum(), "slugs are inlined in SQL"
        self.url = database_url
        self.slug = slug

    def _rows(self, sql: str) -> list[tuple[str, ...]]:
        if self.url.startswith("sqlite://"):
            return query(self.url, sql, (self.slug,))
        return query(self.url, sql.replace("?", f"'{self.slug}'"))

    def movements(self) -> list[Movement]:
        return [Movement(id, variant, int(delta), int(previous), int(new), reason)
                for id, variant, delta, previous, new, reason in self._rows(_MOVEMENTS)]

    def stock(self) -> dict[str, int]:
        return {variant: int(stock) for variant, stock in self._rows(_STOCK)}
