"""The workflow under a cluster executor, against the same workflow run locally.

One run goes through `--executor cluster-generic` with tests/cluster/submit.sh: every non-local
job is really submitted (its job script started in the background in a session of its own, as
a scheduler would, with an id handed back) and followed with tests/cluster/status.sh, which
reads the job's exit code. Meanwhile a second copy runs with `--cores 2`. Both use real BenchFlow job
folders (a few of the real 0.7.12 ones) plus two synthetic agent settings on the same tasks,
so that stats, reports, comparisons, the paper stage and the HTML page all run, and the
local rules that need the machine's Docker daemon or BenchFlow (inspect_image, controls)
run too, in snakemake's own process. The outputs under results/
(lineage records aside: they carry times) must be byte-identical, and the lineage records
equal once their times are dropped.

Also: every rule that runs something declares `threads` and a `mem_mb` resource (what a
scheduler is asked for), and `--executor slurm` dry-runs the workflow with the README's profile
without any SLURM install.
"""

from __future__ import annotations

import json
import os
import re
import shlex
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from benchflow_synth import write_matrix
from conftest import REPO, Workflow, copy_workflow

CLUSTER = REPO / "tests" / "cluster"
RULE_FILES = [REPO / "workflow" / "Snakefile", *sorted((REPO / "workflow" / "rules").glob("*.smk"))]
# rules that must never be submitted: they need the local Docker daemon / BenchFlow, do nothing,
# or (ingested) do next to nothing on the path of every later step
MUST_STAY_LOCAL = {"inspect_image", "controls", "bundle", "ingested", "due_stamp", "all"}
TASKS = ["tiny-hello", "tiny-hello-net"]  # the tasks of the real oracle and nop folders used below
AGENTS = [  # alias, model, served model, seed, outcomes per try (one per task in TASKS); one try keeps it quick
    ("sonnet", "anthropic/claude-sonnet-4-5", "claude-sonnet-4-5-20250929", 11, [("passed", "passed")]),
    ("opus", "anthropic/claude-opus-4-1", "claude-opus-4-1-20250805", 12, [("passed", "failed")]),
]


def snakemake(cwd: Path, *args: str, env=None, timeout=600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "snakemake", *args],
        check=False,
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=timeout,
    )


def declared_rules() -> dict[str, dict]:
    """Each rule of the Snakefile and workflow/rules/*.smk with what it declares, from the source text."""
    rules = {}
    for path in RULE_FILES:
        current = None
        directive = None
        for line in path.read_text(encoding="utf-8").splitlines():
            start = re.match(r"(rule|checkpoint)\s+(\w+)\s*:", line)
            if start:
                current = rules[start.group(2)] = {
                    "file": path.name,
                    "threads": None,
                    "mem_mb": None,
                    "local": False,
                    "action": None,
                }
                directive = None
                continue
            if line.strip() and not line[0].isspace() and not line.startswith("#"):
                current = None  # a top-level statement ends the rule
            if current is None:
                continue
            found = re.match(r" {4}(\w+):\s*(.*)$", line)
            if found:
                directive, value = found.groups()
                if directive == "threads":
                    current["threads"] = value.strip()
                elif directive == "localrule":
                    current["local"] = value.strip() == "True"
                elif directive in {"script", "shell", "run", "wrapper", "notebook", "cwl"}:
                    current["action"] = directive
            if directive == "resources":
                mem = re.search(r"\bmem_mb\s*=\s*([^,\s]+)", line)
                if mem:
                    current["mem_mb"] = mem.group(1)
    return rules


def write_agents(jobs: Path) -> None:
    for alias, model, served, seed, tries in AGENTS:
        setting = {
            "agent": "claude-agent-acp",
            "model": model,
            "served_model": served,
            "usage_source": "provider_response",
            "price_source": "litellm",
        }
        trials = [
            [{"task": task, "attempts": [{"kind": kind}]} for task, kind in zip(TASKS, kinds, strict=True)]
            for kinds in tries
        ]
        write_matrix(
            jobs / "agents" / alias, alias=alias, setting=setting, tries=trials, seed=seed, start="2026-11-30 10:00:00"
        )


