#!/usr/bin/env python3
"""Deterministic generator of BenchFlow 0.7.12 job folders (synthetic, for tests and the example).

The files it writes copy the shapes of real BenchFlow 0.7.12.dev2426 output
(``resources/example/benchflow-real-jobs`` and ``resources/example/benchflow-samples/v0.7.12-real``): the same key
sets in the same order, ``json.dumps(..., indent=2)`` layout, the same trailing-newline habits,
``str(datetime)`` timestamps with a space separator, ``<task>__<8 hex>`` attempt folders.
Everything is a pure function of the arguments: seeds go through ``random.Random``, the 8-hex
rollout suffix is a hash of (seed, job, task, attempt), nothing reads the clock, and file
mtimes are set from each trial's own timestamps (naive times read as UTC). Same arguments,
byte-identical files. Absolute paths inside the files (``rollout_dir``, verifier messages,
``matrix-summary.json``) point under a virtual ``/srv/bench/jobs/<jobs-dir name>`` root, like
the real samples, so the output does not depend on where it is written.

Public API
----------
``write_job(jobs_dir, *, job_name, setting, trials, seed, write_summary=True, start=None,
results_steps=True)``
    One plain job: ``<jobs_dir>/<job_name>/<task>__<hex8>/...`` (one folder per attempt),
    ``<job>/summary.json``, ``<job>/results.jsonl`` and the ``<jobs_dir>/summary.json`` copy.
``write_matrix(jobs_dir, *, alias, setting, tries, seed, start, write_matrix_summary=True,
results_steps=True)``
    The ``--matrix --trials N`` layout: ``<jobs_dir>/matrix-summary.json`` and
    ``<jobs_dir>/<alias>/trial-NN/{summary.json,<YYYY-MM-DD__HH-MM-SS>/...}``. An entry of
    ``tries`` may be ``{"trials": [...], "write_summary": False}`` (a killed try).
``build_example(out_dir)``
    The embedded example described below. CLI:
    ``python resources/benchflow_synth.py example resources/example/generated``.
``build_scale(out_dir, *, jobs, trials, seed=0, request_kb=30, requests=20, workers=1,
results_steps=False)``
    ``jobs`` job folders of ``trials`` trials each, for benchmarks (see "Scale builds" at the
    end). CLI: ``python resources/benchflow_synth.py scale OUT --jobs N --trials M [--seed S]
    [--request-kb K] [--requests R] [--workers W]``.
``build_review_jobs(out_dir)``
    Two small plain jobs for tests: an integrated rubric review with a dataset version, and a
    budget stop with an unpriced model (see "review jobs" above the CLI). CLI:
    ``python resources/benchflow_synth.py review-jobs OUT``.

A trial is ``{"task": name, "attempts": [attempt, ...]}`` (chronological; more than one attempt
means BenchFlow retried the task inside the job), optionally with ``"task_digest"`` to override
the setting's digest for that task in that job (task drift; None: the trial records no digest). An attempt is a dict whose
``"kind"`` is one of ``passed``, ``failed`` (``reward``, default 0.0; a reward strictly between
0 and 1 writes a partial-credit ``verifier/reward.json`` with extra keys, like BenchFlow's
real ``spec-partial``), ``agent_error`` (``error_category``: ``timeout`` (default),
``idle_timeout``, ``install_failure``, ``acp_error``, ...; rewards null), ``agent_error_scored``
(agent error, but the verifier still scored: rewards present), ``verifier_error`` (rewards null,
``verifier crashed: No reward file found at ...``, category ``verifier_failure``; or
``verifier_error_category="verifier_timeout"``), ``suspected_api_error`` (zero tokens and zero
tool calls, rewards null, like the real nop runs), ``unscored`` (rewards null, no error, no
verifier error) and ``interrupted`` (only ``config.json`` plus the empty ``agent/ verifier/
artifacts/ trajectory/`` folders BenchFlow pre-creates). Optional attempt keys: ``reward``,
``error_category``, ``verifier_error_category``, ``tokens`` (scale of the total token count),
``cost`` (float or None; overrides the computed cost), ``n_tool_calls``, ``duration`` (seconds).

``setting`` keys: ``agent``, ``agent_name``, ``model`` (str, None, or ``"none"`` for a matrix
oracle), ``reasoning_effort``, ``served_model`` (provider model id; None means no
``llm_trajectory.jsonl``), ``usage_source`` (``provider_response`` | ``agent_native_acp`` |
``unavailable``), ``price_source`` (``"litellm"`` | None), optional ``dataset_name`` /
``dataset_version``, ``task_digests`` {task: "sha256:..."} (default: a stable sha256 of the task
name), ``install_package`` (writes ``agent/install-stdout.txt`` naming the installed harness),
``agent_env``, ``api_style`` (``anthropic`` | ``openai``; default from the model prefix),
``token_scale`` and ``duration_scale``.

Conventions worth knowing when reading the output:

* The job ``summary.json`` is computed like ``Evaluation.run``: audit buckets (spec §3.3) over
  the last attempt of each task that has a ``result.json`` (a task whose only attempt is
  interrupted is not in ``total``); ``score`` strings like ``"25.0%"``; tokens and cost only over
  healthy scored trials with trusted usage; phase timing over every result.
* LLM agents write ``trajectory/llm_trajectory.jsonl`` with 3-10 request lines in the exact
  0.7.12 line format; ``result.json`` token counts are the sums over those lines
  (``n_input_tokens`` includes cache reads and writes); ``cost_usd`` is computed from a small
  built-in price table when ``price_source == "litellm"`` and is null otherwise (0.0 -> null).
* A partial-credit attempt writes only ``verifier/reward.json`` (no ``reward.txt``), like the
  real ``spec-partial`` sample. A ``suspected_api_error`` attempt still has ``reward.txt`` = 0
  (the verifier ran; BenchFlow nulls the reward), like the real nop runs.
* Skipped to save space: ``trainer/``, job-level ``verifiers.jsonl`` / ``adp.jsonl``, the legacy
  ``agent/acp_trajectory.jsonl`` copy. A killed job (``write_summary=False``) also has no
  job-level ``results.jsonl`` (BenchFlow writes it at the end of the job).
* Guesses (no real sample shows them): ``usage_tracking.status`` is ``"captured"`` when usage was
  recorded; the shapes of ``agent_timeout_info`` / ``idle_timeout_info`` follow BenchFlow's
  diagnostics dataclasses; error message texts only carry the markers BenchFlow's classifier
  looks for (e.g. "prompt exceeded wall-clock budget", "agent idle for").
* Empty directories (``artifacts/``, and everything in an interrupted attempt but
  ``config.json``) do not survive a git commit; consumers must not rely on them.

The embedded example (``build_example``)
----------------------------------------
One task set of 12 tasks, shared by every setting: fix-json-parser, csv-dedupe,
log-rotate-config, sql-query-optimizer, regex-email-validator, merge-sorted-streams,
dockerfile-slim, flaky-test-quarantine, unicode-normalize, cron-schedule-parser,
git-bisect-regression, pdf-table-extract. Every jobs-dir below is a ``--matrix`` layout
``<dir>/<alias>/trial-NN/<job>/`` except the last (plain layout).

====  ============================  =====================  ===================================
 #    jobs dir (alias)               tries                 setting
====  ============================  =====================  ===================================
 1    claude-sonnet-high-x5          5                     claude-agent-acp,
      (claude-sonnet-4-5-high)                             anthropic/claude-sonnet-4-5 served as
                                                           claude-sonnet-4-5-20250929, effort
                                                           high (``thinking`` budget 31999),
                                                           price_source litellm
 2    claude-sonnet-low-x3           3                     same agent and model, effort low
      (claude-sonnet-4-5-low)                              (``thinking`` budget 4000)
 3    codex-gpt-5.1-x3               3                     codex-acp, openai/gpt-5.1 served as
      (codex-gpt-5.1)                                      gpt-5.1-2025-11-13, no effort, litellm;
                                                           no install log (harness version
                                                           unknown)
 4    gemini-2.5-pro-x4              4 (try 4 killed)      gemini-cli, gemini/gemini-2.5-pro,
      (gemini-2.5-pro)                                     usage_source agent_native_acp, no
                                                           llm_trajectory, cost null
 5    oracle-x3 (oracle)             3                     oracle, model "none"
 6    nop-x3 (nop)                   3                     nop, model null
 7    codex-gpt-5.1-plain            1 (plain job)         setting 3, plain layout
====  ============================  =====================  ===================================

Outcome grid, one column per try, one attempt code per BenchFlow attempt (``a+b`` = a retry
inside the job, chronological): ``P`` passed, ``F`` failed (reward 0), ``H`` partial credit
(reward 0.5, failed), ``T`` agent_error timeout, ``S`` agent_error_scored (timeout, reward 1.0:
audit-passed), ``s`` agent_error_scored (timeout, reward 0.0), ``n`` agent_error install_failure,
``i`` agent_error idle_timeout, ``c`` agent_error acp_error, ``V`` verifier_error
(verifier_failure), ``v`` verifier_error (verifier_timeout), ``U`` unscored, ``A``
suspected_api_error, ``X`` interrupted (config.json only), ``-`` task never started.

.. code-block:: text

    task                   1:claude-high  2:claude-low 3:codex    4:gemini  5:oracle  6:nop  7:plain
    fix-json-parser        P P P P P      P P P        P P P      P P F P   P P P     A A A  P
    csv-dedupe             P P P P P      P P P        P F P      P P P P   P P P     A A A  P
    log-rotate-config      P F P P F      F F P        P P P      F P F P   P P P     A A A  P
    sql-query-optimizer    H F H P H      F H F        H H P      F F H F   P P P     A A A  H
    regex-email-validator  P P F P P      P F F        P P P      P P P P   P P P     A A A  P
    merge-sorted-streams   P P P n+P P    P P P        P X P      P F P P   P P P     A A A  P
    dockerfile-slim        T F S T F      T T F        F i+i+i T  T F T X   P P P     A A A  F
    flaky-test-quarantine  P V P F P      F P v+F      V P P      F F V X   P P P     A A A  V
    unicode-normalize      P P P P P      P P F        P P P      P P P -   P P P     A P A  P
    cron-schedule-parser   F F F F F      F F F        F U F      F F F -   P P P     A A A  F
    git-bisect-regression  F F F F s      F F F        F F P      F F F -   P F P     A A A  F
    pdf-table-extract      F P F i+P F    F F F        c+P F F    F U F -   P P P     A A A  c+P

The audit counts in each job's ``summary.json`` (BenchFlow's buckets over the last attempt of
each task; ``passed+failed+errored+verifier_errored`` can be less than ``total`` because unscored
results are counted in ``total`` only; ``score`` = passed/total):

.. code-block:: text

    setting        try  total passed failed errored verifier_errored
    1:claude-high    1     12      7      4       1                0
    1:claude-high    2     12      6      5       0                1
    1:claude-high    3     12      7      5       0                0
    1:claude-high    4     12      8      3       1                0
    1:claude-high    5     12      6      6       0                0
    2:claude-low     1     12      5      6       1                0
    2:claude-low     2     12      5      6       1                0
    2:claude-low     3     12      4      8       0                0
    3:codex          1     12      7      4       0                1
    3:codex          2     11      5      4       1                0
    3:codex          3     12      9      2       1                0
    4:gemini         1     12      5      6       1                0
    4:gemini         2     12      5      6       0                0
    4:gemini         3     12      4      6       1                1
    4:gemini         4  (killed: no summary.json)
    5:oracle         1     12     12      0       0                0
    5:oracle         2     12     11      1       0                0
    5:oracle         3     12     12      0       0                0
    6:nop            1     12      0      0      12                0
    6:nop            2     12      1      0      11                0
    6:nop            3     12      0      0      12                0
    7:plain          1     12      7      4       0                1

Special cases and where they are:

* Retries (several ``<task>__<hex>`` folders for one task in one job): claude-high try 4
  merge-sorted-streams (install_failure, then passed) and pdf-table-extract (idle_timeout, then
  passed); claude-low try 3 flaky-test-quarantine (verifier_timeout, then scored failed);
  codex try 2 dockerfile-slim (idle_timeout three times: retries exhausted, errored); codex
  try 1 and the plain job pdf-table-extract (acp_error, then passed).
* Agent errors as final outcome: timeouts (``T``), the exhausted idle_timeout retries above.
  agent_error_scored: claude-high try 3 dockerfile-slim (timeout but reward 1.0, so summary.json
  counts it passed) and try 5 git-bisect-regression (timeout, reward 0.0, counted failed).
* Verifier errors: ``V``/``v`` cells. Unscored: codex try 2 cron-schedule-parser, gemini try 2
  pdf-table-extract. Partial credit 0.5: the ``H`` cells.
* Interrupted: codex try 2 merge-sorted-streams is that task's only attempt (job finished,
  its summary.json has total 11). Gemini try 4 is a killed job: 6 tasks finished, 2
  interrupted, 4 never started; it has no job summary.json and no trial-04/summary.json, and
  gemini-2.5-pro-x4/ has no matrix-summary.json (like the real aborted nop matrix).
* Controls: the oracle fails git-bisect-regression once (a broken task); the nop passes
  unicode-normalize once (a task that passes without work; that nop attempt reports one inert
  tool call, so BenchFlow scores it instead of flagging a suspected API error). Every other nop
  attempt is ``suspected_api_error`` (rewards null, reward.txt 0).
* Task drift: in claude-high try 4, log-rotate-config has a different ``task_digest``.
* Harness versions: ``agent/install-stdout.txt`` names @agentclientprotocol/claude-agent-acp@0.73.0
  (settings 1-2) and @google/gemini-cli@0.42.0 (setting 4); codex has none.

Note: in the real runs (``benchflow-real-jobs/extra/nop-matrix-aborted``) a ``--matrix`` run
stopped after a try whose job ended with errors (the CLI exits 1). This example still writes
full matrices whose tries have errors (only the gemini dir is aborted): it exists to exercise
the report, not to replay the CLI's control flow.

``example_outcome_grid()`` and ``example_audit_table()`` return the two tables above;
``tests/test_synth.py`` checks them against this docstring and against the generated files.
The example's ``results.jsonl`` rows leave the per-exchange trainer ``trajectory`` list empty
(``results_steps=False``) to keep the folder small; every other field is as BenchFlow computes
it.

Scale builds (``build_scale``)
------------------------------
Job i (0-based) has setting ``SCALE_SETTINGS[i % S]`` with S = min(4, N): claude-agent-acp
with anthropic/claude-sonnet-4-5 at effort high and at effort low, codex-acp with
openai/gpt-5.1, opencode with openai/gpt-5-mini at effort low (no price); its try index is
i // S + 1 and it is written as ``<setting dir>-x<tries>/<alias>/trial-NN/<job>/`` with one
``matrix-summary.json`` per setting dir. Every job runs the same M tasks ``scale-task-0000``...
once each (concurrency 32; tries one day apart). Outcomes are drawn per (setting, try, task)
from a pass probability that is logistic in (setting skill - task difficulty), with agent
errors (timeouts, idle timeouts), verifier errors (failures and timeouts), unscored results,
agent errors that still scored, partial credit, retries after an agent error (1.5 %), attempts
killed then resumed (0.2 %) and killed for good (0.05 %). Every job with at least six tasks also
holds each ``SCALE_SPECIALS`` case once (interrupted, resumed, retried, errored,
verifier_errored, unscored) at positions drawn from the seed. Every attempt that reached the
model has exactly R request lines of K KiB each (the padding is a ``<context>`` block in the
first user message; token counts and costs are unaffected). At the defaults (R=20, K=30) a
trial is about 0.6 MB: 100 x 1,000 is about 60 GB, so pick smaller R or K where the disk is
smaller. Writing is about 1-2 ms of CPU per trial plus the trajectory bytes.
"""

