"""End to end: real `snakemake` runs on real BenchFlow 0.7.12 job folders."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from benchreport.pipeline import lineage, stamps
from conftest import PAPER_FILES, REAL_JOB_ROOTS, REPO, copy_workflow, real_workflow

SCRIPTS = REPO / "workflow" / "scripts"


def summaries(workflow) -> dict[str, dict]:
    found = {}
    for path in sorted((workflow.results / "reports").glob("*/summary.json")):
        data = json.loads(path.read_text())
        found[data["setting"]] = data
    return found


def test_counts_match_benchflow_summary_on_real_folders(real_run):
    workflow = real_run
    seen_jobs = 0
    for summary in summaries(workflow).values():
        for job in summary["job_folders"]:
            check = job["benchflow_summary"]
            if check["benchflow"] is None:
                continue
            seen_jobs += 1
            assert check["matches"], job
            assert check["benchflow"]["total"] == check["recount_last_attempts"]["total"]
    assert seen_jobs >= 13  # every real job folder that has a summary.json
    oracle = next(s for s in summaries(workflow).values() if s["settings"]["control"] == "oracle")
    # oracle-run: total 4, passed 1, failed 1, verifier_errored 2 (BenchFlow's own numbers)
    run = next(j for j in oracle["job_folders"] if j["id"].endswith("oracle-run/2026-11-30__04-23-02"))
    assert run["benchflow_summary"]["benchflow"] == {
        "total": 4,
        "passed": 1,
        "failed": 1,
        "errored": 0,
        "verifier_errored": 2,
    }
    report = workflow.read(f"reports/{oracle['setting']}/report.md")
    assert "## Cross-check against BenchFlow's summary.json" in report
    assert "| 4 / 1 / 1 / 0 / 2 | 4 / 1 / 1 / 0 / 2 | yes |" in report


def run_summaries(workflow) -> dict[str, dict]:
    return {
        path.parent.name: json.loads(path.read_text())
        for path in sorted((workflow.results / "reports").glob("*/run-summary.json"))
    }


def test_run_summary_gate_comes_from_config(real_run_copy):
    """BenchFlow's run gate (fail_under, fail_on) set in config reaches every run-summary.json."""
    workflow, real_jobs = real_run_copy, REAL_JOB_ROOTS
    assert {s["exit_code"] for s in run_summaries(workflow).values()} == {0}  # no gate by default
    gate = workflow.path / "gate.yaml"
    gate.write_text("run_summary_gate:\n  fail_under: 0.5\n  fail_on: [errored]\n")
    # run-summary.json is each setting's (target reports): nothing run-level
    workflow.run("reports", "--configfile", str(gate), roots=real_jobs)
    found = run_summaries(workflow)
    for name, summary in found.items():
        failing = summary["pass_rate"] < 0.5 or summary["errored"] > 0
        assert summary["exit_code"] == int(failing), name
        assert (summary["gate"]["fail_under"], summary["gate"]["fail_on"]) == (0.5, ["errored"])
        assert len(summary["gate"]["failed"]) == (summary["pass_rate"] < 0.5) + (summary["errored"] > 0)
    assert {s["exit_code"] for s in found.values()} == {0, 1}  # the real folders pass and fail it
    bad = workflow.path / "bad-gate.yaml"
    bad.write_text("run_summary_gate:\n  fail_on: [crashed]\n")
    refused = workflow.run("reports", "--configfile", str(bad), roots=real_jobs, check=False)
    assert refused.returncode != 0 and "crashed" in refused.stdout + refused.stderr


def test_nop_errored_trials_count_as_not_passed(real_run):
    nop = next(s for s in summaries(real_run).values() if s["settings"]["agent"] == "nop-acp")
    assert nop["settings"]["control"] == "nop"
    assert nop["counts"]["trials"] == 4  # three plain runs and the aborted matrix's one trial
    assert nop["counts"]["passed"] == 0
    assert nop["counts"]["errored"] == 4


COMPARISONS = [f"comparisons/comparisons.{kind}" for kind in ("json", "md", "csv")]


