"""The broken-input corpus: real BenchFlow 0.7.12 job folders, each changed in one way.

Each case copies a real folder from resources/example into <corpus>/<case>/ (one job root per
case) and breaks it; `expect` is what the ledger must say about it (file, words in the reason),
or None for an odd case that must simply be read right. Large files are made here, at test
time, never committed. Each case's copy records its own start times (`job_copy`), so that the
copies are different attempts; only the cases about counting an attempt once share one.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parents[2] / "resources" / "example"
ORACLE_RUN = EXAMPLE / "benchflow-samples/v0.7.12-real/oracle-run"
JOB = "2026-11-30__04-23-02"
PASS = "spec-pass__3d1c0484"
CASES = {}


def case(expect_file=None, *reason_words, count_in_reports=None, roots=()):
    """`roots`: further job roots (under the corpus folder) the run searches for this case."""
    def register(function):
        CASES[function.__name__] = {"build": function, "file": expect_file, "words": reason_words,
                                    "in_reports": count_in_reports, "roots": roots}
        return function
    return register


def job_copy(root: Path, folder: str = "oracle-run") -> Path:
    """The real oracle run copied under root, its start times moved by the case's number of
    minutes: the same run's bytes in two cases would be one attempt counted once."""
    shutil.copytree(ORACLE_RUN, root / folder)
    names = list(CASES)
    number = names.index(root.name) if root.name in names else len(names) + len(root.name)
    for path in sorted((root / folder).glob(f"{JOB}/*/*.json")):
        text = path.read_text()
        path.write_text(text.replace('"2026-11-30 04:23:', f'"2026-11-30 {4 + number // 60:02d}:{number % 60:02d}:'))
    return root / folder / JOB


def edit_result(root: Path, change) -> None:
    path = job_copy(root) / PASS / "result.json"
    data = json.loads(path.read_text())
    change(data)
    path.write_text(json.dumps(data, indent=2))


@case(f"{PASS}/result.json", "not valid JSON, perhaps truncated")
def truncated_json(root):
    path = job_copy(root) / PASS / "result.json"
    path.write_bytes(path.read_bytes()[:300])


@case(f"{PASS}/result.json", "the file is empty")
def empty_file(root):
    (job_copy(root) / PASS / "result.json").write_bytes(b"")


@case(f"{PASS}/result.json", "holds a list, not a JSON object")
def json_list(root):
    (job_copy(root) / PASS / "result.json").write_text("[1, 2, 3]")


@case(f"{PASS}/result.json", "holds a string, not a JSON object")
def json_string(root):
    (job_copy(root) / PASS / "result.json").write_text('"spec-pass passed"')


@case(f"{PASS}/result.json", "reward is '1'")
def reward_string(root):
    edit_result(root, lambda d: d.update(rewards={"reward": "1"}))


@case(f"{PASS}/result.json", "holds NaN, which is not valid JSON")
def reward_nan(root):
    path = job_copy(root) / PASS / "result.json"
    path.write_text(path.read_text().replace('"reward": 1.0', '"reward": NaN'))


@case(f"{PASS}/result.json", "holds Infinity, which is not valid JSON")
def reward_infinity(root):
    path = job_copy(root) / PASS / "result.json"
    path.write_text(path.read_text().replace('"reward": 1.0', '"reward": Infinity'))


@case(f"{PASS}/result.json", "reward is -0.5, outside [0, 1]")
def reward_negative(root):
    edit_result(root, lambda d: d.update(rewards={"reward": -0.5}))


@case(f"{PASS}/result.json", "reward is 1.5, outside [0, 1]")
def reward_above_one(root):
    edit_result(root, lambda d: d.update(rewards={"reward": 1.5}))


@case(f"{PASS}/result.json", "rewards is a list, not an object")
def rewards_list(root):
    edit_result(root, lambda d: d.update(rewards=[1.0]))


@case(f"{PASS}/result.json", "interrupted: config.json but no result.json")
def missing_result(root):
    (job_copy(root) / PASS / "result.json").unlink()