from __future__ import annotations

import argparse
import calendar
import hashlib
import json
import math
import os
import random
import re
import shutil
import sys
from collections.abc import Callable
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

__all__ = [
    "KINDS",
    "SCALE_SETTINGS",
    "audit_outcome",
    "build_example",
    "build_review_jobs",
    "build_scale",
    "default_task_digest",
    "example_audit_table",
    "example_outcome_grid",
    "job_summary",
    "main",
    "rollout_suffix",
    "scale_job_specs",
    "scale_task_names",
    "scale_trials",
    "write_job",
    "write_matrix",
]

KINDS = (
    "passed",
    "failed",
    "agent_error",
    "agent_error_scored",
    "verifier_error",
    "suspected_api_error",
    "unscored",
    "interrupted",
)
USAGE_SOURCES = ("provider_response", "agent_native_acp", "unavailable")
TRUSTED_USAGE = ("provider_response", "agent_native_acp")
NOP_AGENTS = ("nop", "noop", "empty")
VIRTUAL_ROOT = "/srv/bench/jobs"
MATRIX_ROOT = "/srv/bench/matrices"
TIMING_PHASES = ("environment_setup", "agent_setup", "agent_execution", "verifier", "total")

REVIEWER = {
    "agent": "opencode",
    "model": None,
    "reasoning_effort": None,
    "environment": "docker",
    "timeout_sec": 1800,
    "concurrency": 4,
    "image": "python@sha256:6771159cd4fa5d9bba1258caf0b82e6b73458c694d178ad97c5e925c2d0e1a91",
    "open_network": False,
    "agent_env": {},
    "agent_env_keys": [],
}
SANDBOX_LOCKED_PATHS = ["/oracle", "/solution", "/verifier", "/tests", "/testbed_verify"]

# USD per token: (input, output, cache read, cache write). Only used for price_source "litellm".
PRICES = {
    "claude-sonnet-4-5-20250929": (3.0e-6, 15.0e-6, 0.30e-6, 3.75e-6),
    "gpt-5.1-2025-11-13": (1.25e-6, 10.0e-6, 0.125e-6, 0.0),
}
DEFAULT_PRICE = (1.0e-6, 5.0e-6, 0.1e-6, 1.25e-6)
THINKING_BUDGET = {"minimal": 1024, "low": 4000, "medium": 10000, "high": 31999}

ERROR_MESSAGES = {
    "timeout": "Agent prompt timed out: prompt exceeded wall-clock budget of {timeout}s",
    "idle_timeout": "agent idle for {idle}s with no tool call, message or thought (idle timeout)",
    "install_failure": "Agent install failed (install_failure): install command exited with rc=1: "
    "npm ERR! code ECONNRESET",
    "acp_error": "ACP error -32603: Internal error (agent process reported an unexpected failure)",
    "pipe_closed": "ACP transport closed: pipe closed (rc=255)",
    "api_error": "provider api error: every captured provider request failed (HTTP 500)",
    "provider_rate_limit": "ACP error: provider rate limited (HTTP 429)",
    "provider_auth": "ACP error: provider auth failed (HTTP 401)",
    "sandbox_setup": "sandbox setup failed: docker compose up exited with rc=1",
}
SUSPECTED_API_ERROR = (
    "suspected provider api error: agent ended with zero tokens and zero tool calls "
    "(no scoreable model activity)"
)

TOOL_TITLES = (
    ("read", "Read {f}"),
    ("execute", "Run pytest -q"),
    ("edit", "Edit {f}"),
    ("search", "grep -rn TODO /app"),
    ("execute", "Run python -m {m}"),
    ("read", "List /app"),
)


# --------------------------------------------------------------------------------------------
# small helpers


def _seed_int(*parts: Any) -> int:
    digest = hashlib.sha256("\x1f".join(str(p) for p in parts).encode("utf-8")).digest()
    return int.from_bytes(digest[:8], "big")


def _rng(*parts: Any) -> random.Random:
    return random.Random(_seed_int(*parts))


def rollout_suffix(seed: int, job: str, task: str, attempt: int) -> str:
    """The 8-hex suffix of an attempt folder: a hash of (seed, job, task, attempt)."""
    return hashlib.sha256(f"{seed}|{job}|{task}|{attempt}".encode("utf-8")).hexdigest()[:8]


def default_task_digest(task: str) -> str:
    """A stable stand-in for BenchFlow's task_digest (sha256 over the task folder)."""
    return "sha256:" + hashlib.sha256(f"benchflow-synth-task:{task}".encode("utf-8")).hexdigest()


def _dumps(obj: Any) -> str:
    return json.dumps(obj, indent=2)


def _write(path: Path, text: str) -> None:
    data = text.encode("utf-8")
    try:
        path.write_bytes(data)
    except FileNotFoundError:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _epoch(dt: datetime) -> float:
    return calendar.timegm(dt.timetuple()) + dt.microsecond / 1e6


def _utime(path: Path, dt: datetime) -> None:
    t = _epoch(dt)
    os.utime(path, (t, t))


def _ts(rng: random.Random, dt: datetime) -> datetime:
    """Give a datetime a non-zero microsecond part (str() then always shows it)."""
    return dt.replace(microsecond=rng.randint(1, 999_999))


def _parse_start(text: str) -> datetime:
    text = text.strip()
    for fmt in ("%Y-%m-%d__%H-%M-%S", "%Y-%m-%d %H:%M:%S", "%Y-%m-%dT%H:%M:%S",
                "%Y-%m-%d %H:%M:%S.%f", "%Y-%m-%dT%H:%M:%S.%f", "%Y-%m-%d"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    raise ValueError(f"cannot parse start time {text!r}")


def _job_name_of(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%d__%H-%M-%S")


def _num_text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))


# --------------------------------------------------------------------------------------------
# settings and attempts


def _norm_setting(setting: dict) -> dict:
    if "agent" not in setting:
        raise ValueError("setting needs an 'agent'")
    s = dict(setting)
    agent = s["agent"]
    s.setdefault("agent_name", agent)
    s.setdefault("model", None)
    s.setdefault("reasoning_effort", None)
    s.setdefault("served_model", None)
    s.setdefault("usage_source", "unavailable")
    s.setdefault("price_source", None)
    s.setdefault("environment", "docker")
    s.setdefault("concurrency", 4)
    s.setdefault("task_digests", {})
    s.setdefault("install_package", None)
    s.setdefault("dataset_name", None)
    s.setdefault("dataset_version", None)
    if s["usage_source"] not in USAGE_SOURCES:
        raise ValueError(f"usage_source must be one of {USAGE_SOURCES}")
    if s["price_source"] not in (None, "litellm"):
        raise ValueError("price_source must be 'litellm' or None")
    s["is_oracle"] = agent == "oracle"
    s["is_nop"] = agent in NOP_AGENTS
    s["is_llm"] = not (s["is_oracle"] or s["is_nop"])
    s.setdefault("agent_idle_timeout_sec", None if s["is_nop"] else 600)
    s.setdefault("agent_install_timeout", None if s["is_oracle"] else 60)
    if "agent_env" not in s:
        env = {}
        if not s["is_oracle"] and s["model"] not in (None, "none"):
            env["BENCHFLOW_PROVIDER_MODEL"] = s["model"]
        env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] = "1"
        s["agent_env"] = dict(sorted(env.items()))
    if "api_style" not in s:
        model = (s["model"] or "").lower()
        s["api_style"] = (
            "anthropic" if model.startswith("anthropic/") or "claude" in agent else "openai"
        )
    effort_factor = {"low": 0.6, "high": 1.5}.get(s["reasoning_effort"] or "", 1.0)
    s.setdefault("token_scale", int(300_000 * effort_factor))
    s.setdefault("duration_scale", 420.0 * effort_factor)
    return s


def _norm_attempt(a: dict) -> dict:
    if not isinstance(a, dict) or a.get("kind") not in KINDS:
        raise ValueError(f"attempt kind must be one of {KINDS}: {a!r}")
    a = dict(a)
    kind = a["kind"]
    reward = a.get("reward")
    if reward is not None and not (isinstance(reward, (int, float)) and 0.0 <= reward <= 1.0):
        raise ValueError(f"reward must be a number in [0, 1]: {a!r}")
    if kind == "failed" and reward is not None and reward >= 1.0:
        raise ValueError("a 'failed' attempt needs a reward below 1.0 (use 'passed')")
    if kind == "passed":
        a["reward"] = 1.0
    elif kind == "failed":
        a["reward"] = float(a.get("reward", 0.0))
    elif kind == "agent_error_scored":
        a["reward"] = float(a.get("reward", 0.0))
    else:
        a["reward"] = None
    if kind in ("agent_error", "agent_error_scored"):
        a.setdefault("error_category", "timeout")
    elif kind == "suspected_api_error":
        a["error_category"] = "suspected_api_error"
    else:
        a["error_category"] = None
    if kind == "verifier_error":
        a.setdefault("verifier_error_category", "verifier_failure")
    else:
        a["verifier_error_category"] = None
    return a


def _rewards_map(reward: float | None) -> dict | None:
    if reward is None:
        return None
    if 0.0 < reward < 1.0:
        return {"reward": reward, "correctness": reward, "format": 1.0}
    return {"reward": reward}


# --------------------------------------------------------------------------------------------
# planning one attempt (durations, counts, tokens) before it is placed on the timeline


def _plan_attempt(s: dict, task: str, att: dict, idx: int, job: str, seed: int,
                  timeout_sec: int) -> dict:
    rng = _rng(seed, job, task, idx, "plan")
    kind = att["kind"]
    cat = att["error_category"]
    p: dict[str, Any] = {"kind": kind, "att": att, "idx": idx}
    if kind == "interrupted":
        p["run_for"] = rng.uniform(20.0, 240.0)
        return p

    ran_agent = not (kind == "agent_error" and cat in ("install_failure", "sandbox_setup"))
    verifier_ran = kind in ("passed", "failed", "agent_error_scored", "verifier_error",
                            "suspected_api_error")
    phases: dict[str, float] = {}
    if s["is_oracle"]:
        phases["environment_setup"] = rng.uniform(2.5, 4.2)
        if verifier_ran:
            phases["verifier"] = rng.uniform(2.8, 7.5)
        overhead = rng.uniform(6.0, 16.0)
    else:
        phases["environment_setup"] = rng.uniform(2.0, 6.5)
        phases["agent_setup"] = rng.uniform(3.8, 5.0) if s["is_nop"] else rng.uniform(8.0, 28.0)
        if ran_agent:
            if s["is_nop"]:
                execution = 0.0 if kind == "suspected_api_error" else rng.uniform(0.1, 0.4)
            elif cat == "timeout" and kind in ("agent_error", "agent_error_scored"):
                execution = float(timeout_sec) + rng.uniform(0.2, 2.0)
            elif cat == "idle_timeout":
                execution = rng.uniform(0.35, 0.8) * s["duration_scale"] + float(
                    s["agent_idle_timeout_sec"] or 600)
            elif cat == "acp_error":
                execution = rng.uniform(15.0, 90.0)
            else:
                execution = s["duration_scale"] * rng.uniform(0.35, 1.6)
                execution = min(execution, float(timeout_sec) * 0.95)
            phases["agent_execution"] = execution
        if verifier_ran:
            phases["verifier"] = rng.uniform(2.5, 12.0)
        overhead = rng.uniform(17.0, 24.0) if s["is_nop"] else rng.uniform(3.0, 9.0)
    if "duration" in att and att["duration"] is not None:
        total = float(att["duration"])
        fixed = sum(v for k, v in phases.items() if k != "agent_execution")
        if "agent_execution" in phases:
            phases["agent_execution"] = max(0.0, total - fixed - overhead)
        total = max(total, fixed + phases.get("agent_execution", 0.0) + 0.5)
    else:
        total = sum(phases.values()) + overhead
    total = total + rng.random() / 10.0
    p["phases"] = phases
    p["total"] = total
    p["ran_agent"] = ran_agent
    p["verifier_ran"] = verifier_ran

    # activity: tool calls, llm lines, tokens
    if s["is_oracle"] or not ran_agent:
        n_tools = 0
    elif s["is_nop"]:
        n_tools = 0 if kind == "suspected_api_error" else 1
    elif kind == "suspected_api_error":
        n_tools = 0
    else:
        n_tools = rng.randint(1, 5) if cat != "acp_error" else rng.randint(1, 2)
    if att.get("n_tool_calls") is not None:
        n_tools = int(att["n_tool_calls"])
    p["n_tools"] = n_tools
    active = s["is_llm"] and ran_agent and kind != "suspected_api_error"
    p["active"] = active
    if active:
        p["n_lines"] = rng.choices((3, 4, 5, 6, 8, 10), weights=(86, 6, 2, 2, 2, 2))[0]
        scale = att.get("tokens") or s["token_scale"] * rng.uniform(0.4, 1.7)
        if cat == "acp_error":
            scale = scale * 0.2
        p["token_target"] = max(3000, int(scale))
    else:
        p["n_lines"] = 0
        p["token_target"] = 0
    return p


