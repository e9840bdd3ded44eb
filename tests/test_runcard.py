"""run-card.json, the run summary in BenchFlow's form, the benchmark version and the completeness
checklist, on the real BenchFlow job folders in resources/example and on generated jobs with a rubric
reviewer, a dataset version, a budget stop and an unpriced model.

The pipeline is today's discover -> ingest -> stats, with the job files the new extractors need
read here and handed to them exactly as ingest will (`wire`). Expected numbers are computed in
the tests from the job files themselves or from BenchFlow's own summary.json.
"""

from __future__ import annotations

import copy
import hashlib
import json
from collections import defaultdict
from pathlib import Path

import benchflow_synth as synth
import jsonschema
import pytest
from benchreport.present import html_setting, sentences, writeup
from benchreport.read import discover, grader, ingest, provenance
from benchreport.record import completeness, report, runcard, trial_rows
from conftest import REPO
from test_grader import REAL_ROOTS, load, review_listing

NOP = ("nop-acp", "nop-acp-tc")
PARAMS = {
    "seed": 7,
    "resamples": 300,
    "confidence": 0.95,
    "min_trials_per_task": 3,
    "coverage_simulations": 300,
    "solve_threshold": 1.0,
    "controls": {"on_failure": "exclude", "on_unverified": "keep"},
}
CARD_SCHEMA = load(REPO / "workflow" / "scripts" / "benchreport" / "schemas" / "run-card.schema.json")
RUN_SUMMARY_SCHEMA_COPY = (
    REPO / "workflow" / "scripts" / "benchreport" / "schemas" / "benchflow-run-summary.v1.schema.json"
)
RUN_SUMMARY_SCHEMA = load(RUN_SUMMARY_SCHEMA_COPY)  # BenchFlow's published v1 schema, copied verbatim
REAL = [REAL_ROOTS[0], REAL_ROOTS[1].parent]  # benchflow-real-jobs, benchflow-samples (all of it)
TOKEN_FIELDS = {
    "input": "n_input_tokens",
    "output": "n_output_tokens",
    "cache_read": "n_cache_read_tokens",
    "cache_creation": "n_cache_creation_tokens",
    "total": "total_tokens",
}


def wire(output: dict, job: discover.JobFolder) -> dict:
    """What ingest is to add (the integration contract): per job, from summary.json, the
    reviewer, the provenance and the budget block; per trial (the kept attempt), from its
    result.json, config.json, solver.json and reviews/ + scoring/ listing, the grading and the
    provenance."""
    summary = load(job.path / "summary.json") if (job.path / "summary.json").is_file() else None
    output["job"] |= {
        "reviewer": grader.reviewer_config(summary),
        "provenance": provenance.job_provenance(summary),
        "budget": summary.get("budget") if isinstance(summary, dict) else None,
    }
    for trial in output["trials"]:
        folder = job.path / trial["folder"]
        read = {
            name: load(folder / name) if (folder / name).is_file() else None
            for name in ("result.json", "config.json", "solver.json")
        }
        trial["grading"] = grader.trial_grading(
            read["result.json"], read["config.json"], read["solver.json"], review_listing(folder)
        )
        trial["provenance"] = provenance.trial_provenance(read["result.json"], read["config.json"])
    return output


def build(roots: list[Path]) -> dict:
    """Every setting's stats (with the card parts merged in), record and run card, over these roots."""
    jobs = discover.find_job_folders([str(root) for root in roots])
    ingests = [wire(ingest.ingest_job(job, 20, NOP), job) for job in jobs]
    trials = [trial for output in ingests for trial in output["trials"]]
    built = {"jobs": {job.job_id: job for job in jobs}, "ingests": ingests, "settings": {}}
    for setting in sorted({trial["setting"] for trial in trials}):
        own = [output for output in ingests if any(t["setting"] == setting for t in output["trials"])]
        # what rule report builds its record from: stats.json | the card parts | trials.json
        numbers, rows, parts = trial_rows.setting_parts(setting, ingests, PARAMS)
        record, card = report.setting_record(numbers, parts, rows, [])
        built["settings"][setting] = {
            "stats": {**numbers, **parts, **rows},
            "parts": (numbers, parts, rows),
            "record": record,
            "card": card,
            "own": own,
        }
    return built


@pytest.fixture(scope="module")
def real() -> dict:
    return build(REAL)


