"""A test that needs a part a machine may lack (a Docker daemon, busybox-static, Chromium,
BenchFlow) skips with one line naming the part and how to install it, and fails instead under
BENCHREPORT_CI=1; nothing fails at collection. Checked on the helpers, then on the test files
themselves, run by pytest with the part taken off PATH or pointed elsewhere."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest
from conftest import REPO, busybox_missing, docker_missing, require

BUSYBOX_MISSING = "busybox-static not installed: apt-get install busybox-static"


def test_require_passes_skips_or_fails_under_ci(monkeypatch):
    monkeypatch.delenv("BENCHREPORT_CI", raising=False)
    assert require(None) is None
    with pytest.raises(pytest.skip.Exception, match="^the part: install it$"):
        require("the part: install it")
    monkeypatch.setenv("BENCHREPORT_CI", "1")
    assert require(None) is None
    with pytest.raises(pytest.fail.Exception, match="^BENCHREPORT_CI=1 but the part: install it$"):
        require("the part: install it")


def tools(folder, docker_status: int | None = None, busybox: bool = False) -> str:
    """A folder for PATH holding only a `docker` that exits with `docker_status` (none if None)
    and, with `busybox`, a `busybox`."""
    folder.mkdir(exist_ok=True)
    programs = ({"docker": f"exit {docker_status}"} if docker_status is not None else {}) | (
        {"busybox": "exit 0"} if busybox else {}
    )
    for name, body in programs.items():
        (folder / name).write_text(f"#!/bin/sh\n{body}\n")
        (folder / name).chmod(0o755)
    return str(folder)


@pytest.mark.parametrize(
    ("docker_status", "expected"),
    [
        (None, "the Docker CLI is not installed: apt-get install docker.io"),
        (1, "no Docker daemon answers `docker info`: start dockerd"),
        (0, None),
    ],
)
def test_docker_missing_says_what_is_missing(tmp_path, monkeypatch, docker_status, expected):
    monkeypatch.setenv("PATH", tools(tmp_path / "bin", docker_status))
    assert docker_missing.__wrapped__() == expected  # past the cache: PATH is this test's


def test_busybox_missing_says_what_to_install(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", tools(tmp_path / "bin"))
    assert busybox_missing() == BUSYBOX_MISSING
    monkeypatch.setenv("PATH", tools(tmp_path / "bin", busybox=True))
    assert busybox_missing() is None


def run_pytest(tmp_path, test_file: str, *options: str, **env: str) -> subprocess.CompletedProcess:
    environment = {key: value for key, value in os.environ.items() if key != "BENCHREPORT_CI"} | env
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "--basetemp", str(tmp_path / "base"), "-v", "-rs"]
        + [test_file, *options],
        cwd=REPO,
        capture_output=True,
        text=True,
        env=environment,
        timeout=600,
    )


# each test file's missing part: (its file and options, the environment that takes the part
# away, a test that needs it, the line it skips with)
CASES = {
    "docker answers, no busybox": (
        ["tests/test_environment.py"],
        {"docker_status": 0},
        "test_workflow_reports_the_environment_as_built",
        BUSYBOX_MISSING,
    ),
    "no docker": (
        ["tests/test_environment.py"],
        {},
        "test_recorded_id_is_what_docker_says",
        "the Docker CLI is not installed: apt-get install docker.io",
    ),
    "no chromium": (
        ["tests/test_browser.py"],
        {"BENCHREPORT_CHROMIUM": "/nonexistent/chromium"},
        "test_report_html_renders_in_chromium",
        "/nonexistent/chromium not found: apt-get install chromium",
    ),
    "no benchflow": (
        ["tests/test_controls_run.py", "-m", "slow"],
        {"BENCHREPORT_BENCH": ""},
        "test_workflow_runs_missing_controls_with_benchflow",
        "BENCHREPORT_BENCH does not name a BenchFlow `bench`: run tests/lab/setup_benchflow.sh",
    ),
}


def case_environment(tmp_path, taken: dict) -> dict:
    """PATH without the parts (but a `docker` exiting as `docker_status` says), the rest as given."""
    docker_status = taken.get("docker_status")
    path = os.pathsep.join([tools(tmp_path / "bin", docker_status), os.path.dirname(sys.executable)])
    return {"PATH": path} | {key: value for key, value in taken.items() if key != "docker_status"}


@pytest.mark.parametrize("case", sorted(CASES))
def test_a_test_file_skips_over_a_missing_part(tmp_path, case):
    arguments, taken, test, reason = CASES[case]
    done = run_pytest(tmp_path, *arguments, **case_environment(tmp_path, taken))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "error" not in done.stdout.splitlines()[-1], done.stdout
    assert f"::{test} SKIPPED" in done.stdout, done.stdout
    skipped = [line for line in done.stdout.splitlines() if line.startswith("SKIPPED")]
    assert all(line.endswith(f": {reason}") for line in skipped), done.stdout
    # skipped before the shared run of the real folders was made for it
    assert not list((tmp_path / "base").glob("real-run*"))


def test_under_ci_a_missing_part_fails_the_tests_that_need_it_but_not_the_collection(tmp_path):
    arguments, taken, test, reason = CASES["docker answers, no busybox"]
    done = run_pytest(tmp_path, *arguments, **case_environment(tmp_path, taken), BENCHREPORT_CI="1")
    assert done.returncode == 1, done.stdout + done.stderr
    assert "during collection" not in done.stdout
    assert f"BENCHREPORT_CI=1 but {reason}" in done.stdout
    assert f"::{test} ERROR" in done.stdout, done.stdout
    assert "::test_missing_cli_is_a_record_not_a_crash PASSED" in done.stdout
