"""Shared fixtures: a throw-away copy of the workflow and real BenchFlow job folders to run it on."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "resources" / "example"
REAL_ROOTS = ("benchflow-real-jobs", "benchflow-samples")


class Workflow:
    """A copy of the workflow in a temporary folder, run with real `snakemake` subprocesses."""

    def __init__(self, path: Path):
        self.path = path
        self.results = path / "results"

    def run(self, *args: str, roots=None, check=True, env=None) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "snakemake", "--cores", "2", "--scheduler", "greedy", *args]
        if roots is not None:
            items = ",".join(f'"{root}"' for root in roots)
            command += ["--config", f"job_roots=[{items}]"]
        process = subprocess.run(command, cwd=self.path, capture_output=True, text=True, timeout=1800, env=env)
        if check and process.returncode != 0:
            raise AssertionError(f"snakemake failed ({process.returncode}):\n{process.stdout}\n{process.stderr}")
        return process

    def snapshot(self) -> dict[str, tuple[int, bytes]]:
        """Every output file (lineage records aside) with its mtime and bytes."""
        return {
            path.relative_to(self.results).as_posix(): (path.stat().st_mtime_ns, path.read_bytes())
            for path in sorted(self.results.rglob("*"))
            if path.is_file() and "lineage" not in path.relative_to(self.results).parts
        }

    def read(self, relpath: str) -> str:
        return (self.results / relpath).read_text(encoding="utf-8")


def copy_workflow(destination: Path) -> Workflow:
    destination.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "Snakefile", destination / "Snakefile")
    shutil.copytree(REPO / "config", destination / "config")
    shutil.copytree(REPO / "workflow", destination / "workflow", ignore=shutil.ignore_patterns("__pycache__"))
    return Workflow(destination)


@pytest.fixture
def workflow(tmp_path) -> Workflow:
    return copy_workflow(tmp_path / "wf")


@pytest.fixture
def real_jobs(workflow) -> list[str]:
    """A private copy of the real BenchFlow 0.7.12 folders inside the workflow copy."""
    roots = []
    for name in REAL_ROOTS:
        shutil.copytree(EXAMPLE / name, workflow.path / "jobs" / name)
        roots.append(f"jobs/{name}")
    return roots
