#!/usr/bin/env python3
"""One line per fault scenario from target/faults/*.json: verdict and violations."""

import json
from pathlib import Path

RESULTS = Path(__file__).resolve().parents[2] / "target" / "faults"

for path in sorted(RESULTS.glob("*.json")):
    result = json.loads(path.read_text())
    verdict = "PASS" if result["passed"] else "FAIL"
    print(f"{verdict}  {result['scenario']}")
    for violation in result["violations"]:
        print(f"        {violation}")
