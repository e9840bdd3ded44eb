"""The shape at which a headline's coverage is measured: the run's tries per task as a profile.

Pure Python (no numpy), since the workflow imports it at parse time to name each setting's
coverage file before any job runs.
"""

from __future__ import annotations

import re
from collections import Counter

# A run with more distinct numbers of tries than this is measured at a coarser profile: its tasks
# in order of tries, cut into this many groups of (nearly) equal size, each at its median.
MAX_GROUPS = 8
NAME = re.compile(r"[1-9][0-9]*x[1-9][0-9]*(?:\+[1-9][0-9]*x[1-9][0-9]*)*")


def tries_profile(tries_per_task) -> tuple[tuple[int, int], ...]:
    """((tries, tasks), …) in increasing tries: how many tasks were tried how often."""
    tries = sorted(int(value) for value in tries_per_task)
    if any(value < 1 for value in tries):
        raise ValueError("every task needs at least one try")
    if len(set(tries)) > MAX_GROUPS:
        size, extra = divmod(len(tries), MAX_GROUPS)
        coarse, start = [], 0
        for group in range(MAX_GROUPS):
            end = start + size + (group < extra)
            chunk = tries[start:end]
            coarse += [chunk[(len(chunk) - 1) // 2]] * len(chunk)
            start = end
        tries = coarse
    return tuple(sorted(Counter(tries).items()))


def shape_name(profile) -> str:
    """'10x3' (10 tasks × 3 tries), or '4x3+6x4' with unequal tries: the coverage file's name."""
    return "+".join(f"{count}x{tries}" for tries, count in profile)


def parse_shape(name: str) -> tuple[tuple[int, int], ...]:
    if not NAME.fullmatch(name):
        raise ValueError(f"not a coverage shape: {name!r} (expected e.g. 10x3 or 4x3+6x4)")
    groups = [part.split("x") for part in name.split("+")]
    return tuple(sorted((int(tries), int(count)) for count, tries in groups))
