"""The environment stage: its records of the Docker CLI's answers, and against a real Docker daemon
images built here with no registry (those tests need the daemon and busybox-static)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import uuid

import pytest
from benchreport.read import environment
from conftest import REAL_JOB_ROOTS

# For a test that also takes a workflow run: the daemon and busybox are asked for before any other
# fixture, so that a machine without them skips before the run is made.
needs_docker = pytest.mark.usefixtures("docker_daemon", "busybox")


@pytest.fixture
def image(docker_daemon, busybox, tmp_path):
    """A tiny local image (FROM scratch + busybox), removed afterwards."""
    context = tmp_path / "context"
    context.mkdir()
    shutil.copy(busybox, context / "busybox")
    (context / "Dockerfile").write_text('FROM scratch\nCOPY busybox /bin/busybox\nCMD ["/bin/busybox", "true"]\n')
    tag = f"benchreport-test/{uuid.uuid4().hex[:12]}:1"
    subprocess.run(["docker", "build", "-q", "-t", tag, str(context)], check=True, capture_output=True)
    yield tag
    subprocess.run(["docker", "rmi", "-f", tag], capture_output=True)


def docker_id(reference: str) -> str:
    return subprocess.run(
        ["docker", "image", "inspect", "-f", "{{.Id}}", reference], capture_output=True, text=True, check=True
    ).stdout.strip()


def inspect(reference, **kwargs):
    return environment.inspect_image(reference, docker="docker", env=dict(os.environ), timeout=60, **kwargs)


def test_recorded_id_is_what_docker_says(image):
    record = inspect(image)
    assert record["status"] == "inspected"
    assert record["image"]["Id"] == docker_id(image)
    assert image in record["image"]["RepoTags"]
    assert record["image"]["RepoDigests"] == []
    assert record["platform"].startswith("linux/")
    assert record["image"]["RootFS"] and record["daemon_version"]
    assert environment.repo_digest_text(record) == "none: built locally, never pushed"


def test_removed_image_is_reported_missing(image):
    subprocess.run(["docker", "rmi", "-f", image], check=True, capture_output=True)
    record = inspect(image)
    assert record["status"] == "image missing"
    assert "image" not in record


def test_stopped_daemon_is_reported_unavailable(image, tmp_path):
    env = dict(os.environ, DOCKER_HOST=f"unix://{tmp_path}/no-daemon.sock")
    record = environment.inspect_image(image, docker="docker", env=env, timeout=60)
    assert record["status"] == "daemon unavailable", record


def test_missing_cli_is_a_record_not_a_crash():
    record = environment.inspect_image("any", docker="/nonexistent/docker", env={}, timeout=5)
    assert record["status"] == "docker not run" and "not found" in record["reason"]


def write_task(tasks_dir, name, toml: str, dockerfile: str | None = None, busybox=None):
    """A task folder; with a Dockerfile, its environment/ build context, busybox in it if given."""
    task = tasks_dir / name
    task.mkdir(parents=True)
    (task / "task.toml").write_text(toml)
    if dockerfile:
        (task / "environment").mkdir()
        (task / "environment" / "Dockerfile").write_text(dockerfile)
        if busybox:
            shutil.copy(busybox, task / "environment" / "busybox")
    return task


def test_resolution_order(tmp_path):
    tasks = tmp_path / "tasks"
    write_task(tasks, "prebuilt", '[environment]\ndocker_image = "example/prebuilt:2"\n')
    write_task(tasks, "built", "[environment]\ncpus = 1\n", "FROM scratch\n")
    common = {"tasks_dirs": [str(tasks)], "build": False, "digest": "sha256:abc"}
    assert (
        environment.resolve_image("prebuilt", ["prebuilt"], images={"prebuilt": "cfg:1"}, **common)["source"]
        == "config"
    )
    resolved = environment.resolve_image("prebuilt", ["prebuilt"], images={}, **common)
    assert resolved["reference"] == "example/prebuilt:2" and resolved["source"].startswith("task definition")
    fallback = environment.resolve_image("built", ["built"], images={}, **common)
    assert fallback["reference"] == "bf__built" and fallback["build_context"] is None
    asked = environment.resolve_image("built", ["built"], images={}, **(common | {"build": True}))
    assert asked["build_context"].endswith("built/environment")
    assert environment.sanitise_image_name("bf__Fix JSON") == "bf__fix-json"


@needs_docker
def test_workflow_reports_the_environment_as_built(real_run_copy, image, busybox, tmp_path):
    workflow, real_jobs = real_run_copy, REAL_JOB_ROOTS
    tasks = tmp_path / "tasks"
    write_task(tasks, "tiny-hello", f'[environment]\ndocker_image = "{image}"\n')
    write_task(
        tasks,
        "tiny-hello-net",
        "[environment]\nallow_internet = true\n",
        "FROM scratch\nCOPY busybox /bin/busybox\n",
        busybox,
    )
    settings = tmp_path / "environment.yaml"
    # docker_host "": the CLI's default daemon (the shared run's config points at none)
    settings.write_text(
        json.dumps({"environment": {"tasks_dirs": [str(tasks)], "build_missing": True, "docker_host": ""}})
    )
    # what the test reads is each setting's (target reports): nothing run-level
    extra = ("reports", "--configfile", str(settings))
    workflow.run(*extra, roots=real_jobs)
    summaries = {
        json.loads(p.read_text())["settings"]["agent"]: json.loads(p.read_text())
        for p in (workflow.results / "reports").glob("*/summary.json")
    }
    oracle_env = {row["task"]: row for row in summaries["oracle"]["environment"]}
    assert oracle_env["tiny-hello"]["id"] == docker_id(image)
    assert oracle_env["tiny-hello"]["repo_digest"] == "none: built locally, never pushed"
    assert oracle_env["spec-pass"]["status"] == "image missing"
    nop_env = summaries["nop-acp"]["environment"][0]
    if subprocess.run(["docker", "image", "inspect", "bf__tiny-hello-net"], capture_output=True).returncode == 0:
        assert nop_env["status"] == "inspected"  # BenchFlow's own image is still here: it wins
    else:
        assert nop_env["status"] == "rebuilt" and nop_env["note"] == "rebuilt now, not the image that ran"
    assert nop_env["task_digests"] == ["sha256:5ab0f8f03ed6ffa928a613a1f7dde48a9b0f207188062019dddbdbad0e1158c1"]
    setting = summaries["oracle"]["setting"]
    report = workflow.read(f"reports/{setting}/report.md")
    assert f"| tiny-hello | {image} | task definition" in report
    assert docker_id(image) in report
    assert "image missing: BenchFlow removes its bf\\_\\_&lt;task&gt; images" in report
    # the inspection time is in the lineage record, never in the output
    record_file = next((workflow.results / "environment/images").glob("benchreport-test*.json"))
    lineage = json.loads((workflow.results / "lineage/environment/images" / (record_file.name + ".json")).read_text())
    assert "inspected_at" in lineage and "inspected_at" not in record_file.read_text()

    # nothing re-runs by itself; --forcerun refreshes and the bytes stay when the image is the same
    before = record_file.read_bytes()
    assert "Nothing to be done" in workflow.run("-n", *extra, roots=real_jobs).stdout
    workflow.run("--forcerun", "inspect_image", *extra, roots=real_jobs)
    assert record_file.read_bytes() == before
    # a removed image is reported missing on refresh, and the workflow still finishes
    subprocess.run(["docker", "rmi", "-f", image], check=True, capture_output=True)
    workflow.run("--forcerun", "inspect_image", *extra, roots=real_jobs)
    assert json.loads(record_file.read_text())["status"] == "image missing"
    report = workflow.read(f"reports/{setting}/report.md")
    # one row per image left out: the four spec-* tasks, and now tiny-hello
    images = [line for line in report.splitlines() if line.startswith("| image |") and "| image missing: " in line]
    assert len(images) == 5 and any("image of task tiny-hello (" in line for line in images)
    assert "Images not inspected (image missing) for 5 tasks: " in report


def records(workflow) -> dict[str, dict]:
    return {
        path.name: json.loads(path.read_text()) for path in (workflow.results / "environment/images").glob("*.json")
    }


@pytest.mark.slow  # a whole workflow run and two refreshes against the daemon
@needs_docker
def test_failed_records_are_kept_until_the_command_that_names_them(workflow, real_jobs, busybox, tmp_path):
    """What a missing daemon or image left is kept, like any record, until the command the run's
    last lines name; nothing asks the daemon while the workflow plans."""
    context = tmp_path / "context"
    context.mkdir()
    shutil.copy(busybox, context / "busybox")
    (context / "Dockerfile").write_text("FROM scratch\nCOPY busybox /bin/busybox\n")
    # every task named in config, under a name of this test's own: other tests build and remove
    # BenchFlow's bf__<task> images on the same daemon meanwhile
    unique = uuid.uuid4().hex[:12]
    images = {
        task: f"benchreport-test/{unique}-{task}:1"
        for task in ("spec-fail", "spec-noreward", "spec-partial", "spec-pass", "tiny-hello", "tiny-hello-net")
    }
    tag = images["tiny-hello"]
    settings = tmp_path / "environment.yaml"
    settings.write_text(json.dumps({"environment": {"images": images}}))
    extra = ("--configfile", str(settings))
    # the refreshes are read in each setting's records and reports (target reports)
    refresh = ("--forcerun", "inspect_image", "reports", *extra)
    away = dict(os.environ, DOCKER_HOST=f"unix://{tmp_path}/no-daemon.sock")
    here = dict(os.environ)
    try:
        done = workflow.run(*extra, roots=real_jobs, env=away)
        first = records(workflow)
        assert {r["reference"] for r in first.values()} == set(images.values())
        # every task of a setting, left out or not, carries the digests its trials record
        for lineage in (workflow.results / "lineage/reports").glob("*/report.md.json"):
            setting = lineage.parent.name
            trials = json.loads(workflow.read(f"reports/{setting}/trials.json"))["trials"]
            recorded = {}
            for trial in trials:
                recorded.setdefault(trial["task"], set()).update([trial["task_digest"]] if trial["task_digest"] else [])
            resolved = json.loads(lineage.read_text())["params"]["task_images"]
            assert {entry["task"]: entry["task_digests"] for entry in resolved} == {
                task: sorted(digests) for task, digests in recorded.items()
            }
        assert {r["status"] for r in first.values()} == {"daemon unavailable"}
        assert all(r["refresh"] == "snakemake --cores 4 --forcerun inspect_image" for r in first.values())
        assert "--forcerun inspect_image" in done.stderr
        # the daemon answers: a plain run plans nothing; the command takes every record again
        assert "Nothing to be done" in workflow.run("-n", *extra, roots=real_jobs, env=here).stdout
        workflow.run(*refresh, roots=real_jobs, env=here)
        assert {r["status"] for r in records(workflow).values()} == {"image missing"}
        subprocess.run(["docker", "build", "-q", "-t", tag, str(context)], check=True, capture_output=True)
        workflow.run(*refresh, roots=real_jobs, env=here)
        inspected = [r for r in records(workflow).values() if r["status"] == "inspected"]
        assert [r["image"]["Id"] for r in inspected] == [docker_id(tag)]
    finally:
        subprocess.run(["docker", "rmi", "-f", tag], capture_output=True)