@pytest.fixture(scope="module")
def generated(tmp_path_factory) -> dict:
    root = tmp_path_factory.mktemp("generated")
    folders = synth.build_review_jobs(root)
    return build([root]) | {"folders": folders}


def setting_of(built: dict, agent: str) -> dict:
    [entry] = [entry for entry in built["settings"].values() if entry["stats"]["key"]["agent"] == agent]
    return entry


def trial_dirs(job: Path) -> list[Path]:
    """Attempt folders on disk: <task>__<hex> folders, or any child folder holding a trial file."""
    markers = ("result.json", "config.json", "solver.json")
    return sorted(
        child
        for child in job.iterdir()
        if child.is_dir() and ("__" in child.name or any((child / marker).is_file() for marker in markers))
    )


def job_paths(built: dict, entry: dict) -> list[Path]:
    return [built["jobs"][output["job"]["id"]].path for output in entry["own"]]


# ------------------------------------------------------------------------------------------
# schemas


def test_the_report_validates_few_rows_and_still_sees_a_bad_one(generated):
    card = copy.deepcopy(next(iter(generated["settings"].values()))["card"])
    row = card["trials"][0]
    # partial credit: 2,000 distinct rewards the schema cannot tell apart, so one row stands for all
    card["trials"] = [row | {"reward": (number + 1) / 2001} for number in range(2000)]
    assert len(runcard._representatives(card["trials"])) == 1
    runcard.validate(card)
    card["trials"].append(row | {"reward": 1.5})
    with pytest.raises(jsonschema.ValidationError):
        runcard.validate(card)


def test_the_record_checks_each_tasks_trial_ids_by_type_and_still_sees_a_bad_one(generated):
    """validate_record checks one id of each type per task: what the record schema asks of the
    ids is that they be strings, at least one, and nothing else."""
    from benchreport.record import report

    schema = load(REPO / "workflow" / "scripts" / "benchreport" / "schemas" / "setting-result.schema.json")
    assert schema["$defs"]["task_row"]["properties"]["trial_ids"] == {
        "type": "array",
        "items": {"type": "string"},
        "minItems": 1,
    }
    entry = next(iter(generated["settings"].values()))
    record = report.build_record(*entry["parts"], [])
    report.validate_record(record)
    row = record["per_task"][0]
    for ids in ([*row["trial_ids"], *row["trial_ids"], 7, *row["trial_ids"]], []):
        broken = record | {"per_task": [row | {"trial_ids": ids}, *record["per_task"][1:]]}
        with pytest.raises(jsonschema.ValidationError):
            report.validate_record(broken)


@pytest.mark.parametrize("which", ["real", "generated"])
def test_every_card_and_run_summary_validates(which, request):
    built = request.getfixturevalue(which)
    assert built["settings"]
    jsonschema.Draft202012Validator.check_schema(CARD_SCHEMA)
    for entry in built["settings"].values():
        jsonschema.Draft202012Validator(CARD_SCHEMA).validate(entry["card"])
        jsonschema.Draft202012Validator(RUN_SUMMARY_SCHEMA).validate(entry["card"]["run_summary"])
        # the card survives the one JSON serialisation the workflow uses
        assert json.loads(json.dumps(entry["card"], allow_nan=False)) == entry["card"]


def _errors(card: dict) -> list[str]:
    return [error.message for error in jsonschema.Draft202012Validator(CARD_SCHEMA).iter_errors(card)]


def test_the_card_schema_refuses_broken_cards(real):
    card = next(iter(real["settings"].values()))["card"]
    assert _errors(card) == []
    broken = copy.deepcopy(card)
    broken["completeness"][0] |= {"status": "present", "missing": ["something"]}
    assert _errors(broken)
    broken = copy.deepcopy(card)
    broken["completeness"] = broken["completeness"][:9]
    assert _errors(broken)
    broken = copy.deepcopy(card)
    broken["tokens_and_cost"]["tokens_all_attempts"]["total"] = -1
    assert _errors(broken)
    broken = copy.deepcopy(card)
    del broken["grader"]
    assert _errors(broken)
    broken = copy.deepcopy(card)
    broken["left_out"]["categories"][0]["key"] = "lost"
    assert _errors(broken)