def test_reruns_only_what_changed(real_run_copy):
    # the shared run's config points at no Docker daemon, ever: a daemon that came or went
    # mid-test would rightly re-inspect the images
    workflow, real_jobs = real_run_copy, REAL_JOB_ROOTS
    first = workflow.snapshot()
    assert "Nothing to be done" in workflow.run("-n", roots=real_jobs).stdout  # the copy is up to date

    # touching a file without changing it re-runs nothing
    touched = (
        workflow.path / real_jobs[1] / "v0.7.12-real/oracle-run/2026-11-30__04-23-02/spec-pass__3d1c0484/result.json"
    )
    touched.touch()
    assert "Nothing to be done" in workflow.run("-n", roots=real_jobs).stdout
    workflow.run(roots=real_jobs)
    assert workflow.snapshot() == first

    # editing one trial's result.json re-runs the ingest of that folder's batch (the matrix
    # cell's three trial-NN folders) and what depends on it
    edited_job = "benchflow-real-jobs/script-run/nop-tc-x3/nop-tc/trial-02/2026-11-30__04-39-08"
    edited_batch = "benchflow-real-jobs/script-run/nop-tc-x3/nop-tc/trial-01/2026-11-30__04-38-37"
    batches = json.loads((workflow.results / "ingested.json").read_text())["batches"]
    assert batches[edited_batch] == [
        edited_batch,
        edited_job,
        edited_batch.replace("01/2026-11-30__04-38-37", "03/2026-11-30__04-39-39"),
    ]
    result = next((workflow.path / "jobs" / edited_job).glob("*/result.json"))
    data = json.loads(result.read_text())
    data["rewards"] = {"reward": 1.0}
    result.write_text(json.dumps(data, indent=2))
    workflow.run(roots=real_jobs)
    second = workflow.snapshot()
    changed = {path for path in first if first[path][0] != second[path][0]}
    nop_tc = next(s for s in summaries(workflow).values() if s["settings"]["agent"] == "nop-acp-tc")["setting"]
    assert changed == {
        f"ingest/{edited_batch}/trials.json",
        f"ingest/{edited_batch}/index.json",
        f"ingest/{edited_batch}/tasks.json",
        f"ingest/{edited_batch}/ledger.json",
        "ingested.json",  # the checkpoint after every ingest: written again, the same bytes
        f"settings/{nop_tc}/stats.json",
        f"settings/{nop_tc}/page.json",
        f"reports/{nop_tc}/trials.json",
        f"reports/{nop_tc}/report.md",
        f"reports/{nop_tc}/summary.json",
        f"reports/{nop_tc}/writeup.md",
        f"reports/{nop_tc}/run-card.json",
        f"reports/{nop_tc}/run-summary.json",
        "index.md",
        "exclusions.tsv",
        "trials.csv",
        *PAPER_FILES,
        "report.html",
        # rule run_report writes them with the rest: the same bytes, since a control is never compared
        *COMPARISONS,
    }
    assert summaries(workflow)[nop_tc]["counts"]["passed"] == 1
    for same in ("ingested.json", *COMPARISONS):
        assert second[same][1] == first[same][1], same

    # adding a job folder ingests only its batch, which it joins
    source = workflow.path / "jobs" / "benchflow-real-jobs/script-run/oracle-x3/oracle/trial-03"
    shutil.copytree(source, workflow.path / "jobs" / "benchflow-real-jobs/script-run/oracle-x3/oracle/trial-04")
    log = workflow.run(roots=real_jobs).stderr
    assert log.count("Ingesting the BenchFlow job folders of batch") == 1, log
    third = workflow.snapshot()
    oracle_batch = "ingest/benchflow-real-jobs/script-run/oracle-x3/oracle/trial-01/2026-11-30__04-36-18"
    added = "benchflow-real-jobs/script-run/oracle-x3/oracle/trial-04/2026-11-30__04-36-47"
    assert added in json.loads((workflow.results / f"{oracle_batch}/index.json").read_text())["jobs"]
    assert second[f"{oracle_batch}/trials.json"][0] != third[f"{oracle_batch}/trials.json"][0]
    unchanged_ingests = [p for p in second if p.startswith("ingest/") and not p.startswith(oracle_batch)]
    assert len(unchanged_ingests) > 20 and all(second[p][0] == third[p][0] for p in unchanged_ingests)