def prepare(workflow: Workflow, real_jobs: list[str]) -> str:
    """Job folders and the config file of both runs; returns the config file's name."""
    write_agents(workflow.path / "jobs")
    (workflow.path / "no-tasks").mkdir()
    config = {
        # real 0.7.12 folders: an oracle on tiny-hello (plain layout) and an aborted nop matrix on
        # tiny-hello-net; the synthetic agents ran both tasks
        "job_roots": [
            f"{real_jobs[0]}/extra/oracle-single-plain",
            f"{real_jobs[0]}/extra/nop-matrix-aborted",
            "jobs/agents",
        ],
        # fewer simulations: the point is the executor, not the numbers (both runs use the same)
        "statistics": {"resamples": 1000, "coverage_simulations": 200, "permutations": 1000},
        # the control run is planned (each agent task lacks one control) but the tasks dir is empty,
        # so the local checkpoint runs and writes its manifest without starting BenchFlow
        "controls": {"run": {"enabled": True, "tasks_dir": "no-tasks", "command": ["false"]}},
        # inspect_image runs the Docker CLI, pointed at a socket that is never there: other tests
        # build and remove task images on this machine's daemon meanwhile, and both runs must see
        # the same answer ("daemon unavailable")
        "environment": {
            "inspect": True,
            "docker_host": "unix:///nonexistent/benchreport-executor-test.sock",
            "timeout_seconds": 20,
        },
    }
    (workflow.path / "executor-test.yaml").write_text(json.dumps(config, indent=2), encoding="utf-8")
    return "executor-test.yaml"


def outputs(results: Path) -> dict[str, bytes]:
    return {
        path.relative_to(results).as_posix(): path.read_bytes()
        for path in sorted(results.rglob("*"))
        if path.is_file() and path.relative_to(results).parts[0] != "lineage"
    }


def lineage_without_times(results: Path) -> dict[str, dict]:
    records = {}
    for path in sorted((results / "lineage").rglob("*.json")):
        record = json.loads(path.read_text(encoding="utf-8"))
        for key in ("started_at", "recorded_at", "inspected_at"):
            record.pop(key, None)
        records[path.relative_to(results).as_posix()] = record
    return records


def private_scripts(tmp_path: Path) -> Path:
    """The cluster scripts, executable whatever mode the checkout gave them."""
    scripts = tmp_path / "cluster"
    shutil.copytree(CLUSTER, scripts)
    for script in scripts.glob("*.sh"):
        script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return scripts


