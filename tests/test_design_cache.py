"""The coverage design cache: a design read from it is the bytes the rule computes, a change to what
a design depends on is a miss, a foreign or torn file is recomputed, and a run without the cache
never reads one."""

from __future__ import annotations

import json
import os

import pytest
from benchreport import design_cache
from conftest import REAL_JOB_ROOTS, real_workflow

TARGET = "results/coverage/3x2.json"
LOG = "logs/coverage_design/3x2.log"


def run_design(workflow, cache=None):
    env = {key: value for key, value in os.environ.items() if key != design_cache.CACHE_VARIABLE}
    if cache is not None:
        env[design_cache.CACHE_VARIABLE] = str(cache)
    (workflow.path / TARGET).unlink(missing_ok=True)
    workflow.run("--cores", "1", TARGET, roots=REAL_JOB_ROOTS, env=env)
    return (workflow.path / TARGET).read_bytes(), (workflow.path / LOG).read_text(encoding="utf-8")


@pytest.mark.slow  # five runs of the rule
def test_a_cached_design_is_the_computed_one_and_a_foreign_file_is_recomputed(tmp_path):
    cache, workflow = tmp_path / "cache", real_workflow(tmp_path / "wf")
    computed, log = run_design(workflow)
    assert "read from the cache" not in log and not cache.exists()

    stored, log = run_design(workflow, cache)
    assert "stored in the cache" in log and stored == computed
    (entry,) = cache.glob("*.json")
    assert entry.read_bytes() == computed

    again, log = run_design(workflow, cache)
    assert "read from the cache" in log and again == computed

    # the same key holding another shape's design, then half a file: neither is used
    design = json.loads(computed)
    entry.write_text(json.dumps(design | {"tries_profile": [[2, 4]]}), encoding="utf-8")
    foreign, log = run_design(workflow, cache)
    assert "read from the cache" not in log and foreign == computed
    entry.write_bytes(computed[: len(computed) // 2])
    torn, log = run_design(workflow, cache)
    assert "read from the cache" not in log and torn == computed
    assert entry.read_bytes() == computed  # stored again whole


def test_the_key_changes_with_everything_a_design_depends_on():
    base = dict(seed=1, simulations=100, confidence=0.95, code="abc")
    keys = {design_cache.design_key("3x2", **base)}
    for change in ({"seed": 2}, {"simulations": 101}, {"confidence": 0.9}, {"code": "abd"}):
        keys.add(design_cache.design_key("3x2", **(base | change)))
    keys.add(design_cache.design_key("2x3", **base))
    assert len(keys) == 6
    assert design_cache.design_key("3x2", **base) == design_cache.design_key("3x2", **base)


def test_the_cache_is_off_unless_the_variable_names_a_folder():
    assert design_cache.cache_folder({}) is None
    assert design_cache.cache_folder({design_cache.CACHE_VARIABLE: "  "}) is None
    assert design_cache.cache_folder({design_cache.CACHE_VARIABLE: "/tmp/x"}).as_posix() == "/tmp/x"
