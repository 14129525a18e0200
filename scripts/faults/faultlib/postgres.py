"""PostgreSQL for the scenarios: scratch databases, and clusters that can be stopped.

The PostgreSQL restart scenario runs on a private cluster (initdb in target/faults/work, its
own loopback port) by default, so that stopping it disturbs no one else's database; `shared`
restarts the machine's cluster with pg_ctlcluster instead, and starts it again whatever
happens."""

import os
import shutil
import subprocess
import time
from pathlib import Path

from .server import free_port

ADMIN_URL = os.environ.get("FAULTS_PG_ADMIN_URL", "postgres://postgres@127.0.0.1:5432/postgres")


def psql(url: str, sql: str) -> str:
    done = subprocess.run(["psql", url, "-v", "ON_ERROR_STOP=1", "-qAt", "-F", "\t", "-c", sql],
                          capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        raise RuntimeError(f"psql failed: {done.stderr.strip()}")
    return done.stdout


def scratch_database(admin_url: str, name: str, cleanup) -> str:
    """Creates database `name` and registers its drop; returns its URL."""
    psql(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    psql(admin_url, f'CREATE DATABASE "{name}"')
    cleanup.callback(lambda: psql(admin_url, f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'))
    return admin_url.rsplit("/", 1)[0] + "/" + name


def _is_ready(port: int) -> bool:
    return subprocess.run(["pg_isready", "-q", "-h", "127.0.0.1", "-p", str(port)],
                          timeout=10).returncode == 0


def _wait_ready(port: int, timeout: float) -> None:
    begun = time.monotonic()
    while not _is_ready(port):
        if time.monotonic() - begun > timeout:
            raise RuntimeError(f"PostgreSQL on port {port} is not ready after {timeout} s")
        time.sleep(0.05)


def _newest_version() -> str:
    return max(os.listdir("/etc/postgresql"), key=int)


def _bin_dir() -> Path:
    return Path(f"/usr/lib/postgresql/{_newest_version()}/bin")


class PrivateCluster:
    """A throw-away cluster, run by the `postgres` system user when the scenario runs as root
    (PostgreSQL refuses to run as root), else by the scenario's own user."""

    def __init__(self, work: Path):
        self.data = work / "pgdata"
        self.port = free_port()
        self.admin_url = f"postgres://postgres@127.0.0.1:{self.port}/postgres"
        self.bin = _bin_dir()

    def _as_postgres(self, *args: str, check: bool = True) -> None:
        as_user = ["runuser", "-u", "postgres", "--"] if os.geteuid() == 0 else []
        subprocess.run([*as_user, *args], check=check, capture_output=True, timeout=60)

    def create(self, cleanup) -> None:
        shutil.rmtree(self.data, ignore_errors=True)
        self.data.mkdir(parents=True)
        if os.geteuid() == 0:
            shutil.chown(self.data, "postgres", "postgres")
        self._as_postgres(str(self.bin / "initdb"), "-D", str(self.data), "-U", "postgres",
                          "-A", "trust", "--locale=C.UTF-8", "--no-sync")
        cleanup.callback(self.destroy)
        self.start()

    def start(self) -> None:
        # Loopback TCP only: no Unix socket that could clash with the machine's cluster.
        options = f"-p {self.port} -c listen_addresses=127.0.0.1 -c unix_socket_directories=''"
        self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.data), "-o", options,
                          "-l", str(self.data / "server.log"), "-w", "start")
        _wait_ready(self.port, 30)

    def stop(self) -> None:
        # `fast`: open connections are cut, as in a real restart or failover.
        self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "fast", "-w", "stop")

    def is_ready(self) -> bool:
        return _is_ready(self.port)

    def destroy(self) -> None:
        if (self.data / "postmaster.pid").exists():
            self._as_postgres(str(self.bin / "pg_ctl"), "-D", str(self.data), "-m", "immediate",
                              "-w", "stop", check=False)
        shutil.rmtree(self.data, ignore_errors=True)


class SharedCluster:
    """The machine's cluster (the one .ci/run and every test use), restarted in place."""

    def __init__(self, _work: Path):
        self.version = _newest_version()
        self.port = 5432
        self.admin_url = ADMIN_URL

    def _ctl(self, action: str) -> None:
        subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", self.version, "main", action],
                       check=True, capture_output=True, timeout=60)

    def create(self, cleanup) -> None:
        # Whatever happens to the scenario, the machine's PostgreSQL is up when it ends.
        cleanup.callback(self.ensure_running)
        self.ensure_running()

    def ensure_running(self) -> None:
        if not self.is_ready():
            subprocess.run(["pg_ctlcluster", "--skip-systemctl-redirect", self.version, "main",
                            "start"], capture_output=True, timeout=60)
            _wait_ready(self.port, 60)

    def start(self) -> None:
        self._ctl("start")
        _wait_ready(self.port, 60)

    def stop(self) -> None:
        self._ctl("stop")

    def is_ready(self) -> bool:
        return _is_ready(self.port)