# --------------------------------------------------------------------------------------------
# trajectories


def _task_files(task: str) -> tuple[str, str]:
    stem = task.replace("-", "_")
    return f"src/{stem}.py", stem


def _acp_events(s: dict, task: str, prompt: str, p: dict, rng: random.Random) -> list[dict]:
    kind, cat = p["kind"], p["att"]["error_category"]
    if s["is_oracle"]:
        return [{"type": "oracle", "command": "solution/solve.sh", "return_code": 0,
                 "stdout": _oracle_stdout(task)}]
    if not p["ran_agent"]:
        return []
    events: list[dict] = [{"type": "user_message", "text": prompt}]
    if s["is_nop"]:
        if p["n_tools"]:
            events.append({"type": "tool_call", "tool_call_id": "noop-100003", "kind": "other",
                           "title": "noop", "status": "completed", "content": []})
        return events
    f, m = _task_files(task)
    prefix = {"anthropic": "toolu_"}.get(s["api_style"], "call_")
    pending: list[str] = []
    for i in range(p["n_tools"]):
        if i % 3 == 0:
            events.append({"type": "agent_thought", "text": f"Step {i + 1}: inspect {f}."})
        tkind, title = TOOL_TITLES[rng.randrange(len(TOOL_TITLES))]
        status = "completed" if rng.random() > 0.12 else "failed"
        last = i == p["n_tools"] - 1
        tcid = f"{prefix}{rng.getrandbits(48):012x}"
        events.append({"type": "tool_call", "tool_call_id": tcid, "kind": tkind,
                       "title": title.format(f=f, m=m), "status": status, "content": []})
    if kind in ("agent_error", "agent_error_scored") and cat == "timeout":
        events.append({"type": "agent_timeout", "reason": "prompt exceeded wall-clock budget",
                       "timeout_sec": p["timeout_sec"], "pending_tool_call_ids": pending,
                       "terminal_trajectory_complete": not pending})
        p["pending"] = pending
    elif kind in ("agent_error", "agent_error_scored") and cat in ("idle_timeout", "acp_error"):
        p["pending"] = pending
    else:
        events.append({"type": "agent_message", "text": f"Done: updated {f}; tests pass locally."
                       if kind == "passed" else f"I changed {f} and ran the tests."})
    return events


def _trajectory_summary(events: list[dict], source: str | None) -> dict:
    counts: dict[str, int] = {}
    statuses: dict[str, int] = {}
    for e in events:
        counts[e["type"]] = counts.get(e["type"], 0) + 1
        if e["type"] == "tool_call":
            statuses[e["status"]] = statuses.get(e["status"], 0) + 1
    known = ("tool_call", "user_message", "agent_message", "agent_thought")
    return {
        "steps": len(events),
        "tool_call_steps": counts.get("tool_call", 0),
        "user_message_steps": counts.get("user_message", 0),
        "agent_message_steps": counts.get("agent_message", 0),
        "agent_thought_steps": counts.get("agent_thought", 0),
        "other_steps": sum(v for k, v in counts.items() if k not in known),
        "event_type_counts": counts,
        "tool_call_status_counts": statuses,
        "partial_trajectory": False,
        "trajectory_source": source,
    }


def _oracle_stdout(task: str) -> str:
    return f"oracle: applied reference solution for {task}\n"


def _split(total: int, weights: list[float]) -> list[int]:
    w = sum(weights)
    parts = [int(total * x / w) for x in weights]
    parts[-1] += total - sum(parts)
    return parts


