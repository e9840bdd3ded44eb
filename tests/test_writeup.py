"""writeup.md in BenchFlow's shape, and tokens that were not recorded never printed as 0.

Each shape is a set of job folders written by benchflow_synth (BenchFlow's own layout), read by
ingest and carried through the stages the workflow runs (the setting's parts, the run card, the
record) into writeup.md and report.md, in this process: the degenerate shapes a run can take
(one task, one try, nothing passed, everything passed, every trial errored, no controls, no
usage, no price, every task left out by its controls, more tasks than the write-up lists) each
read as English, in lines a reader can paste.
"""

from __future__ import annotations

import json
import re
from collections import Counter

import benchflow_synth as synth
import pytest
from benchreport.read import discover, ingest
from benchreport.record import report, trial_rows

PARAMS = {
    "seed": 11,
    "resamples": 400,
    "confidence": 0.95,
    "min_trials_per_task": 3,
    "coverage_simulations": 200,
    "solve_threshold": 1.0,
    "controls": {"on_failure": "exclude", "on_unverified": "keep"},
}
NOPS = ("nop",)
PRICED = {
    "agent": "claude-agent-acp",
    "model": "anthropic/claude-sonnet-4-5",
    "served_model": "claude-sonnet-4-5-20250929",
    "usage_source": "provider_response",
    "price_source": "litellm",
}
UNPRICED = PRICED | {"price_source": None}
NO_USAGE = PRICED | {"served_model": None, "usage_source": "unavailable", "price_source": None}
TASKS = [f"task-{number:02d}" for number in range(10)]
# BenchFlow's own write-up sample is 126 words; the write-up of a typical setting stays within twice that
SAMPLE_WORDS = 126
LINE_WIDTH = 120


def tries_of(kinds_by_task: dict[str, list[str]]) -> list[list[dict]]:
    """A --matrix run's tries: try k runs each task once, its k-th kind."""
    count = max(len(kinds) for kinds in kinds_by_task.values())
    return [
        [{"task": task, "attempts": [{"kind": kinds[k]}]} for task, kinds in kinds_by_task.items() if k < len(kinds)]
        for k in range(count)
    ]


def write_setting(root, name, setting, kinds_by_task, seed=1):
    synth.write_matrix(
        root / name, alias=name, setting=setting, tries=tries_of(kinds_by_task), seed=seed, start="2026-11-30 10:00:00"
    )


def write_controls(root, tasks, oracle="passed", nop="failed", tries=3):
    write_setting(root, "oracle", {"agent": "oracle"}, {task: [oracle] * tries for task in tasks}, seed=2)
    write_setting(root, "nop", {"agent": "nop"}, {task: [nop] * tries for task in tasks}, seed=3)


def outputs(root) -> dict[str, dict]:
    """Per setting (by its agent): the record, the run card, writeup.md and report.md, made by
    the stages' own functions from the job folders under `root`."""
    jobs = discover.find_job_folders([str(root)])
    ingests = [ingest.ingest_job(job, 20, NOPS) for job in jobs]
    trials = [trial for output in ingests for trial in output["trials"]]
    made = {}
    for setting in sorted({trial["setting"] for trial in trials}):
        numbers, rows, parts = trial_rows.setting_parts(setting, ingests, PARAMS)
        record, card = report.setting_record(numbers, parts, rows, [])
        made[record["settings"]["agent"]] = {
            "record": record,
            "card": card,
            "writeup": report.render_writeup(record, card),
            "report": report.render_report(record, card, rows),
        }
    return made


def agent_output(root):
    return outputs(root)["claude-agent-acp"]


def assert_reads_as_english(text: str) -> None:
    """What every write-up holds to: lines a reader can paste, numbers agreeing with their nouns,
    no interval over tasks that is one value, no line said twice."""
    lines = text.splitlines()
    assert max(map(len, lines)) <= LINE_WIDTH, max(lines, key=len)
    assert not re.search(r"(?<![\d.,])1 (tasks|trials|tries|attempts|files)\b", text), text
    assert not re.search(r"\b1 of 1 (task|trial)s?\b", text), text
    assert not re.search(r"\b(1|one) tasks? (have|are)\b", text), text
    assert not re.search(r"resampled over tasks: (\d+%) to \1", text), text
    sentences = [part.strip() for part in re.split(r"(?<=[.;])\s", " ".join(lines)) if len(part.strip()) > 20]
    assert [s for s, n in Counter(sentences).items() if n > 1] == [], text
    for fact in ("harness version", "BenchFlow (version", "benchmark version", "Tokens and cost:", "Controls"):
        assert text.count(fact) <= 1, (fact, text)


