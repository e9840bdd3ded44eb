"""`benchreport verify` gives a whole verdict: every output the re-run makes is compared, the last
line printed is the verdict its exit code gives, a config's draws are held to limits before any
re-run, a stopped verify stops its re-run, a full disk is one line, and a bundle whose folder
names were redacted verifies."""

from __future__ import annotations

import errno
import io
import json
import os
import signal
import subprocess
import sys
import tarfile
import time

import pytest
from benchflow_synth import write_matrix
from conftest import NO_DAEMON, REPO, copy_workflow, docker_missing, require
from test_bundle import SETTING, rebuild, tiny_archive

SECRET_NAME = "glpat-Ab3Cd5Ef7Gh9Ij1Kl3Mn5"  # a GitLab token's shape, in a task folder's name
VERDICTS = {0: "verify PASSED: ", 1: "verify FAILED: ", 2: "REFUSED: "}


def bundle_of(workflow, root="jobs", alias="sonnet", task=f"fix-{SECRET_NAME}", job_suffix="", environment=None):
    """The bundle of a real run over a generated job folder under `root` (tries of `alias`), its
    tasks "alpha" and `task`, each job folder's name ending in `job_suffix`; `environment` the
    config's section (None: no Docker daemon is reached)."""
    tries = [[{"task": t, "attempts": [{"kind": k}]} for t, k in (("alpha", "passed"), (task, "failed"))]]
    jobs = write_matrix(
        workflow.path / root / "agent",
        alias=alias,
        setting=SETTING,
        tries=tries * 2,
        seed=5,
        start="2026-11-30 10:00:00",
    )
    for job in sorted(jobs.glob("*/trial-*/*/")):
        job.rename(job.with_name(job.name + job_suffix))
    settings = {"environment": {"docker_host": NO_DAEMON} if environment is None else environment}
    (workflow.path / "settings.yaml").write_text(json.dumps(settings))
    workflow.run("bundle", "--configfile", "settings.yaml", roots=[root])
    return workflow.results / "bundle" / "benchreport.tar.gz"


@pytest.fixture(scope="module")
def archive(tmp_path_factory):
    """A bundle of a real run over job folders one of whose task folders is named with a
    secret-like string (redacted in the bundle), the Docker daemon left out of its records."""
    return bundle_of(copy_workflow(tmp_path_factory.mktemp("verdict") / "wf"))


def verify_command(path, *flags):
    return [sys.executable, "-m", "benchreport", "verify", str(path), *flags]


def environment(**extra):
    return dict(os.environ, PYTHONPATH=str(REPO / "workflow" / "scripts"), **extra)


def run_verify(path, cwd, *flags, **extra):
    """The command, its stderr merged into its stdout as a terminal shows them."""
    return subprocess.run(
        verify_command(path, *flags),
        cwd=cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment(**extra),
        timeout=900,
    )


def assert_verdict(done, code: int) -> str:
    """The exit code is `code` and the last line printed states that verdict; that line."""
    last = done.stdout.splitlines()[-1]
    assert done.returncode == code and last.startswith(VERDICTS[code]), done.stdout
    assert "Traceback" not in done.stdout, done.stdout
    return last


def test_a_bundle_with_redacted_names_verifies(archive, tmp_path):
    with tarfile.open(archive) as tar:
        names = tar.getnames()
    assert not [name for name in names if SECRET_NAME in name]
    assert [name for name in names if "/fix-[REDACTED:gitlab token]__" in name]
    assert_no_secret(archive)
    done = run_verify(archive, tmp_path)
    last = assert_verdict(done, 0)
    assert "outputs were made again, byte for byte" in last and "not proved: origin" in done.stdout


def assert_no_secret(archive, secret=SECRET_NAME) -> None:
    """No member of the archive holds `secret` in its name or its bytes; its job folders hold files."""
    with tarfile.open(archive) as tar:
        members = tar.getmembers()
        assert not [m.name for m in members if secret in m.name]
        assert not [m.name for m in members if m.isfile() and secret.encode() in tar.extractfile(m).read()]
    assert [m.name for m in members if m.name.endswith("/result.json") and "/jobs/" in m.name]


