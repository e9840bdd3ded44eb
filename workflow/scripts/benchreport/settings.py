"""The setting a trial ran under: what must be equal for two trials to be pooled.

The key holds what the run requested (recorded for every trial, errored ones too). What the
provider served and what effort the requests carried are observations: a setting reports them
and warns when they differ, rather than splitting off every trial that never reached the model.
Within a setting, the tries of each task are numbered across job folders (`number_tries`).
"""

from __future__ import annotations

import hashlib
import json
import re

KEY_FIELDS = (
    "control",
    "agent",
    "harness_version",
    "model",
    "reasoning_effort",
    "dataset",
    "benchflow_version",
    "sandbox",
)
NOT_RECORDED = "not recorded"


def setting_key(attempt: dict) -> dict:
    key = {field: attempt.get(field) for field in KEY_FIELDS}
    if key["control"]:
        key["model"] = None  # a control calls no model, whatever the field says
        key["reasoning_effort"] = None
    return key


def _slug(text) -> str:
    """A part of a folder name: lower-case letters, digits and ._- only, at most 40 characters
    (a model name of 300 characters would make a file name too long)."""
    text = re.sub(r"[^a-z0-9._-]+", "-", str(text).lower())[:40].strip("-.")
    return text or "none"


def setting_id(key: dict) -> str:
    """A readable, stable folder name: agent, model, effort, and a hash of the whole key. The
    key's values are the ones ingest kept (secrets already redacted), so no name carries one."""
    digest = hashlib.sha256(json.dumps(key, sort_keys=True).encode()).hexdigest()[:6]
    model = (key.get("model") or "no-model").split("/")[-1]
    parts = [key.get("agent") or "unknown-agent", model]
    if key.get("reasoning_effort"):
        parts.append(f"effort-{key['reasoning_effort']}")
    return "--".join(_slug(part) for part in parts) + f"--{digest}"


def describe(key: dict) -> str:
    """'<agent> on <model>' as a report headline says it."""
    if key.get("control"):
        return f"{key.get('agent')} ({key['control']} control, no model)"
    model = key.get("model") or "no recorded model"
    text = f"{key.get('agent')} on {model}"
    if key.get("reasoning_effort"):
        text += f", effort {key['reasoning_effort']}"
    return text


def _ranks(values: list) -> list[int]:
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
        rule, numbers = "started_at", [list(range(1, len(group) + 1)) for group in groups]
        for name, number_of in _LAYOUT_RULES:
            found = [[number_of(trial) for trial in group] for group in groups]
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


def _seed(trial: dict) -> int | None:
    seed = trial.get("seed")
    return seed if isinstance(seed, int) and not isinstance(seed, bool) else None


# (rule, the try number a trial's layout gives it or None), in the order they are tried
_LAYOUT_RULES = (
    ("folder", lambda trial: (trial.get("try_folders") or [None])[-1]),
    ("folder", lambda trial: (trial.get("try_folders") or [None])[0]),
    ("seed", _seed),
)
