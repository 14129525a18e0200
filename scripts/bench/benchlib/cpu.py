"""CPU time per request of a measured run: the API server process's, and PostgreSQL's (the
server's backends connected to the dataset's database: the API's pool), from utime + stime in
/proc/<pid>/stat (Linux). bench.py and scripts/bench/pg_reads.py both read it here.

A reading is taken just before the measured run (after its warm-up) and one just after; a
run's CPU is their difference. The backends live as long as the API's pool, so the difference
is mostly that of the same processes; a backend that appeared during the run counts from 0,
one that exited during it is not counted (its time is gone with it).
"""

import os
from dataclasses import dataclass

from .processes import Failure

TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
PROC = "/proc"


def stat_ticks(text):
    """utime + stime, in clock ticks, of a /proc/<pid>/stat line. The process name (field 2)
    is in parentheses and may itself hold spaces and parentheses, so the fields are counted
    from its last closing parenthesis: state is then the first, utime the 12th, stime the
    13th (fields 14 and 15 of proc(5))."""
    fields = text.rsplit(")", 1)[1].split()
    return int(fields[11]) + int(fields[12])


def stat_parent(text):
    """The parent's pid (field 4 of proc(5)) of a /proc/<pid>/stat line, counted from the
    name's last closing parenthesis like stat_ticks."""
    return int(text.rsplit(")", 1)[1].split()[1])


def parent_pid(pid, proc=PROC):
    """The parent's pid of `pid` (a PostgreSQL backend's is its postmaster); None when the
    process has gone."""
    try:
        with open(f"{proc}/{pid}/stat") as stat:
            return stat_parent(stat.read())
    except (FileNotFoundError, ProcessLookupError):
        return None


def cpu_seconds(pid, proc=PROC):
    """utime + stime of `pid`, in seconds; None when the process has gone."""
    try:
        with open(f"{proc}/{pid}/stat") as stat:
            return stat_ticks(stat.read()) / TICKS
    except (FileNotFoundError, ProcessLookupError):
        return None


def is_backend_of(cmdline, database):
    """Whether a process's command line (/proc/<pid>/cmdline, NUL-separated) is the title of a
    PostgreSQL backend connected to `database`: "postgres: [cluster: ]user database host(port)
    state"."""
    title = cmdline.replace("\0", " ")
    return title.startswith("postgres: ") and f" {database} " in title


def postgres_backends(database, proc=PROC):
    """The pids of the PostgreSQL backends connected to `database`."""
    found = []
    for entry in os.listdir(proc):
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc}/{entry}/cmdline", "rb") as cmdline:
                title = cmdline.read().decode(errors="replace")
        except OSError:  # gone meanwhile, or not ours to read
            continue
        if is_backend_of(title, database):
            found.append(int(entry))
    return found


@dataclass(frozen=True)
class Reading:
    """CPU seconds so far: the API process's, and each backend's (None: not a PostgreSQL
    dataset)."""

    api: float
    backends: dict = None  # pid -> seconds

    def since(self, before):
        """The seconds spent between `before` and this reading: {"api": …, "postgres": …}
        (postgres only when both readings have backends)."""
        spent = {"api": self.api - before.api}
        if self.backends is not None and before.backends is not None:
            spent["postgres"] = sum(seconds - before.backends.get(pid, 0.0)
                                    for pid, seconds in self.backends.items())
        return spent


class Meter:
    """Readings of one API server process and, for a PostgreSQL dataset (`database`: its
    name), of the backends connected to that database."""

    def __init__(self, api_pid, database=None, proc=PROC):
        self.api_pid, self.database, self.proc = api_pid, database or None, proc

    def read(self):
        api = cpu_seconds(self.api_pid, self.proc)
        if api is None:
            raise Failure(f"the API server (pid {self.api_pid}) has gone: no CPU reading")
        if self.database is None:
            return Reading(api)
        backends = {}
        for pid in postgres_backends(self.database, self.proc):
            seconds = cpu_seconds(pid, self.proc)
            if seconds is not None:
                backends[pid] = seconds
        return Reading(api, backends)


def per_request(spent, requests):
    """Seconds spent (Reading.since) as microseconds per request, to 0.1 µs; None without
    requests."""
    if not requests:
        return None
    return {name: round(seconds / requests * 1e6, 1) for name, seconds in spent.items()}