@pytest.mark.slow
@pytest.mark.parametrize("where", ["alias", "root", "job"])
def test_a_secret_in_a_folder_name_above_the_task_verifies(tmp_path, where):
    """A secret in a root's name, in an alias folder's or in the job folder's own: the bundle holds
    the job files under the names redacted, and its re-run makes every output again."""
    named = {
        "alias": {"alias": f"sonnet-{SECRET_NAME}"},
        "root": {"root": f"jobs-{SECRET_NAME}"},
        "job": {"job_suffix": f"-{SECRET_NAME}"},
    }[where]
    archive = bundle_of(copy_workflow(tmp_path / "wf"), task="beta", **named)
    assert_no_secret(archive)
    assert_verdict(run_verify(archive, tmp_path), 0)


@pytest.mark.slow
def test_a_bundle_with_redacted_names_and_docker_records_verifies(tmp_path):
    require(docker_missing())
    archive = bundle_of(copy_workflow(tmp_path / "wf"), environment={})
    assert_no_secret(archive)
    assert_verdict(run_verify(archive, tmp_path), 0)


@pytest.mark.slow
def test_a_secret_in_dockers_words_verifies(tmp_path):
    """A Docker CLI whose message holds a secret: the image records are written with it redacted,
    so the outputs that show them are made again from the bundle, and the secret is in neither."""
    secret = "Zx81Kq0Lm2Nv4Bc6Xa9Wd7Yb5"
    docker = tmp_path / "docker"
    docker.write_text(f"#!/bin/sh\necho 'Error response from daemon: denied, token={secret}' >&2\nexit 1\n")
    docker.chmod(0o755)
    workflow = copy_workflow(tmp_path / "wf")
    archive = bundle_of(workflow, task="beta", environment={"docker": str(docker)})
    records = sorted((workflow.results / "environment" / "images").glob("*.json"))
    assert records and all("denied, token=[REDACTED:" in record.read_text() for record in records)
    assert_no_secret(archive, secret)
    assert_verdict(run_verify(archive, tmp_path), 0)


def test_every_output_is_compared_both_ways(archive, tmp_path):
    """An output the re-run makes that the bundle lacks (manifest made to match) and one the
    bundle holds that the re-run does not make: each a failure named in one line."""
    changed = rebuild(
        archive, tmp_path / "changed.tar.gz", {"results/trials.csv": None, "results/extra.md": lambda _: b"x\n"}
    )
    done = run_verify(changed, tmp_path)
    lines = done.stdout.splitlines()
    assert "made again but not in the bundle nor its manifest: results/trials.csv" in lines, done.stdout
    assert "not made again: results/extra.md" in lines, done.stdout
    assert "2 of" in assert_verdict(done, 1)


def test_an_output_missing_from_the_manifest_fails_before_any_rerun(archive, tmp_path):
    """In the archive but not in its manifest: named, and the verdict says nothing was re-run."""
    with tarfile.open(archive) as tar:
        manifest = tar.extractfile("benchreport/MANIFEST.sha256").read()
    unlisted = b"".join(line for line in manifest.splitlines(True) if not line.endswith(b"  results/trials.csv\n"))
    done = run_verify(
        rebuild(archive, tmp_path / "unlisted.tar.gz", {"MANIFEST.sha256": lambda _: unlisted}, manifest=False),
        tmp_path,
    )
    assert "MANIFEST: not in the manifest: results/trials.csv" in done.stdout.splitlines()
    assert "nothing re-run" in assert_verdict(done, 1)
    assert "re-running" not in done.stdout


