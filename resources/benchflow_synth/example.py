"""The embedded example (resources/example/generated): its outcome grid, its settings and tries."""

from __future__ import annotations

import hashlib
import re
from pathlib import Path
from typing import Any

from .common import _job_name_of, _parse_start
from .jobs import TASK_PROMPTS, write_job, write_matrix

# --------------------------------------------------------------------------------------------
# the embedded example


EXAMPLE_TASKS = list(TASK_PROMPTS)

CODES = {
    "P": {"kind": "passed"},
    "F": {"kind": "failed", "reward": 0.0},
    "H": {"kind": "failed", "reward": 0.5},
    "T": {"kind": "agent_error", "error_category": "timeout"},
    "S": {"kind": "agent_error_scored", "error_category": "timeout", "reward": 1.0},
    "s": {"kind": "agent_error_scored", "error_category": "timeout", "reward": 0.0},
    "n": {"kind": "agent_error", "error_category": "install_failure"},
    "V": {"kind": "verifier_error", "verifier_error_category": "verifier_failure"},
    "U": {"kind": "unscored"},
    "X": {"kind": "interrupted"},
}

# The example's outcome grid (also printed in the module docstring): one row per task, one
# column per setting, tries separated by single spaces, columns by two or more spaces.
_GRID_TEXT = """\
task                   1:claude-high  2:claude-low 3:codex  4:gemini  5:oracle  6:nop  7:plain
fix-json-parser        P P P P P      P P P        P P P    P P F P   P P P     F F F  P
csv-dedupe             P P P P P      P P P        P F P    P P P P   P P P     F F F  P
log-rotate-config      P F P P F      F F P        P P P    F P F P   P P P     F F F  P
sql-query-optimizer    H F F P F      F F F        F F P    F F F F   P P P     F F F  F
regex-email-validator  P P F P P      P F P        P P P    P P P P   P P P     F F F  P
merge-sorted-streams   P P P n+P P    P P P        P X P    P F P P   P P P     F F F  P
dockerfile-slim        T F S F s      F F F        F F F    F F F X   P P P     F F F  F
flaky-test-quarantine  P V P F P      F P F        F P P    F F P -   P P P     F F F  P
unicode-normalize      P P P P P      P P F        P P P    P P P -   P P P     F F F  P
cron-schedule-parser   F F F F F      F F F        F U F    F F F -   P P P     F F F  F
git-bisect-regression  F F F F F      F F F        F F F    F F F -   P F P     F F F  F
pdf-table-extract      F P F P F      F F F        P F F    F F F -   P P P     F F F  P
"""
_GRID_ROWS = [tuple(re.split(r" {2,}", line.strip())) for line in _GRID_TEXT.splitlines()[1:]]

EXAMPLE_SETTINGS: list[dict] = [
    {
        "dir": "claude-sonnet-high-x5",
        "alias": "claude-sonnet-4-5-high",
        "seed": 1101,
        "start": "2026-11-28 09:00:07",
        "setting": {
            "agent": "claude-agent-acp",
            "agent_name": "claude-agent-acp",
            "model": "anthropic/claude-sonnet-4-5",
            "reasoning_effort": "high",
            "served_model": "claude-sonnet-4-5-20250929",
            "usage_source": "provider_response",
            "price_source": "litellm",
            "install_package": "@agentclientprotocol/claude-agent-acp@0.73.0",
        },
        # task drift: one task's digest differs in one try
        "digest_overrides": {
            4: {
                "log-rotate-config": "sha256:"
                + hashlib.sha256(b"benchflow-synth-task:log-rotate-config:tests-v2").hexdigest()
            }
        },
    },
    {
        "dir": "claude-sonnet-low-x3",
        "alias": "claude-sonnet-4-5-low",
        "seed": 1202,
        "start": "2026-11-28 17:30:12",
        "setting": {
            "agent": "claude-agent-acp",
            "agent_name": "claude-agent-acp",
            "model": "anthropic/claude-sonnet-4-5",
            "reasoning_effort": "low",
            "served_model": "claude-sonnet-4-5-20250929",
            "usage_source": "provider_response",
            "price_source": "litellm",
            "install_package": "@agentclientprotocol/claude-agent-acp@0.73.0",
        },
    },
    {
        "dir": "codex-gpt-5.1-x3",
        "alias": "codex-gpt-5.1",
        "seed": 1303,
        "start": "2026-11-29 08:45:03",
        "setting": {
            "agent": "codex-acp",
            "agent_name": "codex-acp",
            "model": "openai/gpt-5.1",
            "reasoning_effort": None,
            "served_model": "gpt-5.1-2025-11-13",
            "usage_source": "provider_response",
            "price_source": "litellm",
        },
    },
    {
        "dir": "gemini-2.5-pro-x4",
        "alias": "gemini-2.5-pro",
        "seed": 1404,
        "start": "2026-11-29 14:10:41",
        "killed_last_try": True,
        "setting": {
            "agent": "gemini-cli",
            "agent_name": "gemini-cli",
            "model": "gemini/gemini-2.5-pro",
            "reasoning_effort": None,
            "served_model": None,
            "usage_source": "agent_native_acp",
            "price_source": None,
            "install_package": "@google/gemini-cli@0.42.0",
        },
    },
    {
        "dir": "oracle-x3",
        "alias": "oracle",
        "seed": 1505,
        "start": "2026-11-27 10:02:18",
        "setting": {
            "agent": "oracle",
            "agent_name": "oracle",
            "model": "none",
            "reasoning_effort": None,
            "served_model": None,
            "usage_source": "unavailable",
            "price_source": None,
        },
    },
    {
        "dir": "nop-x3",
        "alias": "nop",
        "seed": 1606,
        "start": "2026-11-27 11:15:55",
        "setting": {
            "agent": "nop",
            "agent_name": "nop",
            "model": None,
            "reasoning_effort": None,
            "served_model": None,
            "usage_source": "unavailable",
            "price_source": None,
        },
    },
]
EXAMPLE_PLAIN = {"dir": "codex-gpt-5.1-plain", "seed": 1707, "start": "2026-11-30 08:20:30", "setting_index": 2}