def test_a_part_the_card_lacks_is_null_and_marked_missing(real):
    numbers, parts, rows = next(iter(real["settings"].values()))["parts"]
    record = report.build_record(numbers, parts, rows, [])
    card = runcard.checkable_parts(record, parts)
    for key in ("grader", "benchmark", "left_out", "tokens_and_cost", "run_summary"):
        card[key] = None
    card |= {"completeness": completeness.checklist(card), "limits": record["limits"]}
    assert _errors(card) == []
    status = {item["part"]: item["status"] for item in card["completeness"]}
    for part in ("grader", "benchmark_version", "left_out", "tokens_and_cost"):
        assert status[part] == "missing"


# ------------------------------------------------------------------------------------------
# the run summary in BenchFlow's form, against BenchFlow's own summary.json


@pytest.mark.parametrize("which", ["real", "generated"])
def test_a_jobs_run_summary_agrees_with_benchflows_summary_json(which, request):
    built = request.getfixturevalue(which)
    checked = 0
    for output in built["ingests"]:
        path = built["jobs"][output["job"]["id"]].path / "summary.json"
        if not path.is_file():
            continue
        theirs = load(path)
        ours = trial_rows.run_summary(
            output["trials"], job_dir=output["job"]["id"], job_name=theirs["job_name"], budget=theirs.get("budget")
        )
        jsonschema.Draft202012Validator(RUN_SUMMARY_SCHEMA).validate(ours)
        for field in ("total", "passed", "failed", "errored", "verifier_errored"):
            assert ours[field] == theirs[field], (path, field)
        assert ours["pass_rate"] == pytest.approx(theirs["score_ratio"])
        assert ours["mean_reward"] == pytest.approx(theirs["mean_reward"])
        assert ours["budget"] == theirs.get("budget")
        checked += 1
    assert checked >= (14 if which == "real" else 2)


def test_a_gate_sets_the_exit_code():
    trials = [
        {"outcome": "passed", "reward": 1.0, "timed_out": False},
        {"outcome": "errored", "reward": None, "error_category": "timeout", "timed_out": True},
        {"outcome": "unscored", "reward": None, "timed_out": False},
    ]
    summary = trial_rows.run_summary(
        trials, job_dir=None, job_name="s", gate={"fail_under": 0.5, "fail_on": ["errored", "nonsense"]}
    )
    assert (summary["total"], summary["passed"], summary["errored"], summary["timed_out"]) == (3, 1, 2, 1)
    assert summary["gate"] == {
        "fail_under": 0.5,
        "fail_on": ["errored"],
        "failed": ["pass rate 33.3% is under 50.0%", "2 errored trials"],
    }
    assert summary["exit_code"] == 1
    assert trial_rows.run_summary(trials, job_dir=None, job_name="s")["exit_code"] == 0
    jsonschema.Draft202012Validator(RUN_SUMMARY_SCHEMA).validate(summary)


# ------------------------------------------------------------------------------------------
# what was left out: every attempt folder found, in one category


@pytest.mark.parametrize("which", ["real", "generated"])
def test_left_out_counts_add_up_to_every_attempt_folder_found(which, request):
    built = request.getfixturevalue(which)
    for entry in built["settings"].values():
        left = entry["card"]["left_out"]
        found = sum(len(trial_dirs(path)) for path in job_paths(built, entry))  # counted here, on disk
        assert left["folders_found"] == found
        assert left["adds_up"] and left["unaccounted"] == 0
        assert sum(category["folders"] for category in left["categories"]) == found


def test_retries_interruptions_and_a_budget_stop_are_told_apart(generated):
    entry = setting_of(generated, "opencode")
    job = generated["folders"]["budget-stop"]
    by_task = defaultdict(list)
    for folder in trial_dirs(job):
        by_task[folder.name.rsplit("__", 1)[0]].append(folder)
    categories = {category["key"]: category for category in entry["card"]["left_out"]["categories"]}
    retried = sum(len(folders) - 1 for folders in by_task.values())
    assert categories["retried"]["folders"] == retried == 1
    assert categories["retried"]["by"] == {"errored": 1}
    never = [task for task, folders in by_task.items() if not any((f / "result.json").is_file() for f in folders)]
    assert categories["interrupted"]["by"] == {"never finished": len(never)}
    budget = load(job / "summary.json")["budget"]
    [stop] = entry["card"]["left_out"]["budget_stops"]
    assert stop["stopped"] is True and stop["reason"] == budget["reason"]
    assert (stop["cancelled"], stop["not_started"]) == (len(budget["cancelled"]), len(budget["not_started"]))
    assert stop["not_started_tasks"] == sorted(budget["not_started"])
    text = report.left_out_markdown(entry["card"]["left_out"])
    assert f"{len(budget['not_started'])} never started (no folder)" in text
    assert f"{left_total(entry)} attempt folders found; every one is counted above." in text