HEAVY = {"numpy", "scipy", "matplotlib", "jinja2", "pandas"}


def modules_imported_by(folder: Path, *args: str) -> set[str]:
    """The modules `snakemake -n` imports in its own process in `folder` (PYTHONPROFILEIMPORTTIME)."""
    process = subprocess.run(
        [sys.executable, "-m", "snakemake", "-n", "--cores", "2", *args],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=600,
        env=os.environ | {"PYTHONPROFILEIMPORTTIME": "1"},
    )
    assert process.returncode == 0, process.stderr[-3000:]
    return {line.rsplit("|", 1)[1].strip() for line in process.stderr.splitlines() if line.startswith("import time:")}


@pytest.fixture(scope="module")
def snakemakes_own_imports(tmp_path_factory) -> set[str]:
    """What a dry run of a one-rule workflow imports: Snakemake's own (its report plugin brings
    numpy and jinja2 at every start)."""
    folder = tmp_path_factory.mktemp("one-rule")
    (folder / "Snakefile").write_text(
        'rule one:\n    output:\n        "one.txt",\n    shell:\n        "touch {output}"\n'
    )
    return modules_imported_by(folder)


def test_the_parse_imports_no_heavy_library(workflow, real_jobs, snakemakes_own_imports):
    """The heavy libraries are imported by the rule scripts that use them, never by the parse
    of the workflow (common.smk and the package modules it imports): it adds none to what
    Snakemake imports by itself."""
    roots = ",".join(f'"{root}"' for root in real_jobs)
    imported = modules_imported_by(workflow.path, "--config", f"job_roots=[{roots}]")
    assert "benchreport.pipeline.stamps" in imported
    assert (imported - snakemakes_own_imports) & HEAVY == set()
    # numpy and jinja2 are Snakemake's before the parse: the modules common.smk imports, alone
    modules = [path.removesuffix(".py").replace("/", ".") for path in lineage.imported_modules("../rules/common.smk")]
    assert "benchreport.pipeline.stamps" in modules
    alone = subprocess.run(
        [sys.executable, "-c", f"import sys, {', '.join(modules)}; print(sorted({HEAVY!r} & set(sys.modules)))"],
        capture_output=True,
        text=True,
        env=os.environ | {"PYTHONPATH": str(SCRIPTS)},
    )
    assert alone.stdout == "[]\n", alone.stderr


def test_a_run_with_nothing_to_do_adds_only_snakemakes_pandas(real_run_copy, snakemakes_own_imports):
    """With outputs in place, Snakemake's own params check imports pandas wherever it is
    installed; the workflow adds no other heavy library."""
    roots = ",".join(f'"{root}"' for root in REAL_JOB_ROOTS)
    imported = modules_imported_by(real_run_copy.path, "--config", f"job_roots=[{roots}]")
    assert "benchreport.pipeline.stamps" in imported
    assert (imported - snakemakes_own_imports) & HEAVY <= {"pandas"}


def test_two_runs_give_identical_bytes(real_run, tmp_path):
    """A second run from nothing, in another folder and on one core (the shared run has two),
    writes the bytes of the shared run: neither the folder nor --cores moves an output."""
    first = {path: data for path, (_, data) in real_run.snapshot().items()}
    again = real_workflow(tmp_path / "again")
    # the last --cores is the one snakemake takes
    again.run("--cores", "1", roots=REAL_JOB_ROOTS)
    second = {path: data for path, (_, data) in again.snapshot().items()}
    assert first.keys() == second.keys()
    assert [path for path in first if first[path] != second[path]] == []