def example_outcome_grid() -> str:
    """The outcome grid of the embedded example, as printed in the module docstring."""
    return _GRID_TEXT.rstrip("\n")


_AUDIT_OF_CODE = {
    "P": "passed",
    "S": "passed",
    "F": "failed",
    "H": "failed",
    "s": "failed",
    "T": "errored",
    "n": "errored",
    "V": "verifier_errored",
    "U": "unscored",
}


def example_audit_table() -> str:
    """Per try: the audit counts each job summary.json of the example holds (from the grid)."""
    names = _GRID_TEXT.splitlines()[0].split()[1:]
    killed = {column for column, spec in enumerate(EXAMPLE_SETTINGS, start=1) if spec.get("killed_last_try")}
    lines = ["setting        try  total passed failed errored verifier_errored"]
    for column, name in enumerate(names, start=1):
        n_tries = len(_GRID_ROWS[0][column].split())
        for k in range(n_tries):
            cells = [row[column].split()[k] for row in _GRID_ROWS]
            if column in killed and k == n_tries - 1:
                lines.append(f"{name:<14} {k + 1:>3}  (killed: no summary.json)")
                continue
            finals = [c.split("+")[-1] for c in cells if c not in ("-", "X")]
            count = {b: 0 for b in ("passed", "failed", "errored", "verifier_errored")}
            for code in finals:
                bucket = _AUDIT_OF_CODE[code]
                if bucket in count:
                    count[bucket] += 1
            lines.append(
                f"{name:<14} {k + 1:>3}  {len(finals):>5} {count['passed']:>6} "
                f"{count['failed']:>6} {count['errored']:>7} "
                f"{count['verifier_errored']:>16}"
            )
    return "\n".join(lines)


def _cell_attempts(cell: str) -> list[dict] | None:
    if cell == "-":
        return None
    return [dict(CODES[c]) for c in cell.split("+")]


def _example_trials(column: int, try_index: int) -> list[dict]:
    trials = []
    for row in _GRID_ROWS:
        attempts = _cell_attempts(row[column].split()[try_index])
        if attempts is not None:
            trials.append({"task": row[0], "attempts": attempts})
    return trials


def build_example(out_dir: Path) -> None:
    """Write the embedded example (see the module docstring) into ``out_dir``.

    ``out_dir`` must be empty or absent; the CLI deletes it first.
    """
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    for column, spec in enumerate(EXAMPLE_SETTINGS, start=1):
        n_tries = len(_GRID_ROWS[0][column].split())
        tries: list[Any] = []
        for k in range(n_tries):
            trials = _example_trials(column, k)
            for t in trials:
                override = spec.get("digest_overrides", {}).get(k + 1, {}).get(t["task"])
                if override:
                    t["task_digest"] = override
            if spec.get("killed_last_try") and k == n_tries - 1:
                tries.append({"trials": trials, "write_summary": False})
            else:
                tries.append(trials)
        write_matrix(
            out_dir / spec["dir"],
            alias=spec["alias"],
            setting=spec["setting"],
            tries=tries,
            seed=spec["seed"],
            start=spec["start"],
            write_matrix_summary=not spec.get("killed_last_try", False),
            results_steps=False,
        )
    plain = EXAMPLE_PLAIN
    setting = EXAMPLE_SETTINGS[plain["setting_index"]]["setting"]
    start = _parse_start(plain["start"])
    write_job(
        out_dir / plain["dir"],
        job_name=_job_name_of(start),
        setting=setting,
        trials=_example_trials(7, 0),
        seed=plain["seed"],
        start=plain["start"],
        results_steps=False,
    )
