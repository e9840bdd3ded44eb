"""A dry run and --lint plan from the job folders and write nothing; the run after them does
what the dry run said."""

from __future__ import annotations

import json
import os
from pathlib import Path

from conftest import REAL_JOB_ROOTS

# what Snakemake itself keeps under .snakemake/ whatever the workflow (its dry-run log, its
# source cache); the workflow's own state is .snakemake/benchreport-state
SNAKEMAKES_OWN = tuple(f".snakemake/{folder}/" for folder in ("log", "metadata", "locks", "incomplete", "iocache"))


def tree(root: Path) -> dict[str, tuple[int, int]]:
    """Every file under `root` but Snakemake's own: its mtime and size."""
    found = {}
    for folder, _, names in os.walk(root):
        for name in names:
            path = Path(folder, name)
            relpath = path.relative_to(root).as_posix()
            if not relpath.startswith(SNAKEMAKES_OWN):
                info = path.lstat()
                found[relpath] = (info.st_mtime_ns, info.st_size)
    return found


def planned_jobs(stdout: str) -> dict[str, int]:
    """rule -> job count, from a dry run's job stats table."""
    counts, inside = {}, False
    for line in stdout.splitlines():
        parts = line.split()
        if parts[:2] == ["job", "count"]:
            inside = True
        elif inside and len(parts) == 2 and parts[1].isdigit() and parts[0] != "total":
            counts[parts[0]] = int(parts[1])
        elif inside and parts[:1] == ["total"]:
            break
    return counts


def test_a_cold_dry_run_and_lint_write_nothing(workflow, real_jobs):
    before = tree(workflow.path)
    dry = workflow.run("-n", roots=real_jobs)
    planned = planned_jobs(dry.stdout)
    batches = planned["ingest"]
    assert batches >= 2 and planned["due_stamp"] >= batches, dry.stdout
    workflow.run("--lint", roots=real_jobs, check=False)
    assert tree(workflow.path) == before
    assert not (workflow.path / ".snakemake" / "benchreport-state").exists()

    # the ingests the dry run planned, up to the checkpoint after them (what follows is planned then)
    done = workflow.run("ingested", roots=real_jobs)
    assert done.stderr.count("Ingesting the BenchFlow job folders of batch") == batches
    assert "due_stamp" not in done.stderr


def test_a_dry_run_after_an_edit_lists_that_ingest_and_writes_nothing(real_run_copy):
    workflow = real_run_copy
    edited = "benchflow-real-jobs/script-run/nop-tc-x3/nop-tc/trial-02/2026-11-30__04-39-08"
    result = next((workflow.path / "jobs" / edited).glob("*/result.json"))
    data = json.loads(result.read_text())
    data["rewards"] = {"reward": 1.0}
    result.write_text(json.dumps(data, indent=2))
    before = tree(workflow.path)
    for _ in range(2):  # a second dry run finds the same: the first left nothing behind
        planned = planned_jobs(workflow.run("-n", roots=REAL_JOB_ROOTS).stdout)
        assert planned["ingest"] == 1 and planned["due_stamp"] == 1, planned
        assert tree(workflow.path) == before
    workflow.run("--lint", roots=REAL_JOB_ROOTS, check=False)
    assert tree(workflow.path) == before

    # the ingest the dry runs planned, up to the checkpoint after it; then none is due
    done = workflow.run("ingested", roots=REAL_JOB_ROOTS)
    assert done.stderr.count("Ingesting the BenchFlow job folders of batch") == 1
    assert "Nothing to be done" in workflow.run("-n", "ingested", roots=REAL_JOB_ROOTS).stdout
