"""A corpus of broken or odd job folders (tests/corpus/cases.py) through one real workflow run.

For each: the workflow finishes, the ledger names the file and the reason in plain words, the
counts add up to the attempt folders found, and nothing outside the roots is read (the outside
link points at a FIFO, which would hang whoever opened it).
"""

from __future__ import annotations

import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile

import pytest
from benchreport.pipeline.lineage import ingest_file, ingested_batches
from benchreport.read.trial import load_ingests
from conftest import REPO
from corpus.cases import CASES, JOB, PASS, SECRETS


@pytest.fixture(scope="module")
def corpus_run(tmp_path_factory):
    from conftest import copy_workflow

    base = tmp_path_factory.mktemp("corpus")
    workflow = copy_workflow(base / "wf")
    roots = []
    for name, spec in CASES.items():
        root = workflow.path / "corpus" / name
        root.mkdir(parents=True)
        spec["build"](root)
        roots.append(f"corpus/{name}")
    roots.append("corpus/same_job_name_in_two_roots.twin")
    roots += [f"corpus/{extra}" for spec in CASES.values() for extra in spec["roots"]]
    settings = workflow.path / "corpus.yaml"
    settings.write_text(json.dumps({"environment": {"inspect": False}}))
    workflow.run("bundle", "--configfile", str(settings), roots=roots)
    with open(workflow.results / "exclusions.tsv", newline="") as handle:
        ledger = list(csv.DictReader(handle, delimiter="\t"))
    return workflow, ledger


def test_there_are_at_least_30_cases():
    assert len(CASES) >= 30


@pytest.mark.parametrize("name", sorted(name for name, spec in CASES.items() if spec["file"]))
def test_ledger_names_the_file_and_the_reason(corpus_run, name):
    workflow, ledger = corpus_run
    spec = CASES[name]
    if name == "no_read_permission" and os.geteuid() == 0:
        pytest.skip("root reads a file without read permission; test_unreadable_file_without_roots_override covers it")
    rows = [row for row in ledger if row["job"].startswith(f"{name}/") and row["file"] == spec["file"]]
    assert rows, f"no ledger row for {name}: {spec['file']}"
    assert any(all(word in row["reason"] for word in spec["words"]) for row in rows), rows
    index = workflow.read("index.md")
    assert spec["file"].split("/")[-1] in index


def test_every_job_folder_adds_up(corpus_run):
    workflow, _ = corpus_run
    index = workflow.read("index.md")
    assert "the counts add up" in index and "| NO |" not in index
    for name in CASES:
        assert f"| {name}/" in index or f"| {name}-" in index, name


def setting_trials(workflow):
    """Every setting's trial rows (reports/<setting>/trials.json)."""
    return [
        t for p in (workflow.results / "reports").glob("*/trials.json") for t in json.loads(p.read_text())["trials"]
    ]


def trials_of(workflow, name):
    return [t for t in setting_trials(workflow) if t["job"].startswith(f"{name}/")]


def test_odd_but_valid_folders_are_read(corpus_run):
    workflow, ledger = corpus_run
    duplicate = [t for t in trials_of(workflow, "duplicate_attempt_folders") if t["task"] == "spec-pass"]
    assert len(duplicate) == 1 and duplicate[0]["attempts"] == 1  # a copy, not a retry
    legacy = [t for t in trials_of(workflow, "legacy_field_names") if t["task"] == "spec-pass"]
    assert legacy and legacy[0]["outcome"] == "passed"
    huge = [t for t in trials_of(workflow, "huge_trajectory") if t["task"] == "spec-pass"]
    assert huge and huge[0]["served_models"] == ["claude-haiku-4-5-20251001"]
    old = trials_of(workflow, "two_benchflow_versions_in_one_root")
    assert {t["task"] for t in old} >= {"regex-log", "spec-pass"}
    matrix = trials_of(workflow, "matrix_without_matrix_summary")
    assert sorted(t["try"] for t in matrix) == [1, 2, 3]
    twins = {t["job"] for t in trials_of(workflow, "same_job_name_in_two_roots")}
    twins |= {t["job"] for t in setting_trials(workflow) if t["job"].startswith("same_job_name_in_two_roots.twin/")}
    assert len(twins) == 2
    nested = trials_of(workflow, "trial_nested_in_a_trial")
    assert len(nested) == 4  # the folder nested inside a trial is not another trial
    wrong_type = [t for t in trials_of(workflow, "task_name_wrong_type") if t["folder"] == PASS]
    assert wrong_type and wrong_type[0]["task"] == "spec-pass"  # falls back to the folder name
    empty = [r for r in ledger if r["job"].startswith("job_folder_without_trials/")]
    index = workflow.read("index.md")
    assert f"| job_folder_without_trials/empty-run/{JOB} | 0 | 0 | 0 | 0 | yes |" in index and not empty


def test_the_outside_fifo_was_never_opened(corpus_run):
    # reaching this point at all means no process blocked opening the FIFO; the ledger says why
    _, ledger = corpus_run
    assert any(r["job"].startswith("link_outside_root/") and "outside the job root" in r["reason"] for r in ledger)