@pytest.fixture(scope="module")
def typical(tmp_path_factory):
    """10 tasks x 5 tries, the controls holding on every task, tokens and cost recorded."""
    root = tmp_path_factory.mktemp("typical")
    kinds = {task: ["passed" if (number + k) % 3 else "failed" for k in range(5)] for number, task in enumerate(TASKS)}
    write_setting(root, "agent", PRICED, kinds)
    write_controls(root, TASKS)
    return agent_output(root)


def test_a_typical_write_up_is_benchflows_shape_within_twice_its_length(typical):
    text, record = typical["writeup"], typical["record"]
    assert_reads_as_english(text)
    assert len(text.split()) <= 2 * SAMPLE_WORDS
    c = record["counts"]
    conditions, rest = text.split("\n\n")
    # what ran: agent, harness version, model served, effort; BenchFlow and benchmark versions; tasks x tries
    assert conditions.startswith("claude-agent-acp (harness version not recorded) on anthropic/claude-sonnet-4-5")
    assert "(served: claude-sonnet-4-5-20250929)" in conditions and "the agent's default effort" in conditions
    assert "BenchFlow (version not recorded)" in conditions and "(benchmark version not recorded)" in conditions
    assert f"10 tasks (benchmark version not recorded), 5 tries each ({c['trials']} trials)" in " ".join(
        conditions.split()
    )
    # then the number, how it was averaged, its interval with method and coverage, and the contrasts
    headline = record["headline"]
    assert rest.startswith(f"{c['passed']} of {c['trials']} trials passed (pass = reward ≥ 1.0); pass rate ")
    words = " ".join(rest.split())
    assert "(mean over the 10 tasks). 95% interval: " in words
    assert f"({headline['method']}, " in words and "worst-case coverage at 10 tasks × 5 tries" in words
    assert "resampled over tasks: " in words and "Wilson if the 50 trials were independent: " in words
    assert "Per task: task-00 " in words and "Controls on the same task versions: oracle 30/30, nop 0/30" in words
    assert "they hold on every task" in words
    tokens = record["usage"]["tokens_all_attempts"]
    assert tokens["total"] and tokens["trials_recorded"] == tokens["trials"] == c["trials"]
    assert f"Tokens and cost: {tokens['total']:,} tokens in all; cost $" in words
    assert "Not controlled or not recorded: the provider's sampling defaults" in words
    # each fact once: what the first lines said is not recorded is not listed again
    assert "the harness version;" not in words and "the BenchFlow version" not in words


@pytest.mark.parametrize(
    ("marker", "escaped"), [("-", "\\-"), ("+", "\\+"), ("#", "\\#"), ("12.", "12\\."), ("3)", "3\\)")]
)
def test_a_wrapped_line_never_opens_a_list_or_a_heading(marker, escaped):
    """Markdown would read a line that starts with a list marker or a heading mark as a block of
    its own: wrapped there, the mark is escaped and the lines stay one paragraph."""
    from benchreport.present.present import wrap

    first, second = wrap("a" * 38 + f" {marker} b", width=40)
    assert (first, second) == ("a" * 38, f"{escaped} b")
    assert wrap("x" * 130 + " y", width=40) == ["x" * 130, "y"]  # a longer word stands alone


def test_one_task_reads_as_one_task(tmp_path):
    write_setting(tmp_path, "agent", PRICED, {"lone-task": ["passed", "failed"]})
    write_controls(tmp_path, ["lone-task"])
    text = agent_output(tmp_path)["writeup"]
    assert_reads_as_english(text)
    words = " ".join(text.split())
    assert "1 task (benchmark version not recorded), 2 tries (2 trials)" in words
    assert "pass rate 50% (its only task's rate)" in words
    assert "no interval resampled over tasks (there is one task)" in words
    assert "The only task has fewer than 3 tries" in words
    assert "One task says nothing about a benchmark as a whole" in words


def test_a_single_trial(tmp_path):
    write_setting(tmp_path, "agent", PRICED, {"lone-task": ["passed"]})
    made = agent_output(tmp_path)
    text = made["writeup"]
    assert_reads_as_english(text)
    assert "\n1 attempt folder found; every one is counted above." in made["report"]
    words = " ".join(text.split())
    assert "1 task (benchmark version not recorded), 1 try (1 trial); no trial retried, 1 attempt in all." in words
    assert "The only trial passed (pass = reward ≥ 1.0); pass rate 100%" in words
    assert "Wilson from a single trial: " in words and "which tries of one task" not in words
    assert "Controls: no oracle or nop ran on these tasks" in words