@pytest.mark.slow
def test_cluster_generic_run_matches_local_run(workflow, real_jobs, tmp_path):
    configfile = prepare(workflow, real_jobs)
    # the local run gets its own copy, laid out the same way in another folder
    local = copy_workflow(tmp_path / "local")
    for name in ("jobs", "no-tasks", configfile):
        source = workflow.path / name
        (shutil.copytree if source.is_dir() else shutil.copy2)(source, local.path / name)

    scripts = private_scripts(tmp_path)
    spool = tmp_path / "spool"
    submit = shlex.quote(str(scripts / "submit.sh")) + " --rule {rule} --threads {threads} --mem-mb {resources.mem_mb}"
    env = {**os.environ, "BENCHREPORT_SPOOL": str(spool)}
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--executor",
        "cluster-generic",
        "--jobs",
        "4",
        "--cluster-generic-submit-cmd",
        submit,
        "--cluster-generic-status-cmd",
        shlex.quote(str(scripts / "status.sh")),
        "--cluster-generic-cancel-cmd",
        str(scripts / "cancel.sh"),
        "--seconds-between-status-checks",
        "1",
        "--configfile",
        configfile,
    ]
    log_path = tmp_path / "cluster.log"
    with log_path.open("w") as log_file:
        cluster = subprocess.Popen(command, cwd=workflow.path, stdout=log_file, stderr=subprocess.STDOUT, env=env)
        try:
            # meanwhile the same workflow runs locally in the other copy (the cluster run mostly
            # waits on its jobs, so the two overlap well)
            plain = local.run("--configfile", configfile)
            cluster.wait(timeout=900)
        finally:
            if cluster.poll() is None:  # only after a failure: stop our snakemake, then our jobs
                cluster.kill()
                cluster.wait()
            ids = [job.name for job in spool.glob("job.*") if not (job / "exit").exists()]
            if ids:
                subprocess.run([str(scripts / "cancel.sh"), *ids], env=env, check=False)
    log = log_path.read_text(errors="replace")
    job_logs = "\n".join(
        f"--- {job.name}\n{(job / 'out').read_text(errors='replace')[-3000:]}"
        for job in sorted(spool.glob("job.*"))
        if (job / "exit").exists() and (job / "exit").read_text().strip() != "0"
    )
    assert cluster.returncode == 0, f"{log[-8000:]}\n{job_logs}"

    # every non-local job was submitted through submit.sh, ran in the background and succeeded
    submitted = dict(re.findall(r"Submitted job (\d+) with external jobid '([^']+)'", log))
    queued = {job.name: job for job in spool.glob("job.*")}
    assert submitted and set(submitted.values()) == set(queued)
    declared = declared_rules()
    ran_remote = {}
    for job in queued.values():
        request = dict(line.split("=", 1) for line in (job / "request").read_text().splitlines())
        assert (job / "exit").read_text().strip() == "0", job.name
        assert "Finished jobid: 0" in (job / "out").read_text(), job.name  # the job's own snakemake did it
        rule = declared[request["rule"]]
        # the scheduler was asked for what the rule declares (where the rule gives a plain number)
        for key in ("threads", "mem_mb"):
            assert request[key].isdigit(), (job.name, request)
            if (rule[key] or "").isdigit():
                assert request[key] == rule[key], (job.name, request, rule)
        ran_remote[request["rule"]] = ran_remote.get(request["rule"], 0) + 1
    assert ran_remote == {
        "ingest": 4,
        "coverage_design": 2,
        "report": 4,
        "run_report": 1,
    }
    assert not MUST_STAY_LOCAL & set(ran_remote)
    # ... and the local rules ran in snakemake's own process: printed as local, never submitted
    assert len(re.findall(r"^localrule inspect_image:", log, re.MULTILINE)) == 2  # bf__tiny-hello, bf__tiny-hello-net
    assert len(re.findall(r"^localcheckpoint controls:", log, re.MULTILINE)) == 2  # oracle, nop
    assert len(re.findall(r"^localcheckpoint ingested:", log, re.MULTILINE)) == 1
    assert re.search(r"^localrule all:", log, re.MULTILINE)
    assert not re.search(r"^(rule|checkpoint) (inspect_image|controls|ingested|all):", log, re.MULTILINE)
    for name in ran_remote:
        assert not re.search(rf"^local(rule|checkpoint) {name}:", log, re.MULTILINE), name

    assert "Submitted job" not in plain.stdout + plain.stderr

    remote_files, local_files = outputs(workflow.results), outputs(local.results)
    assert sorted(remote_files) == sorted(local_files)
    assert [name for name in remote_files if remote_files[name] != local_files[name]] == []
    # the lineage records differ only in their times: the jobs on the "cluster" saw the same
    # code, software versions, params and input hashes
    remote_lineage, local_lineage = lineage_without_times(workflow.results), lineage_without_times(local.results)
    assert sorted(remote_lineage) == sorted(local_lineage) and len(remote_lineage) > 30
    assert [name for name in remote_lineage if remote_lineage[name] != local_lineage[name]] == []
    # the run covered every stage: two agent settings compared, controls, paper, page, images
    reports = {name.split("/")[1] for name in remote_files if name.startswith("reports/")}
    assert len(reports) == 4 and sum(name.startswith("claude-agent-acp--") for name in reports) == 2
    comparisons = remote_files["comparisons/comparisons.md"].decode()
    assert (
        "| claude-agent-acp on anthropic/claude-opus-4-1 | claude-agent-acp on anthropic/claude-sonnet-4-5 | 2 |"
        in comparisons
    )
    for name in (
        "paper/forest.png",
        "paper/settings.csv",
        "report.html",
        "index.md",
        "exclusions.tsv",
        "controls/run-oracle.json",
        "controls/run-nop.json",
    ):
        assert remote_files[name], name
    images = [json.loads(data) for name, data in remote_files.items() if name.startswith("environment/images/")]
    assert sorted(image["reference"] for image in images) == ["bf__tiny-hello", "bf__tiny-hello-net"]
    assert {image["status"] for image in images} <= {"daemon unavailable", "docker not run"}
    oracle_run = json.loads(remote_files["controls/run-oracle.json"])
    assert oracle_run["runs"] == [] and oracle_run["not_in_tasks_dir"] == ["tiny-hello-net"]


