"""What an attempt's agent recorded: the ACP events, the LLM request lines (padded to a size for
the scale runs) and the trainer steps of a results.jsonl row.
"""

from __future__ import annotations

import json
import random
from datetime import datetime, timedelta
from typing import Any

from .common import DEFAULT_PRICE, PRICES, THINKING_BUDGET, TOOL_TITLES, _epoch

# --------------------------------------------------------------------------------------------
# trajectories


def _task_files(task: str) -> tuple[str, str]:
    stem = task.replace("-", "_")
    return f"src/{stem}.py", stem


def _acp_events(s: dict, task: str, prompt: str, p: dict, rng: random.Random) -> list[dict]:
    kind, cat = p["kind"], p["att"]["error_category"]
    if s["is_oracle"]:
        return [{"type": "oracle", "command": "solution/solve.sh", "return_code": 0, "stdout": _oracle_stdout(task)}]
    if not p["ran_agent"]:
        return []
    events: list[dict] = [{"type": "user_message", "text": prompt}]
    if s["is_nop"]:
        if p["n_tools"]:
            events.append(
                {
                    "type": "tool_call",
                    "tool_call_id": "noop-100003",
                    "kind": "other",
                    "title": "noop",
                    "status": "completed",
                    "content": [],
                }
            )
        return events
    f, m = _task_files(task)
    prefix = {"anthropic": "toolu_"}.get(s["api_style"], "call_")
    pending: list[str] = []
    for i in range(p["n_tools"]):
        if i % 3 == 0:
            events.append({"type": "agent_thought", "text": f"Step {i + 1}: inspect {f}."})
        tkind, title = TOOL_TITLES[rng.randrange(len(TOOL_TITLES))]
        status = "completed" if rng.random() > 0.12 else "failed"
        tcid = f"{prefix}{rng.getrandbits(48):012x}"
        events.append(
            {
                "type": "tool_call",
                "tool_call_id": tcid,
                "kind": tkind,
                "title": title.format(f=f, m=m),
                "status": status,
                "content": [],
            }
        )
    if kind in ("agent_error", "agent_error_scored") and cat == "timeout":
        events.append(
            {
                "type": "agent_timeout",
                "reason": "prompt exceeded wall-clock budget",
                "timeout_sec": p["timeout_sec"],
                "pending_tool_call_ids": pending,
                "terminal_trajectory_complete": not pending,
            }
        )
        p["pending"] = pending
    elif kind in ("agent_error", "agent_error_scored") and cat in ("idle_timeout", "acp_error"):
        p["pending"] = pending
    else:
        events.append(
            {
                "type": "agent_message",
                "text": f"Done: updated {f}; tests pass locally."
                if kind == "passed"
                else f"I changed {f} and ran the tests.",
            }
        )
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


def _llm_lines(
    s: dict, task: str, prompt: str, p: dict, exec_start: datetime, exec_len: float, rng: random.Random
) -> tuple[list[dict], dict]:
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
                body["thinking"] = {
                    "type": "enabled",
                    "budget_tokens": THINKING_BUDGET.get(s["reasoning_effort"], 10000),
                }
            response = {
                "id": f"msg_{rng.getrandbits(64):016x}",
                "type": "message",
                "role": "assistant",
                "model": served,
                "content": [{"type": "text", "text": text}],
                "stop_reason": "end_turn" if last else "tool_use",
                "usage": {
                    "input_tokens": inp,
                    "output_tokens": out,
                    "cache_read_input_tokens": cr,
                    "cache_creation_input_tokens": cw,
                },
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
                "choices": [
                    {
                        "index": 0,
                        "message": {"role": "assistant", "content": text},
                        "finish_reason": "stop" if last else "tool_calls",
                    }
                ],
                "usage": {
                    "prompt_tokens": fresh_in,
                    "completion_tokens": out,
                    "total_tokens": fresh_in + out,
                    "prompt_tokens_details": {"cached_tokens": cr},
                    "completion_tokens_details": {"reasoning_tokens": reasoning},
                },
            }
            call_type, path = "acompletion", "/v1/chat/completions"
            n_in = fresh_in
            cost = (fresh_in - cr) * price[0] + out * price[1] + cr * price[2]
            line_total = fresh_in + out
        lines.append(
            {
                "request": {
                    "timestamp": req_t.isoformat(),
                    "method": "POST",
                    "path": path,
                    "headers": {},
                    "body": body,
                },
                "response": {"timestamp": resp_t.isoformat(), "status_code": 200, "headers": {}, "body": response},
                "duration_ms": dur_ms,
                "metadata": {
                    "request_model": model,
                    "provider_model": served,
                    "model_group": model,
                    "call_type": call_type,
                    "input_shape": {"has_messages": True, "has_input": False, "n_messages": len(messages)},
                    "call_purpose": "agent",
                },
            }
        )
        agg["in"] += n_in
        agg["out"] += out
        agg["cr"] += cr
        agg["cw"] += cw
        agg["total"] += line_total
        agg["cost"] += cost
    return lines, agg


_FILLER_WORDS = (
    "the",
    "file",
    "test",
    "value",
    "return",
    "import",
    "def",
    "class",
    "self",
    "data",
    "path",
    "line",
    "error",
    "assert",
    "result",
    "config",
    "json",
    "parse",
    "output",
    "input",
    "index",
    "None",
    "True",
    "False",
    "for",
    "in",
    "if",
    "else",
    "while",
    "with",
    "open",
    "read",
    "write",
    "PASSED",
    "FAILED",
    "tests/test_main.py",
    "src/main.py",
    "0",
    "1",
    "42",
    "==",
    "->",
    "#",
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
        return block[offset : offset + length]
    reps = (offset + length) // len(block) + 1
    return (block * reps)[offset : offset + length]


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
        extras = {"source": "llm_trajectory", "tracking_source": "litellm_callback", "exchange_index": i}
        extras.update({k: v for k, v in line["metadata"].items() if k not in extras})
        steps.append(
            {
                "prompt": list(line["request"]["body"]["messages"]),
                "completion": [{"role": "assistant", "content": text}],
                "response": body,
                "tokens": None,
                "reward": reward,
                "advantage": 0.0,
                "is_truncated": False,
                "trajectory_id": f"{rollout}__llm_{i}",
                "extras": extras,
            }
        )
    return steps