@case(f"{PASS}/result.json", "no result.json and no usable config.json")
def trial_folder_empty(root):
    job = job_copy(root)
    shutil.rmtree(job / PASS)
    (job / PASS).mkdir()


@case("spec-pass__3d1c0485/result.json", f"the same attempt as {PASS}")
def duplicate_attempt_folders(root):
    """A copied attempt folder under another name: one attempt (its rollout name, task,
    started_at and bytes say so), counted once, in the folder named as its rollout."""
    job = job_copy(root)
    shutil.copytree(job / PASS, job / "spec-pass__3d1c0485")


@case(None)
def legacy_field_names(root):
    def legacy(data):
        data["trial_name"] = data.pop("rollout_name")
        data["reward"] = data.pop("rewards")["reward"]
    edit_result(root, legacy)


@case(f"{PASS}/result.json", "not UTF-8 text")
def not_utf8(root):
    path = job_copy(root) / PASS / "result.json"
    path.write_bytes(path.read_bytes().replace(b'"spec-pass"', b'"spec-\xff\xfepass"', 1))


@case(None)
def huge_trajectory(root):
    """A 200 MB llm_trajectory.jsonl: only its first requests may be read."""
    trajectory = job_copy(root) / PASS / "trajectory" / "llm_trajectory.jsonl"
    line = (EXAMPLE / "llm_trajectory-sample.jsonl").read_bytes().rstrip(b"\n") + b"\n"
    block = line * max(1, (1 << 20) // len(line))
    with open(trajectory, "wb") as handle:
        for _ in range(200):
            handle.write(block)


@case(f"{PASS}/trajectory/llm_trajectory.jsonl", "request line 1 is over 4 MB")
def one_line_of_50_mb(root):
    trajectory = job_copy(root) / PASS / "trajectory" / "llm_trajectory.jsonl"
    with open(trajectory, "wb") as handle:
        handle.write(b'{"request": {"body": {"messages": "')
        for _ in range(50):
            handle.write(b"x" * (1 << 20))
        handle.write(b'"}}}\n')


@case(f"{PASS}/result.json", "a link pointing outside the job root")
def link_outside_root(root):
    """The link's target is a FIFO: anything that opened it would hang, so the test also shows it
    was never read."""
    job = job_copy(root)
    outside = root.parent.parent / "outside" / f"{root.name}.fifo"
    outside.parent.mkdir(exist_ok=True)
    if not outside.exists():
        os.mkfifo(outside)
    (job / PASS / "result.json").unlink()
    os.symlink(outside, job / PASS / "result.json")


@case(f"{PASS}/result.json", "a link loop")
def link_loop(root):
    job = job_copy(root)
    (job / PASS / "result.json").unlink()
    os.symlink("result-b.json", job / PASS / "result.json")
    os.symlink("result.json", job / PASS / "result-b.json")


@case(None, count_in_reports=0)
def job_folder_without_trials(root):
    job = root / "empty-run" / JOB
    job.mkdir(parents=True)
    shutil.copy(ORACLE_RUN / JOB / "summary.json", job / "summary.json")


@case(None)
def same_job_name_in_two_roots(root):
    """Two job folders named alike under two roots (the second root is a sibling case)."""
    job_copy(root)
    twin = root.parent / "same_job_name_in_two_roots.twin"
    job_copy(twin)


@case(None)
def matrix_without_matrix_summary(root):
    shutil.copytree(EXAMPLE / "benchflow-real-jobs/script-run/oracle-x3", root / "oracle-x3")
    (root / "oracle-x3" / "matrix-summary.json").unlink()


@case(None)
def two_benchflow_versions_in_one_root(root):
    """A 0.7.12 job beside a 0.4/0.5-era one (BenchFlow's docs example: the old minimal fields)."""
    job_copy(root)
    old = root / "old-run" / "2026-04-22__22-37-42" / "regex-log__bab1cbf6"
    old.mkdir(parents=True)
    shutil.copy(EXAMPLE.parents[1] / "tests" / "data" / "v0.4-result.json", old / "result.json")


@case(f"{PASS}/config.json", "not valid JSON, perhaps truncated")
def config_truncated(root):
    path = job_copy(root) / PASS / "config.json"
    path.write_bytes(path.read_bytes()[:100])


@case(f"{PASS}/timing.json", "holds a list, not a JSON object")
def timing_wrong_type(root):
    (job_copy(root) / PASS / "timing.json").write_text("[28.4]")


@case("summary.json", "not valid JSON, perhaps truncated")
def summary_not_json(root):
    (job_copy(root) / "summary.json").write_text('{"total": 4, "pass')


@case("summary.json", "holds a list, not a JSON object")
def summary_list(root):
    (job_copy(root) / "summary.json").write_text("[]")


@case(None)
def task_name_wrong_type(root):
    edit_result(root, lambda d: d.update(task_name=42))


@case(f"{PASS}/result.json", "a reviewer run")
def reviewer_run(root):
    edit_result(root, lambda d: d.update(purpose="reviewer", parent_rollout="spec-fail__67b8813a"))


@case(f"{PASS}/trajectory/llm_trajectory.jsonl", "line 2: not valid JSON")
def trajectory_bad_line(root):
    trajectory = job_copy(root) / PASS / "trajectory" / "llm_trajectory.jsonl"
    line = (EXAMPLE / "llm_trajectory-sample.jsonl").read_bytes().rstrip(b"\n") + b"\n"
    trajectory.write_bytes(line + b'{"request": {"body"\n' + line)


@case(None)
def trial_nested_in_a_trial(root):
    job = job_copy(root)
    shutil.copytree(job / "spec-fail__67b8813a", job / PASS / "nested__deadbeef")


@case(f"{PASS}/result.json", "permission denied", count_in_reports=None)
def no_read_permission(root):
    """Only refused when the workflow does not run as root (root reads any file)."""
    (job_copy(root) / PASS / "result.json").chmod(0)


# --- one attempt, several places: each counted once -------------------------------------------


@case(None, roots=("nested_roots/nested-A",))
def nested_roots(root):
    """job_roots: [jobs, jobs/A]: the job folder is found under both."""
    job_copy(root, "nested-A")


@case(None, roots=("root_symlink.link",))
def root_symlink(root):
    """A root and a link to it among job_roots."""
    job_copy(root)
    link = root.parent / "root_symlink.link"
    if not link.exists():
        os.symlink(root.name, link)


@case(f"{PASS}/result.json", "the same attempt as backup_copy/oracle-run/")
def backup_copy(root):
    """A backup copy `oracle-run (copy)` left beside the job folder: the same names and bytes."""
    job_copy(root)
    shutil.copytree(root / "oracle-run", root / "oracle-run (copy)")


# --- values of the wrong type or out of range: not recorded, with a ledger row ---------------


def edit_agent_result(root: Path, **values) -> None:
    edit_result(root, lambda d: d["agent_result"].update(values))


@case(f"{PASS}/result.json", "scoring.passed is 'false', not a boolean")
def scoring_passed_string(root):
    """A review verdict written as a string: "false" is a true string, and must not pass."""
    edit_result(root, lambda d: d.update(rewards={"reward": 0.0}, scoring={"status": "complete", "passed": "false"}))


@case(f"{PASS}/result.json", "agent_result.cost_usd is -1, below zero")
def cost_minus_one(root):
    edit_agent_result(root, cost_usd=-1)


@case(f"{PASS}/result.json", "agent_result.n_input_tokens is -1, below zero")
def tokens_minus_one(root):
    edit_agent_result(root, n_input_tokens=-1)


@case(f"{PASS}/result.json", "agent_result.cost_usd is 1e+308, beyond any real run")
def sums_beyond_a_double(root):
    """Two values near the largest double: their sum would be infinite."""
    edit_agent_result(root, cost_usd=1e308, n_output_tokens=1e308)


@case(f"{PASS}/result.json", "agent_result.total_tokens is beyond the largest finite number")
def number_beyond_a_double(root):
    """1e309 parses as infinity."""
    path = job_copy(root) / PASS / "result.json"
    data = json.loads(path.read_text())
    data["agent_result"]["total_tokens"] = 12345
    path.write_text(json.dumps(data).replace("12345", "1e309"))


@case(f"{PASS}/result.json", "agent_result.n_cache_read_tokens is a string, not a number")
def token_count_as_string(root):
    edit_agent_result(root, n_cache_read_tokens="1024")


@case(f"{PASS}/timing.json", "timing.total is -5, below zero")
def negative_phase_time(root):
    path = job_copy(root) / PASS / "timing.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {"total": -5, "verifier": -0.5}))


@case(f"{PASS}/result.json", "nested too deeply")
def nesting_100000_deep(root):
    path = job_copy(root) / PASS / "result.json"
    data = json.loads(path.read_text())
    path.write_text(json.dumps(data)[:-1] + ', "deep": ' + "[" * 100_000 + "]" * 100_000 + "}")


@case("summary.json", "a number beyond the largest finite one")
def summary_count_beyond_a_double(root):
    path = job_copy(root) / "summary.json"
    path.write_text(path.read_text().replace('"total": 4', '"total": 1e999', 1))


@case(f"{PASS}/result.json", "seed is a JSON object")
def seed_wrong_type(root):
    edit_result(root, lambda d: d.update(seed={"value": 3}))


# --- names that cannot be written, wildcards or file names: safe ids, the real names kept -----


@case(None)
def lone_surrogate_in_task_name(root):
    """A harness cut a string in the middle of an emoji: a lone surrogate escape."""
    path = job_copy(root) / PASS / "result.json"
    path.write_text(path.read_text().replace('"task_name": "spec-pass"', '"task_name": "spec-pass-\\ud83d"'))


@case(None)
def braces_in_folder_name(root):
    job_copy(root, "oracle {run}")


@case(None)
def newline_in_folder_name(root):
    job_copy(root, "oracle\nrun")


@case(None)
def folder_name_of_250_characters(root):
    job_copy(root, "o" * 250)


@case(None)
def model_name_of_300_characters(root):
    edit_result(root, lambda d: d.update(model="m" * 300))


@case(None)
def undecodable_byte_in_folder_name(root):
    job_copy(root, os.fsdecode(b"oracle-\xff-run"))


# --- secrets in values and names: redacted before anything is written -----------------------

ANTHROPIC_KEY = "sk-ant-api03-" + "Q" * 40
HF_TOKEN = "hf_" + "k" * 34
GITHUB_TOKEN = "ghp_" + "7" * 36
SECRETS = (ANTHROPIC_KEY, HF_TOKEN, GITHUB_TOKEN)


@case(f"{PASS}/result.json", "a secret (anthropic api key) in model was redacted")
def key_pasted_as_model_name(root):
    edit_result(root, lambda d: d.update(model=ANTHROPIC_KEY))


@case(f"{PASS}/trajectory/llm_trajectory.jsonl", "a secret (hugging face token) in sampling was redacted")
def token_inside_a_sampling_value(root):
    trajectory = job_copy(root) / PASS / "trajectory" / "llm_trajectory.jsonl"
    line = json.loads((EXAMPLE / "llm_trajectory-sample.jsonl").read_text().splitlines()[0])
    line["request"]["body"]["thinking"] = {"type": "enabled", "budget_tokens": 1024, "note": f"use {HF_TOKEN}"}
    trajectory.write_text(json.dumps(line) + "\n")


@case(".", "a secret (github token) in the folder's name was redacted")
def token_in_a_folder_name(root):
    job_copy(root, f"run-{GITHUB_TOKEN}")


# --- what BenchFlow counts: a timed-out trial the verifier scored ---------------------------


@case(None)
def timed_out_and_scored(root):
    edit_result(root, lambda d: d.update(rewards={"reward": 0.0}, error="Agent prompt exceeded wall-clock budget",
                                         error_category="timeout"))
