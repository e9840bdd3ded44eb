"""A non-editable `pip install .` finds everything it reads inside the installed package: the
schemas (package data) validate a real run's cards and `benchreport check` reads the run, with
the source tree it was built from gone."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys

import pytest
from conftest import EXAMPLE, REPO, copy_workflow

CHECK = """
import json, pathlib, sys
from benchreport import report, runcard
installed = pathlib.Path(sys.argv[1]).resolve()
assert runcard.SCHEMAS.resolve().is_relative_to(installed), runcard.SCHEMAS
assert report.SCHEMA.resolve().is_relative_to(installed), report.SCHEMA
cards = sorted(pathlib.Path(sys.argv[2]).glob("reports/*/run-card.json"))
for path in cards:
    runcard.validate(json.loads(path.read_text()))
print(len(cards))
"""


@pytest.mark.slow
def test_an_installed_copy_reads_its_schemas_and_checks_a_run(tmp_path):
    source = tmp_path / "source"  # a copy: setuptools writes build/ beside pyproject.toml
    source.mkdir()
    for name in (
        "pyproject.toml",
        "README.md",
        "LICENSE",
        "requirements.txt",
        "requirements-test.txt",
        "requirements-slurm.txt",
    ):
        shutil.copy(REPO / name, source / name)
    shutil.copytree(
        REPO / "workflow" / "scripts" / "benchreport",
        source / "workflow" / "scripts" / "benchreport",
        ignore=shutil.ignore_patterns("__pycache__"),
    )
    target = tmp_path / "installed"
    built = subprocess.run(
        [sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--target", str(target), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    shutil.rmtree(source)
    assert sorted(p.name for p in (target / "benchreport" / "schemas").iterdir()) == sorted(
        p.name for p in (REPO / "workflow" / "scripts" / "benchreport" / "schemas").iterdir()
    )

    workflow = copy_workflow(tmp_path / "wf")
    shutil.copytree(EXAMPLE / "benchflow-samples", workflow.path / "jobs" / "samples")
    (workflow.path / "settings.json").write_text(json.dumps({"environment": {"inspect": False}}))
    workflow.run("--configfile", "settings.json", roots=["jobs/samples"])

    env = {"PYTHONPATH": str(target), "PATH": "/usr/bin:/bin"}
    validated = subprocess.run(
        [sys.executable, "-c", CHECK, str(target), str(workflow.results)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert validated.returncode == 0, validated.stderr
    assert int(validated.stdout) >= 1
    checked = subprocess.run(
        [sys.executable, "-m", "benchreport", "check", str(workflow.results)],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
        timeout=600,
    )
    assert checked.returncode == 0, checked.stdout + checked.stderr
    where = subprocess.run(
        [sys.executable, "-c", "import benchreport; print(benchreport.__file__)"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        env=env,
    )
    assert where.stdout.strip().startswith(str(target)), where.stdout
