"""The shared constants of the generator (kinds, prices, error messages, the virtual roots) and
the small helpers every part uses (seeded random streams, JSON layout, timestamps, file times).
"""

from __future__ import annotations

import calendar
import hashlib
import json
import os
import random
from datetime import datetime
from pathlib import Path
from typing import Any

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
    "suspected provider api error: agent ended with zero tokens and zero tool calls (no scoreable model activity)"
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
    return hashlib.sha256(f"{seed}|{job}|{task}|{attempt}".encode()).hexdigest()[:8]


def default_task_digest(task: str) -> str:
    """A stable stand-in for BenchFlow's task_digest (sha256 over the task folder)."""
    return "sha256:" + hashlib.sha256(f"benchflow-synth-task:{task}".encode()).hexdigest()


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
    for fmt in (
        "%Y-%m-%d__%H-%M-%S",
        "%Y-%m-%d %H:%M:%S",
        "%Y-%m-%dT%H:%M:%S",
        "%Y-%m-%d %H:%M:%S.%f",
        "%Y-%m-%dT%H:%M:%S.%f",
        "%Y-%m-%d",
    ):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    raise ValueError(f"cannot parse start time {text!r}")


def _job_name_of(dt: datetime) -> str:
    return dt.strftime("%Y-%m-%d__%H-%M-%S")


def _num_text(x: float) -> str:
    return str(int(x)) if float(x).is_integer() else repr(float(x))
