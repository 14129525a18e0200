"""The benchmark of this checkout against an earlier commit's, in alternated runs on the same
machine in one session: is any target worse than before by more than its rounds' spread?

    python3 scripts/bench/alternate.py 8d23c3b           # 2 runs of each, alternated
    python3 scripts/bench/alternate.py 8d23c3b --quick   # bench.py --quick's sizes and times

A machine's speed drifts by tens of percent within minutes (performance-log.md, "A machine that
drifts"), so one run of each side compares two moments as much as two commits. The runs go
base, current, then current, base, and so on (BENCH_ALTERNATE_RUNS of each, 2 by default); a
target's figure for a side is the median of its runs' figures.

The earlier commit is exported (`git archive`) to target/bench/alternate/<commit>/src and built
there, release, with a target directory of its own (a path crate's build shared between two
checkouts links the wrong one's code). Both sides run this checkout's harness and ceilings, and
each run seeds its own datasets with the binary it measures: every BENCH_* setting of bench.py
applies to every run (the webhooks part only with BENCH_WEBHOOKS=1, the API v2 writes only with
BENCH_WRITES=1). Each run's report and raw figures go to target/bench/alternate/, the
comparison to target/bench/alternate/comparison.md; the exit status is 1 when a target got worse
by more than its spread."""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
from pathlib import Path

from benchlib import config, targets

HERE = Path(__file__).resolve().parent
OUT = config.OUT_DIR / "alternate"


def spread(figures):
    """The largest minus the smallest of some figures (0 for fewer than two)."""
    return max(figures) - min(figures) if len(figures) > 1 else 0.0


def compare(base_runs, current_runs):
    """One row per target and backend measured on both sides: each side's runs' figures, their
    medians, the spread the difference is held to, and whether the current side is worse by
    more than it. The spread is the widest of the runs' own rounds (a ratio measured in
    rounds) or, for a figure measured once a run, the widest spread between the runs of one
    side: how far the figure moves with nothing changed."""
    def figures(runs):
        found = {}
        for run in runs:
            for row in targets.evaluate(run):
                if row["value"] is not None:
                    found.setdefault((row["target"], row["backend"]), []).append(row)
        return found

    base, current = figures(base_runs), figures(current_runs)
    rows = []
    for key in [key for key in base if key in current]:
        before = [row["value"] for row in base[key]]
        after = [row["value"] for row in current[key]]
        within = [spread(row["rounds"]) for row in base[key] + current[key] if row["rounds"]]
        allowed = max(within) if within else max(spread(before), spread(after))
        before_median, after_median = statistics.median(before), statistics.median(after)
        loss = (before_median - after_median if base[key][0]["better"] == targets.HIGHER
                else after_median - before_median)
        rows.append({"target": key[0], "backend": key[1], "base": before, "current": after,
                     "base_median": before_median, "current_median": after_median,
                     "loss": loss, "spread": allowed, "worse": loss > allowed})
    return rows


def listed(figures):
    return ", ".join(f"{figure:.2f}" for figure in figures)


def markdown(rows, base_label, current_label):
    lines = [
        f"| target | backend | {base_label} (runs) | {current_label} (runs) | change "
        "| spread | worse by more than the spread |",
        "|---|---|---|---|---|---|---|",
    ]
    for row in rows:
        lines.append(
            f"| {row['target']} | {row['backend']} | {row['base_median']:.2f} "
            f"({listed(row['base'])}) | {row['current_median']:.2f} ({listed(row['current'])}) | "
            f"{-row['loss']:+.2f} | {row['spread']:.2f} | {'**yes**' if row['worse'] else 'no'} |")
    return "\n".join(lines) + "\n"


def git(*args):
    return subprocess.run(["git", *args], cwd=config.ROOT, check=True, capture_output=True,
                          text=True).stdout.strip()


def build(source, target_dir, packages):
    command = ["cargo", "build", "--release", "--locked"]
    for package in packages:
        command += ["-p", package]
    print(f"building {source}: {' '.join(command)}", flush=True)
    environment = dict(os.environ, CARGO_TARGET_DIR=str(target_dir))
    subprocess.run(command, cwd=source, env=environment, check=True, timeout=3600)


def base_binary(commit):
    """The earlier commit's release `shop-api`, exported and built once per commit."""
    home = OUT / commit[:12]
    binary = home / "target" / "release" / "shop-api"
    if binary.is_file():
        return binary
    source = home / "src"
    shutil.rmtree(source, ignore_errors=True)
    source.mkdir(parents=True)
    archive = subprocess.run(["git", "archive", commit], cwd=config.ROOT, check=True,
                             capture_output=True).stdout
    subprocess.run(["tar", "-x", "-C", str(source)], input=archive, check=True)
    build(source, home / "target", ["shop-app"])
    return binary


def run(label, binary, number, quick):
    """One bench.py run measuring `binary`; its raw figures."""
    report = OUT / f"{label}-{number}.md"
    environment = dict(os.environ, BENCH_SKIP_BUILD="1", BENCH_SHOP_API=str(binary),
                       BENCH_DOC=str(report))
    # An earlier commit may have no webhooks: their part runs only when asked for
    # (BENCH_WEBHOOKS=1), both sides then needing them.
    environment.setdefault("BENCH_WEBHOOKS", "0")
    # Nor the API v2 writes (issue 35): BENCH_WRITES=1 measures them on both sides.
    environment.setdefault("BENCH_WRITES", "0")
    command = [sys.executable, str(HERE / "bench.py")] + (["--quick"] if quick else [])
    print(f"\n=== run {number} of {label}: {binary}", flush=True)
    subprocess.run(command, env=environment, check=True)
    raw = json.loads((config.OUT_DIR / "results-latest.json").read_text())
    (OUT / f"{label}-{number}.json").write_text(json.dumps(raw, indent=2))
    return raw


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("commit", help="the earlier commit to measure against")
    parser.add_argument("--quick", action="store_true", help="bench.py --quick's settings")
    arguments = parser.parse_args()
    if os.environ.get("BENCH_ONLY") or os.environ.get("BENCH_REPLICA"):
        raise SystemExit("alternate.py compares full runs: unset BENCH_ONLY and BENCH_REPLICA")
    runs = int(os.environ.get("BENCH_ALTERNATE_RUNS", "2"))
    commit = git("rev-parse", "--verify", f"{arguments.commit}^{{commit}}")
    OUT.mkdir(parents=True, exist_ok=True)
    base = base_binary(commit)
    # Where bench.py's settings look for this checkout's binaries and ceilings.
    build(config.ROOT, config.ROOT / "target", ["shop-app", "shop-bench"])
    current = config.ROOT / "target" / "release" / "shop-api"
    base_label, current_label = commit[:12], git("rev-parse", "--short=12", "HEAD")
    measured = {base_label: [], current_label: []}
    for number in range(runs):
        order = [(base_label, base), (current_label, current)]
        for label, binary in order if number % 2 == 0 else reversed(order):
            measured[label].append(run(label, binary, number, arguments.quick))
    rows = compare(measured[base_label], measured[current_label])
    table = markdown(rows, base_label, current_label)
    (OUT / "comparison.md").write_text(table)
    print(f"\n{table}\nwrote {OUT / 'comparison.md'}")
    return 1 if any(row["worse"] for row in rows) else 0


if __name__ == "__main__":
    sys.exit(main())