def test_every_rule_declares_threads_and_mem_mb(workflow, real_jobs):
    declared = declared_rules()
    listed = snakemake(workflow.path, "--list-rules", "--config", f'job_roots=["{real_jobs[0]}"]')
    assert listed.returncode == 0, listed.stderr
    names = {line.strip() for line in listed.stdout.splitlines() if re.fullmatch(r"\w+", line.strip())}
    assert names == set(declared)  # the parser saw every rule snakemake knows
    # `all` only names the targets (no script, shell or run): nothing to give threads or memory to
    assert declared["all"]["action"] is None and declared["all"]["local"]
    missing = {
        name: [key for key in ("threads", "mem_mb") if rule[key] is None]
        for name, rule in declared.items()
        if rule["action"]
    }
    missing = {name: keys for name, keys in missing.items() if keys}
    assert missing == {}, f"rules lacking a declaration (a scheduler would get defaults): {missing}"
    # besides `all`, only the named targets of targets.smk run nothing, and they stay local too
    targets = {name for name, rule in declared.items() if rule["file"] == "targets.smk"}
    assert targets and {name for name, rule in declared.items() if not rule["action"]} == {"all"} | targets
    assert {name for name, rule in declared.items() if rule["local"]} == MUST_STAY_LOCAL | targets


# slow: it needs the slurm extra, which CI installs only for the slow run (with it installed,
# every snakemake start imports the plugin, and pandas through it: ~0.4 s a start here)
@pytest.mark.slow
def test_slurm_executor_dry_run_needs_no_slurm(workflow, real_jobs):
    # requirements-slurm.txt (.ci/run installs it); requirements.txt leaves it out
    pytest.importorskip("snakemake_executor_plugin_slurm", reason="pip install -r requirements-slurm.txt")
    roots = ",".join(f'"{root}"' for root in real_jobs)
    dry = snakemake(
        workflow.path, "--workflow-profile", str(CLUSTER / "slurm-profile"), "-n", "--config", f"job_roots=[{roots}]"
    )
    log = dry.stdout + dry.stderr
    assert dry.returncode == 0, log
    assert "This was a dry-run" in log
    # the profile's resources reach the jobs
    assert "slurm_partition=standard" in log and "runtime=30" in log
    # only the ingests and checkpoint ingested are planned: what follows depends on what ingest finds
    assert re.search(r"^ingest\s+\d+", log, re.MULTILINE) and "Ingesting the BenchFlow job folders of batch" in log
    assert re.search(r"^ingested\s+1\b", log, re.MULTILINE)
