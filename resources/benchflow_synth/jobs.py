"""A plain job folder (write_job) and a --matrix run (write_matrix), attempt by attempt."""

from __future__ import annotations

import json
import shutil
from datetime import datetime, timedelta
from pathlib import Path

from .attempt import JobPlace, _write_attempt
from .common import (
    MATRIX_ROOT,
    VIRTUAL_ROOT,
    _dumps,
    _job_name_of,
    _parse_start,
    _rng,
    _seed_int,
    _ts,
    _utime,
    _write,
    default_task_digest,
)
from .plan import _norm_attempt, _norm_setting, _plan_attempt
from .summary import job_summary

# --------------------------------------------------------------------------------------------
# jobs


TASK_PROMPTS = {
    "fix-json-parser": "Fix /app/src/json_parser.py so escaped unicode parses.",
    "csv-dedupe": "Dedupe /app/data.csv by email, keep the newest row.",
    "log-rotate-config": "Write /app/logrotate.conf: daily, keep 7, compress.",
    "sql-query-optimizer": "Make /app/report.sql run under 2 s, same rows.",
    "regex-email-validator": "Implement validate() per /app/RULES.md.",
    "merge-sorted-streams": "Implement a lazy k-way merge in /app/merge.py.",
    "dockerfile-slim": "Shrink the /app/Dockerfile image below 120 MB.",
    "flaky-test-quarantine": "Mark the flaky tests in /app/tests as flaky.",
    "unicode-normalize": "Normalize /app/text/* to NFC; list changed files.",
    "cron-schedule-parser": "Implement next_runs(expr, start, n) for cron.",
    "git-bisect-regression": "Find the first bad commit in /app/repo.",
    "pdf-table-extract": "Extract the tables of /app/in.pdf to CSV files.",
}
TIMEOUTS = (600, 900, 1200, 1800)


def _prompt_for(task: str) -> str:
    return TASK_PROMPTS.get(task, f"Complete the task `{task}` described in /app/README.md.")


def _timeout_for(task: str) -> int:
    return TIMEOUTS[_seed_int("timeout", task) % len(TIMEOUTS)]


def _norm_trials(trials: list[dict]) -> list[dict]:
    out = []
    seen = set()
    for t in trials:
        if not isinstance(t, dict) or not t.get("task") or not t.get("attempts"):
            raise ValueError(f"a trial needs 'task' and a non-empty 'attempts' list: {t!r}")
        if t["task"] in seen:
            raise ValueError(f"task {t['task']!r} appears twice in one job")
        seen.add(t["task"])
        out.append({**t, "attempts": [_norm_attempt(a) for a in t["attempts"]]})
    return out