def left_total(entry: dict) -> int:
    return entry["card"]["left_out"]["folders_found"]


def test_an_incomplete_rubric_review_is_counted_as_verifier_errored(generated):
    entry = setting_of(generated, "claude-agent-acp")
    categories = {category["key"]: category for category in entry["card"]["left_out"]["categories"]}
    errored_reviews = [
        t
        for t in trial_dirs(generated["folders"]["rubric-review"])
        if (t / "result.json").is_file() and load(t / "result.json").get("scoring", {}).get("status") == "error"
    ]
    assert categories["verifier_errored"]["by"] == {"rubric review incomplete": len(errored_reviews)}


# ------------------------------------------------------------------------------------------
# tokens and cost


def _usage_sum(results: list[dict]) -> dict:
    return {name: sum(result["agent_result"][field] for result in results) for name, field in TOKEN_FIELDS.items()}


def test_tokens_over_all_attempts_and_over_kept_trials(generated):
    entry = setting_of(generated, "opencode")
    results = [
        load(t / "result.json")
        for t in trial_dirs(generated["folders"]["budget-stop"])
        if (t / "result.json").is_file()
    ]
    usage = entry["card"]["tokens_and_cost"]
    finished = len({result["task_name"] for result in results})
    # every trial: the finished ones recorded their usage, the interrupted one none
    assert usage["tokens_all_attempts"] == _usage_sum(results) | {"trials_recorded": finished, "trials": finished + 1}
    # counted: every finished task's trial (no control leaves one out here), all its attempts
    assert usage["tokens_counted"] == _usage_sum(results) | {"trials_recorded": finished, "trials": finished}
    assert usage["attempts"] > usage["counted_trials"]


def test_unpriced_trials_are_named_with_the_reason_and_never_cost_0(generated):
    entry = setting_of(generated, "opencode")
    results = [
        load(t / "result.json")
        for t in trial_dirs(generated["folders"]["budget-stop"])
        if (t / "result.json").is_file()
    ]
    assert {r["agent_result"]["price_source"] for r in results} == {None}
    assert {r["agent_result"]["usage_source"] for r in results} == {"provider_response"}
    usage = entry["card"]["tokens_and_cost"]
    assert usage["cost_measures"]["spent"]["value_usd"] is None
    assert usage["cost_measures"]["per_solved_task"]["value_usd"] is None
    reasons = {row["reason"]: row for row in usage["unpriced_reasons"]}
    finished = len({r["task_name"] for r in results})
    assert reasons["no price known for this model, so no cost is given"]["trials"] == finished
    assert reasons["no price known for this model, so no cost is given"]["models"] == [BUDGET_MODEL]
    assert sum(row["trials"] for row in usage["unpriced_reasons"]) == usage["unpriced_trials"] == finished + 1
    text = sentences.tokens_and_cost(entry["stats"] | {"unpriced_reasons": usage["unpriced_reasons"]})
    assert "no price known for this model, so no cost is given" in text and "$0" not in text
    check = {item["part"]: item for item in entry["card"]["completeness"]}["tokens_and_cost"]
    assert check["status"] == "partial" and check["missing"] == [f"a cost for {finished} trials (no price known)"]


BUDGET_MODEL = synth.BUDGET_SETTING["model"]


