"""config/schema.yaml is the one source of every default: config/config.yaml states only what a
user changes and sets nothing but the keys that describe its job folders to a value other than
the schema's, and a config that leaves a key out, nested ones too, gets the schema's default
(Snakemake's validate, which the workflow runs at start)."""

from __future__ import annotations

import copy

import pytest
import yaml
from benchreport.pipeline.configcheck import problems
from conftest import REPO
from snakemake.utils import validate

SCHEMA_FILE = REPO / "config" / "schema.yaml"
SCHEMA = yaml.safe_load(SCHEMA_FILE.read_text())
# the keys that describe a user's job folders, which no default can know
FOLDER_KEYS = {"job_roots", "controls.nop_agents"}
# what config/config.yaml may state besides them, each at the schema's default
SHOWN_AT_DEFAULT = {
    "controls.on_failure",
    "controls.on_unverified",
    "statistics.seed",
    "statistics.resamples",
    "statistics.confidence",
    "statistics.solve_threshold",
    "statistics.min_trials_per_task",
    "statistics.coverage_simulations",
    "statistics.permutations",
    "environment.docker_host",
}


def leaves(config: dict, prefix: str = "") -> dict:
    """Dotted key -> value of every non-mapping value (and empty mapping) under `config`."""
    found = {}
    for key, value in config.items():
        if isinstance(value, dict) and value:
            found |= leaves(value, f"{prefix}{key}.")
        else:
            found[f"{prefix}{key}"] = value
    return found


def schema_defaults(schema: dict) -> dict:
    """The config every default of `schema` makes, read from its `default` fields: an object
    with properties of its own is made of its properties' defaults."""
    made = {}
    for key, sub in schema.get("properties", {}).items():
        if "properties" in sub:
            made[key] = schema_defaults(sub)
        elif "default" in sub:
            made[key] = sub["default"]
    return made


def with_defaults(config: dict) -> dict:
    """`config` as the workflow sees it: checked against the schema, every default filled in."""
    filled = copy.deepcopy(config)
    validate(filled, str(SCHEMA_FILE))
    return filled


def schema_keys(schema: dict, prefix: str = "") -> dict:
    """Dotted key -> its schema, for every property at any depth."""
    found = {}
    for key, sub in schema.get("properties", {}).items():
        found[f"{prefix}{key}"] = sub
        found |= schema_keys(sub, f"{prefix}{key}.")
    return found


def test_every_key_but_job_roots_has_a_default_objects_an_empty_one():
    keys = schema_keys(SCHEMA)
    assert set(SCHEMA["required"]) == {"job_roots"} and "default" not in keys["job_roots"]
    assert [key for key, sub in keys.items() if key != "job_roots" and "default" not in sub] == []
    # an object left out is filled in as {} and then from its own properties' defaults
    assert {key: sub["default"] for key, sub in keys.items() if "properties" in sub} == {
        key: {} for key, sub in keys.items() if "properties" in sub
    }


def test_a_config_of_job_roots_alone_gets_every_default_nested_ones_too():
    smallest = {"job_roots": ["jobs"]}
    assert problems(smallest, SCHEMA) == []
    filled = with_defaults(smallest)
    assert filled == {"job_roots": ["jobs"]} | schema_defaults(SCHEMA)
    assert filled["controls"]["run"]["nop_args"] == ["--agent-idle-timeout", "0"]  # two levels below a missing key
    assert filled["controls"]["nop_agents"] == []  # BenchFlow's own nop agents are built in


@pytest.mark.parametrize("name", ["config/config.yaml", ".test/config/config.yaml"])
def test_a_shipped_config_sets_no_key_off_its_default_but_the_job_folders(name):
    config = yaml.safe_load((REPO / name).read_text())
    assert problems(config, SCHEMA) == []
    defaults = leaves(schema_defaults(SCHEMA))
    stated = leaves(config)
    assert set(stated) - FOLDER_KEYS <= SHOWN_AT_DEFAULT
    assert {key: value for key, value in stated.items() if key not in FOLDER_KEYS and value != defaults[key]} == {}
    # filled in, it is the smallest config filled in: every other value comes from the schema
    filled = leaves(with_defaults(config))
    smallest = leaves(with_defaults({key: config[key] for key in ("job_roots",)}))
    assert {key for key in filled if filled[key] != smallest[key]} <= FOLDER_KEYS - {"job_roots"}


def test_the_catalog_config_states_only_the_job_folders():
    config = yaml.safe_load((REPO / ".test" / "config" / "config.yaml").read_text())
    assert set(leaves(config)) == FOLDER_KEYS
