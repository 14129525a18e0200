"""Shared pieces of the fault scenarios in scripts/faults (python3 standard library only)."""