def test_a_lone_design_takes_both_cores(tmp_path):
    """Rule coverage_design gives its threads to its script's own workers: the cold run's one
    coverage design has both cores."""
    sys.path.insert(0, str(REPO / "resources"))
    import benchflow_synth

    workflow = copy_workflow(tmp_path / "wf")
    # two settings of one tries profile
    benchflow_synth.build_scale(workflow.path / "jobs", jobs=2, trials=520, seed=5, request_kb=0, requests=1)
    (workflow.path / "fast.yaml").write_text("environment:\n  inspect: false\n")
    workflow.run("--configfile", "fast.yaml", roots=["jobs"])
    (design_log,) = (workflow.path / "logs" / "coverage_design").glob("*.log")
    assert "2 threads" in design_log.read_text()


def test_the_coverage_design_is_the_same_on_one_core_and_on_two(tmp_path):
    """Rule coverage_design's threads follow --cores, and a BLAS on several threads sums in
    another order: at 4x3+6x4 that would move the last bits of the mean widths (and so stats.json
    and summary.json) but for the rule script's BLAS on one thread."""
    target = "results/coverage/4x3+6x4.json"
    designs = []
    for cores in ("1", "2"):
        flow = real_workflow(tmp_path / f"cores-{cores}")
        flow.run("--cores", cores, target, roots=REAL_JOB_ROOTS)
        designs.append((flow.path / target).read_bytes())
    assert designs[0] == designs[1]


def test_a_batch_reads_the_same_on_one_core_and_on_two(tmp_path):
    """Rule ingest reads a batch's folders side by side on its threads: on two cores the
    batches of several folders give the same bytes as on one, folder for folder in order."""
    ingests = []
    for cores in ("1", "2"):
        flow = real_workflow(tmp_path / f"cores-{cores}")
        flow.run("--cores", cores, stamps.INGESTED_RECORD, roots=REAL_JOB_ROOTS)
        ingest = flow.results / "ingest"
        ingests.append({path.relative_to(ingest): path.read_bytes() for path in sorted(ingest.rglob("*.json"))})
    assert ingests[0] == ingests[1]
    batches = [json.loads(data)["jobs"] for path, data in ingests[0].items() if path.name == "trials.json"]
    assert max(map(len, batches)) > 1  # some batch holds several folders


def test_broken_files_reach_the_ledger_and_the_rest_reports(real_run_copy):
    """Files broken after a first run: the re-run ingests that folder again, as a first run would."""
    workflow, real_jobs = real_run_copy, REAL_JOB_ROOTS
    base = workflow.path / "jobs" / "benchflow-samples/v0.7.12-real/oracle-run/2026-11-30__04-23-02"
    truncated = base / "spec-pass__3d1c0484/result.json"
    truncated.write_bytes(truncated.read_bytes()[:200])
    (base / "spec-fail__67b8813a/result.json").unlink()
    (base / "spec-fail__67b8813a/config.json").unlink()
    (base / "summary.json").write_text('{"total": 4, "passed"')
    workflow.run(roots=real_jobs)

    ledger = workflow.read("exclusions.tsv")
    assert "spec-pass__3d1c0484/result.json\tnot valid JSON, perhaps truncated" in ledger
    assert "spec-fail__67b8813a/result.json\tno result.json and no usable config.json" in ledger
    assert "summary.json\tnot valid JSON, perhaps truncated" in ledger
    oracle = next(s for s in summaries(workflow).values() if s["settings"]["control"] == "oracle")
    report = workflow.read(f"reports/{oracle['setting']}/report.md")
    assert "spec-pass__3d1c0484/result.json | not valid JSON, perhaps truncated" in report
    assert "summary.json unusable" in report
    # the rest still reports: the other two trials of that folder and every other folder
    assert oracle["counts"]["trials"] == 10
    index = workflow.read("index.md")
    assert "19 attempt folders found: 17 counted in a report, 0 interrupted, 2 unusable" in index
    assert "the counts add up" in index


def test_no_job_folder_is_a_clear_error(workflow):
    (workflow.path / "empty").mkdir()
    process = workflow.run(roots=["empty"], check=False)
    assert process.returncode != 0
    assert "No BenchFlow job folder found under job_roots (empty)" in process.stdout + process.stderr


