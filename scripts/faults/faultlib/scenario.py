"""What every fault scenario shares: a work directory, cleanup on any exit (a `timeout`'s
SIGTERM included), its figures, printed and written as JSON under target/faults/, and its
verdict as the exit status."""

import contextlib
import json
import os
import shutil
import signal
import sys
import time
import traceback
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
RESULTS_DIR = REPO / "target" / "faults"
# run.sh builds the debug binary (`cargo test --workspace --no-run`); SHOP_API_BIN picks another.
BINARY = Path(os.environ.get("SHOP_API_BIN", REPO / "target" / "debug" / "shop-api"))


class Scenario:
    def __init__(self, name: str):
        self.name = name
        self.figures: dict[str, object] = {}
        self.violations: list[str] = []
        # Everything started is registered here and undone in reverse order on exit.
        self.cleanup = contextlib.ExitStack()
        self.work = RESULTS_DIR / "work" / name
        shutil.rmtree(self.work, ignore_errors=True)
        self.work.mkdir(parents=True)
        self.started = time.monotonic()

    def log(self, message: str) -> None:
        elapsed = time.monotonic() - self.started
        print(f"[{self.name} {elapsed:6.1f}s] {message}", flush=True)

    def figure(self, label: str, value) -> None:
        self.figures[label] = value

    def require(self, holds: bool, violation: str) -> None:
        """Records `violation` unless `holds`; the scenario then fails, after its figures."""
        if not holds:
            self.violations.append(violation)

    def report(self) -> int:
        result = {
            "scenario": self.name,
            "passed": not self.violations,
            "figures": self.figures,
            "violations": self.violations,
            "seconds": round(time.monotonic() - self.started, 1),
        }
        print(f"\n--- {self.name}: figures")
        width = max((len(label) for label in self.figures), default=0)
        for label, value in self.figures.items():
            print(f"  {label:<{width}}  {value}")
        for violation in self.violations:
            print(f"  VIOLATION: {violation}")
        print(f"--- {self.name}: {'PASS' if not self.violations else 'FAIL'}", flush=True)
        RESULTS_DIR.mkdir(parents=True, exist_ok=True)
        (RESULTS_DIR / f"{self.name}.json").write_text(json.dumps(result, indent=2) + "\n")
        return 0 if not self.violations else 1


def _exit_on_signal(signum, _frame):
    # SystemExit unwinds the stack, so the ExitStack still kills servers and stops clusters.
    raise SystemExit(128 + signum)


def run(name: str, body) -> None:
    """Runs `body(scenario)`, then cleans up and exits with the verdict. An exception is a
    violation too: a scenario that cannot finish has not shown that the property holds."""
    signal.signal(signal.SIGTERM, _exit_on_signal)
    signal.signal(signal.SIGINT, _exit_on_signal)
    scenario = Scenario(name)
    try:
        with scenario.cleanup:
            body(scenario)
    except SystemExit as stop:
        scenario.violations.append(f"interrupted (exit {stop.code}) before the checks finished")
    except Exception as error:  # noqa: BLE001 - reported as a violation with its traceback
        traceback.print_exc()
        scenario.violations.append(f"the scenario could not finish: {error!r}")
    sys.exit(scenario.report())