def test_cost_per_solved_task_and_a_partly_priced_run(generated):
    entry = setting_of(generated, "claude-agent-acp")
    folders = trial_dirs(generated["folders"]["rubric-review"])
    results = [load(t / "result.json") for t in folders if (t / "result.json").is_file()]
    # a trial whose review is pending spent its tokens too: its result stands in solver.json
    spent = results + [load(t / "solver.json") for t in folders if not (t / "result.json").is_file()]
    costs = [r["agent_result"]["cost_usd"] for r in spent if r["agent_result"]["cost_usd"] is not None]
    unpriced = [r for r in spent if r["agent_result"]["cost_usd"] is None]
    assert {r["agent_result"]["price_source"] for r in unpriced} == {"litellm"}
    solved = {
        r["task_name"] for r in results if (r["scoring"]["passed"] if "scoring" in r else r["rewards"]["reward"] == 1.0)
    }
    usage = entry["card"]["tokens_and_cost"]
    measures = usage["cost_measures"]
    assert measures["spent"]["value_usd"] == pytest.approx(sum(costs), abs=1e-6)
    # per solved task: the counted trials' cost (the pending review is not counted) / tasks solved
    counted = [r["agent_result"]["cost_usd"] for r in results if r["agent_result"]["cost_usd"] is not None]
    assert measures["per_solved_task"]["denominator_count"] == len(solved) == 2
    assert measures["per_solved_task"]["value_usd"] == pytest.approx(sum(counted) / len(solved), abs=1e-6)
    assert usage["cost_is_lower_bound"] and not usage["cost_complete"]
    text = sentences.tokens_and_cost(entry["stats"] | {"unpriced_reasons": usage["unpriced_reasons"]})
    assert "cost per solved task at least $" in text
    [row] = [row for row in usage["unpriced"] if row["task"] == unpriced[0]["task_name"]]
    assert row["cause"] == "no cost from the price table" and row["price_source"] == "litellm"


def test_controls_have_no_cost_and_need_none(real):
    for entry in real["settings"].values():
        if entry["stats"]["key"]["control"]:
            usage = entry["card"]["tokens_and_cost"]
            assert usage["cost_complete"] and usage["cost_measures"]["spent"]["value_usd"] is None
            check = {item["part"]: item for item in entry["card"]["completeness"]}["tokens_and_cost"]
            assert check["status"] == "present"


# ------------------------------------------------------------------------------------------
# the benchmark version


def test_real_jobs_record_no_version_but_their_task_digests_are_counted(real):
    for entry in real["settings"].values():
        version = entry["card"]["benchmark"]
        digests, tasks = set(), set()
        for path in job_paths(real, entry):
            for folder in trial_dirs(path):
                record = (
                    load(folder / "result.json") if (folder / "result.json").is_file() else load(folder / "config.json")
                )
                assert "dataset_name" not in record and "source" not in record
                tasks.add(record.get("task_name") or record.get("task_path"))
                if record.get("task_digest"):
                    digests.add(record["task_digest"])
        assert version["basis"] == "not recorded" and version["text"] == "not recorded"
        assert (version["task_digests"], version["tasks"]) == (len(digests), len(tasks))
        assert version["conditions"].startswith("benchmark version not recorded; ")
    oracle = setting_of(real, "oracle")["card"]["benchmark"]
    assert oracle["tasks_with_several_digests"] == ["spec-partial"]  # its tests changed between the runs


def test_a_dataset_version_is_the_benchmark_version(generated):
    job = generated["folders"]["rubric-review"]
    records = [load(t / "config.json") for t in trial_dirs(job)]
    expected = {f"{r['dataset_name']}@{r['dataset_version']}" for r in records}
    version = setting_of(generated, "claude-agent-acp")["card"]["benchmark"]
    assert version["basis"] == "dataset" and version["values"] == sorted(expected) == ["skillsbench@1.1"]
    assert version["trials_without_value"] == 0
    assert (
        version["conditions"]
        == f"benchmark skillsbench@1.1 (dataset@version); {len(records)} distinct task digests over {len(records)} tasks"
    )


def test_without_a_dataset_the_tasks_git_commit_is_the_version(generated):
    job = generated["folders"]["budget-stop"]
    sources = {
        (load(t / "config.json")["source"]["repo"], load(t / "config.json")["source"]["resolved_sha"])
        for t in trial_dirs(job)
    }
    [(repo, sha)] = sources
    version = setting_of(generated, "opencode")["card"]["benchmark"]
    assert version["basis"] == "git commit of the tasks"
    assert version["values"] == [f"{repo}@{sha}"] and version["text"] == f"{repo}@{sha[:12]}"
    check = {item["part"]: item for item in setting_of(generated, "opencode")["card"]["completeness"]}[
        "benchmark_version"
    ]
    assert check["status"] == "present"


