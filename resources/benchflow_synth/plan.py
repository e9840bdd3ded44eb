"""A setting and an attempt normalised to their defaults, and one attempt planned (durations,
counts, tokens, cost) before it is placed on the timeline.
"""

from __future__ import annotations

from typing import Any

from .common import KINDS, NOP_AGENTS, USAGE_SOURCES, _rng

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
        s["api_style"] = "anthropic" if model.startswith("anthropic/") or "claude" in agent else "openai"
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


def _plan_attempt(s: dict, task: str, att: dict, idx: int, job: str, seed: int, timeout_sec: int) -> dict:
    rng = _rng(seed, job, task, idx, "plan")
    kind = att["kind"]
    cat = att["error_category"]
    p: dict[str, Any] = {"kind": kind, "att": att, "idx": idx}
    if kind == "interrupted":
        p["run_for"] = rng.uniform(20.0, 240.0)
        return p

    ran_agent = not (kind == "agent_error" and cat in ("install_failure", "sandbox_setup"))
    verifier_ran = kind in ("passed", "failed", "agent_error_scored", "verifier_error", "suspected_api_error")
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
                execution = rng.uniform(0.35, 0.8) * s["duration_scale"] + float(s["agent_idle_timeout_sec"] or 600)
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
