"""A minimal keep-alive HTTP client (one per thread) that times every exchange."""

import http.client
import json
import time
import uuid
from dataclasses import dataclass
from urllib.parse import urlsplit


class TransportError(Exception):
    """No HTTP answer: refused, reset, closed or timed out. The request may or may not have
    been applied; only an idempotent retry can tell."""


@dataclass
class Reply:
    status: int
    headers: dict[str, str]
    body: bytes
    sent_at: float
    answered_at: float

    @property
    def seconds(self) -> float:
        return self.answered_at - self.sent_at

    def json(self):
        return json.loads(self.body)


class Client:
    def __init__(self, base_url: str, timeout: float = 10):
        parts = urlsplit(base_url)
        self.host, self.port = parts.hostname, parts.port
        self.timeout = timeout
        self._connection: http.client.HTTPConnection | None = None

    def request(self, method: str, path: str, *, key: str | None = None, body=None,
                headers: dict[str, str] | None = None) -> Reply:
        sent_headers = dict(headers or {})
        if key is not None:
            sent_headers["Authorization"] = f"Bearer {key}"
        payload = None
        if body is not None:
            payload = json.dumps(body).encode()
            sent_headers["Content-Type"] = "application/json"
        if self._connection is None:
            self._connection = http.client.HTTPConnection(self.host, self.port, timeout=self.timeout)
        sent_at = time.monotonic()
        try:
            self._connection.request(method, path, body=payload, headers=sent_headers)
            response = self._connection.getresponse()
            data = response.read()
        except (OSError, http.client.HTTPException) as error:
            self.close()
            raise TransportError(f"{type(error).__name__}: {error}") from error
        answered_at = time.monotonic()
        if response.getheader("Connection", "").lower() == "close":
            self.close()
        return Reply(response.status, {k.lower(): v for k, v in response.getheaders()}, data,
                     sent_at, answered_at)

    def close(self) -> None:
        if self._connection is not None:
            self._connection.close()
            self._connection = None


@dataclass
class Adjustment:
    """One logical stock adjustment, as an ERP sends it: its own Idempotency-Key, reused by
    every retry. The key is also the reason, so that every stored movement names the logical
    adjustment it came from, even one applied twice."""
    variant: str
    delta: int
    idempotency_key: str

    @classmethod
    def new(cls, variant: str, delta: int) -> "Adjustment":
        return cls(variant, delta, f"fault-{uuid.uuid4()}")

    def send(self, client: Client, key: str) -> Reply:
        return client.request(
            "POST", "/api/v1/stock/adjustments", key=key,
            body={"variantId": self.variant, "quantity": self.delta, "reason": self.idempotency_key},
            headers={"Idempotency-Key": self.idempotency_key},
        )
