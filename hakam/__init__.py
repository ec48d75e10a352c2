"""Hakam: a camera referee for Baloot. The CLI lives in ``hakam.cli``."""

__version__ = "0.1.0"
