"""A non-editable `pip install .` is a complete install: the wheel, installed in a fresh venv (over
this environment's dependencies) with the source tree it was built from gone, validates a real
run's cards with its own schemas, `benchreport check` reads the run, and `benchreport verify`
re-runs a bundle with the workflow tree the wheel carries, from a folder with no checkout: an
untouched bundle verifies, a tampered one does not. The editable install keeps the checkout as its
workflow tree."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tarfile

import pytest
from conftest import EXAMPLE, build_wheel, copy_workflow, layered_venv, source_copy
from test_bundle import rewrite_member

pytestmark = pytest.mark.slow  # pip builds the wheel, with setuptools from the package index

CHECK = """
import json, pathlib, sys
from benchreport.record import report, runcard
installed = pathlib.Path(sys.argv[1]).resolve()
assert runcard.SCHEMAS.resolve().is_relative_to(installed), runcard.SCHEMAS
assert report.SCHEMA.resolve().is_relative_to(installed), report.SCHEMA
cards = sorted(pathlib.Path(sys.argv[2]).glob("reports/*/run-card.json"))
for path in cards:
    runcard.validate(json.loads(path.read_text()))
print(len(cards))
"""
WHERE = "import benchreport, pathlib; print(pathlib.Path(benchreport.__file__).parent)"


def run(python, *arguments, cwd):
    """`python` with `arguments`, from `cwd`, with no PYTHONPATH to lead it to a checkout."""
    environment = {key: value for key, value in os.environ.items() if key != "PYTHONPATH"}
    return subprocess.run(
        [str(python), *arguments], cwd=cwd, capture_output=True, text=True, env=environment, timeout=900
    )


def pip_install(python, *requirement: str) -> subprocess.CompletedProcess:
    """benchreport installed into the venv of `python` by this environment's pip, as if nothing
    were installed there (the benchreport of the environment it is layered over is another one)."""
    return subprocess.run(
        [sys.executable, "-m", "pip", "--python", str(python), "install", "--quiet", "--no-deps", "--ignore-installed"]
        + list(requirement),
        capture_output=True,
        text=True,
        timeout=600,
    )


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """(the venv's python, the installed package's folder, a folder outside any checkout)."""
    folder = tmp_path_factory.mktemp("installed")
    source = source_copy(folder / "source")
    wheel = build_wheel(source, folder)
    shutil.rmtree(source)
    python = layered_venv(folder / "venv")
    done = pip_install(python, str(wheel))
    assert done.returncode == 0, done.stderr
    elsewhere = folder / "elsewhere"
    elsewhere.mkdir()
    package = run(python, "-c", WHERE, cwd=elsewhere).stdout.strip()
    assert package.startswith(str(folder / "venv")), package
    return python, package, elsewhere


@pytest.fixture(scope="module")
def samples_run(tmp_path_factory):
    """The workflow run on the BenchFlow sample folders, with its bundle."""
    workflow = copy_workflow(tmp_path_factory.mktemp("samples") / "wf")
    shutil.copytree(EXAMPLE / "benchflow-samples", workflow.path / "jobs" / "samples")
    (workflow.path / "settings.json").write_text(json.dumps({"environment": {"inspect": False}}))
    workflow.run("all", "bundle", "--configfile", "settings.json", roots=["jobs/samples"])
    return workflow


def test_an_installed_copy_reads_its_schemas_and_checks_a_run(installed, samples_run):
    python, package, elsewhere = installed
    validated = run(python, "-c", CHECK, package, str(samples_run.results), cwd=elsewhere)
    assert validated.returncode == 0, validated.stderr
    assert int(validated.stdout) >= 1
    checked = run(python, "-m", "benchreport", "check", str(samples_run.results), cwd=elsewhere)
    assert checked.returncode == 0, checked.stdout + checked.stderr


def test_an_installed_copy_verifies_a_bundle_with_the_workflow_it_carries(installed, samples_run, tmp_path):
    python, package, elsewhere = installed
    command = python.parent / "benchreport"
    archive = samples_run.results / "bundle" / "benchreport.tar.gz"
    done = run(command, "verify", str(archive), cwd=elsewhere)
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"re-run: with the installed benchreport code at {package}/workflow-tree," in done.stdout
    assert "it is the same bytes as the bundled workflow-code/" in done.stdout

    # an output changed and the manifest with it: only the re-run, with the installed code, finds it
    member = "benchreport/results/index.md"
    with_output = tmp_path / "output.tar.gz"
    rewrite_member(archive, with_output, member, lambda data: data + b"one more line\n")
    with tarfile.open(with_output) as bundle:
        changed = hashlib.sha256(bundle.extractfile(member).read()).hexdigest()
    tampered = tmp_path / "tampered.tar.gz"
    rewrite_member(
        with_output,
        tampered,
        "benchreport/MANIFEST.sha256",
        lambda data: b"".join(
            f"{changed}  results/index.md\n".encode() if line.endswith(b"  results/index.md\n") else line
            for line in data.splitlines(keepends=True)
        ),
    )
    done = run(command, "verify", str(tampered), cwd=elsewhere)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "manifest: " in done.stdout and "differs: results/index.md" in done.stdout


def test_an_editable_install_runs_the_checkout_it_sits_in(tmp_path):
    source = source_copy(tmp_path / "source")
    python = layered_venv(tmp_path / "venv")
    done = pip_install(python, "-e", str(source))
    assert done.returncode == 0, done.stderr
    found = run(
        python, "-c", "from benchreport.archive import verify; print(verify.installed_workflow())", cwd=tmp_path
    )
    assert found.stdout.strip() == str(source), found.stdout + found.stderr
    package = run(python, "-c", WHERE, cwd=tmp_path).stdout.strip()
    assert package == str(source / "workflow" / "scripts" / "benchreport")
