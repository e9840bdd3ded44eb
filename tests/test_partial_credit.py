"""Partial credit as BenchFlow scores it: `statistics.solve_threshold` decides which rewards pass,
every output that prints a pass rate states the rule, the mean reward has an interval, partial
rewards are said wherever they count as failures (the `interval` command too), and where the
pass rate and pass@k are printed side by side each names its denominator.

Job folders are written by benchflow_synth (BenchFlow's layout), read by ingest and carried
through the report stage's own functions, through JSON as on disk.
"""

from __future__ import annotations

import json

import benchflow_synth as synth
import pytest
import yaml
from benchreport.compute import stats
from benchreport.compute.interval import headlines
from benchreport.present import paper, tables
from benchreport.present.sentences import denominators, first_line
from benchreport.read import discover, ingest
from benchreport.record import report, trial_rows
from conftest import REPO
from scipy.stats import t as student_t

PARAMS = {
    "seed": 5,
    "resamples": 300,
    "confidence": 0.95,
    "min_trials_per_task": 3,
    "coverage_simulations": 200,
    "controls": {"on_failure": "exclude", "on_unverified": "keep"},
}
AGENT = {"agent": "claude-agent-acp", "model": "anthropic/claude-sonnet-4-5"}
# per task, its three tries: a kind, and the reward of a failed one
TRIES = {
    "full": [("passed", None), ("passed", None), ("failed", 0.0)],
    "half": [("failed", 0.5), ("failed", 0.5), ("failed", 0.7)],
    "errored": [("agent_error", None), ("failed", 0.5), ("passed", None)],
    "none": [("failed", 0.0), ("failed", 0.2), ("failed", 0.0)],
}


def attempt(kind, reward):
    return {"kind": kind} if reward is None else {"kind": kind, "reward": reward}


@pytest.fixture(scope="module")
def ingests(tmp_path_factory):
    root = tmp_path_factory.mktemp("partial")
    tries = [[{"task": task, "attempts": [attempt(*kinds[k])]} for task, kinds in TRIES.items()] for k in range(3)]
    synth.write_matrix(root / "agent", alias="agent", setting=AGENT, tries=tries, seed=1, start="2026-11-30 10:00:00")
    for name, kind, seed in (("oracle", "passed", 2), ("nop", "failed", 3)):
        control = [[{"task": task, "attempts": [{"kind": kind}]} for task in TRIES] for _ in range(3)]
        synth.write_matrix(
            root / name, alias=name, setting={"agent": name}, tries=control, seed=seed, start="2026-11-30 10:00:00"
        )
    return [ingest.ingest_job(job, 20, ("nop",)) for job in discover.find_job_folders([str(root)])]


def made_at(ingests, threshold: float) -> dict:
    """The agent setting's record, run card, trials.json, report.md and writeup.md at a threshold."""
    params = PARAMS | {"solve_threshold": threshold}
    setting = next(t["setting"] for i in ingests for t in i["trials"] if t["agent"] == AGENT["agent"])
    numbers, rows, parts = trial_rows.setting_parts(setting, ingests, params)
    record, card = report.setting_record(numbers, parts, rows, [])
    return {
        "record": record,
        "rows": rows,
        "report": report.render_report(record, card, rows),
        "writeup": report.render_writeup(record, card),
    }


@pytest.fixture(scope="module")
def strict(ingests):
    return made_at(ingests, 1.0)


@pytest.fixture(scope="module")
def lenient(ingests):
    return made_at(ingests, 0.5)


def passed_by_task(made) -> dict:
    return {row["task"]: row["passed"] for row in made["record"]["per_task"]}


def words(text: str) -> str:
    return " ".join(text.split())


def test_the_threshold_decides_which_rewards_pass(strict, lenient):
    assert passed_by_task(strict) == {"errored": 1, "full": 2, "half": 0, "none": 0}
    # 0.5 and 0.7 pass at 0.5, 0.2 and 0.0 do not; the errored try has no reward and still fails
    assert passed_by_task(lenient) == {"errored": 2, "full": 2, "half": 3, "none": 0}
    assert lenient["record"]["counts"]["passed"] == 7
    assert lenient["record"]["pass_rate"]["value"] == pytest.approx((2 / 3 + 2 / 3 + 1 + 0) / 4)
    half = [row["outcome"] for row in lenient["rows"]["trials"] if row["task"] == "half"]
    assert half == ["passed"] * 3
    # pass@k counts by the same rule, over scored trials only
    at_one = lenient["record"]["solve_rates"]["per_k"][0]
    assert at_one["k"] == 1 and at_one["pass_at_k"] == pytest.approx((2 / 3 + 2 / 2 + 1 + 0) / 4)


def test_the_controls_keep_the_full_reward_rule(lenient):
    controls = lenient["record"]["controls"]
    assert controls["oracle"] == {"trials": 12, "passed": 12}
    assert controls["tasks_holding"] == sorted(TRIES)