def test_a_refused_archive_and_a_failed_rerun_end_in_their_verdict(tmp_path):
    refused = tiny_archive(tmp_path / "link.tar.gz", [("link", b"", {"type": tarfile.SYMTYPE, "linkname": "/"})])
    assert "link refused" in assert_verdict(run_verify(refused, tmp_path), 2)
    empty = tiny_archive(tmp_path / "empty.tar.gz", [("config.yaml", b"job_roots: []\n", {})])
    done = run_verify(empty, tmp_path)
    assert "re-run FAILED" in done.stdout
    assert assert_verdict(done, 1) == "verify FAILED: the re-run exited with 1"


@pytest.mark.parametrize("key", ["statistics.resamples", "statistics.coverage_simulations", "statistics.permutations"])
def test_draws_past_their_limit_are_refused_before_any_rerun(tmp_path, monkeypatch, key):
    from benchreport.archive import verify as verifier

    section, name = key.split(".")
    config = f"job_roots: []\n{section}: {{{name}: 1000000000}}\n".encode()
    started = []
    monkeypatch.setattr(verifier, "run_snakemake", lambda *args, **kwargs: started.append(args))
    out = io.StringIO()
    code = verifier.verify(
        str(tiny_archive(tmp_path / "costly.tar.gz", [("config.yaml", config, {})])), out=out, err=io.StringIO()
    )
    assert code == 2 and started == [], out.getvalue()
    (line,) = out.getvalue().splitlines()
    assert (
        line
        == f"REFUSED: config.yaml {key} is 1,000,000,000, past verify's limit of 1,000,000 (--max-draws {key}=1000000000 allows it)"
    )


def test_the_flag_raises_a_draw_limit(tmp_path):
    config = b"job_roots: []\nstatistics: {resamples: 2000000}\n"
    archive = tiny_archive(tmp_path / "costly.tar.gz", [("config.yaml", config, {})])
    assert "statistics.resamples is 2,000,000" in assert_verdict(run_verify(archive, tmp_path), 2)
    raised = run_verify(archive, tmp_path, "--max-draws", "statistics.resamples=2000000")
    assert assert_verdict(raised, 1) == "verify FAILED: the re-run exited with 1"  # past the limit: re-run


def process_table() -> dict[int, tuple[int, int]]:
    """pid -> (parent pid, process group) of every process."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as stat:
                    fields = stat.read().rsplit(")", 1)[1].split()
            except OSError:  # ended meanwhile
                continue
            table[int(entry)] = (int(fields[1]), int(fields[2]))
    return table


def descendants(pid: int) -> set[int]:
    table, found, pending = process_table(), set(), [pid]
    while pending:
        parent = pending.pop()
        children = {child for child, (ppid, _) in table.items() if ppid == parent}
        found |= children
        pending += children
    return found


def rerun_leaders(pid: int) -> set[int]:
    table = process_table()
    return {child for child in descendants(pid) if table.get(child, (0, 0))[1] == child}


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM])
def test_a_stopped_verify_stops_its_rerun(archive, tmp_path, signum):
    """The signal is sent once the re-run's process exists: verify ends with its verdict, and no
    process it started, nor any of the re-run's process group, is left."""
    (tmp_path / "tmp").mkdir()
    process = subprocess.Popen(
        verify_command(archive),
        cwd=tmp_path,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        env=environment(TMPDIR=str(tmp_path / "tmp")),
    )
    try:
        # the re-run is the child that leads a process group of its own
        while not (leaders := rerun_leaders(process.pid)) and process.poll() is None:
            time.sleep(0.02)
        assert leaders, "verify ended before its re-run started"
        (group,) = leaders
        started = descendants(process.pid)
        process.send_signal(signum)
        output, _ = process.communicate(timeout=120)
    finally:
        process.kill()
    assert process.returncode == 128 + signum, output
    assert output.splitlines()[-1].startswith(f"verify STOPPED by {signal.Signals(signum).name}"), output
    left = {pid for pid, (_, pgid) in process_table().items() if pgid == group or pid in started}
    assert not left, (left, output)
    assert list((tmp_path / "tmp").iterdir()) == []