def test_version_fallbacks_and_flaws():
    rows = [
        {"task": "a", "provenance": provenance.trial_provenance({"task_digest": "sha256:1"})},
        {"task": "b", "provenance": provenance.trial_provenance({})},
    ]
    assert provenance.benchmark_version(rows, config_value=" tiny@2 ")["text"] == "tiny@2"
    assert provenance.benchmark_version(rows)["text"] == "not recorded"
    assert provenance.benchmark_version(rows)["trials_without_digest"] == 1
    only_summary = provenance.benchmark_version(
        rows, [provenance.job_provenance({"dataset_name": "sb", "dataset_version": "3"})]
    )
    assert (only_summary["basis"], only_summary["text"]) == ("dataset", "sb@3")
    mixed = [
        {"task": "a", "provenance": provenance.trial_provenance({"dataset_name": "sb", "dataset_version": v})}
        for v in ("1", "2")
    ]
    version = provenance.benchmark_version(mixed)
    assert version["mixed"] and "MIXED" in version["conditions"]
    dirty = [
        {
            "task": "a",
            "provenance": provenance.trial_provenance(
                {"source": {"repo": "r", "resolved_sha": "f" * 40, "dirty": True}}
            ),
        }
    ]
    assert provenance.benchmark_version(dirty)["dirty"]
    hf = provenance.source_ref(
        {"repo": "org/ds", "repo_type": "dataset", "requested_revision": "main", "resolved_revision": "abc"}
    )
    assert (hf["kind"], hf["commit"], hf["requested_ref"]) == ("huggingface", "abc", "main")


# ------------------------------------------------------------------------------------------
# the checklist and the write-up sentences


def test_the_checklist_has_the_ten_parts_in_order_and_renders(real, generated):
    for built in (real, generated):
        for entry in built["settings"].values():
            items = entry["card"]["completeness"]
            assert [item["part"] for item in items] == [part for part, *_ in completeness.PARTS]
            text = report.completeness_markdown(items)
            rows = [
                line for line in text.splitlines() if line.startswith("| ") and not line.startswith(("| Part", "| ---"))
            ]
            assert len(rows) == 10
            for item, row in zip(items, rows):
                assert row.startswith(f"| {item['title']} | {item['status']} |")
            assert completeness.tally(items) in text
            page = html_setting.completeness_html(items)
            assert page.count("<tr class=") == 10 and "<script" not in page


def test_checklist_verdicts_follow_the_job_files(generated, real):
    review = {item["part"]: item for item in setting_of(generated, "claude-agent-acp")["card"]["completeness"]}
    assert review["grader"]["status"] == "partial"
    assert review["grader"]["missing"] == ["a verdict for 2 graded trials (review pending or failed)"]
    assert review["benchmark_version"]["status"] == "present"
    assert review["controls"]["status"] == "missing"  # no oracle or nop ran on these tasks
    assert review["environment"]["status"] == "missing"  # not inspected in this test
    for entry in real["settings"].values():
        items = {item["part"]: item for item in entry["card"]["completeness"]}
        assert items["grader"]["status"] == "present" and items["grader"]["note"] == "the verifier was a script"
        assert "the harness version" in items["settings"]["missing"]
    nop = {item["part"]: item for item in setting_of(real, "nop-acp")["card"]["completeness"]}
    assert nop["controls"]["status"] == "present" and nop["controls"]["note"].startswith(
        "this setting is itself a control"
    )


def test_an_unrecorded_sampling_default_is_named_as_not_controlled(generated):
    for agent, job in (("opencode", "budget-stop"), ("claude-agent-acp", "rubric-review")):
        keys = set()
        for folder in trial_dirs(generated["folders"][job]):
            path = folder / "trajectory" / "llm_trajectory.jsonl"
            for line in path.read_text().splitlines() if path.is_file() else []:
                keys.update(json.loads(line)["request"]["body"])
        card = setting_of(generated, agent)["card"]
        sentence = card["limits"]["not_controlled"]
        assert ("the provider's sampling defaults" in sentence) == (not keys & {"temperature", "top_p", "max_tokens"})
        assert "the harness version" in sentence and "the BenchFlow version" in sentence
    card = copy.deepcopy(setting_of(generated, "opencode")["card"])
    card["settings"]["sampling_sent"] = {"temperature": {"0.2": 4}}
    card["settings"]["not_recorded"] = [
        "sampling: top_p, max_tokens not recorded in any request (the provider's defaults applied)"
    ]
    sentence = writeup.not_controlled(card)
    assert "the provider's sampling defaults" not in sentence and "top_p, max_tokens" in sentence