@pytest.mark.parametrize(("kind", "rate"), [("failed", "0%"), ("passed", "100%")])
def test_nothing_or_everything_passed(tmp_path, kind, rate):
    write_setting(tmp_path, "agent", PRICED, {task: [kind] * 3 for task in TASKS[:4]})
    write_controls(tmp_path, TASKS[:4])
    made = agent_output(tmp_path)
    assert_reads_as_english(made["writeup"])
    words = " ".join(made["writeup"].split())
    assert f"resampled over tasks: no spread, as every task's rate is {rate}" in words
    if kind == "failed":
        assert "0 of 12 trials passed" in words and "no task solved to divide it by" in words
    else:
        assert "12 of 12 trials passed" in words and "No trial errored or went unscored." in words


def test_every_trial_errored(tmp_path):
    write_setting(tmp_path, "agent", PRICED, {task: ["agent_error"] * 3 for task in TASKS[:3]})
    write_controls(tmp_path, TASKS[:3])
    text = agent_output(tmp_path)["writeup"]
    assert_reads_as_english(text)
    words = " ".join(text.split())
    assert "Counted as not passed: all 9 trials errored." in words
    assert "Per task: task-00 0/3 (every try stopped at the time limit), task-01 0/3 (every try" in words


def test_every_task_left_out_by_its_controls(tmp_path):
    write_setting(tmp_path, "agent", PRICED, {task: ["passed", "failed", "passed"] for task in TASKS[:3]})
    write_controls(tmp_path, TASKS[:3], oracle="failed")
    made = agent_output(tmp_path)
    assert_reads_as_english(made["writeup"])
    words = " ".join(made["writeup"].split())
    assert "no task counted (benchmark version not recorded); no trial retried, 9 attempts in all." in words
    assert "No trial counts toward a pass rate: the controls left every task out." in words
    assert "they fail on 3 tasks, left out with their 9 trials" in words
    assert "Per task" not in words and "Counted as not passed" not in words
    assert "No other attempt or file was left out." in words


def test_many_tasks_are_counted_with_a_pointer(tmp_path):
    tasks = [f"task-{number:02d}" for number in range(15)]
    kinds = {
        task: ["passed", "passed", "failed"] if number % 3 else ["failed"] * 3 for number, task in enumerate(tasks)
    }
    kinds[tasks[1]] = ["passed"] * 3
    write_setting(tmp_path, "agent", PRICED, kinds)
    write_controls(tmp_path, tasks, nop="agent_error")
    text = agent_output(tmp_path)["writeup"]
    assert_reads_as_english(text)
    words = " ".join(text.split())
    assert (
        "Per task: of the 15 tasks, 1 passed every try, 5 passed none, 9 passed some (each task is listed in" in words
    )
    assert "task-07" not in words  # neither listed per task nor among the unverified controls
    # the tasks whose nop errored on every try, kept: counted, with the reason all share and a pointer
    assert "they are not verified on 15 tasks, kept (on each, nop errored 3 of 3; listed in report.md)" in words


def test_a_setting_whose_trials_record_no_usage_says_not_recorded_everywhere(tmp_path):
    """BenchFlow writes 0 for every token count where it took no usage: every output says that
    the tokens were not recorded, the JSON holds null, and none prints 0."""
    write_setting(tmp_path, "agent", NO_USAGE, {task: ["passed", "failed", "passed"] for task in TASKS[:3]})
    made = agent_output(tmp_path)
    record, card = made["record"], made["card"]
    results = [json.loads(path.read_text()) for path in tmp_path.rglob("result.json")]
    assert {result["agent_result"]["usage_source"] for result in results} == {"unavailable"}
    assert {result["agent_result"]["total_tokens"] for result in results} == {0}
    for tokens in (record["usage"]["tokens_all_attempts"], card["tokens_and_cost"]["tokens_counted"]):
        assert {tokens[key] for key in ("input", "output", "cache_read", "cache_creation", "total")} == {None}
        assert tokens["trials_recorded"] == 0 and tokens["trials"] == 9
    assert "Tokens and cost: tokens not recorded; no cost (no usage captured: 9 trials)." in " ".join(
        made["writeup"].split()
    )
    assert "interrupted trials and left-out tasks included): tokens not recorded." in made["report"]
    for text in (made["writeup"], made["report"]):
        assert not re.search(r"\b0 tokens|Tokens: 0\b", text)
    checklist = {item["part"]: item for item in card["completeness"]}
    assert checklist["tokens_and_cost"]["status"] == "missing"


