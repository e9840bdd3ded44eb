"""`python -m benchreport compare`: the paired comparison of two settings a researcher already has.

Each input line is one comparison, as JSON: {"a": [[passed, tries], …], "b": [[passed, tries], …]},
the tasks both settings ran in the same order in both lists, optionally with an "id" that is
copied to the output. Each output line is that comparison as the workflow's comparisons stage
computes it (`comparisons.compare_counts`): the mean difference b − a over the tasks, the
within-task permutation test's p-value and the interval of the difference that test gives.
"""

from __future__ import annotations

from .comparisons import compare_counts
from .interval import json_records

# The workflow's defaults (config/config.yaml `statistics:`; tests/test_compare_command.py holds
# them equal).
DEFAULTS = {"seed": 20261130, "permutations": 10000, "resamples": 10000, "confidence": 0.95}


def parse_comparison(record) -> tuple[dict, dict]:
    """task -> (passed, tries) of each setting, the tasks named by their position."""
    if not isinstance(record, dict) or not {"a", "b"} <= set(record):
        raise ValueError('a comparison is {"a": [[passed, tries], ...], "b": [[passed, tries], ...]}')
    sides = []
    for side in ("a", "b"):
        pairs = record[side]
        if not isinstance(pairs, list) or not pairs:
            raise ValueError(f'"{side}" must be a non-empty list of [passed, tries] pairs')
        for pair in pairs:
            if (
                not isinstance(pair, list)
                or len(pair) != 2
                or not all(isinstance(value, int) and not isinstance(value, bool) for value in pair)
            ):
                raise ValueError(f'"{side}" must be a list of [passed, tries] pairs of whole numbers, got {pair!r}')
            if pair[1] < 1 or not 0 <= pair[0] <= pair[1]:
                raise ValueError(f'"{side}": every task needs at least one try and between 0 and its tries passes')
        sides.append(pairs)
    if len(sides[0]) != len(sides[1]):
        raise ValueError(f'"a" and "b" must list the same tasks: {len(sides[0])} against {len(sides[1])}')
    width = len(str(len(sides[0])))
    first, second = ({f"task-{index:0{width}d}": tuple(pair) for index, pair in enumerate(pairs)} for pairs in sides)
    return first, second


def _output(record_id, result: dict) -> dict:
    line = {} if record_id is None else {"id": record_id}
    interval = result["intervals"][result["preferred"]]
    return line | {
        "tasks": result["shared"],
        "level": result["confidence"],
        **{key: result[key] for key in ("mean_difference", "difference", "p_value", "test", "smallest_p_value")},
        **{key: interval[key] for key in ("low", "high", "log_odds_low", "log_odds_high", "method")},
        **({"note": result["note"]} if "note" in result else {}),
    }


def comparisons(lines, params: dict = DEFAULTS):
    """One output dict per input line, in input order ({"error": …} for a line that is not a
    comparison)."""
    return [
        record
        if counts is None
        else _output(record.get("id"), compare_counts(counts[0], counts[1], params, power=None))
        for record, counts in json_records(lines, parse_comparison)
    ]
