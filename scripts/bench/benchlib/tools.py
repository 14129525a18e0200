"""What the benchmark needs on the machine (installed when missing), the release build, and
the description of the machine and versions for the report."""

import datetime
import glob
import os
import platform
import re
import shutil
import subprocess

from .config import ROOT
from .processes import Failure


def _apt_install(package):
    """`apt-get install -y PACKAGE` (through sudo when not root), updating the lists once if
    the package is unknown."""
    prefix = [] if os.geteuid() == 0 else ["sudo", "-n"]
    if prefix and not shutil.which("sudo"):
        raise Failure(f"{package} is missing and this user cannot install it: install {package}")
    install = prefix + ["apt-get", "install", "-y", "-q", package]
    print(f"installing {package}: {' '.join(install)}", flush=True)
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    if subprocess.run(install, env=env, timeout=600).returncode != 0:
        subprocess.run(prefix + ["apt-get", "update", "-q"], env=env, timeout=600)
        if subprocess.run(install, env=env, timeout=600).returncode != 0:
            raise Failure(f"could not install {package}; install it and run again")


def ensure(settings):
    if not shutil.which("wrk"):
        _apt_install("wrk")
    if "postgres" in settings.backends:
        if not (shutil.which("pgbench") and shutil.which("psql")):
            _apt_install("postgresql-client")
        probe = subprocess.run(
            ["psql", settings.pg_admin_url, "-X", "-Atc", "SELECT 1"],
            capture_output=True, text=True, timeout=30,
        )
        if probe.returncode != 0:
            raise Failure(
                "PostgreSQL is not reachable at BENCH_PG_ADMIN_URL "
                f"({probe.stderr.strip()}); start it, or run with BENCH_BACKENDS=sqlite"
            )


def build(settings):
    if settings.skip_build:
        print("BENCH_SKIP_BUILD=1: using the existing binaries", flush=True)
    else:
        command = ["cargo", "build", "--release", "-p", "shop-app", "-p", "shop-bench"]
        print(f"building: {' '.join(command)}", flush=True)
        if subprocess.run(command, cwd=ROOT, timeout=3600).returncode != 0:
            raise Failure("the release build failed")
    binaries = [settings.shop_api, settings.ceiling, settings.ceiling_sqlite]
    if settings.runs("webhooks"):
        binaries.append(settings.webhook_sink)
    for binary in binaries:
        if not binary.is_file():
            raise Failure(f"{binary} does not exist (build it, or unset BENCH_SKIP_BUILD)")


def _first_line(argv):
    try:
        done = subprocess.run(argv, capture_output=True, text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    text = (done.stdout or done.stderr).strip()
    return text.splitlines()[0] if text else "unknown"


def _lock_version(package):
    lock = (ROOT / "Cargo.lock").read_text()
    found = re.search(rf'name = "{re.escape(package)}"\nversion = "([^"]+)"', lock)
    return found.group(1) if found else "unknown"


def _bundled_sqlite():
    """The SQLite version compiled into the binary: read from libsqlite3-sys's bundled header
    in the cargo registry (falls back to the crate's version)."""
    crate = _lock_version("libsqlite3-sys")
    cargo_home = os.environ.get("CARGO_HOME", os.path.expanduser("~/.cargo"))
    pattern = os.path.join(cargo_home, "registry", "src", "*", f"libsqlite3-sys-{crate}",
                           "sqlite3", "sqlite3.h")
    for header in glob.glob(pattern):
        with open(header, errors="replace") as text:
            for line in text:
                if line.startswith("#define SQLITE_VERSION "):
                    return f"{line.split()[2].strip(chr(34))} (libsqlite3-sys {crate})"
    return f"libsqlite3-sys {crate}"


def machine():
    cpu = "unknown"
    with open("/proc/cpuinfo") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    with open("/proc/meminfo") as info:
        mem_kb = int(next(l for l in info if l.startswith("MemTotal")).split()[1])
    return {
        "cpu": cpu,
        "cores": os.cpu_count(),
        "ram_gib": round(mem_kb / 1024 / 1024, 1),
        "kernel": platform.release(),
        "os": _first_line(["sh", "-c", ". /etc/os-release && echo $PRETTY_NAME"]),
    }


def versions(settings):
    git = _first_line(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"])
    dirty = subprocess.run(["git", "-C", str(ROOT), "diff", "--quiet", "HEAD"]).returncode != 0
    found = {
        "git": git + (" (with uncommitted changes)" if dirty else ""),
        "rustc": _first_line(["rustc", "-V"]),
        "shop-api": _first_line([str(settings.shop_api), "--version"]),
        "actix-web": _lock_version("actix-web"),
        "wrk": _first_line(["wrk", "-v"]).split(" [")[0],
        "sqlite": _bundled_sqlite(),
    }
    if "postgres" in settings.backends:
        found["postgresql"] = _first_line(
            ["psql", settings.pg_admin_url, "-X", "-Atc", "SHOW server_version"]
        )
        found["pgbench"] = _first_line(["pgbench", "--version"])
    return found


def load_average():
    """The 1, 5 and 15 minute load averages: other work on the machine skews every figure."""
    with open("/proc/loadavg") as text:
        return " ".join(text.read().split()[:3])


def now_utc():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
