"""The setting a trial ran under: what must be equal for two trials to be pooled.

The key holds what the run requested (recorded for every trial, errored ones too), the agent's
environment variables included, as config.json records them. What the provider served and what
effort the requests carried are observations: a setting reports them and warns when they differ,
rather than splitting off every trial that never reached the model. Within a setting, the tries
of each task are numbered across job folders (`number_tries`).
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Sequence

KEY_FIELDS = (
    "control",
    "agent",
    "harness_version",
    "model",
    "reasoning_effort",
    "dataset",
    "benchflow_version",
    "sandbox",
    "agent_env",
)
# The request fields that carry the effort a trial ran at (what the key's reasoning_effort asked).
EFFORT_KEYS = ("reasoning_effort", "thinking", "output_config")
MAX_TOKEN_KEYS = ("max_tokens", "max_completion_tokens", "max_output_tokens")
# The sampling parameters a setting lists as sent: the part of what ingest reads off a request
# (ingest.SAMPLING_KEYS, effort and thinking included) that sets how the model samples.
SAMPLING_PARAMETERS = ("temperature", "top_p", *MAX_TOKEN_KEYS)
# What BenchFlow 0.7.12 puts in every agent's env itself (config.json agent_env of real oracle,
# nop and agent runs given no --agent-env), and the variable it sets to the requested model for
# every agent but the oracle.
BENCHFLOW_ENV = {"CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1"}
MODEL_ENV = "BENCHFLOW_PROVIDER_MODEL"


def setting_key(attempt: dict) -> dict:
    key = {field: attempt.get(field) for field in KEY_FIELDS}
    if key["control"]:
        key["model"] = None  # a control calls no model, whatever the field says
        key["reasoning_effort"] = None
        if key["agent_env"]:  # nor the model its env names
            key["agent_env"] = {name: value for name, value in key["agent_env"].items() if name != MODEL_ENV}
    return key


def env_choices(key: dict) -> dict | None:
    """What the run chose of its agent's env: {"set": the variables whose value is not the one
    BenchFlow gives (BENCHFLOW_ENV, MODEL_ENV), "unset": BenchFlow's that it lacks}; None when
    no agent env is recorded. Empty for a run given no --agent-env."""
    env = key.get("agent_env")
    if env is None:
        return None
    given = BENCHFLOW_ENV | ({MODEL_ENV: key["model"]} if key.get("model") and key.get("agent") != "oracle" else {})
    return {
        "set": {name: value for name, value in env.items() if given.get(name) != value},
        "unset": sorted(set(given) - set(env)),
    }


def _slug(text) -> str:
    """A part of a folder name: lower-case letters, digits and ._- only, at most 40 characters
    (a model name of 300 characters would make a file name too long)."""
    text = re.sub(r"[^a-z0-9._-]+", "-", str(text).lower())[:40].strip("-.")
    return text or "none"


def setting_id(key: dict) -> str:
    """A readable, stable folder name: agent, model, effort, and a hash of the whole key. The
    key's values are the ones ingest kept (secrets already redacted), so no name carries one.

    The agent env is hashed as what the run chose of it (env_choices), and not at all where it
    chose nothing: BenchFlow's own variables follow from the agent and model, so a run given no
    --agent-env keeps the id it had before the env was part of a setting, and any other env, or
    none recorded, gets an id of its own."""
    hashed = {field: value for field, value in key.items() if field != "agent_env"}
    choices = env_choices(key)
    if choices != {"set": {}, "unset": []}:
        hashed["agent_env"] = choices
    digest = hashlib.sha256(json.dumps(hashed, sort_keys=True).encode()).hexdigest()[:6]
    model = (key.get("model") or "no-model").split("/")[-1]
    parts = [key.get("agent") or "unknown-agent", model]
    if key.get("reasoning_effort"):
        parts.append(f"effort-{key['reasoning_effort']}")
    return "--".join(_slug(part) for part in parts) + f"--{digest}"


def env_phrase(choices: dict | None) -> str | None:
    """What a run chose of its agent's env (env_choices) as a description says it, None when it
    chose nothing: 'agent env DISABLE_PROMPT_CACHING=1', 'agent env not recorded'."""
    if choices is None:
        return "agent env not recorded"
    parts = [f"{name}={value}" for name, value in choices["set"].items()]
    parts += [f"no {name}" for name in choices["unset"]]
    return "agent env " + ", ".join(parts) if parts else None


def describe(key: dict) -> str:
    """'<agent> on <model>' as a report headline says it, with what the run chose of its agent's
    env, which tells apart settings that differ only there."""
    if key.get("control"):
        text = f"{key.get('agent')} ({key['control']} control, no model)"
    else:
        model = key.get("model") or "no recorded model"
        text = f"{key.get('agent')} on {model}"
        if key.get("reasoning_effort"):
            text += f", effort {key['reasoning_effort']}"
    env = env_phrase(env_choices(key))
    return f"{text}, {env}" if env else text


def _ranks(values: Sequence) -> list[int]:
    """1-based rank of each value among the sorted distinct values."""
    order = {value: rank for rank, value in enumerate(sorted(set(values)), start=1)}
    return [order[value] for value in values]


def number_tries(trials: list[dict]) -> list[dict]:
    """Number the tries of each task within each setting, across job folders (in place).

    The layout numbers them when it names the tries of every task of the setting apart: the
    innermost try folder (`trial-NN`, as --matrix writes it), else the outermost (`seed-3/…/
    trial-01/`), else a recorded integer `seed` (tries ranked by it). Otherwise, as when every try
    ran as its own --matrix … --trials 1 job (each under `trial-01`), the tries of a task are
    ranked by their recorded started_at. `try_rule` says which: "folder", "seed" or "started_at".
    The stages that pool job folders call this first.
    """
    by_setting: dict[str, dict[str, list[dict]]] = {}
    for trial in trials:
        by_setting.setdefault(trial["setting"], {}).setdefault(trial["task"], []).append(trial)
    for tasks in by_setting.values():
        groups = [
            sorted(group, key=lambda t: (t.get("started_at") or "", t["job"], t["folder"])) for group in tasks.values()
        ]
        numbers: list[Sequence[int | None]]
        rule, numbers = "started_at", [list(range(1, len(group) + 1)) for group in groups]
        for name, number_of in _LAYOUT_RULES:
            found: list[Sequence[int | None]] = [[number_of(trial) for trial in group] for group in groups]
            if name == "seed" and all(None not in values for values in found):
                found = [_ranks(values) for values in found]
            if all(None not in values and len(set(values)) == len(values) for values in found):
                rule, numbers = name, found
                break
        for group, values in zip(groups, numbers):
            for trial, number in zip(group, values):
                trial["try_index"], trial["try_rule"] = number, rule
    return trials


def number_ingest_tries(ingests: list[dict]) -> list[dict]:
    """number_tries over the trials of several job folders' ingests (in place); a job folder whose
    trials all got one try number gets it as its own `try_index` (a per-try job, as a
    `trial-NN` folder gives it), else None."""
    number_tries([trial for ingest in ingests for trial in ingest["trials"]])
    for ingest in ingests:
        found = {trial["try_index"] for trial in ingest["trials"]}
        ingest["job"]["try_index"] = found.pop() if len(found) == 1 else None
    return ingests


# (rule, the try number a trial's layout gives it or None), in the order they are tried
_LAYOUT_RULES = (
    ("folder", lambda trial: (trial.get("try_folders") or [None])[-1]),
    ("folder", lambda trial: (trial.get("try_folders") or [None])[0]),
    ("seed", lambda trial: trial.get("seed") if type(trial.get("seed")) is int else None),  # a bool is no seed
)
