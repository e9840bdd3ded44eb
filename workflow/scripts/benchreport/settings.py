"""The setting a trial ran under: what must be equal for two trials to be pooled.

The key holds what the run requested (recorded for every trial, errored ones too). What the
provider served and what effort the requests carried are observations: a setting reports them
and warns when they differ, rather than splitting off every trial that never reached the model.
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

    The layout numbers them when it names each one apart: the innermost try folder (`trial-NN`,
    as --matrix writes it), else the outermost (`seed-3/…/trial-01/`), else a recorded integer
    `seed` (tries ranked by it). Otherwise, as when every try ran as its own --matrix … --trials 1
    job (each under `trial-01`), the tries are ranked by their recorded started_at. `try_rule`
    says which: "folder", "seed" or "started_at". Stages that pool job folders call this first.
    """
    groups: dict[tuple, list[dict]] = {}
    for trial in trials:
        groups.setdefault((trial["setting"], trial["task"]), []).append(trial)
    for group in groups.values():
        group.sort(key=lambda t: (t.get("started_at") or "", t["job"], t["folder"]))
        folders = [t.get("try_folders") or [] for t in group]
        seeds = [t.get("seed") if isinstance(t.get("seed"), int) and not isinstance(t.get("seed"), bool) else None
                 for t in group]
        candidates = [
            ("folder", [found[-1] if found else None for found in folders]),
            ("folder", [found[0] if found else None for found in folders]),
            ("seed", _ranks(seeds) if None not in seeds else seeds),
        ]
        rule, numbers = "started_at", list(range(1, len(group) + 1))
        for name, values in candidates:
            if None not in values and len(set(values)) == len(values):
                rule, numbers = name, values
                break
        for trial, number in zip(group, numbers):
            trial["try_index"], trial["try_rule"] = number, rule
    return trials