def test_a_setting_whose_trials_record_some_usage_says_how_many(tmp_path):
    """Two interrupted trials recorded nothing: the totals are over the others, and say so."""
    kinds = {task: ["passed", "failed", "passed"] for task in TASKS[:3]}
    kinds[TASKS[0]][1] = kinds[TASKS[1]][2] = "interrupted"
    write_setting(tmp_path, "agent", UNPRICED, kinds)
    made = agent_output(tmp_path)
    tokens = made["record"]["usage"]["tokens_all_attempts"]
    results = [json.loads(path.read_text()) for path in tmp_path.rglob("result.json")]
    assert tokens["total"] == sum(result["agent_result"]["total_tokens"] for result in results) > 0
    assert (tokens["trials_recorded"], tokens["trials"]) == (7, 9)
    said = f"{tokens['total']:,} tokens, recorded for 7 of 9 trials"
    assert f"Tokens and cost: {said}; no cost (interrupted: 2 trials; no price known: 7 trials)." in " ".join(
        made["writeup"].split()
    )
    assert said in " ".join(made["report"].split())
    assert_reads_as_english(made["writeup"])


def test_a_control_setting_reads_as_one(tmp_path):
    write_controls(tmp_path, TASKS[:2])
    made = outputs(tmp_path)
    for agent in ("oracle", "nop"):
        text = made[agent]["writeup"]
        assert_reads_as_english(text)
        words = " ".join(text.split())
        assert words.startswith(f"{agent} (harness version not recorded), the {agent} control (no model); ")
        assert "Tokens and cost: tokens not recorded, and no cost, as a control calls no model." in words
        assert "Controls on" not in words and "provider's sampling defaults" not in words


def test_the_write_up_is_the_same_bytes_from_the_same_folders(tmp_path):
    write_setting(tmp_path, "agent", PRICED, {task: ["passed", "failed", "passed"] for task in TASKS[:3]})
    assert agent_output(tmp_path)["writeup"] == agent_output(tmp_path)["writeup"]


def test_a_trial_on_a_version_no_control_ran_on_is_said_once(tmp_path):
    """One task's third try ran on another task version, one no control ran on: its controls
    say so once, beside the drift."""
    other = "sha256:" + "f" * 64
    tries = tries_of({task: ["passed", "failed", "passed"] for task in TASKS[:3]})
    tries[2][0]["task_digest"] = other
    synth.write_matrix(
        tmp_path / "agent", alias="agent", setting=PRICED, tries=tries, seed=1, start="2026-11-30 10:00:00"
    )
    write_controls(tmp_path, TASKS[:3])
    made = agent_output(tmp_path)
    assert {item["kind"] for item in made["record"]["warnings"]} >= {"task drift", "version without control"}
    text = made["writeup"]
    assert_reads_as_english(text)
    words = " ".join(text.split())
    assert "are not verified on 1 task, kept (task-00: 1 trial on a version no oracle or nop ran on)." in words
    assert "Task drift: task-00 ran on more than one task version." in words
    assert text.count("task-00") == 3  # its passes, its controls, its drift


def test_a_cost_missing_on_some_trials_is_a_lower_bound(tmp_path):
    kinds = {task: [{"kind": "passed"}, {"kind": "failed"}] for task in TASKS[:3]}
    kinds[TASKS[0]][1] = {"kind": "failed", "cost": None}  # the price table gave no cost for these calls
    tries = [[{"task": task, "attempts": [attempts[k]]} for task, attempts in kinds.items()] for k in range(2)]
    synth.write_matrix(
        tmp_path / "agent", alias="agent", setting=PRICED, tries=tries, seed=1, start="2026-11-30 10:00:00"
    )
    made = agent_output(tmp_path)
    usage = made["record"]["usage"]
    assert not usage["cost_complete"] and usage["trials_priced"] == 5
    words = " ".join(made["writeup"].split())
    assert f"cost at least {report.usd(usage['cost_measures']['spent']['value_usd'])} (5 of 6 trials priced)" in words
    assert "cost per solved task at least $" in words
    assert_reads_as_english(made["writeup"])
