"""Shared fixtures: a throw-away copy of the workflow and real BenchFlow job folders to run it on.

A `snakemake` run is most of what the suite's time goes to, so the run on the real BenchFlow
folders is made once per session (`real_run`) and shared: a test that only reads its outputs
takes it as it is; a test that changes anything (a job folder, a config, a re-run) takes
`real_run_copy`, a private copy of the folder, outputs and Snakemake's records included, in which
Snakemake finds nothing to do until the test changes something. `agent_run` is the same run with
an agent's job folder added, gated by the controls the real folders hold.
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import site
import subprocess
import sys
import venv
from collections.abc import Mapping
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "resources" / "example"
REAL_ROOTS = ("benchflow-real-jobs", "benchflow-samples")
REAL_JOB_ROOTS = [f"jobs/{name}" for name in REAL_ROOTS]  # where copy_real_jobs puts them
# every file under results/paper/ a run writes (rule run_report)
PAPER_FILES = [
    f"paper/{name}"
    for name in (
        "settings.md",
        "settings.csv",
        "settings.tex",
        "comparisons.md",
        "comparisons.csv",
        "comparisons.tex",
        "figures.json",
        "forest.svg",
        "forest.png",
        "heatmap.svg",
        "heatmap.png",
        "cost.svg",
        "cost.png",
    )
]
# The shared real run's Docker socket: one that is never there, so its image records are the same
# ("daemon unavailable") whether or not this machine runs a daemon, and whether one starts or
# stops while the tests run. Tests of the environment stage point their own config at a daemon.
NO_DAEMON = "unix:///nonexistent/benchreport-tests.sock"


# Fixtures that make an end-to-end run of their own of a minute or more (the hostile corpus with
# its bundle): every test that takes one is slow, and so runs in CI (-m slow), not by default.
END_TO_END_FIXTURES = {"corpus_run"}


@pytest.hookimpl(tryfirst=True)  # before the -m selection reads the marks
def pytest_collection_modifyitems(items):
    for item in items:
        if END_TO_END_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)


@pytest.fixture(scope="session", autouse=True)
def bytecode_outside_the_copies(tmp_path_factory):
    """Every Python the tests start (snakemake, its rule scripts, `python -m benchreport`) imports
    the package from a fresh copy of the workflow, and where bytecode is not written
    (PYTHONDONTWRITEBYTECODE) each of them compiles it again. Written under pytest's
    temporary folder instead, never beside the sources (a test compares a copy's files), each
    copy's package is compiled once."""
    saved = {name: os.environ.get(name) for name in ("PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX")}
    os.environ.pop("PYTHONDONTWRITEBYTECODE", None)
    os.environ["PYTHONPYCACHEPREFIX"] = str(tmp_path_factory.mktemp("bytecode"))
    yield
    for name, value in saved.items():
        if value is None:
            os.environ.pop(name, None)
        else:
            os.environ[name] = value


def require(missing: str | None) -> None:
    """For a test that needs a part a machine may lack (a Docker daemon, busybox-static, Chromium,
    BenchFlow): `missing` is None, or one line saying what is missing and how to install it. The
    test is skipped with that line; under BENCHREPORT_CI=1 it fails instead, as CI installs every
    part and must not pass by skipping."""
    if missing is None:
        return
    if os.environ.get("BENCHREPORT_CI") == "1":
        pytest.fail(f"BENCHREPORT_CI=1 but {missing}", pytrace=False)
    pytest.skip(missing)


@functools.cache
def docker_missing() -> str | None:
    """Why no Docker daemon can be used here, or None when `docker info` answers."""
    if shutil.which("docker") is None:
        return "the Docker CLI is not installed: apt-get install docker.io"
    try:
        answered = subprocess.run(["docker", "info"], capture_output=True, timeout=60).returncode == 0
    except subprocess.TimeoutExpired:
        answered = False
    return None if answered else "no Docker daemon answers `docker info`: start dockerd"


def busybox_missing() -> str | None:
    return None if shutil.which("busybox") else "busybox-static not installed: apt-get install busybox-static"


@pytest.fixture(scope="session")
def docker_daemon() -> None:
    """A Docker daemon that answers (a test that takes it asks for it first, so that a machine
    without one skips before any workflow run is made for the test)."""
    require(docker_missing())


@pytest.fixture(scope="session")
def busybox() -> Path:
    """A static busybox, the one program of the test images (FROM scratch)."""
    require(busybox_missing())
    return Path(shutil.which("busybox"))


def layered_venv(path: Path) -> Path:
    """A new venv at `path`, its python another path to this interpreter, that sees the packages
    of this environment through a .pth line for each of its site-packages folders. Their own .pth
    files are not read there, so an editable install of benchreport here is not seen. Its python."""
    venv.EnvBuilder(symlinks=True).create(path)
    python = path / "bin" / "python"
    purelib = subprocess.run(
        [python, "-c", "import sysconfig; print(sysconfig.get_path('purelib'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    outer = [*site.getsitepackages(), *([site.getusersitepackages()] if site.ENABLE_USER_SITE else [])]
    (Path(purelib) / "outer-environment.pth").write_text("".join(f"{folder}\n" for folder in outer))
    return python


class Workflow:
    """A copy of the workflow in a temporary folder, run with real `snakemake` subprocesses."""

    def __init__(self, path: Path):
        self.path = path
        self.results = path / "results"

    def run(self, *args: str, roots=None, check=True, env=None) -> subprocess.CompletedProcess:
        command = [sys.executable, "-m", "snakemake", "--cores", "2", *args]
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

    def copy(self, destination: Path) -> Workflow:
        """The whole folder (jobs, outputs, Snakemake's records) with its file times, elsewhere."""
        shutil.copytree(self.path, destination, symlinks=True)
        return Workflow(destination)


def copy_workflow(destination: Path) -> Workflow:
    destination.mkdir(parents=True, exist_ok=True)
    shutil.copy(REPO / "Snakefile", destination / "Snakefile")
    shutil.copytree(REPO / "config", destination / "config")
    shutil.copytree(REPO / "workflow", destination / "workflow", ignore=shutil.ignore_patterns("__pycache__"))
    return Workflow(destination)


# what a build reads besides the workflow tree
BUILD_FILES = (
    "pyproject.toml",
    "setup.py",
    "README.md",
    "LICENSE",
    "requirements.txt",
    "requirements-test.txt",
    "requirements-slurm.txt",
)


def source_copy(destination: Path) -> Path:
    """The tree `pip install .` builds from, copied: setuptools writes build/ and an egg-info into
    the tree it builds."""
    copy_workflow(destination)
    for name in BUILD_FILES:
        shutil.copy(REPO / name, destination / name)
    return destination


def build_wheel(source: Path, folder: Path) -> Path:
    """The wheel pip builds from `source` (setuptools from the package index, as `pip install .`
    takes it), written into `folder`."""
    built = subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--quiet", "-w", str(folder), str(source)],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert built.returncode == 0, built.stderr
    return next(folder.glob("benchreport-*.whl"))


def copy_real_jobs(workflow: Workflow) -> list[str]:
    """A private copy of the real BenchFlow 0.7.12 folders inside the workflow copy; their roots."""
    for name in REAL_ROOTS:
        shutil.copytree(EXAMPLE / name, workflow.path / "jobs" / name)
    return list(REAL_JOB_ROOTS)


def real_workflow(destination: Path) -> Workflow:
    """A workflow copy holding the real folders, its config's Docker socket set to NO_DAEMON."""
    workflow = copy_workflow(destination)
    copy_real_jobs(workflow)
    config = workflow.path / "config" / "config.yaml"
    text = config.read_text(encoding="utf-8")
    assert '  docker_host: ""\n' in text, "config/config.yaml no longer sets environment.docker_host"
    config.write_text(text.replace('  docker_host: ""\n', f'  docker_host: "{NO_DAEMON}"\n'), encoding="utf-8")
    return workflow


@pytest.fixture
def workflow(tmp_path) -> Workflow:
    return copy_workflow(tmp_path / "wf")


@pytest.fixture
def real_jobs(workflow) -> list[str]:
    """A private copy of the real BenchFlow 0.7.12 folders inside the workflow copy."""
    return copy_real_jobs(workflow)


@pytest.fixture(scope="session")
def real_run(tmp_path_factory) -> Workflow:
    """The workflow run once on the real folders (roots REAL_JOB_ROOTS): read it, never change it."""
    workflow = real_workflow(tmp_path_factory.mktemp("real-run") / "wf")
    workflow.first_run = workflow.run(roots=REAL_JOB_ROOTS)
    return workflow


@pytest.fixture
def real_run_copy(real_run, tmp_path) -> Workflow:
    """A private copy of `real_run` to change and run again."""
    return real_run.copy(tmp_path / "wf")


AGENT = {
    "agent": "claude-agent-acp",
    "model": "anthropic/claude-sonnet-4-5",
    "served_model": "claude-sonnet-4-5-20250929",
    "usage_source": "provider_response",
    "price_source": "litellm",
}
# agent_run's agent: three tries of two tasks the real controls ran on and one they did not
AGENT_TRIES = [[("tiny-hello", "passed"), ("tiny-hello-net", "failed"), ("no-control-task", "passed")]] * 3


def real_digests(root: Path) -> dict[str, str]:
    """task -> the task digest its real control trials ran on (so the agent runs the same version)."""
    found = {}
    for path in root.rglob("result.json"):
        data = json.loads(path.read_text())
        if data.get("task_digest"):
            found[data["task_name"]] = data["task_digest"]
    return found


def agent_on(tasks_by_try, root: Path, digests=None) -> None:
    """An agent's --matrix run; each task on the digest `digests` gives (the controls' version)."""
    from benchflow_synth import write_matrix

    digests = digests or {}
    tries = [
        [
            {"task": task, "attempts": [{"kind": kind}]} | ({"task_digest": digests[task]} if task in digests else {})
            for task, kind in row
        ]
        for row in tasks_by_try
    ]
    write_matrix(root, alias="sonnet", setting=AGENT, tries=tries, seed=3, start="2026-11-30 10:00:00")


AGENT_JOB_ROOTS = [*REAL_JOB_ROOTS, "jobs/agent"]


@pytest.fixture(scope="session")
def agent_run(real_run, tmp_path_factory) -> Workflow:
    """`real_run` with AGENT_TRIES added under jobs/agent (roots AGENT_JOB_ROOTS), on the task
    versions of the real control folders: read it, never change it."""
    workflow = real_run.copy(tmp_path_factory.mktemp("agent-run") / "wf")
    agent_on(AGENT_TRIES, workflow.path / "jobs" / "agent", real_digests(workflow.path / "jobs" / REAL_ROOTS[0]))
    workflow.run(roots=AGENT_JOB_ROOTS)
    return workflow


EXAMPLE_ROOTS = ("benchflow-real-jobs", "benchflow-samples", "generated")
EXAMPLE_JOB_ROOTS = [f"jobs/{name}" for name in EXAMPLE_ROOTS]


@pytest.fixture(scope="session")
def example_run(real_run, tmp_path_factory) -> Workflow:
    """The whole embedded example at the default settings (roots EXAMPLE_JOB_ROOTS): `real_run`
    with the generated folders added, so only their jobs and the stages over every setting run.
    Read it, never change it."""
    workflow = real_run.copy(tmp_path_factory.mktemp("example-run") / "wf")
    shutil.copytree(EXAMPLE / "generated", workflow.path / "jobs" / "generated")
    workflow.run(roots=EXAMPLE_JOB_ROOTS)
    return workflow


class Bundle(Mapping):
    """The redacted entries of a bundle's two passes, arcname -> bytes, read back from a spool:
    what a test compares by name rather than in an archive (`scan_and_spool`)."""

    def __init__(self, spool, hashes: dict[str, str], found):
        self.spool, self.hashes, self.found = spool, hashes, found

    def name_of(self, path: str) -> str:
        return self.found.name_of(path)

    def __getitem__(self, name: str) -> bytes:
        return self.spool.read(name)

    def __iter__(self):
        return iter(sorted(self.spool.where))

    def __len__(self) -> int:
        return len(self.spool.where)


def scan_and_spool(plan: dict[str, tuple], directories: set[str], folder: Path):
    """The bundle's two passes (bundle.scan, bundle.redacted) into a spool: the redacted entries by
    name (with their sha256), the folder names (redacted) and one row per hit."""
    import hashlib

    from benchreport.archive import bundle

    found = bundle.scan(plan, directories, folder)
    spool, hashes, hits = bundle.Spool(folder), {}, list(found.name_hits)
    for name, data, rows in bundle.redacted(plan, found):
        if data is not None:
            spool.add(name, data)
            hashes[name] = hashlib.sha256(data).hexdigest()
            hits += rows
    found.raw.close()
    return Bundle(spool, hashes, found), found.directories, bundle.sort_hits(hits)
