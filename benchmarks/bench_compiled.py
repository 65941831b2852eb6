"""Registers the 'compiled', 'serving' and 'paddle18' groups (benchmarks/compiled.py) with the runner."""
from .compiled import compiled_rows, paddle_rows, serving_rows  # noqa: F401
