"""`python -m benchreport interval`: the headline interval of runs a researcher already has.

Each input line is one run, as JSON: {"tasks": [[passed, tries], …]} or {"rewards": [[reward, …],
…]} (per task, its trials' rewards; a trial passes at a reward of exactly 1.0, BenchFlow's rule),
optionally with an "id" that is copied to the output. Each output line is that run's headline,
computed as the workflow computes it (`coverage.runs_intervals`, `coverage.coverage_design` at the
run's tries profile, `coverage.headline`): runs are grouped by their tries per task, so a batch
of runs of one shape costs one coverage design and one batch of intervals.
"""

from __future__ import annotations

import json
from collections import defaultdict

import numpy as np

from . import coverage, shapes

# The workflow's defaults (config/config.yaml `statistics:`; tests/test_interval_command.py holds
# them equal).
DEFAULTS = {"seed": 20261130, "coverage_simulations": 10000, "confidence": 0.95}


def parse_run(record) -> tuple[list[int], list[int]]:
    """(tries, passed) per task of one input record."""
    if not isinstance(record, dict) or ("tasks" in record) == ("rewards" in record):
        raise ValueError('a run is {"tasks": [[passed, tries], ...]} or {"rewards": [[reward, ...], ...]}')
    if "tasks" in record:
        pairs = record["tasks"]
        if not isinstance(pairs, list) or not all(isinstance(pair, list) and len(pair) == 2 for pair in pairs):
            raise ValueError('"tasks" must be a list of [passed, tries] pairs')
        passed, tries = [pair[0] for pair in pairs], [pair[1] for pair in pairs]
    else:
        lists = record["rewards"]
        if not isinstance(lists, list) or not all(isinstance(rewards, list) for rewards in lists):
            raise ValueError('"rewards" must be a list of per-task reward lists')
        for rewards in lists:
            for reward in rewards:
                if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not 0 <= reward <= 1:
                    raise ValueError(f"a reward must be a number in [0, 1], got {reward!r}")
        passed, tries = [sum(reward == 1.0 for reward in rewards) for rewards in lists], [len(r) for r in lists]
    if not passed:
        raise ValueError("a run needs at least one task")
    for value in (*passed, *tries):
        if isinstance(value, bool) or not isinstance(value, int):
            # a ValueError like every other bad line: `headlines` reports each as an error line
            raise ValueError(f"passes and tries must be whole numbers, got {value!r}")  # noqa: TRY004
    if any(t < 1 or not 0 <= p <= t for p, t in zip(passed, tries)):
        raise ValueError("every task needs at least one try and between 0 and its tries passes")
    return tries, passed


def _output(record_id, tries, passed, methods, found, confidence) -> dict:
    rates = np.asarray(passed) / np.asarray(tries)
    line = {} if record_id is None else {"id": record_id}
    return line | {
        "tasks": len(tries),
        "trials": int(sum(tries)),
        "pass_rate": float(rates.mean()),
        "shape": shapes.shape_name(shapes.tries_profile(tries)),
        "method": found["method"],
        "low": found["low"],
        "high": found["high"],
        "level": confidence,
        "reaches_target": found["reaches_target"],
        "coverage": found["worst_coverage"],
        "coverage_standard_error": found["coverage_standard_error"],
        "coverage_lower_bound": found["coverage_lower_bound"],
        "text": found["text"],
        "methods": {name: {"low": entry["low"], "high": entry["high"],
                           "worst_coverage": found["coverage"]["methods"][name]["worst_coverage"]}
                    for name, entry in methods.items()},
    }


def headlines(lines, params: dict = DEFAULTS):
    """One output dict per input line, in input order ({"error": …} for a line that is not a run)."""
    confidence = params["confidence"]
    results, groups = [], defaultdict(list)
    for number, text in enumerate(lines):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
            tries, passed = parse_run(record)
        except ValueError as error:  # json.JSONDecodeError is one
            results.append({"line": number + 1, "error": str(error)})
            continue
        order = np.argsort(tries, kind="stable")
        key = tuple(np.asarray(tries)[order].tolist())
        groups[key].append((len(results), record.get("id"), np.asarray(passed)[order]))
        results.append(None)
    designs = {}
    for key, runs in groups.items():
        profile = shapes.tries_profile(key)
        if profile not in designs:
            designs[profile] = coverage.coverage_design(profile, seed=params["seed"],
                                                        simulations=params["coverage_simulations"],
                                                        confidence=confidence)
        passes = np.stack([run[2] for run in runs])
        for (position, record_id, passed), methods in zip(runs, coverage.runs_intervals(passes, key, confidence)):
            found = coverage.headline(methods, designs[profile], confidence)
            results[position] = _output(record_id, list(key), passed.tolist(), methods, found, confidence)
    return results
