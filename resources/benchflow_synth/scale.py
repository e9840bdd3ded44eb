"""Many large job folders for the benchmarks (build_scale), written by several processes."""

from __future__ import annotations

import json
import math
import random
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

from .common import MATRIX_ROOT, VIRTUAL_ROOT, _job_name_of, _parse_start, _rng, _seed_int, _utime, _write
from .jobs import _write_job

# --------------------------------------------------------------------------------------------
# scale: many large job folders, for benchmarks


SCALE_REQUESTS = 20
SCALE_REQUEST_KB = 30
SCALE_START = "2026-10-01 06:00:00"


def _claude_scale_setting(effort: str, skill: float) -> dict:
    """Claude Sonnet 4.5 through claude-agent-acp at one reasoning effort (two scale settings)."""
    return {
        "dir": f"claude-sonnet-{effort}",
        "alias": f"claude-sonnet-4-5-{effort}",
        "skill": skill,
        "setting": {
            "agent": "claude-agent-acp",
            "agent_name": "claude-agent-acp",
            "model": "anthropic/claude-sonnet-4-5",
            "reasoning_effort": effort,
            "served_model": "claude-sonnet-4-5-20250929",
            "usage_source": "provider_response",
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
        "dir": "codex-gpt-5.1",
        "alias": "codex-gpt-5.1",
        "skill": 0.6,
        "setting": {
            "agent": "codex-acp",
            "agent_name": "codex-acp",
            "model": "openai/gpt-5.1",
            "reasoning_effort": None,
            "served_model": "gpt-5.1-2025-11-13",
            "usage_source": "provider_response",
            "price_source": "litellm",
            "concurrency": 32,
        },
    },
    _claude_scale_setting("low", skill=0.2),
    {
        "dir": "opencode-gpt-5-mini",
        "alias": "opencode-gpt-5-mini",
        "skill": -0.4,
        "setting": {
            "agent": "opencode",
            "agent_name": "opencode",
            "model": "openai/gpt-5-mini",
            "reasoning_effort": "low",
            "served_model": "gpt-5-mini-2025-08-07",
            "usage_source": "provider_response",
            "price_source": None,
            "concurrency": 32,
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
            final = {
                "kind": "verifier_error",
                "verifier_error_category": "verifier_timeout" if rng.random() < 0.3 else "verifier_failure",
            }
        elif u < 0.095:
            final = {"kind": "unscored"}
        elif u < 0.105:
            final = {
                "kind": "agent_error_scored",
                "error_category": "timeout",
                "reward": 1.0 if rng.random() < p_pass else 0.0,
            }
        elif r < p_pass:
            final = {"kind": "passed"}
        else:
            final = {"kind": "failed", "reward": 0.5 if rng.random() < 0.1 else 0.0}
    v = rng.random()
    if v < 0.015:  # BenchFlow retried after an agent error
        first = {
            "kind": "agent_error",
            "error_category": ("install_failure", "acp_error", "idle_timeout")[rng.randrange(3)],
        }
        return [first, final]
    if v < 0.017:  # killed mid-run, then resumed
        return [{"kind": "interrupted"}, final]
    if v < 0.0175:  # killed and never resumed
        return [{"kind": "interrupted"}]
    return [final]


def scale_job_specs(jobs: int, trials: int, seed: int = 0, settings: int = len(SCALE_SETTINGS)) -> list[dict]:
    """Where each job folder of a scale build goes and what it holds (no file is written).

    Job i has setting ``SCALE_SETTINGS[i % S]`` (S = min(settings, 4, jobs)) and try index i // S + 1;
    it lands in ``<setting dir>/<alias>/trial-NN/<YYYY-MM-DD__HH-MM-SS>/``. Tries of one setting
    start a day apart, settings five hours apart.
    """
    if jobs < 1 or trials < 1 or settings < 1:
        raise ValueError("jobs, trials and settings must be at least 1")
    n_settings = min(len(SCALE_SETTINGS), jobs, settings)
    tries = [len(range(k, jobs, n_settings)) for k in range(n_settings)]
    base = _parse_start(SCALE_START)
    specs = []
    for i in range(jobs):
        k = i % n_settings
        n = i // n_settings + 1
        spec = SCALE_SETTINGS[k]
        start = base + timedelta(
            days=n - 1, hours=5 * k, seconds=_seed_int(seed, "scale-start", spec["alias"], n) % 3600
        )
        specs.append(
            {
                "index": i,
                "setting_index": k,
                "try": n,
                "jobs_dir": f"{spec['dir']}-x{tries[k]}",
                "alias": spec["alias"],
                "job_name": _job_name_of(start),
                "start": str(start),
                "seed": _seed_int(seed, "scale-job", i) % 1_000_000_007,
            }
        )
    return specs


def scale_trials(spec: dict, trials: int, seed: int = 0) -> list[dict]:
    """The trial list (``write_job`` shape) of one job of a scale build."""
    setting = SCALE_SETTINGS[spec["setting_index"]]
    tasks = scale_task_names(trials)
    rng = _rng(seed, "scale-specials", spec["alias"], spec["try"])
    specials = {}
    if trials >= len(SCALE_SPECIALS):
        for pos, (_, attempts) in zip(rng.sample(range(trials), len(SCALE_SPECIALS)), SCALE_SPECIALS):
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
        tdir,
        job_name=spec["job_name"],
        setting=setting["setting"],
        trials=scale_trials(spec, trials, seed),
        seed=spec["seed"],
        write_summary=True,
        start=_parse_start(spec["start"]),
        vjobs=f"{VIRTUAL_ROOT}/{spec['jobs_dir']}/{spec['alias']}/trial-{spec['try']:02d}",
        results_steps=results_steps,
        n_requests=n_requests,
        llm_line_bytes=line_bytes,
    )
    run = None
    if summary is not None:
        run = {key: summary[key] for key in ("errored", "failed", "passed", "total", "verifier_errored")}
    return spec["index"], {"run": run, "end": str(job_end)}


def build_scale(
    out_dir: Path,
    *,
    jobs: int,
    trials: int,
    seed: int = 0,
    request_kb: float = SCALE_REQUEST_KB,
    requests: int = SCALE_REQUESTS,
    workers: int = 1,
    results_steps: bool = False,
    settings: int = len(SCALE_SETTINGS),
) -> dict:
    """Write ``jobs`` BenchFlow 0.7.12 job folders of ``trials`` trials each into ``out_dir``.

    Matrix layout, ``<setting dir>-x<tries>/<alias>/trial-NN/<job>/``, cycling through the first
    ``settings`` of ``SCALE_SETTINGS`` (four agent/model/effort settings); each job runs the same ``trials``
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
    specs = scale_job_specs(jobs, trials, seed, settings)
    line_bytes = round(request_kb * 1024) or None
    tasks = [(str(out_dir), spec, trials, seed, requests, line_bytes, results_steps) for spec in specs]
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
                runs.append({"alias": spec["alias"], "jobs_dir": vdir, "trial": spec["try"], **info["run"]})
        ms = {"matrix": f"{MATRIX_ROOT}/{jobs_dir}.yaml", "runs": runs, "schema_version": 1, "trials": len(group)}
        _write(out_dir / jobs_dir / "matrix-summary.json", json.dumps(ms, indent=2, sort_keys=True) + "\n")
        last_end = max(_parse_start(done[spec["index"]]["end"]) for spec in group)
        _utime(out_dir / jobs_dir / "matrix-summary.json", last_end)
        _utime(out_dir / jobs_dir / group[0]["alias"], last_end)
        _utime(out_dir / jobs_dir, last_end)
    return {
        "jobs": jobs,
        "trials_per_job": trials,
        "settings": len(by_dir),
        "requests": requests,
        "request_bytes": line_bytes,
    }
