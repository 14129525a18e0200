"""Plain HTTP calls to the API (keep-alive http.client): readiness, bodies to capture, the
tracked variants to adjust, the cursor of a page deep in the orders, and the instant of the
"orders changed since" page."""

import http.client
import json
import time
import urllib.parse
from datetime import datetime, timedelta, timezone

from .processes import Failure

API = "/api/v1"


class Api:
    def __init__(self, port, key):
        self.port = port
        self.key = key
        self._connection = None

    def _request(self, method, path, body=None, content_type="application/json"):
        headers = {"Authorization": f"Bearer {self.key}"}
        if body is not None:
            headers["Content-Type"] = content_type
        for attempt in (1, 2):
            if self._connection is None:
                self._connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=60)
            try:
                self._connection.request(method, path, body=body, headers=headers)
                response = self._connection.getresponse()
                return response.status, response.read()
            except (ConnectionError, http.client.HTTPException):
                # The server may close an idle keep-alive connection: reconnect once.
                self._connection.close()
                self._connection = None
                if attempt == 2:
                    raise

    def send(self, method, path, body=None, content_type="application/json"):
        """(status, body) of any request (`body`: JSON text or None)."""
        return self._request(method, path, body, content_type)

    def get(self, path):
        """The response body of a GET that must answer 200."""
        status, body = self._request("GET", path)
        if status != 200:
            raise Failure(f"GET {path} answered {status}: {body[:300]!r}")
        return body

    def get_json(self, path):
        return json.loads(self.get(path))

    def post_adjustment(self, variant_id):
        """The body of a stock adjustment that must answer 201."""
        payload = json.dumps({"variantId": variant_id, "quantity": 1, "reason": "bench"})
        path = f"{API}/stock/adjustments"
        status, body = self._request("POST", path, payload)
        if status != 201:
            raise Failure(f"POST {path} answered {status}: {body[:300]!r}")
        return body

    def close(self):
        if self._connection is not None:
            self._connection.close()
            self._connection = None


def wait_until_ready(server, port, key, timeout_s=120):
    """Polls GET /api/v1/me with the key until it answers 200 (migrations run at startup)."""
    deadline = time.monotonic() + timeout_s
    last = "no answer"
    while time.monotonic() < deadline:
        server.check_alive()
        try:
            connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
            connection.request("GET", f"{API}/me", headers={"Authorization": f"Bearer {key}"})
            response = connection.getresponse()
            response.read()
            connection.close()
            if response.status == 200:
                return
            last = f"status {response.status}"
        except OSError as error:
            last = str(error)
        time.sleep(0.2)
    raise Failure(f"{server.name} not ready within {timeout_s} s ({last})")


def tracked_variants(api, wanted):
    """Up to `wanted` ids of variants whose stock is tracked (an untracked one answers 422),
    read from GET /stock (tracked only by default), in the API's order."""
    ids, cursor = [], None
    while len(ids) < wanted:
        query = {"limit": 100}
        if cursor:
            query["cursor"] = cursor
        page = api.get_json(f"{API}/stock?{urllib.parse.urlencode(query)}")
        ids += [entry["variantId"] for entry in page["data"]]
        cursor = page["pageInfo"]["nextCursor"]
        if not cursor:
            break
    if not ids:
        raise Failure("the shop has no tracked variant to adjust")
    return ids[:wanted]


def deep_orders_cursor(api, rows, timeout_s):
    """The `nextCursor` after the first `rows` orders, newest first, reached by paging the API
    itself with limit=100 (the cursor is opaque: it cannot be made up honestly).
    Returns (cursor, seconds) or (None, seconds) when the walk ran out of time or rows."""
    started = time.monotonic()
    cursor, seen = None, 0
    while seen < rows:
        limit = min(100, rows - seen)
        query = {"limit": limit}
        if cursor:
            query["cursor"] = cursor
        page = api.get_json(f"{API}/orders?{urllib.parse.urlencode(query)}")
        seen += len(page["data"])
        cursor = page["pageInfo"]["nextCursor"]
        if not cursor or time.monotonic() - started > timeout_s:
            return None, time.monotonic() - started
    return cursor, time.monotonic() - started


def instant_before(timestamp, days):
    """The API's instant `timestamp` (RFC 3339, as in `createdAt`: 2026-11-20T10:00:00.000Z)
    minus `days` days, written as the API writes its instants (UTC, milliseconds, `Z`) so
    that `updatedSince` takes it as it is."""
    try:
        moment = datetime.fromisoformat(timestamp.replace("Z", "+00:00"))
    except (AttributeError, TypeError, ValueError):
        raise Failure(f"{timestamp!r} is not an RFC 3339 instant")
    if moment.tzinfo is None:
        raise Failure(f"{timestamp!r} has no offset: not an instant")
    moment = (moment - timedelta(days=days)).astimezone(timezone.utc)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def newest_order_created_at(api):
    """The newest order's `createdAt`: the first order of the list without `updatedSince`
    (newest first). The seed puts every dataset's orders over the years before one fixed
    instant, so this is where the data ends."""
    orders = api.get_json(f"{API}/orders?limit=1")["data"]
    if not orders:
        raise Failure("the shop has no order to take the end of the data from")
    return orders[0]["createdAt"]


def first_page_extent(api, path):
    """How full the first page of a list is, without paging the rest: its rows and
    `pageInfo.hasMore` (whether more rows matched than the page holds)."""
    page = api.get_json(path)
    return {"rows": len(page["data"]), "has_more": page["pageInfo"]["hasMore"]}