def test_the_task_count_sentence_uses_the_runs_own_numbers(generated):
    card = setting_of(generated, "opencode")["card"]
    tasks = {
        folder.name.rsplit("__", 1)[0]
        for folder in trial_dirs(generated["folders"]["budget-stop"])
        if (folder / "result.json").is_file()
    }
    sentence = card["limits"]["task_count"]
    width = (card["result"]["headline"]["high"] - card["result"]["headline"]["low"]) * 100
    assert sentence.startswith(
        f"With {len(tasks)} tasks, one task moves the pass rate by {100 / len(tasks):.0f} points"
    )
    assert f"interval is {width:.0f} points wide" in sentence
    assert f"All {len(tasks)} tasks have fewer than 3 tries" in sentence


def test_environment_rows_decide_the_environment_part(real):
    numbers, parts, trials = setting_of(real, "oracle")["parts"]
    tasks = [row["task"] for row in numbers["per_task"]]
    rows = [
        {
            "task": task,
            "reference": f"bf__{task}",
            "source": "config",
            "status": "inspected",
            "id": "sha256:" + "0" * 64,
            "repo_digest": None,
            "platform": "linux/amd64",
            "task_digests": [],
        }
        for task in tasks
    ]
    _, card = report.setting_record(numbers, parts, trials, rows)
    assert {i["part"]: i for i in card["completeness"]}["environment"]["status"] == "present"
    rows[0] = rows[0] | {"status": "image missing", "id": None}
    _, card = report.setting_record(numbers, parts, trials, rows)
    environment = {i["part"]: i for i in card["completeness"]}["environment"]
    assert environment["status"] == "partial" and f"{tasks[0]} (image missing)" in environment["missing"][0]
    assert card["left_out"]["images_not_inspected"] == [{"task": tasks[0], "status": "image missing", "reason": None}]
    assert _errors(card) == []


def test_generated_review_jobs_are_byte_identical_when_rebuilt(tmp_path):
    def digest(root: Path) -> dict:
        return {
            p.relative_to(root).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(root.rglob("*"))
            if p.is_file()
        }

    synth.build_review_jobs(tmp_path / "a")
    synth.build_review_jobs(tmp_path / "b")
    assert digest(tmp_path / "a") == digest(tmp_path / "b")


@pytest.mark.parametrize(
    "row,cause",
    [
        ({"outcome": "interrupted"}, "interrupted"),
        ({"outcome": "failed", "control": "oracle", "tokens_all_attempts": {"total_tokens": 0}}, "control"),
        ({"outcome": "passed", "usage_source": "agent_native_acp", "price_source": None}, "agent-reported usage"),
        ({"outcome": "passed", "usage_source": "unavailable", "price_source": None}, "no usage captured"),
        ({"outcome": "passed", "usage_source": "provider_response", "price_source": None}, "no price known"),
        (
            {"outcome": "passed", "usage_source": "provider_response", "price_source": "litellm"},
            "no cost from the price table",
        ),
    ],
)
def test_every_trial_without_a_cost_has_a_cause_the_schema_knows(row, cause):
    assert trial_rows.unpriced_cause(row) == cause
    enum = CARD_SCHEMA["properties"]["tokens_and_cost"]["oneOf"][1]["properties"]["unpriced"]["items"]["properties"][
        "cause"
    ]["enum"]
    assert sorted(enum) == sorted(trial_rows.UNPRICED)


# ------------------------------------------------------------------------------------------
# the card is a view of the record


def _leaves(value) -> list:
    """Every scalar in a JSON value, keys aside."""
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    if isinstance(value, list):
        return [leaf for item in value for leaf in _leaves(item)]
    return [value]


# what the card states of itself, beside what the record and the card parts hold
CARD_OWN_TEXT = {
    runcard.SCHEMA,
    "trials.json (every field of every trial)",
    "this setting is itself a control (oracle or nop)",
}


@pytest.mark.parametrize("which", ["real", "generated"])
def test_every_card_value_is_one_the_record_or_the_card_parts_hold(which, request):
    for entry in request.getfixturevalue(which)["settings"].values():
        _, parts, _ = entry["parts"]
        held = {json.dumps(leaf) for leaf in _leaves([entry["record"], parts])}
        absent = {json.dumps(leaf) for leaf in _leaves(entry["card"]) if leaf not in CARD_OWN_TEXT} - held
        assert absent == set(), entry["record"]["setting"]


