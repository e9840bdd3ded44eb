"""The generator is a package with a command line: `python -m benchflow_synth` (resources/ on the
path) writes the same bytes as the functions the tests import."""

from __future__ import annotations

import os
import subprocess
import sys

import benchflow_synth as synth
from conftest import REPO


def run(*args: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(REPO / "resources"))
    return subprocess.run(
        [sys.executable, "-m", "benchflow_synth", *args], capture_output=True, text=True, env=env, timeout=600
    )


def test_the_command_prints_the_grid_the_package_gives():
    done = run("grid")
    assert done.returncode == 0, done.stderr
    assert done.stdout == synth.example_outcome_grid() + "\n"


def test_the_command_writes_the_review_jobs_byte_for_byte(tmp_path):
    done = run("review-jobs", str(tmp_path / "cli"))
    assert done.returncode == 0, done.stderr
    synth.build_review_jobs(tmp_path / "api")
    files = {}
    for name in ("cli", "api"):
        root = tmp_path / name
        files[name] = {p.relative_to(root).as_posix(): p.read_bytes() for p in sorted(root.rglob("*")) if p.is_file()}
    assert files["cli"] == files["api"] and len(files["api"]) > 10


def test_the_command_refuses_to_delete_the_working_folder(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "benchflow_synth", "example", "."],
        cwd=tmp_path,
        env=dict(os.environ, PYTHONPATH=str(REPO / "resources")),
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "refusing to delete" in done.stderr
