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
    text = re.sub(r"[^a-z0-9._-]+", "-", str(text).lower()).strip("-.")
    return text or "none"


def setting_id(key: dict) -> str:
    """A readable, stable folder name: agent, model, effort, and a hash of the whole key."""
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