def test_unreadable_file_without_roots_override(tmp_path):
    """Root reads any file; without its two file-permission capabilities (as any other user runs),
    a file without read permission is a ledger row and the rest of the folder still reports."""
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is needed to drop the capabilities")
    CASES["no_read_permission"]["build"](tmp_path)
    code = (
        "import json; from benchreport.read.discover import find_job_folders; from benchreport.read.ingest import ingest_job;"
        f"(job,) = find_job_folders([{str(tmp_path)!r}]); r = ingest_job(job);"
        "print(json.dumps({'ledger': r['ledger'], 'trials': len(r['trials'])}))"
    )
    drop = "-dac_override,-dac_read_search"
    done = subprocess.run(
        ["setpriv", f"--bounding-set={drop}", f"--inh-caps={drop}", sys.executable, "-c", code],
        capture_output=True,
        text=True,
        env={"PYTHONPATH": str(REPO / "workflow" / "scripts")},
    )
    assert done.returncode == 0, done.stderr
    found = json.loads(done.stdout)
    assert any(r["file"] == f"{PASS}/result.json" and "permission denied" in r["reason"] for r in found["ledger"])
    assert found["trials"] == 3


def ingested_trials(workflow, prefix):
    """The trial rows ingest wrote for the job folders whose shown name starts with prefix."""
    return [
        t
        for ingest in load_ingests(
            [workflow.path / ingest_file(batch, "trials") for batch in ingested_batches(workflow.path)]
        )
        for t in ingest["trials"]
        if t["job"].startswith(prefix)
    ]


@pytest.mark.parametrize(
    "name,second,reason",
    [
        ("nested_roots", "nested-A/", "the same folder as nested_roots/nested-A/"),
        ("root_symlink", "root_symlink.link/", "the same folder as root_symlink/oracle-run/"),
        ("backup_copy", "backup_copy/oracle-run (copy)/", "the same attempt as backup_copy/oracle-run/"),
    ],
)
def test_an_attempt_found_in_two_places_is_counted_once(corpus_run, name, second, reason):
    workflow, ledger = corpus_run
    first = f"{name}/oracle-run/" if name != "nested_roots" else f"{name}/nested-A/"
    counted = [t for t in setting_trials(workflow) if t["job"].startswith(first)]
    assert sorted(t["task"] for t in counted) == ["spec-fail", "spec-noreward", "spec-partial", "spec-pass"]
    assert not [t for t in setting_trials(workflow) if t["job"].startswith(second)]
    rows = [r for r in ledger if r["job"].startswith(second)]
    assert len(rows) == 4 and all(reason in r["reason"] and r["effect"] == "attempt left out" for r in rows), rows
    index = workflow.read("index.md")
    assert "| NO |" not in index


def test_values_of_the_wrong_type_or_range_are_not_recorded(corpus_run):
    workflow, _ = corpus_run

    def pass_trial(name):
        (trial,) = [t for t in ingested_trials(workflow, f"{name}/") if t["folder"] == PASS]
        return trial

    assert pass_trial("scoring_passed_string")["outcome"] == "failed"  # "false" is not a verdict
    assert pass_trial("cost_minus_one")["cost_usd"] is None
    assert pass_trial("tokens_minus_one")["tokens"]["n_input_tokens"] is None
    assert pass_trial("sums_beyond_a_double")["cost_usd_all_attempts"] is None
    assert pass_trial("number_beyond_a_double")["tokens"]["total_tokens"] is None
    assert "total" not in pass_trial("negative_phase_time")["timing"]
    timed_out = pass_trial("timed_out_and_scored")
    assert (timed_out["outcome"], timed_out["timed_out"], timed_out["error_category"]) == ("failed", True, "timeout")
    assert not pass_trial("cost_minus_one")["timed_out"]


def test_names_that_cannot_be_file_names_get_safe_ids(corpus_run):
    workflow, _ = corpus_run
    for path in workflow.results.rglob("*"):
        relative = path.relative_to(workflow.results).as_posix()
        assert not set(relative) & set("{}\n"), relative
        assert all(len(part) <= 100 for part in path.relative_to(workflow.results).parts), relative
        relative.encode("utf-8")  # no undecodable byte in a name
    shown = {
        t["job"].split("/")[1]
        for p in ("braces", "newline", "folder_name_of", "undecodable")
        for t in ingested_trials(workflow, "")
        if t["job"].startswith(p)
    }
    assert shown == {"oracle {run}", "oracle\nrun", "o" * 250, "oracle-\\udcff-run"}  # the real names kept
    tasks = {t["task"] for t in ingested_trials(workflow, "lone_surrogate_in_task_name/")}
    assert "spec-pass-\\ud83d" in tasks
    (long_model,) = {t["model"] for t in ingested_trials(workflow, "model_name_of_300") if t["folder"] == PASS}
    assert long_model == "m" * 300


