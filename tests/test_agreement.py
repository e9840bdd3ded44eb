"""Every output prints the same numbers: the agreement check (`benchreport check`) over a real run
of the embedded example (generated settings and the real BenchFlow 0.7.12 folders), at two
confidence levels, and proof that the check finds each kind of disagreement it looks for."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys

import pytest
from benchreport.archive import agreement
from conftest import EXAMPLE, REPO

# At 0.9, fewer folders: two agent settings on the same tasks and their controls, which is every
# kind of file the check reads (the comparison included) in a third of the jobs.
AT_90 = ["generated/claude-sonnet-low-x3", "generated/codex-gpt-5.1-x3", "generated/oracle-x3", "generated/nop-x3"]


def run_example(workflow, folders: list[str], confidence: float):
    for name in folders:
        shutil.copytree(EXAMPLE / name, workflow.path / "jobs" / name)
    settings = workflow.path / "settings.json"
    settings.write_text(json.dumps({"statistics": {"confidence": confidence}, "environment": {"inspect": False}}))
    workflow.run("--configfile", str(settings), roots=sorted({f"jobs/{name.split('/')[0]}" for name in folders}))
    return workflow.results


@pytest.fixture
def results_95(example_run):
    """The whole embedded example at the default level (conftest.example_run): read it only."""
    return example_run.results


@pytest.fixture(scope="module")
def results_90(tmp_path_factory):
    from conftest import copy_workflow

    return run_example(copy_workflow(tmp_path_factory.mktemp("agree90") / "wf"), AT_90, 0.9)


@pytest.mark.parametrize(("which", "settings"), [("results_95", 8), ("results_90", 4)])
def test_every_output_prints_the_same_numbers(which, settings, request):
    results = request.getfixturevalue(which)
    records = sorted((results / "reports").glob("*/summary.json"))
    assert len(records) >= settings  # the generated agent settings, their controls (and the real folders' controls)
    checked, findings = agreement.check(results)
    assert findings == []
    # every setting is read in each file that prints it: at least 40 comparisons a setting
    assert checked >= 40 * len(records)


def test_no_output_states_another_confidence_level(results_90):
    """At 0.9, no file says "95% interval" or "at least 95%"."""
    for path in results_90.rglob("*"):
        if path.suffix in (".md", ".html", ".tex", ".csv") and "lineage" not in path.parts:
            text = path.read_text(encoding="utf-8")
            assert not re.search(r"95(\.0)?% (interval|coverage)|at least 95%", text), path


def test_the_command_reports_agreement_and_exits_zero(results_95):
    process = subprocess.run(
        [sys.executable, "-m", "benchreport", "check", str(results_95)],
        capture_output=True,
        text=True,
        cwd=REPO / "workflow" / "scripts",
    )
    assert process.returncode == 0, process.stdout + process.stderr
    assert re.search(r"[\d,]+ comparisons, 0 disagreements", process.stdout)


MUTATIONS = {
    # index.md showing the percentile bootstrap instead of the headline (main before the record)
    "index interval": (
        "index.md",
        lambda text, r: text.replace(
            f"| {agreement.interval_text(r['headline']['low'], r['headline']['high'])} (",
            f"| {agreement.interval_text(r['intervals']['over_tasks']['low'], r['intervals']['over_tasks']['high'])} (",
            1,
        ),
    ),
    # a hard-coded level in the write-up
    "writeup level": ("reports/{setting}/writeup.md", lambda text, r: text.replace("95% interval", "90% interval", 1)),
    # a second cost per solved task
    "paper cost": (
        "paper/settings.csv",
        lambda text, r: text.replace(
            str(r["usage"]["cost_measures"]["per_solved_task"]["value_usd"]),
            str(r["usage"]["cost_measures"]["per_passed_trial"]["value_usd"]),
            1,
        ),
    ),
    # a task the controls removed, missing from the ledger
    "ledger task": (
        "exclusions.tsv",
        lambda text, r: "\n".join(line for line in text.splitlines() if not line.startswith("task\t")) + "\n",
    ),
    # the run card's verdict disagreeing with the report's
    "card verdict": (
        "reports/{setting}/run-card.json",
        lambda text, r: text.replace('"verdict": "fails"', '"verdict": "holds"', 1),
    ),
    # a token count edited by hand, in a sentence, in a table and in the record itself
    "writeup tokens": ("reports/{setting}/writeup.md", lambda text, r: text.replace(_tokens(r), _tokens(r, 1), 1)),
    "report tokens": ("reports/{setting}/report.md", lambda text, r: text.replace(_tokens(r), _tokens(r, 1), 1)),
    "paper tokens": (
        "paper/settings.csv",
        lambda text, r: text.replace(f",{_total(r)},", f",{_total(r) + 1},", 1),
    ),
    "card tokens": (
        "reports/{setting}/run-card.json",
        lambda text, r: text.replace(f'"total": {_total(r)}', f'"total": {_total(r) - 1}', 1),
    ),
    "summary tokens": (
        "reports/{setting}/summary.json",
        lambda text, r: text.replace(f'"total": {_total(r)}', f'"total": {_total(r) + 1}', 1),
    ),
    # a cost of every attempt that is not the record's
    "writeup cost": (
        "reports/{setting}/writeup.md",
        lambda text, r: text.replace(
            agreement.usd(r["usage"]["cost_measures"]["spent"]["value_usd"]),
            agreement.usd(r["usage"]["cost_measures"]["spent"]["value_usd"] + 1),
            1,
        ),
    ),
}


def _total(record: dict) -> int:
    return record["usage"]["tokens_all_attempts"]["total"]


def _tokens(record: dict, more: int = 0) -> str:
    return f"{_total(record) + more:,} tokens"


@pytest.mark.parametrize("name", sorted(MUTATIONS))
def test_the_check_finds_each_kind_of_disagreement(name, results_95, tmp_path):
    results = tmp_path / "results"
    shutil.copytree(results_95, results, ignore=shutil.ignore_patterns("lineage", "ingest", "coverage"))
    setting = next(path.parent.name for path in sorted((results / "reports").glob("codex*/summary.json")))
    record = json.loads((results / "reports" / setting / "summary.json").read_text())
    relpath, mutate = MUTATIONS[name]
    path = results / relpath.format(setting=setting)
    before = path.read_text(encoding="utf-8")
    after = mutate(before, record)
    assert after != before, "the mutation must change the file"
    path.write_text(after, encoding="utf-8")
    _, findings = agreement.check(results)
    assert findings, f"{name}: no disagreement found"


def test_tokens_not_recorded_printed_as_0_are_found(results_95, tmp_path):
    """A control records no usage: its write-up saying 0 tokens is a disagreement."""
    results = tmp_path / "results"
    shutil.copytree(results_95, results, ignore=shutil.ignore_patterns("lineage", "ingest", "coverage"))
    path = sorted(results.glob("reports/oracle*/writeup.md"))[0]
    record = json.loads((path.parent / "summary.json").read_text())
    assert record["usage"]["tokens_all_attempts"]["total"] is None
    text = path.read_text(encoding="utf-8")
    assert "tokens not recorded" in text
    path.write_text(text.replace("tokens not recorded", "0 tokens"), encoding="utf-8")
    _, findings = agreement.check(results)
    assert any("tokens not recorded printed as 0" in finding for finding in findings), findings


# BenchFlow's own write-up sample is 126 words; the example's settings keep to about twice that
# (a setting with controls that do not hold, task drift, retries or partial rewards that failed
# has a little more to say).
SAMPLE_WORDS = 126


def test_the_example_write_ups_keep_to_about_twice_benchflows_length(results_95):
    for path in sorted((results_95 / "reports").glob("*/writeup.md")):
        text = path.read_text(encoding="utf-8")
        assert len(text.split()) <= 2.35 * SAMPLE_WORDS, path
        assert max(len(line) for line in text.splitlines()) <= 120, path


PACKAGE = REPO / "workflow" / "scripts" / "benchreport"
RENDERERS = (
    "record/report.py",
    "present/html_report.py",
    "present/paper.py",
    "present/figures.py",
    "present/overview.py",
    "present/sentences.py",
    "present/present.py",
)
NUMERIC = {"intervals", "coverage", "stats", "paired", "passk", "numpy", "scipy"}


@pytest.mark.parametrize("name", RENDERERS)
def test_no_renderer_imports_the_interval_coverage_or_cost_functions(name):
    import ast

    tree = ast.parse((PACKAGE / name).read_text(encoding="utf-8"))
    imported = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            imported.update((node.module or "").split("."))
            imported.update(alias.name for alias in node.names if node.level and not node.module)
        elif isinstance(node, ast.Import):
            imported.update(alias.name.split(".")[0] for alias in node.names)
    assert imported & NUMERIC == set() or (name == "present/figures.py" and imported & NUMERIC == {"numpy"}), imported
    # figures.py draws with numpy arrays (a masked image of the heatmap), it computes no statistic


@pytest.mark.parametrize("template", sorted(p.name for p in (PACKAGE / "present" / "templates").glob("*.j2")))
def test_no_template_states_a_level_or_a_percentage(template):
    text = (PACKAGE / "present" / "templates" / template).read_text(encoding="utf-8")
    text = re.sub(r"\{#.*?#\}", "", text, flags=re.S)  # comments may hold examples
    text = re.sub(r"<style>.*?</style>", "", text, flags=re.S)  # CSS lengths are not numbers
    assert not re.findall(r"\d%", text)


def test_a_job_folder_that_mixed_settings_is_said_so(workflow):
    """One BenchFlow job folder whose trials ran two models: two reports, each warning that its
    folder mixed settings, naming the key that differs and the trials each setting got."""
    from benchflow_synth import write_job

    base = {"agent": "claude-agent-acp", "usage_source": "provider_response", "price_source": "litellm"}
    sonnet = base | {"model": "anthropic/claude-sonnet-4-5", "served_model": "claude-sonnet-4-5-20250929"}
    haiku = base | {"model": "anthropic/claude-haiku-4-5", "served_model": "claude-haiku-4-5-20251001"}
    jobs = workflow.path / "jobs"
    folders = []
    for seed, setting, tasks in ((1, sonnet, ["a-task", "b-task", "c-task"]), (2, haiku, ["a-task", "d-task"])):
        trials = [
            {"task": task, "attempts": [{"kind": "passed" if i % 2 == 0 else "failed"}]} for i, task in enumerate(tasks)
        ]
        folders.append(
            write_job(
                workflow.path / f"part-{seed}",
                job_name="2026-11-30__10-00-00",
                setting=setting,
                trials=trials,
                seed=seed,
            )
        )
    # the second model's trial folders moved into the first job folder: one folder, two settings
    for trial in folders[1].iterdir():
        if trial.is_dir():
            trial.rename(folders[0] / trial.name)
    jobs.mkdir()
    folders[0].rename(jobs / folders[0].name)
    workflow.run(roots=["jobs"])
    records = {
        json.loads(p.read_text())["settings"]["model"]: json.loads(p.read_text())
        for p in (workflow.results / "reports").glob("*/summary.json")
    }
    assert set(records) == {sonnet["model"], haiku["model"]}
    for record in records.values():
        [mixed] = record["mixed_settings"]
        assert "model" in mixed["differ"] and sorted(row["trials"] for row in mixed["settings"]) == [2, 3]
        report = (workflow.results / "reports" / record["setting"] / "report.md").read_text()
        assert "Warning: mixed settings: job folder jobs/2026-11-30__10-00-00 holds trials of 2 settings" in report
    index = workflow.read("index.md")
    assert "## Mixed settings" in index and "which differ in model" in index.replace("\\", "")
    assert agreement.check(workflow.results)[1] == []