def test_a_changed_record_field_shows_on_the_card_as_it_is(real):
    entry = next(iter(real["settings"].values()))
    _, parts, _ = entry["parts"]
    record = copy.deepcopy(entry["record"])
    record["tries"] |= {"per_task": {"min": 9, "median": 9, "max": 9}, "one_task_moves_points": 12.5}
    record["tries"]["tasks_under_min_tries"] = ["planted-task"]
    record["environment_summary"] = {"inspected": True, "not_inspected": ["planted-image"]}
    record["settings"] = record["settings"] | {
        "not_recorded": ["planted phrase"],
        "sampling_sent": {"top_p": {"0.5": 1}},
    }
    lists = ("tasks_without_nop", "tasks_without_control", "tasks_failing_controls", "tasks_unverified", "uncovered")
    record["controls"] = {name: [] for name in lists} | {
        "policy": {"on_failure": "keep", "on_unverified": "keep"},
        "oracle": {"trials": 1, "passed": 1},
        "nop": {"trials": 0, "passed": 0},
        "per_task": {"planted-task": {"verdict": "holds", "reasons": ["planted reason"], "oracle": []}},
        "tasks_without_oracle": ["planted-oracle"],
        "tasks_holding": ["planted-task"],
    }
    record["counts"] = record["counts"] | {"tasks": 99}
    record["jobs"] = ["planted/job"]
    record["completeness"] = [{"part": "planted"}]
    record["limits"] = {"not_controlled": "planted limit", "task_count": None}
    card = runcard.build_run_card(record, parts)
    assert card["tasks_and_tries"]["tries_per_task"] == {"min": 9, "median": 9, "max": 9}
    assert card["tasks_and_tries"]["one_task_moves_points"] == 12.5
    assert card["tasks_and_tries"]["tasks_under_min_tries"] == ["planted-task"]
    assert card["tasks_and_tries"]["tasks"] == 99
    assert card["environment"]["not_inspected"] == ["planted-image"]
    assert card["settings"]["not_recorded"] == ["planted phrase"]
    assert card["settings"]["sampling_sent"] == {"top_p": {"0.5": 1}}
    assert card["controls"]["tasks_without_oracle"] == ["planted-oracle"]
    assert card["controls"]["verdicts"] == {"planted-task": {"verdict": "holds", "reasons": ["planted reason"]}}
    assert card["job_folders"] == ["planted/job"]
    assert card["completeness"] == [{"part": "planted"}]
    assert card["limits"]["not_controlled"] == "planted limit"


def test_the_card_view_counts_sorts_and_adds_nothing():
    """No arithmetic, comparison, counting or sorting in the functions that build the card."""
    import ast
    import inspect

    views = [runcard._number, runcard._tasks_and_tries, runcard._environment, runcard._settings]
    views += [runcard._controls, runcard.checkable_parts, runcard.build_run_card]
    for function in views:
        tree = ast.parse(inspect.getsource(function))
        computing = [
            ast.unparse(node)
            for node in ast.walk(tree)
            if isinstance(node, (ast.BinOp, ast.UnaryOp, ast.Compare, ast.AugAssign))
            and not (isinstance(node, ast.BinOp) and isinstance(node.op, ast.BitOr))  # a dict merge
            and not (isinstance(node, ast.Compare) and all(isinstance(op, ast.In) for op in node.ops))  # a selection
            and not (isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not))  # which part applies
            or isinstance(node, ast.Call)
            and ast.unparse(node.func) in ("sorted", "len", "sum", "min", "max", "median", "Counter", "round")
        ]
        assert computing == [], function.__name__


def test_a_rebuilt_image_is_not_inspected_on_the_card_and_in_the_record(real):
    numbers, parts, trials = next(e for e in real["settings"].values() if e["stats"]["per_task"])["parts"]
    rows = [
        {"task": row["task"], "reference": f"bf__{row['task']}", "source": "config", "status": "inspected"}
        for row in numbers["per_task"]
    ]
    rows[0] |= {"status": "rebuilt"}
    record, card = report.setting_record(numbers, parts, trials, rows)
    rebuilt = rows[0]["task"]
    assert card["environment"]["not_inspected"] == [rebuilt]
    assert [row["status"] for row in card["left_out"]["images_not_inspected"]] == ["rebuilt"]
    assert [row["task"] for row in record["left_out"] if row["kind"] == "image"] == [rebuilt]