@pytest.mark.parametrize("made, rule", [("strict", "pass = reward ≥ 1.0"), ("lenient", "pass = reward ≥ 0.5")])
def test_every_output_states_the_rule(made, rule, request):
    made = request.getfixturevalue(made)
    record = made["record"]
    assert rule in record["pass_rate"]["rule"]
    assert record["pass_rate"]["solve_threshold"] == float(rule.rsplit(" ", 1)[1])
    assert rule in words(made["report"]).split("## Intervals")[0]
    assert rule in words(made["writeup"])
    # report.html's section of the setting prints these sentences
    assert rule in first_line(record)
    rows = tables.setting_rows([record])
    assert rule in paper.settings_markdown(rows, 0.95)
    assert rule in " ".join(paper.settings_latex(rows, 0.95).split())
    csv = paper.to_csv(paper.SETTINGS_CSV_FIELDS, rows).splitlines()
    assert csv[1].split(",")[csv[0].split(",").index("solve_threshold")] == str(record["pass_rate"]["solve_threshold"])


def test_partial_rewards_that_fail_are_warned_of(strict, lenient):
    warned = [item for item in strict["record"]["warnings"] if item["kind"] == "partial rewards failed"]
    assert warned == [
        {
            "kind": "partial rewards failed",
            "solve_threshold": 1.0,
            "tasks": [
                {"task": "errored", "rewards": [0.5]},
                {"task": "half", "rewards": [0.5, 0.7]},
                {"task": "none", "rewards": [0.2]},
            ],
        }
    ]
    assert "Warning: partial rewards count as not passed (pass = reward ≥ 1.0" in words(strict["report"])
    assert "half (0.5, 0.7)" in words(strict["report"])
    assert "Partial rewards failed on errored, half and none." in words(strict["writeup"])
    # at 0.5 only the 0.2 fails
    warned = [item for item in lenient["record"]["warnings"] if item["kind"] == "partial rewards failed"]
    assert [row["task"] for row in warned[0]["tasks"]] == ["none"]


def test_the_mean_reward_has_a_t_interval_over_task_means(strict):
    mean = strict["record"]["mean_reward"]
    means = [row["mean_reward"] for row in strict["record"]["per_task"]]
    assert means == pytest.approx([(0 + 0.5 + 1) / 3, 2 / 3, 1.7 / 3, 0.2 / 3])  # by task name
    n = len(means)
    centre = sum(means) / n
    sd = (sum((m - centre) ** 2 for m in means) / (n - 1)) ** 0.5
    half = student_t.ppf(0.975, n - 1) * sd / n**0.5
    interval = mean["interval"]
    assert mean["value"] == pytest.approx(centre)
    assert interval["method"] == "t over task means" and interval["level"] == 0.95
    assert (interval["low"], interval["high"]) == pytest.approx((max(0, centre - half), min(1, centre + half)))
    said = f"mean reward {centre:.2f} over tasks (95% interval {interval['low']:.2f} to {interval['high']:.2f}, t over"
    assert said in words(strict["report"])


def test_the_pass_rate_and_pass_at_k_each_name_their_denominator(strict):
    record = strict["record"]
    assert record["counts"]["trials"] == 12 and record["solve_rates"]["trials"] == 11
    said = (
        "Denominators: the pass rate is over all 12 trials of 4 tasks, counting the 1 trial with no reward as a "
        "failure; pass@k, as BenchFlow counts, is over the 11 scored trials of 4 tasks, leaving it out."
    )
    assert said in words(strict["report"])


def test_the_default_threshold_is_benchflows():
    schema = yaml.safe_load((REPO / "config" / "schema.yaml").read_text())
    assert schema["properties"]["statistics"]["properties"]["solve_threshold"]["default"] == 1.0
    assert stats.BENCHFLOW_SOLVE_THRESHOLD == 1.0


PARTIAL_RUN = {"rewards": [[1.0, 0.5, 0.0], [0.7, 1.0, 1.0], [0.0, 0.0, 0.25]]}


def test_the_interval_command_says_when_rewards_are_partial():
    params = {"seed": 1, "coverage_simulations": 200, "confidence": 0.95}
    lines = [
        json.dumps(PARTIAL_RUN),
        json.dumps(PARTIAL_RUN | {"solve_threshold": 0.5}),
        json.dumps({"rewards": [[1.0, 0.0], [1, 1]]}),
        json.dumps({"tasks": [[1, 2]], "solve_threshold": 0.5}),
    ]
    strict, lenient, whole, refused = headlines(lines, params, workers=1)
    assert strict["pass_rule"] == "pass = reward ≥ 1.0" and strict["partial_rewards"] == 3
    assert strict["pass_rate"] == pytest.approx((1 / 3 + 2 / 3 + 0) / 3)
    assert strict["partial_note"].startswith("3 of 9 rewards are partial (between 0 and 1): pass = reward ≥ 1.0 ")
    assert "passes 0 and fails 3 of them" in strict["partial_note"]
    assert lenient["pass_rule"] == "pass = reward ≥ 0.5"
    assert lenient["pass_rate"] == pytest.approx((2 / 3 + 1 + 0) / 3)
    assert "passes 2 and fails 1 of them" in lenient["partial_note"]
    assert whole["partial_rewards"] == 0 and "partial_note" not in whole
    assert "solve_threshold" in refused["error"]


def test_with_no_errored_trial_both_denominators_are_every_trial():
    record = {"counts": {"trials": 6, "tasks": 2}, "solve_rates": {"trials": 6, "tasks": 2, "unscored_left_out": 0}}
    assert denominators(record) == (
        "Denominators: the pass rate and pass@k both count all 6 trials of 2 tasks, as every one has a reward."
    )
