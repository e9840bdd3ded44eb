"""Running the oracle and nop controls with BenchFlow itself, for tasks that have none.

The workflow never runs code from a job folder; this runs BenchFlow (a configured command) on
task folders the config names, into a jobs folder the workflow then ingests like any other.
"""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

KINDS = ("oracle", "nop")


def tasks_lacking(index_entries: list[dict], kind: str) -> list[str]:
    """Tasks of agent settings with no trial of this control kind, from ingest index entries."""
    agent_tasks, covered = set(), set()
    for settings in index_entries:
        for entry in settings.values():
            control = entry["key"]["control"]
            if control is None:
                agent_tasks.update(entry["tasks"])
            elif control == kind:
                covered.update(entry["tasks"])
    return sorted(agent_tasks - covered)


def bench_commands(kind: str, tasks: list[str], run: dict, jobs_dir: Path) -> list[list[str]]:
    """One `bench eval run` per try, each into <jobs_dir>/<kind>/trial-NN (NN = the try)."""
    agent = run["oracle_agent"] if kind == "oracle" else run["nop_agent"]
    commands = []
    for attempt in range(1, run["tries"] + 1):
        command = [*run["command"], "eval", "run", "--tasks-dir", run["tasks_dir"]]
        for task in tasks:
            command += ["--include", task]
        command += ["--agent", agent, "--sandbox", "docker"]
        command += ["--jobs-dir", str(jobs_dir / kind / f"trial-{attempt:02d}")]
        if kind == "nop":
            command += list(run["nop_args"])
            for name in run["pass_env"]:
                command += ["--agent-env", f"{name}=${{{name}}}"]
        commands.append(command)
    return commands


def run_controls(kind: str, tasks: list[str], run: dict, jobs_dir: Path, log) -> dict:
    """Run the control `tries` times on the tasks; return a manifest (no secrets, no times)."""
    target = jobs_dir / kind
    if target.exists():
        shutil.rmtree(target)  # a new task list replaces the earlier runs of this kind
    runnable = [task for task in tasks if (Path(run["tasks_dir"]) / task).is_dir()]
    runs: list[dict] = []
    manifest = {
        "kind": kind,
        "tasks": runnable,
        "not_in_tasks_dir": sorted(set(tasks) - set(runnable)),
        "runs": runs,
    }
    if not runnable:
        return manifest
    env = dict(os.environ, BENCHFLOW_AGENTS_SOURCE="off", COLUMNS="200")
    if run["agents_dir"]:
        env["BENCHFLOW_AGENTS_DIR"] = str(Path(run["agents_dir"]).resolve())
    workdir = jobs_dir / ".bench-work"  # BenchFlow writes a .cache/ in its working folder
    workdir.mkdir(parents=True, exist_ok=True)
    absolute = run | {"tasks_dir": str(Path(run["tasks_dir"]).resolve())}
    recorded = bench_commands(kind, runnable, run, jobs_dir)
    executed = bench_commands(kind, runnable, absolute, jobs_dir.resolve())
    for template, runnable_command in zip(recorded, executed):
        # $NAME placeholders are filled from the environment here, so values never reach a record
        command = [os.path.expandvars(part) for part in runnable_command]
        print("$ " + " ".join(template), file=log, flush=True)
        code: int | str
        try:
            done = subprocess.run(
                command, cwd=workdir, env=env, stdout=log, stderr=subprocess.STDOUT, timeout=run["timeout_minutes"] * 60
            )
            code = done.returncode
        except subprocess.TimeoutExpired:
            code = "timeout"
        runs.append({"command": template, "exit": code})
    return manifest
