"""The workflow as a module of someone else's (what `snakedeploy deploy-workflow` writes): a
Snakefile in another folder that includes it with `module` and `use rule *`, with its own config.
The dry run plans the ingest of every job folder; a wrong base directory (the package looked up
beside the user's Snakefile) fails at parse time with ModuleNotFoundError. With the smallest config
a user writes, the module and the repository's own Snakefile find the same settings and print
the same numbers: every key the config leaves out comes from config/schema.yaml either way."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import yaml
from conftest import EXAMPLE, EXAMPLE_JOB_ROOTS, EXAMPLE_ROOTS, NO_DAEMON, Workflow, copy_workflow

DEPLOYED = """\
configfile: "config/config.yaml"


module benchreport:
    snakefile:
        "{snakefile}"
    config:
        config


use rule * from benchreport
"""


def deploy(folder: Path, module: Workflow, config: dict) -> Path:
    """A user's workflow in `folder` that uses `module` with `config`: its folder."""
    (folder / "config").mkdir(parents=True)
    (folder / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    (folder / "Snakefile").write_text(DEPLOYED.format(snakefile=module.path / "workflow" / "Snakefile"))
    return folder


def snakemake(folder: Path, *args: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "2", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=1200,
    )


def test_deployed_as_a_module_in_another_folder_dry_runs(tmp_path):
    module = copy_workflow(tmp_path / "benchreport")
    config = yaml.safe_load((module.path / "config" / "config.yaml").read_text())
    config["job_roots"] = [str(EXAMPLE / "benchflow-real-jobs")]
    deployment = deploy(tmp_path / "analysis", module, config)
    done = snakemake(deployment, "--dry-run")
    assert done.returncode == 0, done.stdout + done.stderr
    planned = dict(re.findall(r"^(\w+)\s+(\d+)$", done.stdout, flags=re.M))
    assert int(planned["ingest"]) >= 2 and planned["all"] == "1", done.stdout
    assert not (deployment / "results").exists()


def test_the_module_and_the_repository_give_the_same_results_from_the_smallest_config(
    example_run, tmp_path, monkeypatch
):
    """The example's folders, the repository's Snakefile run with config/config.yaml and the
    job roots on the command line, as the README says (the shared example run), against the
    module given only the two keys that describe job folders (config/README.md): the same
    settings, index and ledger. Both ask the Docker daemon the shared run names, which is never
    there: its config names it, the module's DOCKER_HOST does."""
    repository = example_run
    module = copy_workflow(tmp_path / "benchreport")
    for name in EXAMPLE_ROOTS:
        shutil.copytree(EXAMPLE / name, tmp_path / "analysis" / "jobs" / name)
    shipped = yaml.safe_load((module.path / "config" / "config.yaml").read_text())
    smallest = {"job_roots": EXAMPLE_JOB_ROOTS, "controls": {"nop_agents": shipped["controls"]["nop_agents"]}}
    deployment = deploy(tmp_path / "analysis", module, smallest)
    monkeypatch.setenv("DOCKER_HOST", NO_DAEMON)
    done = snakemake(deployment, "run_report")
    assert done.returncode == 0, done.stdout + done.stderr
    settings = {
        folder: sorted(p.name for p in (folder / "results" / "settings").iterdir())
        for folder in (repository.path, deployment)
    }
    assert settings[deployment] == settings[repository.path]
    for name in ("index.md", "exclusions.tsv"):
        assert (deployment / "results" / name).read_bytes() == (repository.results / name).read_bytes(), name
    index = repository.read("index.md")
    assert "| nop-acp (nop control, no model) |" in index and "| nop-acp-tc (nop control, no model) |" in index
    assert len(settings[deployment]) == 8  # the four generated agents, and the oracle and three nop controls