def test_lineage_command_checks_every_hash(real_run_copy):
    workflow, real_jobs = real_run_copy, REAL_JOB_ROOTS
    report = next((workflow.results / "reports").glob("oracle*/report.md"))
    command = [sys.executable, "-m", "benchreport", "lineage", str(report.relative_to(workflow.path))]
    env = {"PYTHONPATH": str(workflow.path / "workflow" / "scripts")}
    ok = subprocess.run(command, cwd=workflow.path, capture_output=True, text=True, env=env)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "rule report" in ok.stdout and "rule ingest" in ok.stdout
    assert "spec-pass__3d1c0484/result.json" in ok.stdout
    # every output under results/ has a record
    for path in workflow.results.rglob("*"):
        if path.is_file() and "lineage" not in path.relative_to(workflow.results).parts:
            record = workflow.results / "lineage" / (path.relative_to(workflow.results).as_posix() + ".json")
            assert record.exists(), path
    # a job folder's files are listed once, in its trials.json record; its other outputs point there
    run = "ingest/benchflow-samples/v0.7.12-real/oracle-run/2026-11-30__04-23-02"
    trials_record = json.loads((workflow.results / "lineage" / run / "trials.json.json").read_text())
    assert any(s["path"].endswith("spec-pass__3d1c0484/config.json") for s in trials_record["sources"])
    for name in ("index.json", "tasks.json", "ledger.json"):
        record = json.loads((workflow.results / "lineage" / run / f"{name}.json").read_text())
        assert record["sources"] == [] and record["sources_as"] == f"results/{run}/trials.json", name
    ledger_command = command[:-1] + ["results/exclusions.tsv"]  # through ledger.json, whose record points
    ledger_ok = subprocess.run(ledger_command, cwd=workflow.path, capture_output=True, text=True, env=env)
    assert ledger_ok.returncode == 0 and "spec-pass__3d1c0484/config.json" in ledger_ok.stdout
    # a changed job-folder file is caught, through either record
    source = (
        workflow.path / real_jobs[1] / "v0.7.12-real/oracle-run/2026-11-30__04-23-02/spec-pass__3d1c0484/config.json"
    )
    source.write_text(source.read_text() + " ")
    for checked in (command, ledger_command):
        bad = subprocess.run(checked, cwd=workflow.path, capture_output=True, text=True, env=env)
        assert bad.returncode == 1
        assert (
            "CHANGED jobs/benchflow-samples/v0.7.12-real/oracle-run/2026-11-30__04-23-02/spec-pass__3d1c0484/config.json"
            in bad.stdout
        )


def test_lint_and_format_are_clean():
    lint = subprocess.run([sys.executable, "-m", "snakemake", "--lint"], cwd=REPO, capture_output=True, text=True)
    assert lint.returncode == 0, lint.stdout + lint.stderr
    fmt = subprocess.run(["snakefmt", "--check", "."], cwd=REPO, capture_output=True, text=True)
    assert fmt.returncode == 0, fmt.stdout + fmt.stderr
    # the Python: ruff's linter and formatter, configured in pyproject.toml
    for command in (["check", "."], ["format", "--check", "."]):
        ruff = subprocess.run([sys.executable, "-m", "ruff", *command], cwd=REPO, capture_output=True, text=True)
        assert ruff.returncode == 0, ruff.stdout + ruff.stderr


def test_each_number_resolves_to_the_files_of_its_own_trials(real_run):
    """`benchreport lineage --number` (lineage.check_number): every setting's pass rate resolves
    to its trials, and each trial to the job-folder files its folder's ingest read, found in its
    batch's record (results/ingested.json), none of another folder's."""
    for report in sorted(real_run.results.glob("reports/*/report.md")):
        ok, lines = lineage.check_number(report, "pass_rate")
        assert ok, "\n".join(lines)
        record = json.loads((report.parent / "summary.json").read_text())
        trials = lineage.number_trials(record, "pass_rate")
        found = lineage.trial_sources(real_run.path, trials)
        assert set(found) == set(trials) and all(found.values())
        for trial, sources in found.items():
            job, _, folder = trial.rpartition("/")
            assert all(f"{job}/{folder}/" in source["path"] for source in sources), trial
