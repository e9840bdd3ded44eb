"""One attempt folder written as BenchFlow 0.7.12 writes it: config.json, result.json,
timing.json, the trajectory, the agent's logs and the verifier's output.
"""

from __future__ import annotations

import json
import os
import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from .common import (
    ERROR_MESSAGES,
    SANDBOX_LOCKED_PATHS,
    SUSPECTED_API_ERROR,
    _dumps,
    _epoch,
    _num_text,
    _rng,
    _utime,
    _write,
    rollout_suffix,
)
from .plan import _rewards_map
from .trajectories import _acp_events, _llm_lines, _oracle_stdout, _pad_llm_lines, _results_steps, _trajectory_summary

# --------------------------------------------------------------------------------------------
# writing one attempt


def _scene(s: dict) -> list[dict]:
    return [
        {
            "name": "default",
            "skills_dir": None,
            "roles": [
                {
                    "name": "agent",
                    "agent": s["agent"],
                    "model": s["model"],
                    "reasoning_effort": s["reasoning_effort"],
                    "timeout_sec": None,
                    "idle_timeout_sec": None,
                    "skills_dir": None,
                    "capabilities": None,
                    "env_keys": [],
                }
            ],
            "turns": [{"role": "agent", "has_prompt": False}],
        }
    ]


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


@dataclass(frozen=True)
class JobPlace:
    """The job an attempt is written into: its folder on disk and as the files name it (under the
    virtual root), the job name and seed its rollout suffix and random streams come from, and how
    its files are shaped (trainer steps in results.jsonl; llm_trajectory.jsonl lines padded to
    that many bytes, see ``_pad_llm_lines``, or None: unpadded)."""

    jdir: Path
    vjob: str
    job: str
    seed: int
    results_steps: bool = True
    llm_line_bytes: int | None = None


def _write_attempt(
    place: JobPlace, s: dict, task: str, prompt: str, digest: str, timeout_sec: int, p: dict, started: datetime
) -> dict | None:
    """Write one attempt folder; return the result.json dict (None when interrupted)."""
    rollout = f"{task}__{rollout_suffix(place.seed, place.job, task, p['idx'])}"
    rdir = place.jdir / rollout
    rng = _rng(place.seed, place.job, task, p["idx"], "write")
    for sub in ("agent", "verifier", "artifacts", "trajectory"):
        (rdir / sub).mkdir(parents=True, exist_ok=True)
    _write(rdir / "config.json", _dumps(_config(s, task, started, digest, timeout_sec)) + "\n")
    p["rollout"] = rollout
    if p["kind"] == "interrupted":
        p["finished"] = started + timedelta(seconds=p["run_for"])  # killed then (not written)
        for sub in ("agent", "verifier", "artifacts", "trajectory", ""):
            _utime(rdir / sub if sub else rdir, started)
        _utime(rdir / "config.json", started)
        return None
    finished = started + timedelta(seconds=p["total"])
    p["timeout_sec"] = float(timeout_sec)
    timing = {k: round(v, 1) for k, v in p["phases"].items()}
    timing["total"] = round((finished - started).total_seconds(), 1)
    # the stream is drawn in this order: the ACP events, the usage, the errors
    events = _acp_events(s, task, prompt, p, rng)
    usage = _usage(place, s, task, prompt, p, started, rng)
    vdir = f"{place.vjob}/{rollout}"
    failure = _failure(s, task, p, started, timeout_sec, vdir, rng)
    agent_result = _agent_result(p, usage)
    result = _result(s, task, rollout, digest, p, events, agent_result, failure, started, finished, timing)
    _write_attempt_files(rdir, place, s, task, prompt, vdir, p, result, events, usage, timing, finished)
    t_finished = _epoch(finished)
    for folder, dirs, files in os.walk(rdir):
        for name in files + dirs:
            os.utime(os.path.join(folder, name), (t_finished, t_finished))
    _utime(rdir / "config.json", started)
    _utime(rdir, finished)
    p["finished"] = finished
    return result


