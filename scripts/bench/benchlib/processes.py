"""Servers started by the benchmark: started on loopback, read for memory, always stopped.

Every process started here is registered until it is stopped, and `stop_all` (called from the
harness's `finally`, which also runs on Ctrl-C and SIGTERM) stops whatever is left.
"""

import ctypes
import os
import signal
import socket
import subprocess
import time
from pathlib import Path

_running = []


class Failure(Exception):
    """A step of the benchmark failed; the message says which and why."""


def _die_with_parent():
    """In the child, before exec: the kernel sends it SIGTERM when the harness dies, even by
    SIGKILL, so that no server outlives a crashed run (prctl PR_SET_PDEATHSIG, Linux)."""
    libc = ctypes.CDLL(None, use_errno=True)
    pr_set_pdeathsig = 1
    libc.prctl(pr_set_pdeathsig, signal.SIGTERM)


def free_port():
    # Bound then released: another process could take it in between, which on a benchmark
    # machine is unlikely, and then the server fails to start with a clear message.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def tail(path, lines=20):
    try:
        text = Path(path).read_text(errors="replace")
    except OSError:
        return ""
    return "\n".join(text.splitlines()[-lines:])


class Server:
    """A long-running child process; its stderr (and stdout unless captured) go to a log file."""

    def __init__(self, name, argv, log_path, env=None, capture_stdout=False):
        self.name = name
        self.log_path = Path(log_path)
        self.log_path.parent.mkdir(parents=True, exist_ok=True)
        self._log = open(self.log_path, "wb")
        self.process = subprocess.Popen(
            [str(a) for a in argv],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE if capture_stdout else self._log,
            stderr=self._log,
            env={**os.environ, **(env or {})},
            preexec_fn=_die_with_parent,
        )
        _running.append(self)

    @property
    def pid(self):
        return self.process.pid

    def alive(self):
        return self.process.poll() is None

    def check_alive(self):
        if not self.alive():
            raise Failure(
                f"{self.name} exited with status {self.process.returncode}; "
                f"last lines of {self.log_path}:\n{tail(self.log_path)}"
            )

    def _status(self):
        with open(f"/proc/{self.pid}/status") as status:
            return dict(line.split(":", 1) for line in status if ":" in line)

    def memory_mb(self):
        """{"rss": VmRSS, "peak": VmHWM (the peak resident set)} of the process, in MB (10^6
        bytes, the unit of the issue's target; /proc counts KiB)."""
        status = self._status()
        return {"rss": _mb(status["VmRSS"]), "peak": _mb(status["VmHWM"])}

    def memory_breakdown(self):
        """Where the resident memory is (heap and stacks, mapped files, shared memory such as
        SQLite's WAL index) and how many threads hold it: what explains a growth."""
        status = self._status()
        return {
            "rss_mb": _mb(status["VmRSS"]),
            "anon_mb": _mb(status["RssAnon"]),
            "file_mb": _mb(status["RssFile"]),
            "shmem_mb": _mb(status["RssShmem"]),
            "threads": int(status["Threads"]),
        }

    def stop(self, grace_s=10):
        if self.alive():
            self.process.send_signal(signal.SIGTERM)
            try:
                self.process.wait(timeout=grace_s)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=10)
        if self.process.stdout:
            self.process.stdout.close()
        self._log.close()
        if self in _running:
            _running.remove(self)


def _mb(kib_field):
    return round(int(kib_field.split()[0]) * 1024 / 1e6, 2)


def stop_all():
    for server in list(_running):
        try:
            server.stop(grace_s=5)
        except Exception as error:  # cleanup must reach every process
            print(f"warning: could not stop {server.name}: {error}")


def start_ceiling(binary, workers, bodies, log_path):
    """Starts the `ceiling` binary on a free port; returns (server, port)."""
    argv = [binary, "--bind", "127.0.0.1:0", "--workers", workers]
    for name, path in bodies.items():
        argv += ["--body", f"{name}={path}"]
    server = Server("ceiling", argv, log_path, capture_stdout=True)
    line = server.process.stdout.readline().decode().strip()
    if not line.startswith("listening on http://"):
        server.stop()
        raise Failure(f"ceiling did not start ({line!r}); log:\n{tail(log_path)}")
    port = int(line.rsplit(":", 1)[1])
    return server, port


def wait_for_port(server, port, timeout_s=60):
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        server.check_alive()
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=1):
                return
        except OSError:
            time.sleep(0.1)
    raise Failure(f"{server.name} did not listen on port {port} within {timeout_s} s")
