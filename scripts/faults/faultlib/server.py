"""The `shop-api` binary: its CLI on a database, and a server process on loopback that can
be killed (SIGKILL), stopped and started again on the same database."""

import ctypes
import json
import os
import resource
import signal
import socket
import subprocess
import time
from pathlib import Path

from .http import Client, TransportError

_PR_SET_PDEATHSIG = 1
_LIBC = ctypes.CDLL(None, use_errno=True)

# Every budget a scenario does not test, raised far above its load.
UNLIMITED = 1_000_000


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def raise_open_files_limit():
    """A burst of a thousand connections needs more descriptors than the usual soft limit of
    1,024, on both sides."""
    _, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def die_with_parent():
    """Makes the kernel SIGKILL the calling process when its parent dies (even by SIGKILL from
    `timeout`), so that no server or load process outlives its scenario. Called in the child."""
    _LIBC.prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def _environment(**overrides) -> dict:
    env = {
        name: value
        for name, value in os.environ.items()
        # Settings a scenario must not inherit from the shell: it states its own.
        if name not in {"DATABASE_URL", "BIND", "WORKERS", "REDIS_URL", "RATE_LIMIT_READS_PER_MINUTE",
                        "RATE_LIMIT_WRITES_PER_MINUTE", "AUTH_FAILURES_PER_MINUTE",
                        "AUTH_FAILURES_PER_KEY_PER_MINUTE", "TRUSTED_PROXIES", "METRICS_BIND",
                        "METRICS_TOKEN", "LOG_FORMAT"}
    }
    env.setdefault("RUST_LOG", "info")
    env.update(overrides)
    return env


class ShopApi:
    def __init__(self, binary: Path, database_url: str, work: Path):
        self.binary = binary
        self.database_url = database_url
        self.work = work
        self.process: subprocess.Popen | None = None
        self.base_url: str | None = None
        self.starts = 0

    # --- the owner's CLI -------------------------------------------------------------------

    def cli(self, *args: str) -> str:
        done = subprocess.run(
            [str(self.binary), "--database-url", self.database_url, *args],
            env=_environment(), capture_output=True, text=True, timeout=60,
        )
        if done.returncode != 0:
            raise RuntimeError(f"shop-api {' '.join(args)} failed: {done.stderr.strip()}")
        return done.stdout

    def create_shop(self, slug: str, data: dict) -> None:
        self.cli("shop", "create", "--slug", slug, "--name", f"Fault scenario {slug}")
        path = self.work / f"{slug}-import.json"
        path.write_text(json.dumps(data))
        self.cli("import", "--shop", slug, str(path))

    def create_key(self, slug: str, scopes: str) -> str:
        return self.cli("key", "create", "--shop", slug, "--label", "fault scenario",
                        "--scopes", scopes).strip()

    # --- the server ------------------------------------------------------------------------

    def start(self, *, reads=UNLIMITED, writes=UNLIMITED, auth_failures=None, workers=2,
              cpus: set[int] | None = None, metrics_token: str | None = None,
              env: dict[str, str] | None = None) -> str:
        """Starts `serve` on a fresh loopback port. `auth_failures=None` keeps the default
        budget (no flag, no environment variable); `cpus` pins the server (all its threads);
        `metrics_token` (at least 32 characters) serves /metrics to its bearer; `env` adds
        settings (the WEBHOOK_* ones)."""
        assert self.process is None, "already running"
        self.starts += 1
        port = free_port()
        args = [str(self.binary), "--database-url", self.database_url, "serve",
                "--bind", f"127.0.0.1:{port}", "--workers", str(workers),
                "--rate-limit-reads-per-minute", str(reads),
                "--rate-limit-writes-per-minute", str(writes)]
        if auth_failures is not None:
            args += ["--auth-failures-per-minute", str(auth_failures)]
        if metrics_token is not None:
            args += ["--metrics-token", metrics_token]
        def before_exec():
            die_with_parent()
            raise_open_files_limit()
            if cpus:
                os.sched_setaffinity(0, cpus)

        log = open(self.work / f"server-{self.starts}.log", "wb")
        self.process = subprocess.Popen(
            args, env=_environment(REDIS_URL="", **(env or {})), stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, preexec_fn=before_exec,
        )
        log.close()
        self.base_url = f"http://127.0.0.1:{port}"
        return self.base_url

    def wait_ready(self, key: str, timeout: float = 60) -> float:
        """Seconds until the server answers `GET /api/v1/me` with `key` (and `/readyz`, where
        that endpoint exists). Raises when it exits or is not ready in time."""
        begun = time.monotonic()
        client = Client(self.base_url, timeout=5)
        while time.monotonic() - begun < timeout:
            if self.process.poll() is not None:
                raise RuntimeError(f"shop-api exited with {self.process.returncode}; "
                                   f"see {self.work}/server-{self.starts}.log")
            try:
                readyz = client.request("GET", "/readyz")
                me = client.request("GET", "/api/v1/me", key=key)
                if me.status == 200 and readyz.status in (200, 404):
                    return time.monotonic() - begun
            except TransportError:
                pass
            time.sleep(0.1)
        raise RuntimeError(f"shop-api was not ready within {timeout} s")

    def start_deliver(self, name: str, env: dict[str, str] | None = None) -> subprocess.Popen:
        """Starts `shop-api deliver` (webhook workers, no HTTP server) on the same database;
        its log is `deliver-<name>.log`. The caller stops it (`stop_process`)."""
        log = open(self.work / f"deliver-{name}.log", "wb")
        process = subprocess.Popen(
            [str(self.binary), "--database-url", self.database_url, "deliver"],
            env=_environment(REDIS_URL="", **(env or {})), stdout=log, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, preexec_fn=die_with_parent,
        )
        log.close()
        return process

    def cpu_seconds(self) -> float:
        """User + system CPU time the server has used so far."""
        fields = Path(f"/proc/{self.process.pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    def kill9(self) -> None:
        """SIGKILL: no shutdown, no flush; whatever the process held in memory is gone."""
        self.process.send_signal(signal.SIGKILL)
        self.process.wait()
        self.process = None

    def stop(self) -> None:
        if self.process is None:
            return
        stop_process(self.process)
        self.process = None


def stop_process(process: subprocess.Popen, grace: float = 10) -> None:
    """SIGTERM, then SIGKILL after `grace` seconds."""
    if process.poll() is not None:
        return
    process.terminate()
    try:
        process.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()
