"""The benchmark scripts (``benchmarks/*.py``, not a package) loaded as modules for their tests."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

BENCHMARKS = Path(__file__).resolve().parents[2] / "benchmarks"


@pytest.fixture
def benchmark_script():
    """``benchmark_script("decks")``: the module of ``benchmarks/decks.py``."""

    def load(name: str):
        spec = importlib.util.spec_from_file_location(f"bench_{name}", BENCHMARKS / f"{name}.py")
        module = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(module)
        return module

    return load