def _write_job(
    jobs_dir: Path,
    *,
    job_name: str,
    setting: dict,
    trials: list[dict],
    seed: int,
    write_summary: bool,
    start: datetime,
    vjobs: str,
    results_steps: bool = True,
    n_requests: int | None = None,
    llm_line_bytes: int | None = None,
) -> tuple[Path, dict | None, datetime]:
    s = _norm_setting(setting)
    trials = _norm_trials(trials)
    jdir = Path(jobs_dir) / job_name
    if jdir.exists():
        shutil.rmtree(jdir)
    jdir.mkdir(parents=True)
    place = JobPlace(jdir, f"{vjobs}/{job_name}", job_name, seed, results_steps, llm_line_bytes)
    rng = _rng(seed, job_name, "schedule")

    # plan every attempt, then place them on the timeline: `concurrency` slots, the tasks in
    # order, each task's attempts back to back with BenchFlow's backoff (2 s, 4 s, ...).
    plans = []
    for t in trials:
        task = t["task"]
        tplans = [_plan_attempt(s, task, a, i, job_name, seed, _timeout_for(task)) for i, a in enumerate(t["attempts"])]
        if n_requests is not None:
            for p in tplans:
                if p.get("active"):
                    p["n_lines"] = max(1, int(n_requests))
        plans.append(tplans)
    t0 = start + timedelta(seconds=rng.uniform(0.6, 1.2))
    slots = [t0] * max(1, int(s["concurrency"]))
    starts: list[list[datetime]] = []
    for tplans in plans:
        k = min(range(len(slots)), key=lambda j: (slots[j], j))
        t = slots[k] + timedelta(seconds=rng.uniform(0.005, 0.4))
        tstarts = []
        for i, p in enumerate(tplans):
            if i > 0:
                t += timedelta(seconds=min(2.0**i, 30.0) + rng.uniform(0.05, 0.6))
            t = _ts(rng, t)
            tstarts.append(t)
            t += timedelta(seconds=p.get("total", p.get("run_for", 0.0)))
        slots[k] = t
        starts.append(tstarts)

    finals: list[dict] = []
    for t, tplans, tstarts in zip(trials, plans, starts):
        task = t["task"]
        # "task_digest": None writes a trial that records no digest (as some BenchFlow builds do)
        digest = (
            t["task_digest"]
            if "task_digest" in t and t["task_digest"] is None
            else (t.get("task_digest") or s["task_digests"].get(task) or default_task_digest(task))
        )
        final = None
        for p, st in zip(tplans, tstarts):
            res = _write_attempt(place, s, task, _prompt_for(task), digest, _timeout_for(task), p, st)
            if res is not None:
                final = res
        if final is not None:
            finals.append(final)

    ends = [p["finished"] for tplans in plans for p in tplans]
    job_end = _ts(rng, max(ends) + timedelta(seconds=rng.uniform(0.2, 1.5)))

    # job-level results.jsonl: every attempt's row, example_id renumbered per task
    example_ids: dict[str, int] = {}
    rows = []
    for path in sorted(jdir.glob("*/results.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            row["example_id"] = example_ids.setdefault(row["info"]["task_id"], len(example_ids))
            rows.append(json.dumps(row))
    if rows and write_summary:  # a killed job never reaches write_job_results_jsonl
        _write(jdir / "results.jsonl", "\n".join(rows) + "\n")
        _utime(jdir / "results.jsonl", job_end)

    summary = None
    if write_summary:
        elapsed = (job_end - start).total_seconds()
        summary = job_summary(finals, job_name=job_name, setting=setting, elapsed_sec=elapsed)
        text = _dumps(summary)
        _write(jdir / "summary.json", text)
        _write(Path(jobs_dir) / "summary.json", text)
        _utime(jdir / "summary.json", job_end)
        _utime(Path(jobs_dir) / "summary.json", job_end)
    _utime(jdir, job_end)
    _utime(Path(jobs_dir), job_end)
    return jdir, summary, job_end


def write_job(
    jobs_dir: Path,
    *,
    job_name: str,
    setting: dict,
    trials: list[dict],
    seed: int,
    write_summary: bool = True,
    start: str | None = None,
    results_steps: bool = True,
) -> Path:
    """Write ``<jobs_dir>/<job_name>/`` (a plain BenchFlow job) and return the job folder.

    One ``<task>__<hex8>`` folder per attempt, the job ``summary.json`` (audit buckets over the
    last attempt of each task, as ``Evaluation.run`` computes them), the job-level
    ``results.jsonl`` and the ``<jobs_dir>/summary.json`` copy. ``write_summary=False`` models a
    killed job (no summary.json anywhere). ``start`` (e.g. ``"2026-11-30 04:23:02"``) is when
    the job began; by default it is read from ``job_name`` when that is a BenchFlow
    ``YYYY-MM-DD__HH-MM-SS`` name, else derived from ``seed``. ``results_steps=False`` leaves
    the trainer ``trajectory`` steps out of the ``results.jsonl`` rows (saves space).
    """
    jobs_dir = Path(jobs_dir)
    if start is not None:
        start_dt = _parse_start(start)
    else:
        try:
            start_dt = _parse_start(job_name)
        except ValueError:
            start_dt = datetime(2026, 11, 30, 4, 0, 0) + timedelta(seconds=_seed_int(seed, job_name) % 86_400)
    jdir, _, _ = _write_job(
        jobs_dir,
        job_name=job_name,
        setting=setting,
        trials=trials,
        seed=seed,
        write_summary=write_summary,
        start=start_dt,
        vjobs=f"{VIRTUAL_ROOT}/{jobs_dir.name}",
        results_steps=results_steps,
    )
    return jdir


def write_matrix(
    jobs_dir: Path,
    *,
    alias: str,
    setting: dict,
    tries: list[list[dict]],
    seed: int,
    start: str,
    write_matrix_summary: bool = True,
    results_steps: bool = True,
) -> Path:
    """Write a ``--matrix --trials N`` jobs dir; ``tries[i]`` is the trial list of try i+1.

    Layout: ``<jobs_dir>/matrix-summary.json`` (unless ``write_matrix_summary=False``, as when
    the matrix run was aborted), ``<jobs_dir>/<alias>/trial-NN/summary.json`` and
    ``<jobs_dir>/<alias>/trial-NN/<YYYY-MM-DD__HH-MM-SS>/...``. A try whose trial list is
    wrapped as ``{"trials": [...], "write_summary": False}`` is a killed job. Tries run one
    after the other from ``start``. Returns ``jobs_dir``.
    """
    jobs_dir = Path(jobs_dir)
    jobs_dir.mkdir(parents=True, exist_ok=True)
    t = _parse_start(start)
    vroot = f"{VIRTUAL_ROOT}/{jobs_dir.name}"
    runs = []
    last_end = t
    for n, try_spec in enumerate(tries, start=1):
        if isinstance(try_spec, dict):
            trials = try_spec["trials"]
            write_summary = bool(try_spec.get("write_summary", True))
        else:
            trials, write_summary = try_spec, True
        tdir = jobs_dir / alias / f"trial-{n:02d}"
        job_name = _job_name_of(t)
        _, summary, job_end = _write_job(
            tdir,
            job_name=job_name,
            setting=setting,
            trials=trials,
            seed=seed + n,
            write_summary=write_summary,
            start=t,
            vjobs=f"{vroot}/{alias}/trial-{n:02d}",
            results_steps=results_steps,
        )
        if summary is not None:
            runs.append(
                {
                    "alias": alias,
                    "errored": summary["errored"],
                    "failed": summary["failed"],
                    "jobs_dir": f"{vroot}/{alias}/trial-{n:02d}",
                    "passed": summary["passed"],
                    "total": summary["total"],
                    "trial": n,
                    "verifier_errored": summary["verifier_errored"],
                }
            )
        last_end = job_end
        gap = _rng(seed, alias, n, "gap").uniform(1.0, 3.5)
        t = (job_end + timedelta(seconds=gap)).replace(microsecond=0) + timedelta(seconds=1)
    if write_matrix_summary:
        ms = {"matrix": f"{MATRIX_ROOT}/{jobs_dir.name}.yaml", "runs": runs, "schema_version": 1, "trials": len(tries)}
        _write(jobs_dir / "matrix-summary.json", json.dumps(ms, indent=2, sort_keys=True) + "\n")
        _utime(jobs_dir / "matrix-summary.json", last_end)
    _utime(jobs_dir / alias, last_end)
    _utime(jobs_dir, last_end)
    return jobs_dir
