"""The try index of a trial, whatever layout the tries were run into (settings.number_tries).

A `--matrix --trials N` run stops after the first job in which a task errored, so researchers
run each try as its own `--matrix … --trials 1` job into folders they name themselves: every
trial then sits under `trial-01`. The tries are numbered by the layout when it names them apart,
else by their recorded start; the same trials laid out either way give the same report.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest
from benchreport.present.sentences import TRY_RULES
from benchreport.read import discover, ingest
from benchreport.read.settings import number_tries
from conftest import EXAMPLE, copy_workflow

MATRIX = EXAMPLE / "generated" / "claude-sonnet-low-x3"
ALIAS = "claude-sonnet-4-5-low"
NOP = EXAMPLE / "benchflow-real-jobs" / "script-run" / "nop-x3"


def matrix_jobs() -> list[Path]:
    """The job folders of the matrix run, try 1 first."""
    return [next(p for p in (MATRIX / ALIAS / f"trial-{n:02d}").iterdir() if p.is_dir()) for n in (1, 2, 3)]


# Folder names researchers give per-try jobs, each the folder the try's job folder is put in.
STYLES = {
    "run": lambda n: f"run-{n}/{ALIAS}/trial-01",
    "try": lambda n: f"try-{n}/{ALIAS}/trial-01",
    "try above the job": lambda n: f"try-{n}",
    "try under the alias": lambda n: f"{ALIAS}/try-{n}",
    "run_N above the job": lambda n: f"run_{n}",
    "repeat": lambda n: f"repeat-{n}/{ALIAS}",
    "sample": lambda n: f"study/sample-{n}",
    "seed": lambda n: f"seed-{n}/{ALIAS}/trial-01",
    "dates": lambda n: f"2026-11-2{7 + n}/{ALIAS}/trial-01",
    "plain": lambda n: f"attempt-{'abc'[n - 1]}",
}
# the styles whose folders name no try: their tries are told apart by their start
UNNAMED = {"dates", "plain"}


def per_try_layout(root: Path, style: str) -> None:
    """The matrix run's three tries, each as its own job folder under the style's folder."""
    for number, job in enumerate(matrix_jobs(), start=1):
        shutil.copytree(job, root / STYLES[style](number) / job.name)


def tries(roots: list[str]) -> dict[tuple, tuple]:
    """(task, job folder name) -> (try, rule) over every job folder under the roots."""
    trials = [t for job in discover.find_job_folders(roots) for t in ingest.ingest_job(job)["trials"]]
    return {(t["task"], t["job"].rsplit("/", 1)[1]): (t["try_index"], t["try_rule"]) for t in number_tries(trials)}


def test_the_matrix_layout_numbers_its_tries():
    numbered = tries([str(MATRIX)])
    by_job = {job.name: n for n, job in enumerate(matrix_jobs(), start=1)}
    assert numbered and all(numbered[key] == (by_job[key[1]], "folder") for key in numbered)


@pytest.mark.parametrize("style", sorted(STYLES))
def test_per_try_jobs_get_the_matrix_try_numbers(tmp_path, style):
    per_try_layout(tmp_path, style)
    numbered = tries([str(tmp_path)])
    assert {key: number for key, (number, _) in numbered.items()} == {
        key: number for key, (number, _) in tries([str(MATRIX)]).items()
    }
    rules = {rule for _, rule in numbered.values()}
    assert rules == ({"started_at"} if style in UNNAMED else {"folder"})


def trial(task, job, started, folders=(), seed=None):
    return {
        "setting": "s",
        "task": task,
        "job": job,
        "folder": f"{task}__0",
        "started_at": started,
        "try_folders": list(folders),
        "seed": seed,
        "try_index": folders[-1] if folders else None,
    }


def test_the_rules_in_order():
    # the innermost try folder names them apart: kept as written, gaps and all
    assert [t["try_index"] for t in number_tries([trial("a", "j1", "2", [4]), trial("a", "j2", "1", [2])])] == [4, 2]
    # every try under trial-01, seed-N above: the outer folder
    got = number_tries([trial("a", "j1", "1", [7, 1]), trial("a", "j2", "2", [5, 1])])
    assert [(t["try_index"], t["try_rule"]) for t in got] == [(7, "folder"), (5, "folder")]
    # a recorded integer seed, ranked
    got = number_tries([trial("a", "j1", "1", [1], seed=42), trial("a", "j2", "2", [1], seed=7)])
    assert [(t["try_index"], t["try_rule"]) for t in got] == [(2, "seed"), (1, "seed")]
    # nothing names them apart: their start, per task and setting
    got = number_tries(
        [
            trial("a", "j2", "2026-11-29 10:00", [1]),
            trial("a", "j1", "2026-11-28 10:00", [1]),
            trial("b", "j1", "2026-11-30 10:00", [1]),
        ]
    )
    assert [(t["task"], t["try_index"], t["try_rule"]) for t in got] == [
        ("a", 2, "started_at"),
        ("a", 1, "started_at"),
        ("b", 1, "started_at"),
    ]


def paths_replaced(text: str, names: dict[str, str]) -> str:
    for old, new in sorted(names.items(), key=lambda item: -len(item[0])):
        text = text.replace(old, new)
    return text


def rule_named(text: str) -> str:
    """The text with the rule that numbered the tries masked: a fact of the layout, like a path
    (the matrix run's folders name the tries, the per-try jobs' start times do)."""
    for words in TRY_RULES.values():
        text = text.replace(words, "<the rule>")
    text = re.sub(r'"try_rule": "\w+"', '"try_rule": "<the rule>"', text)
    return re.sub(r'("try_numbering": \{\s*)"\w+"', r'\1"<the rule>"', text)


# slow (CI runs it): three workflow runs; the quick tests above check the try numbers each layout
# gives, from which the reports follow
@pytest.mark.slow
def test_one_matrix_run_and_per_try_jobs_give_the_same_report(tmp_path):
    """The same trials laid out both ways, one real workflow run each;
    every output of the setting is the same once the job folders' names are swapped. Then a job
    folder removed: the outputs of the setting only it held are removed with it."""
    matrix, per_try = copy_workflow(tmp_path / "matrix"), copy_workflow(tmp_path / "per-try")
    shutil.copytree(MATRIX, matrix.path / "jobs" / "study")
    per_try_layout(per_try.path / "jobs" / "study", "run")
    shutil.copytree(NOP, per_try.path / "jobs" / "nop")
    settings = tmp_path / "settings.yaml"
    settings.write_text(json.dumps({"environment": {"inspect": False}}))
    # the outputs compared are the setting's own (target reports): nothing run-level
    matrix.run("reports", "--configfile", str(settings), roots=["jobs/study"])
    per_try.run("reports", "--configfile", str(settings), roots=["jobs/study", "jobs/nop"])
    names = {
        f"study/run-{n}/{ALIAS}/trial-01/{job.name}": f"study/{ALIAS}/trial-{n:02d}/{job.name}"
        for n, job in enumerate(matrix_jobs(), start=1)
    }
    (setting,) = [p.name for p in (matrix.results / "reports").iterdir()]
    for name in ("trials.json", "summary.json", "report.md", "run-summary.json", "writeup.md"):
        mine = rule_named(paths_replaced((per_try.results / "reports" / setting / name).read_text(), names))
        assert mine == rule_named((matrix.results / "reports" / setting / name).read_text()), name
    rows = json.loads((matrix.results / "reports" / setting / "trials.json").read_text())["trials"]
    assert sorted({row["try"] for row in rows}) == [1, 2, 3]

    nop_settings = {p.name for p in (per_try.results / "reports").iterdir()} - {setting}
    assert nop_settings
    per_try.run("reports", "--configfile", str(settings), roots=["jobs/study"])
    for stage in ("reports", "settings", "lineage/reports", "lineage/settings"):
        assert not nop_settings & {p.name for p in (per_try.results / stage).iterdir()}, stage
    assert not (per_try.results / "ingest" / "nop").exists()
    assert (per_try.results / "reports" / setting / "report.md").is_file()