class FullDisk:
    """A file opened for writing whose writes fail as on a full disk once `room` bytes are taken."""

    def __init__(self, handle, room: list[int]):
        self.handle, self.room = handle, room

    def write(self, data):
        if len(data) > self.room[0]:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        self.room[0] -= len(data)
        return self.handle.write(data)

    def __getattr__(self, name):
        return getattr(self.handle, name)


def test_a_full_disk_while_unpacking_is_one_line_naming_the_file(tmp_path, monkeypatch):
    from benchreport.archive import verify as verifier

    room, real_open = [1 << 20], open

    def opened(path, mode="r", *args, **kwargs):
        handle = real_open(path, mode, *args, **kwargs)
        return FullDisk(handle, room) if "x" in mode else handle

    monkeypatch.setattr(verifier, "open", opened, raising=False)
    big = os.urandom(3 << 20)
    members = [("config.yaml", b"job_roots: []\n", {}), ("jobs/x/a__0123abcd/result.json", big, {})]
    out = io.StringIO()
    assert verifier.verify(str(tiny_archive(tmp_path / "big.tar.gz", members)), out=out, err=io.StringIO()) == 1
    (line,) = out.getvalue().splitlines()
    assert line.startswith("verify FAILED: the re-run's files cannot be written: No space left on device: ")
    assert line.endswith("/rerun/jobs/x/a__0123abcd/result.json"), line


@pytest.fixture
def small_disk(tmp_path):
    """A mount point for a tmpfs of a given size (root only: skipped where mount is refused)."""
    mounted = []

    def mount(size: int):
        point = tmp_path / f"disk-{len(mounted)}"
        point.mkdir()
        done = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(point)], capture_output=True)
        if done.returncode != 0:
            pytest.skip(f"no tmpfs can be mounted here: {done.stderr.decode().strip()}")
        mounted.append(point)
        return point

    yield mount
    for point in mounted:
        subprocess.run(["umount", str(point)], check=True)


def tree_bytes(*roots) -> int:
    """What the files under `roots` take on a tmpfs, each rounded up to whole pages: the sources,
    not the bytecode an import may have left beside them."""
    return sum(
        -(-path.stat().st_size // 4096) * 4096
        for root in roots
        for path in root.rglob("*")
        if path.is_file() and "__pycache__" not in path.parts
    )


def test_a_failed_rerun_on_a_nearly_full_disk_is_said_to_be_full(tmp_path, small_disk):
    """A job that meets a full disk as its interpreter closes its log says nothing (it exits 120):
    a failed re-run whose disk is nearly full is said to have met a full disk, one with room not."""
    from benchreport.archive import verify as verifier

    disk = small_disk(verifier.FULL_BELOW * 2)
    assert verifier.disk_left_full(disk) is None
    (disk / "filler").write_bytes(b"x" * (verifier.FULL_BELOW + (verifier.FULL_BELOW >> 1)))
    assert "No space left on device" in verifier.disk_left_full(disk)
    assert verifier.disk_left_full(tmp_path) is None


def test_a_full_disk_is_one_line_naming_where(archive, tmp_path, small_disk):
    """On a real small disk: while unpacking, and once the inputs and the workflow are in place,
    while the re-run writes its outputs."""
    unpacking = run_verify(archive, tmp_path, TMPDIR=str(small_disk(64 << 10)))
    assert "No space left on device" in assert_verdict(unpacking, 1) and "/rerun/" in unpacking.stdout.splitlines()[-1]
    with tarfile.open(archive) as tar:
        inputs = sum(
            -(-m.size // 4096) * 4096
            for m in tar.getmembers()
            if m.name.startswith(("benchreport/jobs/", "benchreport/replay/"))
        )
    room = inputs + tree_bytes(REPO / "workflow", REPO / "config") + (256 << 10)
    disk = small_disk(room)
    rerun = run_verify(archive, tmp_path, TMPDIR=str(disk))
    last = assert_verdict(rerun, 1)
    assert last.startswith(f"verify FAILED: the re-run's disk is full (its folder {disk}/"), rerun.stdout
    assert "No space left on device" in last
    assert list(disk.iterdir()) == []
