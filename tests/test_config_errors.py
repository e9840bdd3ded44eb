"""A config mistake is told in a few lines: the key, what is wrong, what is allowed (Snakemake's
own message for a schema error quotes the whole schema, hundreds of lines)."""

from __future__ import annotations

import yaml
from benchreport.pipeline.configcheck import problems
from conftest import REPO

SCHEMA = yaml.safe_load((REPO / "config" / "schema.yaml").read_text())
CONFIG = yaml.safe_load((REPO / "config" / "config.yaml").read_text())


def test_the_shipped_config_is_valid():
    assert problems(CONFIG, SCHEMA) == []


def test_each_kind_of_mistake_names_the_key_and_what_is_allowed():
    assert (
        problems({**CONFIG, "statistcs": {}}, SCHEMA)[0]
        == "config: unknown key 'statistcs' (did you mean 'statistics'?)"
    )
    nested = problems({**CONFIG, "statistics": {"sed": 1}}, SCHEMA)
    assert nested[0] == "config: unknown key 'statistics.sed' (did you mean 'seed'?)"
    assert nested[1].startswith("  keys allowed under statistics: confidence, coverage_simulations,")
    wrong = problems({**CONFIG, "controls": {**CONFIG["controls"], "on_failure": "kep"}}, SCHEMA)
    assert wrong[:2] == ["config: controls.on_failure: 'kep' is not allowed", "  allowed values: 'exclude', 'keep'"]
    typed = problems({**CONFIG, "statistics": {"resamples": "many"}}, SCHEMA)
    assert typed == [
        "config: statistics.resamples: 'many' is not of type integer",
        "  (statistics.resamples: Bootstrap resamples for the interval over tasks.)",
    ]
    small = problems({**CONFIG, "statistics": {"resamples": 10}}, SCHEMA)
    assert small[0] == "config: statistics.resamples: 10 is less than the minimum of 100"


def test_snakemake_prints_a_few_lines_for_a_typo(workflow):
    done = workflow.run("-n", "--config", "statistcs={}", check=False)
    printed = done.stdout + done.stderr
    assert done.returncode != 0
    assert "config: unknown key 'statistcs' (did you mean 'statistics'?)" in printed
    assert "keys allowed at the top: benchmark_version, bundle," in printed
    assert len(printed.splitlines()) < 15, printed
