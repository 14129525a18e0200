#!/usr/bin/env python3
"""Records the cross-shop probe's printed figures as target/faults/cross_shop_probe.json, like
the other scenarios' results. Usage: probe_figures.py LOG EXIT_STATUS; exits non-zero when the
test failed or printed no figures."""

import json
import sys
from pathlib import Path

log, status = Path(sys.argv[1]), int(sys.argv[2])
MARK = "cross-shop probe ["
# A line may start with cargo's progress dots: the figures start at the mark.
lines = [line[line.index(MARK) + len(MARK):].strip()
         for line in log.read_text(errors="replace").splitlines() if MARK in line]
figures = dict(line.split("]: ", 1) for line in lines)
violations = [] if status == 0 else [f"cargo test exited with {status}; see {log}"]
if not figures:
    violations.append("the probe printed no figures")
result = {"scenario": "cross_shop_probe", "passed": not violations, "figures": figures,
          "violations": violations}
(log.parent / "cross_shop_probe.json").write_text(json.dumps(result, indent=2) + "\n")
sys.exit(0 if result["passed"] else 1)