def _usage(place: JobPlace, s: dict, task: str, prompt: str, p: dict, started: datetime, rng: random.Random) -> dict:
    """What the attempt used: the LLM request lines (and their padded encoding), the token counts,
    the cost and its price source, as the agent's usage source records them."""
    att = p["att"]
    lines: list[dict] = []
    encoded_lines: list[str] | None = None
    n_in = n_out = n_cr = n_cw = total_tokens = 0
    cost: float | None = None
    usage_details = None
    usage_source = s["usage_source"] if p["active"] else "unavailable"
    if p["active"] and s["served_model"] is not None:
        exec_start = started + timedelta(seconds=p["phases"]["environment_setup"] + p["phases"]["agent_setup"] + 0.5)
        lines, agg = _llm_lines(
            s, task, prompt, p, exec_start, max(5.0, p["phases"].get("agent_execution", 5.0) - 1.0), rng
        )
        n_in, n_out, n_cr, n_cw, total_tokens = (agg["in"], agg["out"], agg["cr"], agg["cw"], agg["total"])
        if place.llm_line_bytes:
            encoded_lines = _pad_llm_lines(
                lines, place.llm_line_bytes, _rng(place.seed, place.job, task, p["idx"], "pad")
            )
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
    return {
        "lines": lines,
        "encoded_lines": encoded_lines,
        "input": n_in,
        "output": n_out,
        "cache_read": n_cr,
        "cache_creation": n_cw,
        "total": total_tokens,
        "cost": cost,
        "details": usage_details,
        "source": usage_source,
        "price_source": price_source,
    }


def _failure(s: dict, task: str, p: dict, started: datetime, timeout_sec: int, vdir: str, rng: random.Random) -> dict:
    """The attempt's agent error and verifier error, and BenchFlow's diagnostic blocks of them."""
    att, kind, cat = p["att"], p["kind"], p["att"]["error_category"]
    error = None
    verifier_error = None
    diag: dict[str, Any] = {
        k: None
        for k in (
            "idle_timeout_info",
            "agent_timeout_info",
            "sandbox_startup_info",
            "transport_error_info",
            "verifier_timeout_info",
            "api_error_info",
            "suspected_api_error_info",
        )
    }
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
            diag["transport_error_info"] = {
                "reason": "transport_closed",
                "raw_message": error,
                "process_exit_code": 255,
                "transport_diagnosis": "process_exited",
            }
    elif kind == "suspected_api_error":
        error = SUSPECTED_API_ERROR
        diag["suspected_api_error_info"] = {
            "total_tokens": 0,
            "n_tool_calls": 0,
            "total_requests": 0,
            "failed_requests": 0,
        }
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
            verifier_error = (
                f"verifier crashed: No reward file found at {vdir}/verifier/reward.txt or {vdir}/verifier/reward.json"
            )
    return {"error": error, "verifier_error": verifier_error, "diagnostics": diag}


def _agent_result(p: dict, usage: dict) -> dict:
    """result.json's ``agent_result`` block: the counts and the usage with its sources."""
    agent_result: dict[str, Any] = {
        "n_tool_calls": p["n_tools"],
        "n_skill_invocations": 0,
        "n_prompts": 1,
        "n_input_tokens": usage["input"],
        "n_output_tokens": usage["output"],
        "n_cache_read_tokens": usage["cache_read"],
        "n_cache_creation_tokens": usage["cache_creation"],
        "total_tokens": usage["total"],
        "cost_usd": usage["cost"],
        "usage_source": usage["source"],
        "price_source": usage["price_source"],
    }
    if usage["details"] is not None:
        agent_result["usage_details"] = usage["details"]
    return agent_result


