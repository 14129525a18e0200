"""Load runs with wrk: a warm-up, then a measured run, both through scripts/bench/wrk/load.lua."""

import json
import os
import subprocess
from dataclasses import dataclass, asdict

from . import cpu
from .config import LUA_SCRIPT
from .processes import Failure


@dataclass
class WrkResult:
    requests: int
    seconds: float
    rps: float
    p50_ms: float
    p90_ms: float
    p99_ms: float
    mean_ms: float
    max_ms: float
    # Responses with a status >= 400 (wrk counts nothing else as a status error) and
    # connection-level errors.
    error_responses: int
    socket_errors: int
    timeouts: int
    # {"api": µs, "postgres": µs} of CPU per request (benchlib/cpu.py), when the run was given a
    # CPU reading; "postgres" only on a PostgreSQL dataset.
    cpu_us_per_request: dict = None

    def failed(self):
        return self.error_responses + self.socket_errors + self.timeouts

    def to_json(self):
        data = asdict(self)
        if data["cpu_us_per_request"] is None:
            del data["cpu_us_per_request"]
        return data


@dataclass(frozen=True)
class Load:
    """What to send: `mode` is get, post, patch, credit or mixed (see load.lua). patch and
    credit send to `path_template` (its `{id}` replaced) for the ids of `ids_file`."""

    url: str
    key: str
    mode: str = "get"
    variants_file: str = ""
    post_path: str = "/api/v1/stock/adjustments"
    ids_file: str = ""
    path_template: str = ""


def _command(load, seconds, connections, threads):
    env = {
        **os.environ,
        "BENCH_MODE": load.mode,
        "BENCH_POST_PATH": load.post_path,
        "BENCH_VARIANTS_FILE": load.variants_file,
        "BENCH_IDS_FILE": load.ids_file,
        "BENCH_PATH_TEMPLATE": load.path_template,
        "BENCH_WRK_THREADS": str(threads),
    }
    argv = [
        "wrk",
        "--latency",
        "-t", str(threads),
        "-c", str(connections),
        "-d", f"{seconds}s",
        "--timeout", "5s",
        "-s", str(LUA_SCRIPT),
        "-H", f"Authorization: Bearer {load.key}",
        load.url,
    ]
    return argv, env


def _result(load, returncode, stdout, stderr):
    line = next((l for l in stdout.splitlines() if l.startswith("BENCH_RESULT ")), None)
    if returncode != 0 or line is None:
        raise Failure(f"wrk failed on {load.url} ({returncode}):\n{stdout}\n{stderr}")
    raw = json.loads(line.removeprefix("BENCH_RESULT "))
    errors = raw["errors"]
    seconds_run = raw["duration_us"] / 1e6
    return WrkResult(
        requests=raw["requests"],
        seconds=round(seconds_run, 3),
        rps=round(raw["requests"] / seconds_run, 1) if seconds_run else 0.0,
        p50_ms=raw["p50_us"] / 1000,
        p90_ms=raw["p90_us"] / 1000,
        p99_ms=raw["p99_us"] / 1000,
        mean_ms=round(raw["mean_us"] / 1000, 3),
        max_ms=raw["max_us"] / 1000,
        error_responses=errors["status"],
        socket_errors=errors["connect"] + errors["read"] + errors["write"],
        timeouts=errors["timeout"],
    )


def run(load, seconds, connections, threads):
    argv, env = _command(load, seconds, connections, threads)
    try:
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=seconds + 60)
    except subprocess.TimeoutExpired:
        raise Failure(f"wrk did not finish within {seconds + 60} s: {load.url}")
    return _result(load, done.returncode, done.stdout, done.stderr)


class Background:
    """A wrk run in the background (the soak), while the caller samples the server."""

    def __init__(self, load, seconds, connections, threads):
        self.load, self.seconds = load, seconds
        argv, env = _command(load, seconds, connections, threads)
        self.process = subprocess.Popen(argv, env=env, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, text=True)

    def running(self):
        return self.process.poll() is None

    def result(self):
        try:
            stdout, stderr = self.process.communicate(timeout=self.seconds + 60)
        except subprocess.TimeoutExpired:
            self.process.kill()
            raise Failure(f"wrk did not finish within {self.seconds + 60} s: {self.load.url}")
        return _result(self.load, self.process.returncode, stdout, stderr)

    def kill(self):
        if self.running():
            self.process.kill()
            self.process.communicate()


def warm_up(load, settings, connections, threads):
    """A run of BENCH_WARMUP_SECONDS whose figures are not kept."""
    if settings.warmup_s:
        run(load, settings.warmup_s, connections, min(threads, connections))


def measure(load, settings, connections=None, threads=None, what="", warm=True,
            read_cpu=None):
    """Warm-up (not kept; `warm=False` when the caller warmed this load up already), then the
    measured run. Refuses a run with any failed request. `read_cpu` (e.g. cpu.Meter.read), when
    given, is called just before the measured run (after the warm-up) and just after it: the
    result's cpu_us_per_request is the CPU between the two readings per request counted."""
    connections = connections or settings.connections
    threads = min(threads or settings.wrk_threads, connections)
    if warm:
        warm_up(load, settings, connections, threads)
    before = read_cpu() if read_cpu else None
    result = run(load, settings.duration_s if connections > 1 else settings.latency_s,
                 connections, threads)
    if read_cpu:
        result.cpu_us_per_request = cpu.per_request(read_cpu().since(before), result.requests)
    if result.failed():
        raise Failure(
            f"{what or load.url}: {result.error_responses} error responses, "
            f"{result.socket_errors} socket errors, {result.timeouts} timeouts: "
            "a benchmark counts only successful requests"
        )
    used = result.cpu_us_per_request or {}
    cpu_text = "".join(f"  {label} CPU {used[name]:.0f} µs/req"
                       for name, label in (("api", "API"), ("postgres", "PostgreSQL"),
                                           ("primary", "primary"), ("replica", "replica"))
                       if used.get(name) is not None)
    print(
        f"  {what or load.url:<44} {result.rps:>9.1f} req/s  p50 {result.p50_ms:.3f} ms"
        f"  p99 {result.p99_ms:.3f} ms{cpu_text}",
        flush=True,
    )
    return result
