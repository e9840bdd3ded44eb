"""`python -m benchreport interval`: the headline interval of runs a researcher already has.

Each input line is one run, as JSON: {"tasks": [[passed, tries], …]} or {"rewards": [[reward, …],
…]} (per task, its trials' rewards; a trial passes at a reward of at least "solve_threshold", 1.0
when not given: BenchFlow's rule), optionally with an "id" that is copied to the output. Each
output line is that run's headline, with the rule its passes were counted by and, where some
rewards are partial, how many and what the rule made of them,
computed as the workflow computes it (`coverage_design.runs_intervals`, `coverage_design.coverage_design` at the
run's tries profile, `coverage_design.headline`): runs are grouped by their tries per task, so a batch
of runs of one shape costs one coverage design and one batch of intervals.
"""

from __future__ import annotations

import json
import os
from collections import defaultdict

import numpy as np

from ..present.present import pass_rule
from . import coverage_design, shapes
from .stats import BENCHFLOW_SOLVE_THRESHOLD

# The workflow's defaults (config/config.yaml `statistics:`; tests/test_interval_command.py holds
# them equal).
DEFAULTS = {"seed": 20261130, "coverage_simulations": 10000, "confidence": 0.95}


def solve_threshold(record: dict) -> float:
    """The reward at which a run's trial passes: its "solve_threshold", else BenchFlow's default."""
    threshold = record.get("solve_threshold", BENCHFLOW_SOLVE_THRESHOLD)
    if isinstance(threshold, bool) or not isinstance(threshold, (int, float)) or not 0 < threshold <= 1:
        raise ValueError(f'"solve_threshold" must be a number in (0, 1], got {threshold!r}')
    if "tasks" in record and "solve_threshold" in record:
        raise ValueError('"solve_threshold" applies to "rewards"; "tasks" gives passes already counted')
    return float(threshold)


def parse_run(record) -> tuple[np.ndarray, np.ndarray]:
    """(tries, passed) per task of one input record, as integer arrays."""
    if not isinstance(record, dict) or ("tasks" in record) == ("rewards" in record):
        raise ValueError('a run is {"tasks": [[passed, tries], ...]} or {"rewards": [[reward, ...], ...]}')
    threshold = solve_threshold(record)
    if "tasks" in record:
        pairs = np.asarray(record["tasks"])  # a ragged list raises ValueError
        if pairs.size == 0:
            raise ValueError("a run needs at least one task")
        if pairs.ndim != 2 or pairs.shape[1] != 2 or pairs.dtype.kind != "i":
            raise ValueError('"tasks" must be a list of [passed, tries] pairs of whole numbers')
        passed, tries = pairs[:, 0], pairs[:, 1]
    else:
        lists = record["rewards"]
        if not isinstance(lists, list) or not lists or not all(isinstance(rewards, list) for rewards in lists):
            raise ValueError('"rewards" must be a non-empty list of per-task reward lists')
        for rewards in lists:
            for reward in rewards:
                if isinstance(reward, bool) or not isinstance(reward, (int, float)) or not 0 <= reward <= 1:
                    raise ValueError(f"a reward must be a number in [0, 1], got {reward!r}")
        passed = np.array([sum(reward >= threshold for reward in rewards) for rewards in lists])
        tries = np.array([len(rewards) for rewards in lists])
    if ((tries < 1) | (passed < 0) | (passed > tries)).any():
        raise ValueError("every task needs at least one try and between 0 and its tries passes")
    return tries, passed


def scoring(record: dict) -> dict:
    """How a parsed run's passes were counted: the rule, and of "rewards" the partial ones (strictly
    between 0 and 1), which the rule passes or fails whole."""
    if "tasks" in record:
        return {"pass_rule": "passes as given (no rewards)", "partial_rewards": None}
    threshold = solve_threshold(record)
    partial = [reward for rewards in record["rewards"] for reward in rewards if 0 < reward < 1]
    found = {"pass_rule": pass_rule(threshold), "partial_rewards": len(partial)}
    if partial:
        passed = sum(reward >= threshold for reward in partial)
        found["partial_note"] = (
            f"{len(partial)} of {sum(map(len, record['rewards']))} rewards are partial (between 0 and 1): "
            f"{pass_rule(threshold)} passes {passed} and fails {len(partial) - passed} of them, so the "
            f'pass rate is not the mean reward; set "solve_threshold" to count them otherwise'
        )
    return found


def json_records(lines, parse):
    """(record, parse(record)) for each non-blank line, in order; ({"line": …, "error": …}, None)
    for a line that is not JSON or that `parse` refuses with a ValueError."""
    for number, text in enumerate(lines):
        if not text.strip():
            continue
        try:
            record = json.loads(text)
            yield record, parse(record)
        except ValueError as error:  # json.JSONDecodeError is one
            yield {"line": number + 1, "error": str(error)}, None


def _output(record_id, counted, shape, tries, methods, name, fields, confidence) -> dict:
    line = {} if record_id is None else {"id": record_id}
    chosen = methods[name]
    rows = fields["coverage"]["methods"]
    return line | {
        "tasks": len(tries),
        "trials": int(sum(tries)),
        "pass_rate": chosen["estimate"],
        **counted,
        "shape": shape,
        "method": name,
        "low": chosen["low"],
        "high": chosen["high"],
        "level": confidence,
        "coverage": fields["worst_coverage"],
        **{key: fields[key] for key in ("reaches_target", "coverage_standard_error", "coverage_lower_bound", "text")},
        "methods": {
            method: {"low": entry["low"], "high": entry["high"], "worst_coverage": rows[method]["worst_coverage"]}
            for method, entry in methods.items()
        },
    }


def headlines(lines, params: dict = DEFAULTS, workers: int | None = None):
    """One output dict per input line, in input order ({"error": …} for a line that is not a run).
    Each run's headline is `coverage_design.headline` of its intervals: the method and fields of
    `coverage_design.headline_fields`, computed once per tries profile. `workers` threads (default: one
    per core) share each design and batch, which changes no number."""
    workers = workers or os.cpu_count() or 1
    confidence = params["confidence"]
    results, groups = [], defaultdict(list)
    for record, parsed in json_records(lines, parse_run):
        if parsed is None:
            results.append(record)
            continue
        tries, passed = parsed
        order = np.argsort(tries, kind="stable")
        key = tuple(tries[order].tolist())
        groups[key].append((len(results), record.get("id"), scoring(record), passed[order]))
        results.append(None)
    designs = {}
    for key, runs in groups.items():
        profile = shapes.tries_profile(key)
        if profile not in designs:
            design = coverage_design.coverage_design(
                profile,
                seed=params["seed"],
                simulations=params["coverage_simulations"],
                confidence=confidence,
                workers=workers,
            )
            designs[profile] = coverage_design.headline_fields(design, confidence)
        name, fields = designs[profile]
        shape = shapes.shape_name(profile)
        passes = np.stack([run[3] for run in runs])
        for (position, record_id, counted, _), methods in zip(
            runs, coverage_design.runs_intervals(passes, key, confidence, workers)
        ):
            results[position] = _output(record_id, counted, shape, key, methods, name, fields, confidence)
    return results
