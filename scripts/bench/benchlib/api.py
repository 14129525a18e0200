"""Plain HTTP calls to the API (keep-alive http.client): readiness, bodies to capture, the
tracked variants to adjust, and the cursor of a page deep in the orders."""

import http.client
import json
import time
import urllib.parse

from .processes import Failure

API = "/api/v1"


class Api:
    def __init__(self, port, key):
        self.port = port
        self.key = key
        self._connection = None

    def _request(self, method, path, body=None):
        headers = {"Authorization": f"Bearer {self.key}"}
        if body is not None:
            headers["Content-Type"] = "application/json"
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