def _result(
    s: dict,
    task: str,
    rollout: str,
    digest: str,
    p: dict,
    events: list[dict],
    agent_result: dict,
    failure: dict,
    started: datetime,
    finished: datetime,
    timing: dict,
) -> dict:
    """The attempt's result.json, in BenchFlow 0.7.12's key order."""
    att = p["att"]
    error, verifier_error = failure["error"], failure["verifier_error"]
    usage_source = agent_result["usage_source"]
    source = "acp" if (not s["is_oracle"] and p["ran_agent"]) else None
    endpoint = {"agent_native_acp": "agent_native", "unavailable": "none"}.get(usage_source, "host")
    result: dict[str, Any] = {
        "task_name": task,
        "rollout_name": rollout,
        "rewards": _rewards_map(att["reward"]),
        "agent": s["agent"],
        "agent_name": s["agent_name"],
        "model": s["model"],
        **SKILL_KEYS,
        "n_tool_calls": p["n_tools"],
        "n_skill_invocations": 0,
        "n_prompts": 1,
        "agent_result": agent_result,
        "final_metrics": {
            "total_prompt_tokens": agent_result["n_input_tokens"],
            "total_completion_tokens": agent_result["n_output_tokens"],
            "total_cached_tokens": agent_result["n_cache_read_tokens"],
            "total_cost_usd": agent_result["cost_usd"],
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
        "error_category": att["error_category"] if error is not None else None,
        "verifier_error": verifier_error,
        "verifier_error_category": att["verifier_error_category"] if verifier_error else None,
        "export_error": None,
        **failure["diagnostics"],
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
    return result


def _write_attempt_files(
    rdir: Path,
    place: JobPlace,
    s: dict,
    task: str,
    prompt: str,
    vdir: str,
    p: dict,
    result: dict,
    events: list[dict],
    usage: dict,
    timing: dict,
    finished: datetime,
) -> None:
    """Every file of a finished attempt but config.json (written first)."""
    rewards, error, verifier_error = result["rewards"], result["error"], result["verifier_error"]
    _write(rdir / "result.json", _dumps(result) + "\n")
    _write(rdir / "timing.json", _dumps(timing))
    _write(rdir / "prompts.json", _dumps([prompt]))
    acp_text = "\n".join(json.dumps(e) for e in events)
    _write(rdir / "trajectory" / "acp_trajectory.jsonl", acp_text)
    lines, encoded_lines = usage["lines"], usage["encoded_lines"]
    if lines:
        if encoded_lines is None:
            encoded_lines = [json.dumps(line) for line in lines]
        _write(rdir / "trajectory" / "llm_trajectory.jsonl", "\n".join(encoded_lines))
    if rewards is not None:
        event = {
            "ts": finished.isoformat(),
            "type": "terminal",
            "source": "verifier",
            "value": rewards["reward"],
            "tag": "reward",
            "step_index": None,
            "space": "output",
            "granularity": "terminal",
            "meta": {k: v for k, v in rewards.items() if k != "reward"},
        }
        _write(rdir / "rewards.jsonl", json.dumps(event) + "\n")
    _write_agent_logs(rdir, s, task, p, error)
    _write_verifier(rdir, p, p["att"]["reward"], verifier_error)
    row = _results_row(
        s,
        task,
        result["rollout_name"],
        vdir,
        prompt,
        rewards,
        error,
        verifier_error,
        timing,
        result["agent_result"],
        lines,
        p["n_tools"],
        place.results_steps,
    )
    _write(rdir / "results.jsonl", json.dumps(row) + "\n")


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
        _write(
            rdir / "agent" / name,
            f"{s['agent_name']}: session started ({s['model']})\n"
            f"{s['agent_name']}: prompt 1/1, {p['n_tools']} tool calls\n{tail}\n",
        )


def _write_verifier(rdir: Path, p: dict, reward: float | None, verifier_error: str | None) -> None:
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


def _results_row(
    s: dict,
    task: str,
    rollout: str,
    vdir: str,
    prompt: str,
    rewards: dict | None,
    error: str | None,
    verifier_error: str | None,
    timing: dict,
    agent_result: dict,
    lines: list[dict],
    n_tools: int,
    with_steps: bool = True,
) -> dict:
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
        top_prompt, completion = full[: last_user + 1], full[last_user + 1 :]
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
            name = reason if reason in ("agent_error", "verifier_error") else ("missing_llm_trajectory")
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
        "token_usage": {
            "input_tokens": tin,
            "output_tokens": tout,
            "final_input_tokens": tin,
            "final_output_tokens": tout,
            "total_tokens": ttot,
        },
        "score": reward,
        "total_tool_calls": float(n_tools),
        "trajectory": steps if with_steps else [],
    }
