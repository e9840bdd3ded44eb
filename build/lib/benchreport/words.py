"""Numbers as the reports write them in sentences (a leaf module: every renderer imports it)."""

from __future__ import annotations


def pct(value, digits: int = 0) -> str:
    return "n/a" if value is None else f"{value * 100:.{digits}f}%"


def count(number: int, noun: str) -> str:
    """'1 trial', '9 trials'."""
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {noun}s"