def test_no_secret_reaches_results_or_the_bundle(corpus_run):
    workflow, _ = corpus_run
    with tarfile.open(workflow.results / "bundle" / "benchreport.tar.gz") as tar:
        bundled = [(m.name, tar.extractfile(m).read() if m.isfile() else b"") for m in tar.getmembers()]
    found = [
        (path.relative_to(workflow.results).as_posix(), path.read_bytes() if path.is_file() else b"")
        for path in workflow.results.rglob("*")
        if not path.name.endswith(".tar.gz")
    ]
    for name, content in found + bundled:
        for secret in SECRETS:
            assert secret not in name and secret.encode() not in content, (name, secret[:6])
    assert "[REDACTED:" in workflow.read("index.md") + workflow.read("exclusions.tsv")


# slow (CI runs it): the whole workflow for what ingest shows in-process above (a file it cannot
# read is a ledger row, the rest reports); this adds a folder it cannot list, end to end
@pytest.mark.slow
def test_an_unreadable_job_folder_does_not_stop_the_run(tmp_path):
    """The whole workflow, run without root's file-permission capabilities, over a job folder it
    cannot list beside one it can: a ledger row for the first, the second reported."""
    from conftest import copy_workflow

    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) is needed to drop the capabilities")
    workflow = copy_workflow(tmp_path / "wf")
    CASES["missing_result"]["build"](workflow.path / "jobs")
    shutil.copytree(workflow.path / "jobs" / "oracle-run", workflow.path / "jobs" / "locked")
    (workflow.path / "jobs" / "locked").chmod(0)
    (workflow.path / "settings.yaml").write_text(json.dumps({"environment": {"inspect": False}, "job_roots": ["jobs"]}))
    drop = "-dac_override,-dac_read_search"
    done = subprocess.run(
        [
            "setpriv",
            f"--bounding-set={drop}",
            f"--inh-caps={drop}",
            sys.executable,
            "-m",
            "snakemake",
            "--cores",
            "2",
            "--configfile",
            "settings.yaml",
        ],
        cwd=workflow.path,
        capture_output=True,
        text=True,
        timeout=1200,
    )
    (workflow.path / "jobs" / "locked").chmod(0o755)
    assert done.returncode == 0, done.stderr[-3000:]
    ledger = workflow.read("exclusions.tsv")
    assert "jobs/locked\t\t.\tthe folder cannot be read (permission denied)" in ledger
    assert "| jobs/oracle-run/2026-11-30__04-23-02 | 4 |" in workflow.read("index.md")


def test_odd_names_are_kept_and_never_merged(corpus_run):
    workflow, _ = corpus_run
    # the names kept, each character that would act on a reader written out
    tasks = {t["task"] for t in ingested_trials(workflow, "") if t["folder"] == PASS}
    assert {"spec\\u0007pass\\u001b[31m", "spec-\\u202essap", "spec\\u200b-pass", "t" * 300, "CON"} <= tasks
    # two job folders named café, one in NFC and one in NFD: two jobs, each with its trials
    cafes = {t["job"] for t in ingested_trials(workflow, "folder_names_in_nfc_and_nfd/")}
    assert len(cafes) == 2
    # four models that differ by case or normalisation only: four settings, none merged
    models = {}
    for trial in ingested_trials(workflow, "models_differing_by_case_and_normalisation/"):
        if trial["folder"] == PASS:
            models.setdefault(trial["model"], set()).add(trial["setting"])
    assert len(models) == 4 and len(set().union(*models.values())) == 4, models
    reported = {
        path.parent.name
        for path in (workflow.results / "reports").glob("*/trials.json")
        if any(
            t["job"].startswith("models_differing_by_case_and_normalisation/")
            for t in json.loads(path.read_text())["trials"]
        )
    }
    assert set().union(*models.values()) <= reported, reported
    # a second name for a job folder, and day-first or zoned start times: read, counted once
    assert len(trials_of(workflow, "job_folder_is_a_link")) == 4
    assert len(trials_of(workflow, "started_at_odd_formats")) == 4


WINDOWS_DEVICE = re.compile(r"^(?:CON|PRN|AUX|NUL|COM[0-9]|LPT[0-9])(?:\..*)?$|[. ]$", re.I)


def test_output_names_are_safe_on_every_system(corpus_run):
    """No output is named with a Windows device name or a trailing dot or space (a bundle may be
    unpacked there), nor with a control or direction character."""
    workflow, _ = corpus_run
    for path in workflow.results.rglob("*"):
        for part in path.relative_to(workflow.results).parts:
            assert not WINDOWS_DEVICE.search(part), path
            assert part.isprintable(), path


def test_text_outputs_carry_no_control_or_direction_characters(corpus_run):
    """A task name with BEL, an escape sequence, a right-to-left override or a zero-width space
    reaches the reports written out, not as the raw character (which would reorder or hide text)."""
    workflow, _ = corpus_run
    raw = re.compile("[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069]")
    for path in workflow.results.rglob("*"):
        if path.suffix in (".md", ".tsv", ".csv", ".html", ".tex"):
            found = raw.search(path.read_text(encoding="utf-8"))
            assert not found, (path, found and repr(found.group()))
