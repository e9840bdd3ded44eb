"""Each stage's code hash follows what its rule script really imports (lineage.STAGE_CODE, read
off the import graph), so a change to one module plans exactly the jobs that run its code and
those downstream of their outputs: a real run of the real BenchFlow folders, then `snakemake -n`
after a comment is appended to one file of a copy of the workflow."""

from __future__ import annotations

import json
import re
import subprocess
import sys

import pytest
from benchreport.pipeline import lineage
from benchreport.pipeline.lineage import ingested_batches
from conftest import REAL_ROOTS, REPO, layered_venv

RUN_LEVEL = {"run_report": 1, "all": 1}


@pytest.fixture(scope="module")
def done(real_run, tmp_path_factory):
    """A copy of the shared real run, which has run to the end (its Docker socket one that is
    never there), with an empty settings.json for the dry runs' --configfile."""
    workflow = real_run.copy(tmp_path_factory.mktemp("stagecode") / "wf")
    (workflow.path / "settings.json").write_text(json.dumps({}))
    return workflow


def planned_jobs(workflow, python: str = sys.executable) -> dict[str, int]:
    """rule -> jobs of it a dry run plans (its first "Job stats" table; Snakemake prints it again
    at the end)."""
    roots = ",".join(f'"jobs/{name}"' for name in REAL_ROOTS)
    process = subprocess.run(
        [
            python,
            "-m",
            "snakemake",
            "-n",
            "--cores",
            "2",
            "--quiet",
            "rules",
            "--configfile",
            "settings.json",
            "--config",
            f"job_roots=[{roots}]",
        ],
        cwd=workflow.path,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert process.returncode == 0, process.stdout + process.stderr
    jobs = {}
    for line in process.stdout.splitlines():
        parts = line.split()
        if parts[:1] == ["total"]:
            break
        if len(parts) == 2 and parts[1].isdigit() and parts[0] != "job":
            jobs[parts[0]] = int(parts[1])
    return jobs


def settings(workflow) -> int:
    return len(list((workflow.results / "reports").iterdir()))


CASES = {
    # the run card: every setting's job, and every run-level job, which reads its files
    "benchreport/record/runcard.py": lambda n: {"report": n, **RUN_LEVEL},
    # what only the run-level job runs: the tables over settings, the figures, the page and its
    # template, the index and the exclusions, the paired comparisons
    **dict.fromkeys(
        (
            "benchreport/present/tables.py",
            "benchreport/present/figures.py",
            "benchreport/present/html_report.py",
            "benchreport/present/templates/report.html.j2",
            "benchreport/present/overview.py",
            "benchreport/compute/comparisons.py",
        ),
        lambda n: RUN_LEVEL,
    ),
}


@pytest.mark.parametrize("changed", sorted(CASES))
def test_a_change_to_one_module_plans_exactly_the_jobs_that_run_it(done, changed):
    assert planned_jobs(done) == {}, "the finished run plans nothing"
    path = done.path / "workflow" / "scripts" / changed
    original = path.read_bytes()
    try:
        path.write_bytes(original + (b"\n{# an edit #}\n" if changed.endswith(".j2") else b"\n# an edit\n"))
        assert planned_jobs(done) == CASES[changed](settings(done))
    finally:
        path.write_bytes(original)


def test_ingests_code_and_config_re_run_every_ingest_and_its_python_does_not(done, tmp_path):
    """Rule ingest's params hold its code hash and the config values it reads, so a change to
    either re-runs it; the Python that runs it is in none of them, so another path to it re-runs
    nothing."""
    folders = len(ingested_batches(done.path))
    assert folders > 1 and planned_jobs(done) == {}
    # the same interpreter and packages by another path, as `snakemake` and `python -m snakemake`
    # differ, or a venv made again
    assert planned_jobs(done, python=str(layered_venv(tmp_path / "venv"))) == {}
    module = done.path / "workflow" / "scripts" / "benchreport" / "read" / "ingest.py"
    original = module.read_bytes()
    try:
        module.write_bytes(original + b"\n# an edit\n")
        assert planned_jobs(done)["ingest"] == folders
    finally:
        module.write_bytes(original)
    settings_file = done.path / "settings.json"
    try:
        settings_file.write_text(json.dumps({"controls": {"nop_agents": ["nop-acp", "another-nop"]}}))
        assert planned_jobs(done)["ingest"] == folders
    finally:
        settings_file.write_text(json.dumps({}))
    assert planned_jobs(done) == {}


def test_every_stage_hashes_its_script_and_each_module_it_imports():
    """The graph read off the imports, checked from the other side: each module a stage lists is
    imported by its script or by a module it lists (or is a template or schema it reads)."""
    for stage, files in lineage.STAGE_CODE.items():
        script = f"{stage}.py"
        code = [name for name in files if name.endswith(".py")]
        assert script in code, stage
        reached = {script} | {
            module for name in code if name != "benchreport/__init__.py" for module in lineage.imported_modules(name)
        }
        assert set(code) <= reached | {"benchreport/__init__.py"}, stage
    # the run-level job needs none of a setting's record builder, and a setting's job none of the
    # run-level renderers
    assert "benchreport/record/report.py" not in lineage.STAGE_CODE["run_report"]
    assert "benchreport/present/html_report.py" not in lineage.STAGE_CODE["report"]
    assert "benchreport/present/figures.py" not in lineage.STAGE_CODE["report"]


def test_each_stage_has_one_name_across_rule_rule_file_script_and_code_hash():
    """Stage X: rule (or checkpoint) X in workflow/rules/X.smk, script workflow/scripts/X.py, code
    hash key X; every rule file but the helpers and targets is a stage's."""
    rules_dir = REPO / "workflow" / "rules"
    for stage in lineage.STAGES:
        text = (rules_dir / f"{stage}.smk").read_text()
        assert re.search(rf"^(rule|checkpoint) {stage}:", text, re.MULTILINE), stage
        assert (REPO / "workflow" / "scripts" / f"{stage}.py").is_file(), stage
        assert f'CODE["{stage}"]' in text, stage
    assert {path.stem for path in rules_dir.glob("*.smk")} - set(lineage.STAGES) == {"common", "targets"}


def _ast_imports(name: str) -> set[str]:
    """The reference: the benchreport modules a file imports, by walking its syntax tree, and the
    __init__.py of each subpackage they are in."""
    import ast

    package = name.split("/")[:-1]
    found = set()
    for node in ast.walk(ast.parse((lineage.SCRIPTS_DIR / name).read_text(encoding="utf-8"))):
        if not isinstance(node, ast.ImportFrom) or len(package) < node.level - 1:
            continue
        base = package[: len(package) - node.level + 1] if node.level else []
        parts = [*base, *(node.module or "").split(".")] if node.module else base
        if parts[:1] != ["benchreport"]:
            continue
        for alias in node.names:
            submodule, module = "/".join([*parts, alias.name]), "/".join(parts)
            found |= {
                next(
                    (p for p in (f"{submodule}.py", f"{submodule}/__init__.py") if (lineage.SCRIPTS_DIR / p).is_file()),
                    f"{module}.py" if (lineage.SCRIPTS_DIR / f"{module}.py").is_file() else f"{module}/__init__.py",
                )
            }
    inits = {
        "/".join(path.split("/")[:depth]) + "/__init__.py" for path in found for depth in range(2, path.count("/") + 1)
    }
    return {path for path in found | inits if (lineage.SCRIPTS_DIR / path).is_file()}


def test_the_import_pattern_finds_what_the_syntax_tree_holds():
    """lineage.imported_modules reads imports by a pattern (0.6 s of each snakemake start saved):
    in every file of the package and the rule scripts it finds exactly what ast finds."""
    names = sorted(path.relative_to(lineage.SCRIPTS_DIR).as_posix() for path in lineage.SCRIPTS_DIR.rglob("*.py"))
    assert len(names) > 40
    assert {name: set(lineage.imported_modules(name)) for name in names} == {name: _ast_imports(name) for name in names}


def test_each_stage_hashes_every_module_its_script_reaches():
    """A stage re-runs when a file of its code changes: its list holds everything its rule script
    imports, directly or not, followed through the syntax trees (not through the package's
    __init__.py, whose imports sit in a function no stage calls)."""
    for stage, files in lineage.STAGE_CODE.items():
        needed, pending = set(), [f"{stage}.py"]
        while pending:
            name = pending.pop()
            if name not in needed:
                needed.add(name)
                pending.extend(_ast_imports(name) if name != "benchreport/__init__.py" else ())
        assert needed - set(files) - set(lineage.COMMON) == set(), stage


def test_the_import_pattern_reads_every_form(tmp_path, monkeypatch):
    package = tmp_path / "benchreport"
    (package / "sub").mkdir(parents=True)
    for module in ("a", "b", "c", "d", "e", "f", "sub/__init__", "sub/g", "sub/h", "sub/i"):
        (package / f"{module}.py").write_text("")
    (tmp_path / "script.py").write_text(
        "from benchreport import (\n    a,  # the first\n    b as bee,\n)\n"
        "def late():\n    from benchreport.c import thing\n    from benchreport.d import other  # noqa\n"
        "from benchreport.missing import x\nimport benchreport\nfrom benchreport.sub.g import y\n"
    )
    (package / "sub" / "h.py").write_text(
        "def late():\n    from .i import thing\nfrom ..e import z\nfrom .. import (f,\n  a as eh)\nfrom ... import q\n"
    )
    monkeypatch.setattr(lineage, "SCRIPTS_DIR", tmp_path)
    lineage.imported_modules.cache_clear()
    try:
        found = lineage.imported_modules("script.py")
        found_below = lineage.imported_modules("benchreport/sub/h.py")
    finally:
        lineage.imported_modules.cache_clear()
    assert found == {f"benchreport/{module}.py" for module in ("a", "b", "c", "d", "sub/g", "sub/__init__")}
    assert found_below == {f"benchreport/{module}.py" for module in ("a", "e", "f", "sub/i", "sub/__init__")}
