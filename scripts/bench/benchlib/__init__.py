"""The benchmark harness behind `just bench` (scripts/bench/bench.py): python3 stdlib only."""