def _llm_lines(s: dict, task: str, prompt: str, p: dict, exec_start: datetime,
               exec_len: float, rng: random.Random) -> tuple[list[dict], dict]:
    """Build the llm_trajectory lines and the token/cost aggregate BenchFlow derives."""
    n = p["n_lines"]
    f, _ = _task_files(task)
    model = s["model"]
    served = s["served_model"]
    anthropic = s["api_style"] == "anthropic"
    target = p["token_target"]
    weights = [1.0 + 0.6 * i + rng.random() * 0.3 for i in range(n)]
    inputs = _split(int(target * 0.965), weights)
    outputs = _split(target - sum(inputs), [0.5 + rng.random() for _ in range(n)])
    price = PRICES.get(served, DEFAULT_PRICE)
    slot = exec_len / n
    lines: list[dict] = []
    agg = {"in": 0, "out": 0, "cr": 0, "cw": 0, "total": 0, "cost": 0.0}
    short_prompt = prompt if len(prompt) <= 120 else prompt[:117] + "..."
    for i in range(n):
        req_t = exec_start + timedelta(seconds=slot * i + rng.uniform(0.2, 1.0))
        req_t = req_t.replace(microsecond=(req_t.microsecond // 1000) * 1000)
        dur_ms = float(int(min(slot * 0.8, rng.uniform(1.5, 25.0)) * 1000))
        resp_t = req_t + timedelta(milliseconds=dur_ms)
        messages: list[dict] = [{"role": "user", "content": short_prompt}]
        if i > 0:
            messages.append({"role": "assistant", "content": f"Step {i}: run tests."})
            messages.append({"role": "user", "content": "Tool result: ok."})
        last = i == n - 1
        text = "Done." if last else f"Next: step {i + 1}."
        fresh_in, out = inputs[i], outputs[i]
        if anthropic:
            if i == 0:
                cw = int(fresh_in * 0.8)
                cr = 0
            else:
                cr = int(fresh_in * 0.85)
                cw = int(fresh_in * 0.1)
            inp = fresh_in - cr - cw
            body: dict[str, Any] = {"model": model, "messages": messages, "stream": True}
            if s["reasoning_effort"]:
                body["thinking"] = {"type": "enabled",
                                    "budget_tokens": THINKING_BUDGET.get(s["reasoning_effort"],
                                                                         10000)}
            response = {
                "id": f"msg_{rng.getrandbits(64):016x}",
                "type": "message",
                "role": "assistant",
                "model": served,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn" if last else "tool_use",
                "usage": {"input_tokens": inp, "output_tokens": out,
                          "cache_read_input_tokens": cr, "cache_creation_input_tokens": cw},
            }
            call_type, path = "anthropic_messages", "/v1/messages"
            n_in = inp + cr + cw
            cost = inp * price[0] + out * price[1] + cr * price[2] + cw * price[3]
            line_total = n_in + out
        else:
            cr = int(fresh_in * 0.8) if i > 0 else 0
            cw = 0
            body = {"model": model, "messages": messages, "stream": True}
            if s["reasoning_effort"]:
                body["reasoning_effort"] = s["reasoning_effort"]
            reasoning = int(out * 0.6)
            response = {
                "id": f"chatcmpl-{rng.getrandbits(64):016x}",
                "object": "chat.completion",
                "created": int(_epoch(resp_t)),
                "model": served,
                "choices": [{"index": 0, "message": {"role": "assistant", "content": text},
                             "finish_reason": "stop" if last else "tool_calls"}],
                "usage": {"prompt_tokens": fresh_in, "completion_tokens": out,
                          "total_tokens": fresh_in + out,
                          "prompt_tokens_details": {"cached_tokens": cr},
                          "completion_tokens_details": {"reasoning_tokens": reasoning}},
            }
            call_type, path = "acompletion", "/v1/chat/completions"
            n_in = fresh_in
            cost = (fresh_in - cr) * price[0] + out * price[1] + cr * price[2]
            line_total = fresh_in + out
        lines.append({
            "request": {"timestamp": req_t.isoformat(), "method": "POST", "path": path,
                        "headers": {}, "body": body},
            "response": {"timestamp": resp_t.isoformat(), "status_code": 200, "headers": {},
                         "body": response},
            "duration_ms": dur_ms,
            "metadata": {"request_model": model, "provider_model": served, "model_group": model,
                         "call_type": call_type,
                         "input_shape": {"has_messages": True, "has_input": False,
                                         "n_messages": len(messages)},
                         "call_purpose": "agent"},
        })
        agg["in"] += n_in
        agg["out"] += out
        agg["cr"] += cr
        agg["cw"] += cw
        agg["total"] += line_total
        agg["cost"] += cost
    return lines, agg


_FILLER_WORDS = (
    "the", "file", "test", "value", "return", "import", "def", "class", "self", "data", "path",
    "line", "error", "assert", "result", "config", "json", "parse", "output", "input", "index",
    "None", "True", "False", "for", "in", "if", "else", "while", "with", "open", "read", "write",
    "PASSED", "FAILED", "tests/test_main.py", "src/main.py", "0", "1", "42", "==", "->", "#",
)
_FILLER: list[str] = []
CONTEXT_OPEN = "\n\n<context>\n"
CONTEXT_CLOSE = "\n</context>"


def _filler_block() -> str:
    """256 KiB of deterministic code-and-log-like ASCII (no character JSON has to escape)."""
    if not _FILLER:
        rng = random.Random(20261130)
        words, size = [], 0
        while size < 256 * 1024:
            word = _FILLER_WORDS[rng.randrange(len(_FILLER_WORDS))]
            sep = " " if rng.random() < 0.9 else ". "
            words.append(word + sep)
            size += len(word) + len(sep)
        _FILLER.append("".join(words))
    return _FILLER[0]


def _filler(offset: int, length: int) -> str:
    block = _filler_block()
    offset %= len(block)
    if offset + length <= len(block):
        return block[offset:offset + length]
    reps = (offset + length) // len(block) + 1
    return (block * reps)[offset:offset + length]


_PAD_MARK = "@@benchflow-synth-pad@@"


def _pad_llm_lines(lines: list[dict], line_bytes: int, rng: random.Random) -> list[str]:
    """Grow each llm_trajectory line to ``line_bytes`` bytes; return the encoded lines.

    A real request re-sends the system context and the whole conversation so far, so its line
    is tens of KB; the synthetic lines carry that bulk as a ``<context>`` block appended to the
    first user message (plain ASCII that JSON does not escape, so the size is exact and the
    block is spliced into the encoded line instead of being encoded). Lines already longer are
    left as they are. Token counts, usage and everything BenchFlow derives are unchanged. The
    line dicts are updated too (the trainer steps of ``results.jsonl`` copy their messages).
    """
    encoded = []
    for line in lines:
        first = line["request"]["body"]["messages"][0]
        plain = first["content"]
        first["content"] = plain + CONTEXT_OPEN + _PAD_MARK + CONTEXT_CLOSE
        text = json.dumps(line)
        need = line_bytes - (len(text) - len(_PAD_MARK))
        if need <= 0:
            first["content"] = plain
            encoded.append(json.dumps(line))
            continue
        filler = _filler(rng.randrange(1 << 20), need)
        first["content"] = plain + CONTEXT_OPEN + filler + CONTEXT_CLOSE
        encoded.append(text.replace(_PAD_MARK, filler, 1))
    return encoded


def _results_steps(lines: list[dict], rollout: str, reward: float) -> list[dict]:
    steps = []
    for i, line in enumerate(lines):
        body = line["response"]["body"]
        if "content" in body:
            text = "".join(c.get("text", "") for c in body["content"])
        else:
            text = body["choices"][0]["message"]["content"]
        extras = {"source": "llm_trajectory", "tracking_source": "litellm_callback",
                  "exchange_index": i}
        extras.update({k: v for k, v in line["metadata"].items() if k not in extras})
        steps.append({
            "prompt": list(line["request"]["body"]["messages"]),
            "completion": [{"role": "assistant", "content": text}],
            "response": body,
            "tokens": None,
            "reward": reward,
            "advantage": 0.0,
            "is_truncated": False,
            "trajectory_id": f"{rollout}__llm_{i}",
            "extras": extras,
        })
    return steps


# --------------------------------------------------------------------------------------------
# writing one attempt


def _scene(s: dict) -> list[dict]:
    return [{
        "name": "default",
        "skills_dir": None,
        "roles": [{
            "name": "agent",
            "agent": s["agent"],
            "model": s["model"],
            "reasoning_effort": s["reasoning_effort"],
            "timeout_sec": None,
            "idle_timeout_sec": None,
            "skills_dir": None,
            "capabilities": None,
            "env_keys": [],
        }],
        "turns": [{"role": "agent", "has_prompt": False}],
    }]


SKILL_KEYS = {
    "skill_mode": "no-skill",
    "skill_source": "none",
    "requested_skills_dir": None,
    "effective_skills_dir": None,
    "skills_sandbox_dir": None,
    "include_task_skills": False,
}


def _config(s: dict, task: str, started: datetime, digest: str, timeout_sec: int) -> dict:
    cfg: dict[str, Any] = {
        "task_path": task,
        "agent": s["agent"],
        "model": s["model"],
        "reasoning_effort": s["reasoning_effort"],
        "environment": s["environment"],
        "acp_transport": "docker-stdio",
        "environment_manifest": None,
        **SKILL_KEYS,
        "sandbox_user": "agent",
        "sandbox_locked_paths": list(SANDBOX_LOCKED_PATHS),
        "sandbox_setup_timeout": 120,
        "skip_install": False,
        "agent_install_timeout": s["agent_install_timeout"],
        "context_root": None,
        "base_image_override": None,
        "verifier_sandbox_mode": "shared",
        "verifier_include": [],
        "timeout_sec": timeout_sec,
        "concurrency": s["concurrency"],
        "agent_idle_timeout_sec": s["agent_idle_timeout_sec"],
        "started_at": str(started),
        "agent_env": dict(s["agent_env"]),
        "scenes": _scene(s),
        "loop": {"strategy": "single-shot"},
        "usage_tracking": {"requested": "auto"},
    }
    if s["dataset_name"] is not None:
        cfg["dataset_name"] = s["dataset_name"]
        cfg["dataset_version"] = s["dataset_version"]
    cfg["task_digest"] = digest
    return cfg


def _write_attempt(jdir: Path, vjob: str, s: dict, task: str, prompt: str, digest: str,
                   timeout_sec: int, p: dict, started: datetime, job: str, seed: int,
                   results_steps: bool = True, llm_line_bytes: int | None = None
                   ) -> dict | None:
    """Write one attempt folder; return the result.json dict (None when interrupted).

    ``llm_line_bytes`` pads every ``llm_trajectory.jsonl`` line to that many bytes (see
    ``_pad_llm_lines``); None writes the lines unpadded.
    """
    att = p["att"]
    rollout = f"{task}__{rollout_suffix(seed, job, task, p['idx'])}"
    rdir = jdir / rollout
    vdir = f"{vjob}/{rollout}"
    rng = _rng(seed, job, task, p["idx"], "write")
    for sub in ("agent", "verifier", "artifacts", "trajectory"):
        (rdir / sub).mkdir(parents=True, exist_ok=True)
    _write(rdir / "config.json", _dumps(_config(s, task, started, digest, timeout_sec)) + "\n")
    if p["kind"] == "interrupted":
        p["rollout"] = rollout
        p["finished"] = started + timedelta(seconds=p["run_for"])  # killed then (not written)
        for sub in ("agent", "verifier", "artifacts", "trajectory", ""):
            _utime(rdir / sub if sub else rdir, started)
        _utime(rdir / "config.json", started)
        return None

    kind, cat = p["kind"], att["error_category"]
    finished = started + timedelta(seconds=p["total"])
    p["timeout_sec"] = float(timeout_sec)
    timing = {k: round(v, 1) for k, v in p["phases"].items()}
    timing["total"] = round((finished - started).total_seconds(), 1)
    reward = att["reward"]
    rewards = _rewards_map(reward)

    # trajectory and usage
    events = _acp_events(s, task, prompt, p, rng)
    source = "acp" if (not s["is_oracle"] and p["ran_agent"]) else None
    lines: list[dict] = []
    encoded_lines: list[str] | None = None
    n_in = n_out = n_cr = n_cw = total_tokens = 0
    cost: float | None = None
    usage_details = None
    usage_source = s["usage_source"] if p["active"] else "unavailable"
    if p["active"] and s["served_model"] is not None:
        exec_start = started + timedelta(seconds=p["phases"]["environment_setup"]
                                         + p["phases"]["agent_setup"] + 0.5)
        lines, agg = _llm_lines(s, task, prompt, p, exec_start,
                                max(5.0, p["phases"].get("agent_execution", 5.0) - 1.0), rng)
        n_in, n_out, n_cr, n_cw, total_tokens = (agg["in"], agg["out"], agg["cr"], agg["cw"],
                                                 agg["total"])
        if llm_line_bytes:
            encoded_lines = _pad_llm_lines(lines, llm_line_bytes,
                                           _rng(seed, job, task, p["idx"], "pad"))
        if s["price_source"] == "litellm":
            cost = round(agg["cost"], 8) or None
    elif p["active"] and usage_source == "agent_native_acp":
        target = p["token_target"]
        n_out = int(target * rng.uniform(0.02, 0.05))
        n_in = target - n_out
        n_cr = int(n_in * rng.uniform(0.5, 0.8))
        thought = int(n_out * rng.uniform(0.8, 2.5))
        total_tokens = n_in + n_out + thought
        usage_details = {"thought_tokens": thought}
    if s["usage_source"] == "agent_native_acp" and usage_details is None:
        usage_details = {"thought_tokens": 0}
    if "cost" in att:
        cost = None if att["cost"] in (None, 0, 0.0) else float(att["cost"])
    if s["price_source"] is None or usage_source == "unavailable":
        price_source = None
    else:
        price_source = s["price_source"]
    if usage_source == "agent_native_acp":
        cost, price_source = None, None

    # errors and diagnostics
    error = None
    verifier_error = None
    diag: dict[str, Any] = {k: None for k in (
        "idle_timeout_info", "agent_timeout_info", "sandbox_startup_info",
        "transport_error_info", "verifier_timeout_info", "api_error_info",
        "suspected_api_error_info")}
    if kind in ("agent_error", "agent_error_scored"):
        template = ERROR_MESSAGES.get(cat, f"{cat}: agent error")
        error = template.format(timeout=timeout_sec, idle=s["agent_idle_timeout_sec"] or 600)
        if cat == "timeout":
            diag["agent_timeout_info"] = {
                "reason": "wall_clock_timeout",
                "timeout_sec": float(timeout_sec),
                "n_tool_calls": p["n_tools"],
                "pending_tool_call_ids": list(p.get("pending", [])),
                "terminal_event_recorded": True,
                "terminal_trajectory_complete": not p.get("pending"),
            }
        elif cat == "idle_timeout":
            idle = int(s["agent_idle_timeout_sec"] or 600)
            last_act = started + timedelta(seconds=p["total"] - idle - 2.0)
            diag["idle_timeout_info"] = {
                "reason": "idle_timeout",
                "idle_timeout_sec": idle,
                "idle_duration_sec": idle,
                "wall_clock_elapsed_sec": int(p["phases"].get("agent_execution", 0.0)),
                "n_tool_calls": p["n_tools"],
                "n_message_chunks": rng.randint(3, 40),
                "n_thought_chunks": rng.randint(3, 60),
                "last_activity_at": last_act.isoformat(),
            }
        elif cat == "pipe_closed":
            diag["transport_error_info"] = {"reason": "transport_closed",
                                            "raw_message": error, "process_exit_code": 255,
                                            "transport_diagnosis": "process_exited"}
    elif kind == "suspected_api_error":
        error = SUSPECTED_API_ERROR
        diag["suspected_api_error_info"] = {"total_tokens": 0, "n_tool_calls": 0,
                                            "total_requests": 0, "failed_requests": 0}
    if kind == "verifier_error":
        vcat = att["verifier_error_category"]
        if vcat == "verifier_timeout":
            budget = 600.0
            verifier_error = f"verifier timed out after {budget:.0f}s (verifier_timeout)"
            diag["verifier_timeout_info"] = {
                "timeout_budget_sec": budget,
                "elapsed_sec": round(budget + rng.uniform(0.1, 2.0), 1),
                "task_name": task,
            }
        else:
            verifier_error = (f"verifier crashed: No reward file found at {vdir}/verifier/"
                              f"reward.txt or {vdir}/verifier/reward.json")

    n_tools = p["n_tools"]
    agent_result: dict[str, Any] = {
        "n_tool_calls": n_tools,
        "n_skill_invocations": 0,
        "n_prompts": 1,
        "n_input_tokens": n_in,
        "n_output_tokens": n_out,
        "n_cache_read_tokens": n_cr,
        "n_cache_creation_tokens": n_cw,
        "total_tokens": total_tokens,
        "cost_usd": cost,
        "usage_source": usage_source,
        "price_source": price_source,
    }
    if usage_details is not None:
        agent_result["usage_details"] = usage_details
    endpoint = {"agent_native_acp": "agent_native", "unavailable": "none"}.get(usage_source,
                                                                               "host")
    result: dict[str, Any] = {
        "task_name": task,
        "rollout_name": rollout,
        "rewards": rewards,
        "agent": s["agent"],
        "agent_name": s["agent_name"],
        "model": s["model"],
        **SKILL_KEYS,
        "n_tool_calls": n_tools,
        "n_skill_invocations": 0,
        "n_prompts": 1,
        "agent_result": agent_result,
        "final_metrics": {
            "total_prompt_tokens": n_in,
            "total_completion_tokens": n_out,
            "total_cached_tokens": n_cr,
            "total_cost_usd": cost,
        },
        "trajectory_summary": _trajectory_summary(events, source),
        "usage_tracking": {
            "requested": "auto",
            "status": "captured" if usage_source != "unavailable" else "unavailable",
            "environment": s["environment"],
            "endpoint_kind": endpoint,
            "usage_source": usage_source,
        },
        "error": error,
        "error_category": cat if error is not None else None,
        "verifier_error": verifier_error,
        "verifier_error_category": att["verifier_error_category"] if verifier_error else None,
        "export_error": None,
        **diag,
        "partial_trajectory": False,
        "trajectory_source": source,
        "started_at": str(started),
        "finished_at": str(finished),
        "timing": timing,
        "scenes": _scene(s),
        "loop": {"strategy": "single-shot"},
    }
    if s["dataset_name"] is not None:
        result["dataset_name"] = s["dataset_name"]
        result["dataset_version"] = s["dataset_version"]
    result["task_digest"] = digest
    result["sandbox_id"] = None

    # files
    _write(rdir / "result.json", _dumps(result) + "\n")
    _write(rdir / "timing.json", _dumps(timing))
    _write(rdir / "prompts.json", _dumps([prompt]))
    acp_text = "\n".join(json.dumps(e) for e in events)
    _write(rdir / "trajectory" / "acp_trajectory.jsonl", acp_text)
    if lines:
        if encoded_lines is None:
            encoded_lines = [json.dumps(line) for line in lines]
        _write(rdir / "trajectory" / "llm_trajectory.jsonl", "\n".join(encoded_lines))
    if rewards is not None:
        event = {"ts": finished.isoformat(), "type": "terminal", "source": "verifier",
                 "value": rewards["reward"], "tag": "reward", "step_index": None,
                 "space": "output", "granularity": "terminal",
                 "meta": {k: v for k, v in rewards.items() if k != "reward"}}
        _write(rdir / "rewards.jsonl", json.dumps(event) + "\n")
    _write_agent_logs(rdir, s, task, p, error)
    _write_verifier(rdir, p, reward, verifier_error)
    row = _results_row(s, task, rollout, vdir, prompt, rewards, error, verifier_error,
                       timing, agent_result, lines, n_tools, results_steps)
    _write(rdir / "results.jsonl", json.dumps(row) + "\n")

    t_finished = _epoch(finished)
    for folder, dirs, files in os.walk(rdir):
        for name in files + dirs:
            os.utime(os.path.join(folder, name), (t_finished, t_finished))
    _utime(rdir / "config.json", started)
    _utime(rdir, finished)
    p["rollout"] = rollout
    p["finished"] = finished
    return result


def _write_agent_logs(rdir: Path, s: dict, task: str, p: dict, error: str | None) -> None:
    if s["is_oracle"]:
        _write(rdir / "agent" / "oracle.txt", _oracle_stdout(task))
        return
    name = s["agent"].replace("-", "_") + ".txt"
    if s["install_package"]:
        pkg = s["install_package"]
        text = f"$ npm install -g {pkg}\nadded 1 package in 6s\n+ {pkg}\n"
        if p["att"]["error_category"] == "install_failure" and p["kind"] == "agent_error":
            text = f"$ npm install -g {pkg}\nnpm ERR! code ECONNRESET\nnpm ERR! network aborted\n"
        _write(rdir / "agent" / "install-stdout.txt", text)
    if s["is_nop"]:
        _write(rdir / "agent" / name, "canceled\n")
    elif not p["ran_agent"]:
        _write(rdir / "agent" / name, f"{s['agent']}: not started ({error})\n")
    else:
        tail = f"error: {error}" if error else "stopReason: end_turn"
        _write(rdir / "agent" / name,
               f"{s['agent_name']}: session started ({s['model']})\n"
               f"{s['agent_name']}: prompt 1/1, {p['n_tools']} tool calls\n{tail}\n")


def _write_verifier(rdir: Path, p: dict, reward: float | None,
                    verifier_error: str | None) -> None:
    vd = rdir / "verifier"
    if verifier_error is not None:
        if "timed out" in verifier_error:
            _write(vd / "test-stdout.txt", "collected 14 items\n(verifier killed at timeout)\n")
        else:
            _write(vd / "test-stdout.txt", "test harness crashed before writing a reward\n")
        return
    if not p["verifier_ran"]:
        return
    if p["kind"] == "suspected_api_error":
        _write(vd / "reward.txt", "0\n")
        _write(vd / "test-stdout.txt", "FAIL: expected output missing (workspace untouched)\n")
        return
    assert reward is not None
    if 0.0 < reward < 1.0:
        _write(vd / "reward.json", json.dumps(_rewards_map(reward)) + "\n")
        _write(vd / "test-stdout.txt", f"PARTIAL: correctness {reward}, format 1.0\n")
        return
    _write(vd / "reward.txt", _num_text(reward) + "\n")
    if reward >= 1.0:
        _write(vd / "test-stdout.txt", "PASS: all checks passed\n")
    else:
        _write(vd / "test-stdout.txt", "FAIL: 3 of 14 checks failed\n")


def _results_row(s: dict, task: str, rollout: str, vdir: str, prompt: str,
                 rewards: dict | None, error: str | None, verifier_error: str | None,
                 timing: dict, agent_result: dict, lines: list[dict], n_tools: int,
                 with_steps: bool = True) -> dict:
    """One Verifiers-shaped row (trajectories/results.py::build_rollout_results_record).

    ``with_steps=False`` leaves the per-exchange ``trajectory`` list empty (everything else is
    computed as if it were there); the embedded example uses it to stay small.
    """
    reward = float(rewards["reward"]) if rewards else 0.0
    # without steps only the last one is needed (for the top-level prompt and completion)
    steps = _results_steps(lines if with_steps else lines[-1:], rollout, reward)
    if steps:
        final = steps[-1]
        full = list(final["prompt"]) + list(final["completion"])
        last_user = max(i for i, m in enumerate(full) if m["role"] == "user")
        top_prompt, completion = full[: last_user + 1], full[last_user + 1:]
    else:
        top_prompt, completion = [{"role": "user", "content": prompt}], None
    error_obj = None
    for key, value in (("agent_error", error), ("verifier_error", verifier_error)):
        if value:
            error_obj = {"error": key, "error_chain_str": value, "error_chain_repr": value}
            break
    training_ready = bool(steps and completion and not error and not verifier_error)
    reason = None
    if not training_ready:
        if not steps or not completion:
            reason = "missing_healthy_structured_llm_trajectory"
        elif error:
            reason = "agent_error"
        else:
            reason = "verifier_error"
        if error_obj is None:
            name = reason if reason in ("agent_error", "verifier_error") else (
                "missing_llm_trajectory")
            msg = f"Rollout is not training-ready: {reason}"
            error_obj = {"error": name, "error_chain_str": msg, "error_chain_repr": msg}
    stop = "agent_error" if error else "verifier_error" if verifier_error else "agent_completed"
    metrics: dict[str, Any] = {"n_tool_calls": n_tools, "n_prompts": 1}
    for key, value in (rewards or {}).items():
        metrics[key] = float(value)
    tin = float(agent_result["n_input_tokens"])
    tout = float(agent_result["n_output_tokens"])
    ttot = float(agent_result["total_tokens"])
    if tin + tout == 0 and ttot > 0:
        tin = ttot
    return {
        "example_id": 0,
        "prompt": top_prompt,
        "completion": completion,
        "info": {
            "task_id": task,
            "task_name": task,
            "rollout_name": rollout,
            "environment": task,
            "agent": s["agent"],
            "agent_name": s["agent_name"],
            "model": s["model"],
            "source": "benchflow",
            "rollout_dir": vdir,
            "training_ready": training_ready,
            "training_ready_reason": reason,
        },
        "reward": reward,
        "error": error_obj,
        "timing": timing,
        "is_completed": error_obj is None,
        "is_truncated": False,
        "stop_condition": stop,
        "metrics": metrics,
        "tool_defs": [],
        "token_usage": {"input_tokens": tin, "output_tokens": tout, "final_input_tokens": tin,
                        "final_output_tokens": tout, "total_tokens": ttot},
        "score": reward,
        "total_tool_calls": float(n_tools),
        "trajectory": steps if with_steps else [],
    }


# --------------------------------------------------------------------------------------------
# job summary (Evaluation.run)


def audit_outcome(result: dict) -> str:
    """BenchFlow 0.7.12 classify_audit_outcome (spec §3.3), without integrated review."""
    if result.get("verifier_error"):
        return "verifier_errored"
    rewards = result.get("rewards")
    reward = rewards.get("reward") if isinstance(rewards, dict) else None
    if isinstance(reward, (int, float)) and not isinstance(reward, bool):
        return "passed" if reward == 1.0 else "failed"
    if result.get("error"):
        return "errored"
    return "unscored"


def _reward_of(result: dict) -> float | None:
    rewards = result.get("rewards")
    reward = rewards.get("reward") if isinstance(rewards, dict) else None
    if isinstance(reward, (int, float)) and not isinstance(reward, bool) and math.isfinite(reward):
        return float(reward)
    return None


def _round1(x: float) -> float:
    return round(float(x), 1)


def _audit_tally(results: list[dict], classify: Callable[[dict], str] = audit_outcome
                 ) -> tuple[dict, dict]:
    """summary.json's audit buckets and its scores + mean reward, each in summary key order.

    ``classify`` maps a result.json to its audit bucket (``audit_outcome`` or, for reviewed
    results, ``_audit_reviewed``).
    """
    total = len(results)
    buckets = {"passed": 0, "failed": 0, "errored": 0, "verifier_errored": 0, "unscored": 0}
    for r in results:
        buckets[classify(r)] += 1
    passed, failed = buckets["passed"], buckets["failed"]
    errored, verrored = buckets["errored"], buckets["verifier_errored"]
    rewards = [x for x in (_reward_of(r) for r in results) if x is not None]
    score_ratio = passed / total if total else 0.0
    excl = passed / (passed + failed) if (passed + failed) else 0.0
    counts = {"total": total, "passed": passed, "failed": failed, "errored": errored,
              "verifier_errored": verrored, "pass": passed, "fail": failed, "error": errored}
    scores = {"score": f"{score_ratio:.1%}", "score_ratio": score_ratio,
              "score_excl_errors": f"{excl:.1%}", "score_excl_errors_ratio": excl,
              "mean_reward": math.fsum(rewards) / len(rewards) if rewards else None}
    return counts, scores


def job_summary(results: list[dict], *, job_name: str, setting: dict,
                elapsed_sec: float) -> dict:
    """summary.json for one job, from the result.json of each task's final attempt."""
    s = _norm_setting(setting)
    total = len(results)
    counts, scores = _audit_tally(results)
    cats: dict[str, int] = {}
    vcats: dict[str, int] = {}
    for r in results:
        if r.get("error"):
            c = r.get("error_category") or "other"
            cats[c] = cats.get(c, 0) + 1
        if r.get("verifier_error"):
            c = r.get("verifier_error_category") or "verifier_other"
            vcats[c] = vcats.get(c, 0) + 1

    completed = [r for r in results
                 if r.get("rewards") is not None and not r.get("error")
                 and not r.get("verifier_error")]
    covered = [r for r in completed if r["agent_result"].get("usage_source") in TRUSTED_USAGE]

    def tot(field: str) -> int:
        return sum(r["agent_result"].get(field) or 0 for r in covered)

    total_cost = round(sum(r["agent_result"].get("cost_usd") or 0.0 for r in covered), 10)
    tools = [int(r.get("n_tool_calls") or 0) for r in results]
    summaries = [r["trajectory_summary"] for r in results if r.get("trajectory_summary")]
    steps = [int(t.get("steps") or 0) for t in summaries]
    tc_steps = [int(t.get("tool_call_steps") or 0) for t in summaries]

    out: dict[str, Any] = {
        "job_name": job_name,
        "reviewer": dict(REVIEWER),
        "agent": s["agent"],
        "model": s["model"],
        "environment": s["environment"],
        "concurrency": s["concurrency"],
        "agent_idle_timeout_sec": s["agent_idle_timeout_sec"],
        "usage_tracking": {"requested": "auto"},
        "loop": {"strategy": "single-shot"},
        **counts,
        "idle_timeout": sum(1 for r in results if r.get("error_category") == "idle_timeout"),
        "error_categories": cats or None,
        "verifier_error_categories": vcats or None,
        **scores,
        "elapsed_sec": elapsed_sec,
        "memory_score": None,
        "memory_score_coverage": 0.0,
        "memory": {"scored": 0, "avg_score": None, "score": None},
        "memory_scores": {},
        "total_skill_invocations": 0,
        "avg_skill_invocations": 0.0,
        "total_input_tokens": tot("n_input_tokens"),
        "total_output_tokens": tot("n_output_tokens"),
        "total_cache_read_tokens": tot("n_cache_read_tokens"),
        "total_cache_creation_tokens": tot("n_cache_creation_tokens"),
        "total_tokens": tot("total_tokens"),
        "total_cost_usd": total_cost,
        "avg_cost_per_trial_usd": round(total_cost / len(covered), 10) if covered else None,
        "telemetry_coverage": len(covered) / len(completed) if completed else 0.0,
        "total_tool_calls": sum(tools),
        "avg_tool_calls_per_task": sum(tools) / len(tools) if tools else 0.0,
        "max_tool_calls_per_task": max(tools) if tools else 0,
        "total_trajectory_steps": sum(steps),
        "avg_trajectory_steps_per_task": sum(steps) / len(steps) if steps else 0.0,
        "max_trajectory_steps_per_task": max(steps) if steps else 0,
        "total_trajectory_tool_call_steps": sum(tc_steps),
        "avg_trajectory_tool_call_steps_per_task": sum(tc_steps) / len(tc_steps)
        if tc_steps else 0.0,
        "max_trajectory_tool_call_steps_per_task": max(tc_steps) if tc_steps else 0,
        "trajectory_summary_coverage": len(summaries) / total if total else 0.0,
    }
    timings = [r["timing"] for r in results if isinstance(r.get("timing"), dict) and r["timing"]]
    out["timing_coverage"] = len(timings) / total if total else 0.0
    for phase in TIMING_PHASES:
        values = [float(t[phase]) for t in timings if isinstance(t.get(phase), (int, float))]
        out[f"{phase}_time_sec"] = _round1(sum(values)) if values else 0.0
        out[f"avg_{phase}_time_sec"] = _round1(sum(values) / len(values)) if values else None
        out[f"max_{phase}_time_sec"] = _round1(max(values)) if values else None
    if s["dataset_name"] is not None:
        out["dataset_name"] = s["dataset_name"]
        out["dataset_version"] = s["dataset_version"]
    return out


# --------------------------------------------------------------------------------------------
# jobs


TASK_PROMPTS = {
    "fix-json-parser": "Fix /app/src/json_parser.py so escaped unicode parses.",
    "csv-dedupe": "Dedupe /app/data.csv by email, keep the newest row.",
    "log-rotate-config": "Write /app/logrotate.conf: daily, keep 7, compress.",
    "sql-query-optimizer": "Make /app/report.sql run under 2 s, same rows.",
    "regex-email-validator": "Implement validate() per /app/RULES.md.",
    "merge-sorted-streams": "Implement a lazy k-way merge in /app/merge.py.",
    "dockerfile-slim": "Shrink the /app/Dockerfile image below 120 MB.",
    "flaky-test-quarantine": "Mark the flaky tests in /app/tests as flaky.",
    "unicode-normalize": "Normalize /app/text/* to NFC; list changed files.",
    "cron-schedule-parser": "Implement next_runs(expr, start, n) for cron.",
    "git-bisect-regression": "Find the first bad commit in /app/repo.",
    "pdf-table-extract": "Extract the tables of /app/in.pdf to CSV files.",
}
TIMEOUTS = (600, 900, 1200, 1800)


def _prompt_for(task: str) -> str:
    return TASK_PROMPTS.get(task, f"Complete the task `{task}` described in /app/README.md.")


def _timeout_for(task: str) -> int:
    return TIMEOUTS[_seed_int("timeout", task) % len(TIMEOUTS)]


def _norm_trials(trials: list[dict]) -> list[dict]:
    out = []
    seen = set()
    for t in trials:
        if not isinstance(t, dict) or not t.get("task") or not t.get("attempts"):
            raise ValueError(f"a trial needs 'task' and a non-empty 'attempts' list: {t!r}")
        if t["task"] in seen:
            raise ValueError(f"task {t['task']!r} appears twice in one job")
        seen.add(t["task"])
        out.append({**t, "attempts": [_norm_attempt(a) for a in t["attempts"]]})
    return out


def _write_job(jobs_dir: Path, *, job_name: str, setting: dict, trials: list[dict], seed: int,
               write_summary: bool, start: datetime, vjobs: str, results_steps: bool = True,
               n_requests: int | None = None, llm_line_bytes: int | None = None
               ) -> tuple[Path, dict | None, datetime]:
    s = _norm_setting(setting)
    trials = _norm_trials(trials)
    jdir = Path(jobs_dir) / job_name
    if jdir.exists():
        shutil.rmtree(jdir)
    jdir.mkdir(parents=True)
    vjob = f"{vjobs}/{job_name}"
    rng = _rng(seed, job_name, "schedule")

    # plan every attempt, then place them on the timeline: `concurrency` slots, the tasks in
    # order, each task's attempts back to back with BenchFlow's backoff (2 s, 4 s, ...).
    plans = []
    for t in trials:
        task = t["task"]
        tplans = [_plan_attempt(s, task, a, i, job_name, seed, _timeout_for(task))
                  for i, a in enumerate(t["attempts"])]
        if n_requests is not None:
            for p in tplans:
                if p.get("active"):
                    p["n_lines"] = max(1, int(n_requests))
        plans.append(tplans)
    t0 = start + timedelta(seconds=rng.uniform(0.6, 1.2))
    slots = [t0] * max(1, int(s["concurrency"]))
    starts: list[list[datetime]] = []
    for tplans in plans:
        k = min(range(len(slots)), key=lambda j: (slots[j], j))
        t = slots[k] + timedelta(seconds=rng.uniform(0.005, 0.4))
        tstarts = []
        for i, p in enumerate(tplans):
            if i > 0:
                t += timedelta(seconds=min(2.0 ** i, 30.0) + rng.uniform(0.05, 0.6))
            t = _ts(rng, t)
            tstarts.append(t)
            t += timedelta(seconds=p.get("total", p.get("run_for", 0.0)))
        slots[k] = t
        starts.append(tstarts)

    finals: list[dict] = []
    for t, tplans, tstarts in zip(trials, plans, starts):
        task = t["task"]
        # "task_digest": None writes a trial that records no digest (as some BenchFlow builds do)
        digest = t["task_digest"] if "task_digest" in t and t["task_digest"] is None else (
            t.get("task_digest") or s["task_digests"].get(task) or default_task_digest(task))
        final = None
        for p, st in zip(tplans, tstarts):
            res = _write_attempt(jdir, vjob, s, task, _prompt_for(task), digest,
                                 _timeout_for(task), p, st, job_name, seed, results_steps,
                                 llm_line_bytes)
            if res is not None:
                final = res
        if final is not None:
            finals.append(final)

    ends = [p["finished"] for tplans in plans for p in tplans]
    job_end = _ts(rng, max(ends) + timedelta(seconds=rng.uniform(0.2, 1.5)))

    # job-level results.jsonl: every attempt's row, example_id renumbered per task
    example_ids: dict[str, int] = {}
    rows = []
    for path in sorted(jdir.glob("*/results.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            row["example_id"] = example_ids.setdefault(row["info"]["task_id"], len(example_ids))
            rows.append(json.dumps(row))
    if rows and write_summary:  # a killed job never reaches write_job_results_jsonl
        _write(jdir / "results.jsonl", "\n".join(rows) + "\n")
        _utime(jdir / "results.jsonl", job_end)

    summary = None
    if write_summary:
        elapsed = (job_end - start).total_seconds()
        summary = job_summary(finals, job_name=job_name, setting=setting, elapsed_sec=elapsed)
        text = _dumps(summary)
        _write(jdir / "summary.json", text)
        _write(Path(jobs_dir) / "summary.json", text)
        _utime(jdir / "summary.json", job_end)
        _utime(Path(jobs_dir) / "summary.json", job_end)
    _utime(jdir, job_end)
    _utime(Path(jobs_dir), job_end)
    return jdir, summary, job_end


def write_job(jobs_dir: Path, *, job_name: str, setting: dict, trials: list[dict], seed: int,
              write_summary: bool = True, start: str | None = None,
              results_steps: bool = True) -> Path:
    """Write ``<jobs_dir>/<job_name>/`` (a plain BenchFlow job) and return the job folder.

    One ``<task>__<hex8>`` folder per attempt, the job ``summary.json`` (audit buckets over the
    last attempt of each task, as ``Evaluation.run`` computes them), the job-level
    ``results.jsonl`` and the ``<jobs_dir>/summary.json`` copy. ``write_summary=False`` models a
    killed job (no summary.json anywhere). ``start`` (e.g. ``"2026-11-30 04:23:02"``) is when
    the job began; by default it is read from ``job_name`` when that is a BenchFlow
    ``YYYY-MM-DD__HH-MM-SS`` name, else derived from ``seed``. ``results_steps=False`` leaves
    the trainer ``trajectory`` steps out of the ``results.jsonl`` rows (saves space).
    """
    jobs_dir = Path(jobs_dir)
    if start is not None:
        start_dt = _parse_start(start)
    else:
        try:
            start_dt = _parse_start(job_name)
        except ValueError:
            start_dt = datetime(2026, 11, 30, 4, 0, 0) + timedelta(
                seconds=_seed_int(seed, job_name) % 86_400)
    jdir, _, _ = _write_job(jobs_dir, job_name=job_name, setting=setting, trials=trials,
                            seed=seed, write_summary=write_summary, start=start_dt,
                            vjobs=f"{VIRTUAL_ROOT}/{jobs_dir.name}",
                            results_steps=results_steps)
    return jdir


def write_matrix(jobs_dir: Path, *, alias: str, setting: dict, tries: list[list[dict]],
                 seed: int, start: str, write_matrix_summary: bool = True,
                 results_steps: bool = True) -> Path:
    """Write a ``--matrix --trials N`` jobs dir; ``tries[i]`` is the trial list of try i+1.

    Layout: ``<jobs_dir>/matrix-summary.json`` (unless ``write_matrix_summary=False``, as when
    the matrix run was aborted), ``<jobs_dir>/<alias>/trial-NN/summary.json`` and
    ``<jobs_dir>/<alias>/trial-NN/<YYYY-MM-DD__HH-MM-SS>/...``. A try whose trial list is
    wrapped as ``{"trials": [...], "write_summary": False}`` is a killed job. Tries run one
    after the other from ``start``. Returns ``jobs_dir``.
    """
    jobs_dir = Path(jobs_dir)
    jobs_dir.mkdir(parents=True, exist_ok=True)
    t = _parse_start(start)
    vroot = f"{VIRTUAL_ROOT}/{jobs_dir.name}"
    runs = []
    last_end = t
    for n, try_spec in enumerate(tries, start=1):
        if isinstance(try_spec, dict):
            trials = try_spec["trials"]
            write_summary = bool(try_spec.get("write_summary", True))
        else:
            trials, write_summary = try_spec, True
        tdir = jobs_dir / alias / f"trial-{n:02d}"
        job_name = _job_name_of(t)
        _, summary, job_end = _write_job(
            tdir, job_name=job_name, setting=setting, trials=trials, seed=seed + n,
            write_summary=write_summary, start=t, vjobs=f"{vroot}/{alias}/trial-{n:02d}",
            results_steps=results_steps)
        if summary is not None:
            runs.append({
                "alias": alias,
                "errored": summary["errored"],
                "failed": summary["failed"],
                "jobs_dir": f"{vroot}/{alias}/trial-{n:02d}",
                "passed": summary["passed"],
                "total": summary["total"],
                "trial": n,
                "verifier_errored": summary["verifier_errored"],
            })
        last_end = job_end
        gap = _rng(seed, alias, n, "gap").uniform(1.0, 3.5)
        t = (job_end + timedelta(seconds=gap)).replace(microsecond=0) + timedelta(seconds=1)
    if write_matrix_summary:
        ms = {"matrix": f"{MATRIX_ROOT}/{jobs_dir.name}.yaml", "runs": runs,
              "schema_version": 1, "trials": len(tries)}
        _write(jobs_dir / "matrix-summary.json", json.dumps(ms, indent=2, sort_keys=True) + "\n")
        _utime(jobs_dir / "matrix-summary.json", last_end)
    _utime(jobs_dir / alias, last_end)
    _utime(jobs_dir, last_end)
    return jobs_dir


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
    "i": {"kind": "agent_error", "error_category": "idle_timeout"},
    "c": {"kind": "agent_error", "error_category": "acp_error"},
    "V": {"kind": "verifier_error", "verifier_error_category": "verifier_failure"},
    "v": {"kind": "verifier_error", "verifier_error_category": "verifier_timeout"},
    "U": {"kind": "unscored"},
    "A": {"kind": "suspected_api_error"},
    "X": {"kind": "interrupted"},
}

# The example's outcome grid (also printed in the module docstring): one row per task, one
# column per setting, tries separated by single spaces, columns by two or more spaces.
_GRID_TEXT = """\
task                   1:claude-high  2:claude-low 3:codex    4:gemini  5:oracle  6:nop  7:plain
fix-json-parser        P P P P P      P P P        P P P      P P F P   P P P     A A A  P
csv-dedupe             P P P P P      P P P        P F P      P P P P   P P P     A A A  P
log-rotate-config      P F P P F      F F P        P P P      F P F P   P P P     A A A  P
sql-query-optimizer    H F H P H      F H F        H H P      F F H F   P P P     A A A  H
regex-email-validator  P P F P P      P F F        P P P      P P P P   P P P     A A A  P
merge-sorted-streams   P P P n+P P    P P P        P X P      P F P P   P P P     A A A  P
dockerfile-slim        T F S T F      T T F        F i+i+i T  T F T X   P P P     A A A  F
flaky-test-quarantine  P V P F P      F P v+F      V P P      F F V X   P P P     A A A  V
unicode-normalize      P P P P P      P P F        P P P      P P P -   P P P     A P A  P
cron-schedule-parser   F F F F F      F F F        F U F      F F F -   P P P     A A A  F
git-bisect-regression  F F F F s      F F F        F F P      F F F -   P F P     A A A  F
pdf-table-extract      F P F i+P F    F F F        c+P F F    F U F -   P P P     A A A  c+P
"""
_GRID_ROWS = [tuple(re.split(r" {2,}", line.strip()))
              for line in _GRID_TEXT.splitlines()[1:]]

EXAMPLE_SETTINGS: list[dict] = [
    {
        "dir": "claude-sonnet-high-x5", "alias": "claude-sonnet-4-5-high", "seed": 1101,
        "start": "2026-11-28 09:00:07",
        "setting": {
            "agent": "claude-agent-acp", "agent_name": "claude-agent-acp",
            "model": "anthropic/claude-sonnet-4-5", "reasoning_effort": "high",
            "served_model": "claude-sonnet-4-5-20250929", "usage_source": "provider_response",
            "price_source": "litellm",
            "install_package": "@agentclientprotocol/claude-agent-acp@0.73.0",
        },
        # task drift: one task's digest differs in one try
        "digest_overrides": {4: {"log-rotate-config": "sha256:" + hashlib.sha256(
            b"benchflow-synth-task:log-rotate-config:tests-v2").hexdigest()}},
    },
    {
        "dir": "claude-sonnet-low-x3", "alias": "claude-sonnet-4-5-low", "seed": 1202,
        "start": "2026-11-28 17:30:12",
        "setting": {
            "agent": "claude-agent-acp", "agent_name": "claude-agent-acp",
            "model": "anthropic/claude-sonnet-4-5", "reasoning_effort": "low",
            "served_model": "claude-sonnet-4-5-20250929", "usage_source": "provider_response",
            "price_source": "litellm",
            "install_package": "@agentclientprotocol/claude-agent-acp@0.73.0",
        },
    },
    {
        "dir": "codex-gpt-5.1-x3", "alias": "codex-gpt-5.1", "seed": 1303,
        "start": "2026-11-29 08:45:03",
        "setting": {
            "agent": "codex-acp", "agent_name": "codex-acp", "model": "openai/gpt-5.1",
            "reasoning_effort": None, "served_model": "gpt-5.1-2025-11-13",
            "usage_source": "provider_response", "price_source": "litellm",
        },
    },
    {
        "dir": "gemini-2.5-pro-x4", "alias": "gemini-2.5-pro", "seed": 1404,
        "start": "2026-11-29 14:10:41", "killed_last_try": True,
        "setting": {
            "agent": "gemini-cli", "agent_name": "gemini-cli", "model": "gemini/gemini-2.5-pro",
            "reasoning_effort": None, "served_model": None, "usage_source": "agent_native_acp",
            "price_source": None, "install_package": "@google/gemini-cli@0.42.0",
        },
    },
    {
        "dir": "oracle-x3", "alias": "oracle", "seed": 1505, "start": "2026-11-27 10:02:18",
        "setting": {
            "agent": "oracle", "agent_name": "oracle", "model": "none", "reasoning_effort": None,
            "served_model": None, "usage_source": "unavailable", "price_source": None,
        },
    },
    {
        "dir": "nop-x3", "alias": "nop", "seed": 1606, "start": "2026-11-27 11:15:55",
        "setting": {
            "agent": "nop", "agent_name": "nop", "model": None, "reasoning_effort": None,
            "served_model": None, "usage_source": "unavailable", "price_source": None,
        },
    },
]
EXAMPLE_PLAIN = {"dir": "codex-gpt-5.1-plain", "seed": 1707, "start": "2026-11-30 08:20:30",
                 "setting_index": 2}


def example_outcome_grid() -> str:
    """The outcome grid of the embedded example, as printed in the module docstring."""
    return _GRID_TEXT.rstrip("\n")


_AUDIT_OF_CODE = {"P": "passed", "S": "passed", "F": "failed", "H": "failed", "s": "failed",
                  "T": "errored", "n": "errored", "i": "errored", "c": "errored",
                  "A": "errored", "V": "verifier_errored", "v": "verifier_errored",
                  "U": "unscored"}


def example_audit_table() -> str:
    """Per try: the audit counts each job summary.json of the example holds (from the grid)."""
    names = ["1:claude-high", "2:claude-low", "3:codex", "4:gemini", "5:oracle", "6:nop",
             "7:plain"]
    lines = ["setting        try  total passed failed errored verifier_errored"]
    for column, name in enumerate(names, start=1):
        n_tries = len(_GRID_ROWS[0][column].split())
        for k in range(n_tries):
            cells = [row[column].split()[k] for row in _GRID_ROWS]
            if column == 4 and k == n_tries - 1:
                lines.append(f"{name:<14} {k + 1:>3}  (killed: no summary.json)")
                continue
            finals = [c.split("+")[-1] for c in cells if c not in ("-", "X")]
            count = {b: 0 for b in ("passed", "failed", "errored", "verifier_errored")}
            for code in finals:
                bucket = _AUDIT_OF_CODE[code]
                if bucket in count:
                    count[bucket] += 1
            lines.append(f"{name:<14} {k + 1:>3}  {len(finals):>5} {count['passed']:>6} "
                         f"{count['failed']:>6} {count['errored']:>7} "
                         f"{count['verifier_errored']:>16}")
    return "\n".join(lines)


def _cell_attempts(cell: str) -> list[dict] | None:
    if cell == "-":
        return None
    return [dict(CODES[c]) for c in cell.split("+")]


def _example_trials(column: int, try_index: int, *, nop: bool = False) -> list[dict]:
    trials = []
    for row in _GRID_ROWS:
        task = row[0]
        cell = row[column].split()[try_index]
        attempts = _cell_attempts(cell)
        if attempts is None:
            continue
        if nop:
            for a in attempts:
                if a["kind"] == "passed":
                    a["n_tool_calls"] = 1
        trials.append({"task": task, "attempts": attempts})
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
            trials = _example_trials(column, k, nop=spec["alias"] == "nop")
            for t in trials:
                override = spec.get("digest_overrides", {}).get(k + 1, {}).get(t["task"])
                if override:
                    t["task_digest"] = override
            if spec.get("killed_last_try") and k == n_tries - 1:
                tries.append({"trials": trials, "write_summary": False})
            else:
                tries.append(trials)
        write_matrix(out_dir / spec["dir"], alias=spec["alias"], setting=spec["setting"],
                     tries=tries, seed=spec["seed"], start=spec["start"],
                     write_matrix_summary=not spec.get("killed_last_try", False),
                     results_steps=False)
    plain = EXAMPLE_PLAIN
    setting = EXAMPLE_SETTINGS[plain["setting_index"]]["setting"]
    start = _parse_start(plain["start"])
    write_job(out_dir / plain["dir"], job_name=_job_name_of(start), setting=setting,
              trials=_example_trials(7, 0), seed=plain["seed"], start=plain["start"],
              results_steps=False)


# --------------------------------------------------------------------------------------------
# scale: many large job folders, for benchmarks


SCALE_REQUESTS = 20
SCALE_REQUEST_KB = 30
SCALE_START = "2026-10-01 06:00:00"

def _claude_scale_setting(effort: str, skill: float) -> dict:
    """Claude Sonnet 4.5 through claude-agent-acp at one reasoning effort (two scale settings)."""
    return {
        "dir": f"claude-sonnet-{effort}", "alias": f"claude-sonnet-4-5-{effort}", "skill": skill,
        "setting": {
            "agent": "claude-agent-acp", "agent_name": "claude-agent-acp",
            "model": "anthropic/claude-sonnet-4-5", "reasoning_effort": effort,
            "served_model": "claude-sonnet-4-5-20250929", "usage_source": "provider_response",
            "price_source": "litellm",
            "install_package": "@agentclientprotocol/claude-agent-acp@0.73.0",
            "concurrency": 32,
        },
    }


# The settings the job folders of a scale build cycle through (job i has setting i % S, try
# i // S + 1). ``skill`` shifts the per-task pass probability (logistic in skill - difficulty).
SCALE_SETTINGS: list[dict] = [
    _claude_scale_setting("high", skill=1.2),
    {
        "dir": "codex-gpt-5.1", "alias": "codex-gpt-5.1", "skill": 0.6,
        "setting": {
            "agent": "codex-acp", "agent_name": "codex-acp", "model": "openai/gpt-5.1",
            "reasoning_effort": None, "served_model": "gpt-5.1-2025-11-13",
            "usage_source": "provider_response", "price_source": "litellm", "concurrency": 32,
        },
    },
    _claude_scale_setting("low", skill=0.2),
    {
        "dir": "opencode-gpt-5-mini", "alias": "opencode-gpt-5-mini", "skill": -0.4,
        "setting": {
            "agent": "opencode", "agent_name": "opencode", "model": "openai/gpt-5-mini",
            "reasoning_effort": "low", "served_model": "gpt-5-mini-2025-08-07",
            "usage_source": "provider_response", "price_source": None, "concurrency": 32,
        },
    },
]

# Per job, these attempt lists go to distinct tasks (when the job has at least as many tasks),
# so every job folder holds each case at least once; ``None`` stands for the drawn outcome.
SCALE_SPECIALS: tuple[tuple[str, list[Any]], ...] = (
    ("interrupted", [{"kind": "interrupted"}]),  # killed, never resumed: config.json only
    ("resumed", [{"kind": "interrupted"}, None]),  # killed, then run again (a retry)
    ("retried", [{"kind": "agent_error", "error_category": "idle_timeout"}, None]),
    ("errored", [{"kind": "agent_error", "error_category": "timeout"}]),
    ("verifier_errored", [{"kind": "verifier_error"}]),
    ("unscored", [{"kind": "unscored"}]),
)


def scale_task_names(n_trials: int) -> list[str]:
    """The task names of a scale build: ``scale-task-0000`` ... (one trial per task per job)."""
    width = max(4, len(str(n_trials - 1)))
    return [f"scale-task-{i:0{width}d}" for i in range(n_trials)]


def _scale_draw(rng: random.Random, p_pass: float) -> list[dict]:
    """One task's attempts in one job: mostly a scored pass/fail, with errors and retries."""
    r = rng.random()
    if r < p_pass * 0.9:
        final: dict = {"kind": "passed"}
    else:
        u = rng.random()
        if u < 0.06:
            final = {"kind": "agent_error", "error_category": "timeout"}
        elif u < 0.075:
            final = {"kind": "agent_error", "error_category": "idle_timeout"}
        elif u < 0.09:
            final = {"kind": "verifier_error", "verifier_error_category":
                     "verifier_timeout" if rng.random() < 0.3 else "verifier_failure"}
        elif u < 0.095:
            final = {"kind": "unscored"}
        elif u < 0.105:
            final = {"kind": "agent_error_scored", "error_category": "timeout",
                     "reward": 1.0 if rng.random() < p_pass else 0.0}
        elif r < p_pass:
            final = {"kind": "passed"}
        else:
            final = {"kind": "failed", "reward": 0.5 if rng.random() < 0.1 else 0.0}
    v = rng.random()
    if v < 0.015:  # BenchFlow retried after an agent error
        first = {"kind": "agent_error",
                 "error_category": ("install_failure", "acp_error", "idle_timeout")[
                     rng.randrange(3)]}
        return [first, final]
    if v < 0.017:  # killed mid-run, then resumed
        return [{"kind": "interrupted"}, final]
    if v < 0.0175:  # killed and never resumed
        return [{"kind": "interrupted"}]
    return [final]


def scale_job_specs(jobs: int, trials: int, seed: int = 0) -> list[dict]:
    """Where each job folder of a scale build goes and what it holds (no file is written).

    Job i has setting ``SCALE_SETTINGS[i % S]`` (S = min(4, jobs)) and try index i // S + 1;
    it lands in ``<setting dir>/<alias>/trial-NN/<YYYY-MM-DD__HH-MM-SS>/``. Tries of one setting
    start a day apart, settings five hours apart.
    """
    if jobs < 1 or trials < 1:
        raise ValueError("jobs and trials must be at least 1")
    n_settings = min(len(SCALE_SETTINGS), jobs)
    tries = [len(range(k, jobs, n_settings)) for k in range(n_settings)]
    base = _parse_start(SCALE_START)
    specs = []
    for i in range(jobs):
        k = i % n_settings
        n = i // n_settings + 1
        spec = SCALE_SETTINGS[k]
        start = base + timedelta(days=n - 1, hours=5 * k,
                                 seconds=_seed_int(seed, "scale-start", spec["alias"], n) % 3600)
        specs.append({
            "index": i, "setting_index": k, "try": n,
            "jobs_dir": f"{spec['dir']}-x{tries[k]}",
            "alias": spec["alias"],
            "job_name": _job_name_of(start),
            "start": str(start),
            "seed": _seed_int(seed, "scale-job", i) % 1_000_000_007,
        })
    return specs


def scale_trials(spec: dict, trials: int, seed: int = 0) -> list[dict]:
    """The trial list (``write_job`` shape) of one job of a scale build."""
    setting = SCALE_SETTINGS[spec["setting_index"]]
    tasks = scale_task_names(trials)
    rng = _rng(seed, "scale-specials", spec["alias"], spec["try"])
    specials = {}
    if trials >= len(SCALE_SPECIALS):
        for pos, (_, attempts) in zip(rng.sample(range(trials), len(SCALE_SPECIALS)),
                                      SCALE_SPECIALS):
            specials[pos] = attempts
    out = []
    for pos, task in enumerate(tasks):
        difficulty = _rng(seed, "scale-difficulty", task).gauss(0.0, 1.6)
        p_pass = 1.0 / (1.0 + math.exp(difficulty - setting["skill"]))
        trng = _rng(seed, "scale-trial", spec["alias"], spec["try"], task)
        drawn = _scale_draw(trng, p_pass)
        if pos in specials:
            final = drawn[-1] if drawn[-1]["kind"] != "interrupted" else {"kind": "failed"}
            attempts = [dict(a) if a is not None else final for a in specials[pos]]
        else:
            attempts = drawn
        out.append({"task": task, "attempts": attempts})
    return out


def _scale_write_one(args: tuple) -> tuple[int, dict | None]:
    out_dir, spec, trials, seed, n_requests, line_bytes, results_steps = args
    setting = SCALE_SETTINGS[spec["setting_index"]]
    tdir = Path(out_dir) / spec["jobs_dir"] / spec["alias"] / f"trial-{spec['try']:02d}"
    _, summary, job_end = _write_job(
        tdir, job_name=spec["job_name"], setting=setting["setting"],
        trials=scale_trials(spec, trials, seed), seed=spec["seed"], write_summary=True,
        start=_parse_start(spec["start"]),
        vjobs=f"{VIRTUAL_ROOT}/{spec['jobs_dir']}/{spec['alias']}/trial-{spec['try']:02d}",
        results_steps=results_steps, n_requests=n_requests, llm_line_bytes=line_bytes)
    run = None
    if summary is not None:
        run = {key: summary[key] for key in ("errored", "failed", "passed", "total",
                                             "verifier_errored")}
    return spec["index"], {"run": run, "end": str(job_end)}


def build_scale(out_dir: Path, *, jobs: int, trials: int, seed: int = 0,
                request_kb: float = SCALE_REQUEST_KB, requests: int = SCALE_REQUESTS,
                workers: int = 1, results_steps: bool = False) -> dict:
    """Write ``jobs`` BenchFlow 0.7.12 job folders of ``trials`` trials each into ``out_dir``.

    Matrix layout, ``<setting dir>-x<tries>/<alias>/trial-NN/<job>/``, cycling through
    ``SCALE_SETTINGS`` (four agent/model/effort settings); each job runs the same ``trials``
    tasks (``scale_task_names``) once, with a drawn outcome per task (passes, fails, partial
    credit, agent errors, verifier errors, unscored, retries, interrupted attempts) and the
    ``SCALE_SPECIALS`` cases at fixed positions in every job. Every attempt that reached the
    model has exactly ``requests`` lines in ``trajectory/llm_trajectory.jsonl``, each
    ``request_kb`` KiB long (``request_kb=0`` leaves them unpadded, about 1 KB). The job-level
    ``results.jsonl`` rows leave the trainer steps out unless ``results_steps`` (as the example
    does; no reader of ours uses them). Same arguments, same bytes, whatever ``workers`` is
    (that many processes write job folders in parallel). Returns counts of what was written.
    """
    if requests < 1:
        raise ValueError("requests must be at least 1")
    if request_kb < 0:
        raise ValueError("request_kb must be >= 0")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    specs = scale_job_specs(jobs, trials, seed)
    line_bytes = round(request_kb * 1024) or None
    tasks = [(str(out_dir), spec, trials, seed, requests, line_bytes, results_steps)
             for spec in specs]
    done: dict[int, dict] = {}
    if workers > 1 and len(tasks) > 1:
        import multiprocessing
        ctx = multiprocessing.get_context("fork" if sys.platform.startswith("linux") else "spawn")
        with ctx.Pool(min(workers, len(tasks))) as pool:
            for index, info in pool.imap_unordered(_scale_write_one, tasks):
                done[index] = info
    else:
        for task in tasks:
            index, info = _scale_write_one(task)
            done[index] = info
    # one matrix-summary.json per setting dir, as `bench eval run --matrix` writes it
    by_dir: dict[str, list[dict]] = {}
    for spec in specs:
        by_dir.setdefault(spec["jobs_dir"], []).append(spec)
    for jobs_dir, group in sorted(by_dir.items()):
        runs = []
        for spec in group:
            info = done[spec["index"]]
            if info["run"] is not None:
                vdir = f"{VIRTUAL_ROOT}/{jobs_dir}/{spec['alias']}/trial-{spec['try']:02d}"
                runs.append({"alias": spec["alias"], "jobs_dir": vdir, "trial": spec["try"],
                             **info["run"]})
        ms = {"matrix": f"{MATRIX_ROOT}/{jobs_dir}.yaml", "runs": runs, "schema_version": 1,
              "trials": len(group)}
        _write(out_dir / jobs_dir / "matrix-summary.json",
               json.dumps(ms, indent=2, sort_keys=True) + "\n")
        last_end = max(_parse_start(done[spec["index"]]["end"]) for spec in group)
        _utime(out_dir / jobs_dir / "matrix-summary.json", last_end)
        _utime(out_dir / jobs_dir / group[0]["alias"], last_end)
        _utime(out_dir / jobs_dir, last_end)
    return {"jobs": jobs, "trials_per_job": trials, "settings": len(by_dir),
            "requests": requests, "request_bytes": line_bytes}


# --------------------------------------------------------------------------------------------
# review jobs: a rubric reviewer, a dataset version, a budget stop, unpriced models (for tests)
#
# ``build_review_jobs(out_dir)`` writes two small plain jobs by calling ``write_job`` and then
# adding what newer or rubric-reviewed BenchFlow runs record. Guesses, since no real sample
# shows them: the rubric file is named by the task's ``source.file_hashes`` (``rubric.toml``);
# ``reviews/<id>/`` holds the reviewer's own run (``result.json`` with ``purpose: "reviewer"``)
# and ``review.json`` (item scores); ``solver.json`` is the solver's result.json before the
# review; a trial whose review is still pending has ``solver.json`` and no ``result.json``; an
# incomplete review leaves ``rewards`` as ``{"verifier_reward": v}``; the ``budget`` block's
# ``cancelled`` and ``not_started`` are task-name lists, ``caps``/``spent`` objects.
#
# rubric-review/2026-12-01__10-00-00: claude-agent-acp on anthropic/claude-sonnet-4-5, effort
#   high, dataset skillsbench@1.1 (git source at REVIEW_COMMIT), priced by litellm except
#   flaky-retry (cost null). Reviewer (summary.json): claude-agent-acp, anthropic/claude-opus-4-1,
#   effort high. Policy tests-blockers-quality-v1, quality weights (2, 1):
#     api-pagination      verifier 1.0, blockers pass, scores (2, 1) -> passed, reward 5/6
#     config-migration    verifier 1.0, blocker no-secrets-in-logs fails -> failed, reward 0
#     flaky-retry         verifier 0.0, scores (1, 0) -> failed (tests), reward 0
#     schema-diff         verifier 1.0, review error (reviewer timed out) -> no reward
#     cache-invalidation  verifier 1.0, review pending (solver.json only)
#     log-parser          no rubric: the verifier script alone, passed
# budget-stop/2026-12-02__09-00-00: opencode on openai/gpt-5-mini, no price known (price_source
#   null), no dataset, git source at BUDGET_COMMIT. parse-headers passed; dedupe-rows
#   idle_timeout then passed (a retry); merge-configs failed; rate-limiter timed out;
#   tail-follow cancelled by the budget (config.json only); retry-backoff and url-normalize
#   never started. summary.json has a ``budget`` block: a token cap below what was spent.

REVIEW_REPO = "https://github.com/benchflow-ai/skillsbench"
REVIEW_COMMIT = hashlib.sha1(b"benchflow-synth skillsbench v1.1").hexdigest()
BUDGET_REPO = "https://github.com/example/agent-tasks"
BUDGET_COMMIT = hashlib.sha1(b"benchflow-synth agent-tasks main").hexdigest()
REVIEW_POLICY = "tests-blockers-quality-v1"
# the rubric of every reviewed task, in rubric.toml order: (item id, quality weight), where a
# weight of None marks a blocker
REVIEW_RUBRIC = (("no-secrets-in-logs", None), ("tests-untouched", None),
                 ("readable", 2), ("tests-added", 1))
REVIEW_WEIGHTS = tuple(weight for _, weight in REVIEW_RUBRIC if weight is not None)
REVIEW_REVIEWER = dict(REVIEWER, agent="claude-agent-acp", model="anthropic/claude-opus-4-1",
                       reasoning_effort="high")
REVIEW_SETTING = {
    "agent": "claude-agent-acp", "agent_name": "claude-agent-acp",
    "model": "anthropic/claude-sonnet-4-5", "reasoning_effort": "high",
    "served_model": "claude-sonnet-4-5-20250929", "usage_source": "provider_response",
    "price_source": "litellm", "dataset_name": "skillsbench", "dataset_version": "1.1",
}
BUDGET_SETTING = {
    "agent": "opencode", "agent_name": "opencode", "model": "openai/gpt-5-mini",
    "reasoning_effort": "low", "served_model": "gpt-5-mini-2025-08-07",
    "usage_source": "provider_response", "price_source": None,
}
# task -> (verifier attempt, review): review is None (no rubric) or a dict with "status"
# ("complete", "error" or "pending") and, when complete, the "failed" blocker ids and the quality
# "scores" (in REVIEW_WEIGHTS order), when an error, the reviewer's "error" message
REVIEW_TASKS: dict[str, tuple[dict, dict | None]] = {
    "api-pagination": ({"kind": "passed"}, {"status": "complete", "failed": [], "scores": (2, 1)}),
    "config-migration": ({"kind": "passed"}, {"status": "complete", "failed": ["no-secrets-in-logs"],
                                              "scores": (2, 2)}),
    "flaky-retry": ({"kind": "failed", "reward": 0.0, "cost": None},
                    {"status": "complete", "failed": [], "scores": (1, 0)}),
    "schema-diff": ({"kind": "passed"}, {"status": "error",
                                         "error": "reviewer timed out after 1800s"}),
    "cache-invalidation": ({"kind": "passed"}, {"status": "pending"}),
    "log-parser": ({"kind": "passed"}, None),
}
BUDGET_TRIALS = [
    {"task": "parse-headers", "attempts": [{"kind": "passed"}]},
    {"task": "dedupe-rows", "attempts": [{"kind": "agent_error", "error_category": "idle_timeout"},
                                         {"kind": "passed"}]},
    {"task": "merge-configs", "attempts": [{"kind": "failed", "reward": 0.0}]},
    {"task": "rate-limiter", "attempts": [{"kind": "agent_error", "error_category": "timeout"}]},
    {"task": "tail-follow", "attempts": [{"kind": "interrupted"}]},
]
BUDGET_NOT_STARTED = ["retry-backoff", "url-normalize"]


def rubric_text(task: str) -> str:
    """The rubric file a reviewed task carries (its sha256 goes into source.file_hashes)."""
    text = f'# rubric for {task}\npolicy = "{REVIEW_POLICY}"\n'
    for item, weight in REVIEW_RUBRIC:
        if weight is None:
            text += f'[[blocker]]\nid = "{item}"\n'
        else:
            text += f'[[quality]]\nid = "{item}"\nweight = {weight}\n'
    return text


def _file_sha(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def _git_source(repo: str, commit: str, ref: str) -> dict:
    """The git part of a ``source`` block (config.json, result.json, summary.json)."""
    return {"type": "git", "repo": repo, "requested_ref": ref, "resolved_sha": commit}


def _source_block(repo: str, commit: str, ref: str, task: str, rubric: bool) -> dict:
    hashes = {"instruction.md": _file_sha(f"instruction of {task}\n"),
              "tests/test.sh": _file_sha(f"#!/bin/sh\n# tests of {task}\n")}
    if rubric:
        hashes["rubric.toml"] = _file_sha(rubric_text(task))
    return _git_source(repo, commit, ref) | {
        "path": f"tasks/{task}", "dirty": False, "file_hashes": dict(sorted(hashes.items()))}


def _keep_times(paths: list[Path]) -> dict[Path, tuple[float, float]]:
    return {p: (p.stat().st_atime, p.stat().st_mtime) for p in paths if p.exists()}


def _load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def _rewrite_json(path: Path, update: dict, *, copies: tuple[Path, ...] = (),
                  end: str = "\n") -> dict:
    """Apply ``update`` to the JSON object in ``path`` and write it back (to ``copies`` too).

    Each file written keeps its atime and mtime. Returns the updated object.
    """
    times = _keep_times([path, *copies])
    data = _load(path)
    data.update(update)
    text = _dumps(data) + end
    for target in (path, *copies):
        _write(target, text)
        os.utime(target, times[target])
    return data


def _scoring_block(review: dict, verifier_reward: float, rollout: str) -> tuple[dict, dict]:
    """(result.json scoring, rewards) by the tests-blockers-quality-v1 rules (spec §3.7)."""
    tests_pass = verifier_reward == 1.0
    base = {"schema_version": 1, "policy": REVIEW_POLICY, "status": review["status"]}
    if review["status"] != "complete":
        scoring = base | {"passed": False, "tests_pass": tests_pass, "all_blockers_pass": None,
                          "failed_blockers": [], "verifier_reward": verifier_reward,
                          "rubric_reward": None, "reviewer_run": f"{rollout}--review-r1",
                          "revision": "scoring/r1.json", "error": review["error"]}
        return scoring, {"verifier_reward": verifier_reward}
    rubric = sum(s * w for s, w in zip(review["scores"], REVIEW_WEIGHTS)) / (2 * sum(REVIEW_WEIGHTS))
    blockers_pass = not review["failed"]
    passed = tests_pass and blockers_pass
    scoring = base | {"passed": passed, "tests_pass": tests_pass, "all_blockers_pass": blockers_pass,
                      "failed_blockers": list(review["failed"]), "verifier_reward": verifier_reward,
                      "rubric_reward": rubric, "reviewer_run": f"{rollout}--review-r1",
                      "revision": "scoring/r1.json", "error": None}
    return scoring, {"reward": rubric if passed else 0.0, "verifier_reward": verifier_reward,
                     "rubric_reward": rubric}


def _reviewer_result(rollout: str, reviewer: dict, result: dict) -> dict:
    return {"task_name": result["task_name"], "rollout_name": f"{rollout}--review-r1",
            "purpose": "reviewer", "parent_rollout": rollout, "rewards": None,
            "agent": reviewer["agent"], "agent_name": reviewer["agent"], "model": reviewer["model"],
            "scenes": [{"name": "review", "skills_dir": None, "roles": [{
                "name": "reviewer", "agent": reviewer["agent"], "model": reviewer["model"],
                "reasoning_effort": reviewer["reasoning_effort"], "timeout_sec": 1800,
                "idle_timeout_sec": None, "skills_dir": None, "capabilities": None,
                "env_keys": []}], "turns": [{"role": "reviewer", "has_prompt": True}]}],
            "started_at": result["finished_at"], "finished_at": result["finished_at"]}


def _audit_reviewed(result: dict) -> str:
    """classify_audit_outcome (spec §3.3) with an integrated review."""
    scoring = result.get("scoring")
    if result.get("verifier_error"):
        return "verifier_errored"
    if isinstance(scoring, dict):
        if scoring.get("status") == "complete":
            return "passed" if scoring.get("passed") else "failed"
        return "errored" if result.get("error") else "verifier_errored"
    return audit_outcome(result)


def _update_summary(jobs_dir: Path, jdir: Path, update: dict) -> None:
    """Apply ``update`` to the job's summary.json and its ``<jobs_dir>`` copy, keeping times."""
    _rewrite_json(jdir / "summary.json", update, copies=(Path(jobs_dir) / "summary.json",),
                  end="")


def _recount_summary(jobs_dir: Path, jdir: Path, extra: dict) -> None:
    """Recount summary.json's audit buckets over the reviewed result.json files, add ``extra``."""
    last: dict[str, dict] = {}  # Evaluation.run counts the last attempt of each task
    for result in sorted((_load(p) for p in jdir.glob("*/result.json")), key=lambda r: r["started_at"]):
        last[result["task_name"]] = result
    counts, scores = _audit_tally([last[task] for task in sorted(last)], _audit_reviewed)
    _update_summary(jobs_dir, jdir, counts | scores | extra)


def _write_review_job(jobs_dir: Path) -> Path:
    trials = [{"task": task, "attempts": [dict(attempt)]} for task, (attempt, _) in REVIEW_TASKS.items()]
    jdir = write_job(jobs_dir, job_name="2026-12-01__10-00-00", setting=REVIEW_SETTING,
                     trials=trials, seed=2101, results_steps=False)
    for rdir in sorted(p for p in jdir.iterdir() if p.is_dir()):
        task = rdir.name.rsplit("__", 1)[0]
        review = REVIEW_TASKS[task][1]
        kept = _keep_times([rdir, rdir / "result.json", rdir / "config.json"])
        source = _source_block(REVIEW_REPO, REVIEW_COMMIT, "v1.1", task, review is not None)
        _rewrite_json(rdir / "config.json", {"source": source})
        result = _load(rdir / "result.json")
        result["source"] = source
        if review is not None:
            _write(rdir / "solver.json", _dumps(result) + "\n")
        if review is None:
            _write(rdir / "result.json", _dumps(result) + "\n")
        elif review["status"] == "pending":
            (rdir / "result.json").unlink()
        else:
            verifier_reward = float(result["rewards"]["reward"])
            scoring, rewards = _scoring_block(review, verifier_reward, rdir.name)
            result["rewards"] = rewards
            result["scoring"] = scoring
            _write(rdir / "result.json", _dumps(result) + "\n")
            _write(rdir / "scoring" / "r1.json", _dumps(scoring) + "\n")
            _write(rdir / "reviews" / "r1" / "result.json",
                   _dumps(_reviewer_result(rdir.name, REVIEW_REVIEWER, result)) + "\n")
            if review["status"] == "complete":
                scores = iter(review["scores"])
                items = [{"id": item, "blocker": True, "passed": item not in review["failed"]}
                         if weight is None else
                         {"id": item, "blocker": False, "weight": weight, "score": next(scores)}
                         for item, weight in REVIEW_RUBRIC]
                _write(rdir / "reviews" / "r1" / "review.json", _dumps({"items": items}) + "\n")
        t = kept[rdir]
        for folder, dirs, files in os.walk(rdir):
            for name in files + dirs:
                os.utime(os.path.join(folder, name), t)
        for path, times in kept.items():
            if path.exists():
                os.utime(path, times)
    summary_source = _git_source(REVIEW_REPO, REVIEW_COMMIT, "v1.1") | {"dirty": False}
    _recount_summary(jobs_dir, jdir, {"reviewer": dict(REVIEW_REVIEWER), "source": summary_source})
    return jdir


def _write_budget_job(jobs_dir: Path) -> Path:
    jdir = write_job(jobs_dir, job_name="2026-12-02__09-00-00", setting=BUDGET_SETTING,
                     trials=BUDGET_TRIALS, seed=2202, results_steps=False)
    spent = 0
    for rdir in sorted(p for p in jdir.iterdir() if p.is_dir()):
        task = rdir.name.rsplit("__", 1)[0]
        source = _source_block(BUDGET_REPO, BUDGET_COMMIT, "main", task, False)
        _rewrite_json(rdir / "config.json", {"source": source})
        if (rdir / "result.json").exists():  # the cancelled trial has config.json only
            result = _rewrite_json(rdir / "result.json", {"source": source})
            spent += result["agent_result"]["total_tokens"]
    cap = (spent // 100_000) * 100_000
    budget = {"caps": {"tokens": cap, "usd": None}, "spent": {"tokens": spent, "usd": None},
              "stopped": True, "reason": f"token cap reached ({cap:,} tokens)",
              "cancelled": ["tail-follow"], "not_started": list(BUDGET_NOT_STARTED)}
    _update_summary(jobs_dir, jdir, {"budget": budget})
    return jdir


def build_review_jobs(out_dir: Path) -> dict[str, Path]:
    """Write the two review jobs (see the comment above) under ``out_dir``; return their folders.

    ``out_dir/rubric-review/2026-12-01__10-00-00`` and ``out_dir/budget-stop/2026-12-02__09-00-00``.
    Same bytes every time, like everything here.
    """
    out_dir = Path(out_dir)
    return {"rubric-review": _write_review_job(out_dir / "rubric-review"),
            "budget-stop": _write_budget_job(out_dir / "budget-stop")}


# --------------------------------------------------------------------------------------------
# CLI


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="benchflow_synth",
        description="Write synthetic BenchFlow 0.7.12 job folders (deterministic).")
    sub = parser.add_subparsers(dest="command", required=True)
    ex = sub.add_parser("example", help="(re)write the embedded example folder")
    ex.add_argument("out_dir", type=Path, help="e.g. resources/example/generated (deleted first)")
    sub.add_parser("grid", help="print the example's outcome grid")
    sc = sub.add_parser("scale", help="write N job folders x M trials (for benchmarks)")
    sc.add_argument("out_dir", type=Path, help="output folder (deleted first)")
    sc.add_argument("--jobs", type=int, required=True, help="job folders (N)")
    sc.add_argument("--trials", type=int, required=True, help="trials per job folder (M)")
    sc.add_argument("--seed", type=int, default=0)
    sc.add_argument("--request-kb", type=float, default=SCALE_REQUEST_KB,
                    help=f"KiB per llm_trajectory.jsonl line (default {SCALE_REQUEST_KB}; "
                    "0: unpadded, about 1 KB)")
    sc.add_argument("--requests", type=int, default=SCALE_REQUESTS,
                    help=f"request lines per trial that reached the model "
                    f"(default {SCALE_REQUESTS})")
    sc.add_argument("--workers", type=int, default=os.cpu_count() or 1,
                    help="processes writing job folders (the bytes do not depend on it)")
    sc.add_argument("--results-steps", action="store_true",
                    help="write the trainer steps into results.jsonl rows (bigger)")
    sub.add_parser("review-jobs", help="write small jobs with a rubric reviewer, a dataset "
                   "version, a budget stop and an unpriced model (for tests)").add_argument(
        "out_dir", type=Path, help="output folder (deleted first)")
    args = parser.parse_args(argv)
    if args.command == "grid":
        print(example_outcome_grid())
        return 0
    out = args.out_dir
    if out.resolve() in (Path("/").resolve(), Path.home().resolve(), Path.cwd().resolve()):
        parser.error(f"refusing to delete {out}")
    if out.exists():
        if not out.is_dir():
            parser.error(f"{out} exists and is not a directory")
        shutil.rmtree(out)
    if args.command == "review-jobs":
        build_review_jobs(out)
    elif args.command == "scale":
        if args.jobs < 1 or args.trials < 1 or args.requests < 1 or args.request_kb < 0:
            parser.error("--jobs, --trials and --requests must be >= 1, --request-kb >= 0")
        build_scale(out, jobs=args.jobs, trials=args.trials, seed=args.seed,
                    request_kb=args.request_kb, requests=args.requests, workers=args.workers,
                    results_steps=args.results_steps)
    else:
        build_example(out)
    n_files = n_bytes = 0
    for folder, _, files in os.walk(out):
        n_files += len(files)
        n_bytes += sum(os.stat(os.path.join(folder, name)).st_size for name in files)
    print(f"wrote {n_files} files, {n_bytes} bytes under {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
