"""The package and its pins: one list of runtime pins (requirements.txt) that pyproject.toml,
the conda env and the imports of the workflow's code agree with; a wheel that installs the
`benchreport` command; the catalog's files in step with the package."""

from __future__ import annotations

import ast
import importlib.metadata
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest
import yaml
from conftest import REPO, build_wheel, source_copy

sys.path.insert(0, str(REPO / "workflow" / "envs"))
import make_env  # noqa: E402

PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
REQUIREMENTS = (REPO / "requirements.txt").read_text()


def test_the_conda_env_is_written_from_the_runtime_pins():
    assert (REPO / "workflow" / "envs" / "benchreport.yaml").read_text() == make_env.conda_env(REQUIREMENTS), (
        "run python3 workflow/envs/make_env.py"
    )
    env = yaml.safe_load((REPO / "workflow" / "envs" / "benchreport.yaml").read_text())
    assert "jsonschema =4.26.0" in env["dependencies"]  # rule report validates each run card with it


def test_pyproject_reads_the_requirements_files_and_names_the_command():
    dynamic = PYPROJECT["tool"]["setuptools"]["dynamic"]
    assert dynamic["dependencies"] == {"file": ["requirements.txt"]}
    assert dynamic["optional-dependencies"]["test"] == {"file": ["requirements-test.txt"]}
    assert dynamic["optional-dependencies"]["slurm"] == {"file": ["requirements-slurm.txt"]}
    assert PYPROJECT["project"]["scripts"] == {"benchreport": "benchreport.__main__:main"}
    runtime = {name for name, _ in make_env.pins(REQUIREMENTS)}
    tests = {name for name, _ in make_env.pins((REPO / "requirements-test.txt").read_text())}
    # scipy is a run-time dependency: the headline's Clopper-Pearson bounds use scipy.special
    assert not runtime & tests and "scipy" in runtime and "pytest" in tests


def imported_distributions(path: Path, providers: dict[str, list[str]]) -> set[str]:
    """The installed distributions whose top-level modules a file imports (absolute imports);
    providers: importlib.metadata.packages_distributions(), which reads every installed
    distribution's file list (a second or more), so it is asked once."""
    modules = set()
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        if isinstance(node, ast.Import):
            modules.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            modules.add(node.module.split(".")[0])
    return {dist.lower() for module in modules for dist in providers.get(module, [])}


def test_the_workflow_imports_only_its_runtime_requirements():
    """So that scipy (the tests' reference) or any other test-only package never becomes a hidden
    runtime need: every distribution a rule script or package module imports is pinned in
    requirements.txt or required by one that is (markupsafe by jinja2)."""
    allowed = set()
    for name, _ in make_env.pins(REQUIREMENTS):
        allowed.add(name)
        for requirement in importlib.metadata.requires(name) or []:
            if "extra ==" not in requirement:
                allowed.add(re.split(r"[ ;<>=!~\[(]", requirement, maxsplit=1)[0].lower().replace("_", "-"))
    code = [*(REPO / "workflow" / "scripts").rglob("*.py")]
    providers = importlib.metadata.packages_distributions()
    found = {
        path.relative_to(REPO).as_posix(): imported_distributions(path, providers) - allowed - {"benchreport"}
        for path in code
    }
    assert not {path: dists for path, dists in found.items() if dists}


def test_citation_license_and_config_readme_keep_up_with_the_package():
    citation = yaml.safe_load((REPO / "CITATION.cff").read_text())
    from benchreport import __version__

    assert PYPROJECT["tool"]["setuptools"]["dynamic"]["version"] == {"attr": "benchreport.__version__"}
    assert citation["version"] == __version__
    assert citation["license"] == PYPROJECT["project"]["license"] == "MIT"
    assert (REPO / "LICENSE").read_text().startswith("MIT License")
    readme = (REPO / "config" / "README.md").read_text()
    schema = yaml.safe_load((REPO / "config" / "schema.yaml").read_text())
    assert [key for key in schema["properties"] if f"`{key}`" not in readme] == []


def wheel_workflow_tree(names: set[str]) -> set[str]:
    """The workflow tree a wheel carries (its files under the package's verify.WORKFLOW_COPY)."""
    from benchreport.archive import verify

    tree = f"benchreport/{verify.WORKFLOW_COPY}/"
    return {name.removeprefix(tree) for name in names if name.startswith(tree)}


@pytest.mark.slow
def test_the_wheel_installs_the_command_and_carries_the_workflow(tmp_path):
    """pip builds the wheel from the tree (setuptools from the index, as `pip install .` does); it
    holds the package with its templates and the pins, the workflow tree a bundle records as its
    code (at the same relative paths; built again in the same tree, without a file the first build
    copied), and pip installs a `benchreport` command that runs from another folder."""
    from benchreport.archive import bundle

    source = source_copy(tmp_path / "source")
    removed = source / "workflow" / "rules" / "removed.smk"
    removed.write_text("# a rule file that is gone by the second build\n")
    wheel = build_wheel(source, tmp_path / "first")
    with zipfile.ZipFile(wheel) as archive:
        names = set(archive.namelist())
        metadata = archive.read(next(n for n in names if n.endswith(".dist-info/METADATA"))).decode()
    modules = {
        p.relative_to(REPO / "workflow" / "scripts").as_posix()
        for p in (REPO / "workflow" / "scripts" / "benchreport").rglob("*")
        if p.suffix in (".py", ".j2")
    }
    assert modules <= names
    code = set(bundle.code_files(source))
    assert {"Snakefile", "workflow/Snakefile", "workflow/rules/removed.smk", "config/schema.yaml"} <= code
    assert wheel_workflow_tree(names) == code
    removed.unlink()  # setuptools builds into the tree's build/ again, where the first copy is
    with zipfile.ZipFile(build_wheel(source, tmp_path / "again")) as archive:
        assert wheel_workflow_tree(set(archive.namelist())) == code - {"workflow/rules/removed.smk"}
    required = {
        line.split(": ", 1)[1]
        for line in metadata.splitlines()
        if line.startswith("Requires-Dist: ") and "extra ==" not in line
    }
    assert required == {f"{name}=={version}" for name, version in make_env.pins(REQUIREMENTS)}
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    installed = subprocess.run(
        [str(venv / "bin" / "python"), "-m", "pip", "install", "--quiet", "--no-deps", str(wheel)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert installed.returncode == 0, installed.stderr
    # the command pip wrote; --help needs none of the dependencies left out here
    done = subprocess.run([str(venv / "bin" / "benchreport"), "--help"], cwd=tmp_path, capture_output=True, text=True)
    assert done.returncode == 0 and "verify" in done.stdout and "lineage" in done.stdout, done.stdout + done.stderr
