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
        CASES[function.__name__] = {
            "build": function,
            "file": expect_file,
            "words": reason_words,
            "in_reports": count_in_reports,
            "roots": roots,
        }
        return function

    return register


def job_copy(root: Path, folder: str = "oracle-run", later: int = 0) -> Path:
    """The real oracle run copied under root, its start times moved by the case's number of
    minutes (and `later` hours): the same run's bytes in two cases would be one attempt counted
    once."""
    shutil.copytree(ORACLE_RUN, root / folder)
    names = list(CASES)
    number = (names.index(root.name) if root.name in names else len(names) + len(root.name)) + 60 * later
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


# result.json replaced by bytes that are no JSON object: case name -> (words of the reason, bytes)
RESULT_BYTES = {
    "empty_file": ("the file is empty", b""),
    "whitespace_only_json": ("the file is empty", b"  \n\t \n"),
    "json_list": ("holds a list, not a JSON object", b"[1, 2, 3]"),
    "json_string": ("holds a string, not a JSON object", b'"spec-pass passed"'),
    "json_null": ("holds null, not a JSON object", b"null"),
    "json_number": ("holds a number, not a JSON object", b"1.0"),
}


def _result_bytes_case(name):
    def build(root):
        (job_copy(root) / PASS / "result.json").write_bytes(RESULT_BYTES[name][1])

    build.__name__ = name
    case(f"{PASS}/result.json", RESULT_BYTES[name][0])(build)


for _name in RESULT_BYTES:
    _result_bytes_case(_name)


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


@case(
    f"{PASS}/result.json", "the same attempt as crlf_copy_renamed/from-windows/", "the same values, written differently"
)
def crlf_copy_renamed(root):
    """A copy of the job folder under another name, its JSON saved with CRLF line ends (git's
    autocrlf, a Windows archiver): other bytes, the same attempts, counted at the shorter path."""
    job = job_copy(root)
    copy = shutil.copytree(job, root / "from-windows")
    for path in copy.rglob("*.json"):
        path.write_bytes(path.read_bytes().replace(b"\n", b"\r\n"))


@case(f"{PASS}/result.json", "differs in rewards", "none is counted")
def copy_with_an_edited_reward(root):
    """A copy of the job folder whose spec-pass reward was edited: which one is right cannot be
    told, so the attempt is counted in neither."""
    job = job_copy(root)
    copy = shutil.copytree(job, root / "edited" / JOB)
    path = copy / PASS / "result.json"
    data = json.loads(path.read_text())
    data["rewards"] = {"reward": 0.0}
    path.write_text(json.dumps(data, indent=2))


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
    edit_result(
        root,
        lambda d: d.update(
            rewards={"reward": 0.0}, error="Agent prompt exceeded wall-clock budget", error_category="timeout"
        ),
    )


# --- the hidden set: further classes, one case each ----------------------------------------
# files that are not JSON objects


@case(f"{PASS}/result.json", 'holds the key "rewards" twice')
def duplicate_json_keys(root):
    """{"rewards": {"reward": 0.0}, ..., "rewards": {"reward": 1.0}}: Python keeps the last value,
    other parsers the first; the file says two things."""
    path = job_copy(root) / PASS / "result.json"
    path.write_text(path.read_text().replace('"rewards": {', '"rewards": {"reward": 0.0}, "rewards": {', 1))


@case(f"{PASS}/result.json", "not valid JSON", "digits")
def integer_of_5000_digits(root):
    path = job_copy(root) / PASS / "result.json"
    data = json.loads(path.read_text())
    data["agent_result"]["n_input_tokens"] = 12345
    path.write_text(json.dumps(data).replace("12345", "9" * 5000))


@case(f"{PASS}/result.json", "is a folder, not a file")
def result_is_a_folder(root):
    job = job_copy(root)
    (job / PASS / "result.json").unlink()
    (job / PASS / "result.json").mkdir()


@case(f"{PASS}/result.json", "is not a regular file")
def result_is_a_fifo_inside_the_root(root):
    """A FIFO inside the job folder itself: whoever opened it would hang."""
    job = job_copy(root)
    (job / PASS / "result.json").unlink()
    os.mkfifo(job / PASS / "result.json")


# values of the wrong type in every field ingest reads


@case(f"{PASS}/result.json", "agent_result.cost_usd is a string, not a number")
def huge_number_as_a_string(root):
    edit_agent_result(root, cost_usd="1e400", n_output_tokens="99999999999999999999999999")


@case(f"{PASS}/result.json", "agent_result is a list, not an object")
def agent_result_a_list(root):
    edit_result(root, lambda d: d.update(agent_result=[1, 2]))


@case(f"{PASS}/result.json", "timing is a string, not an object")
def timing_in_result_a_string(root):
    job = job_copy(root)
    (job / PASS / "timing.json").unlink()
    path = job / PASS / "result.json"
    data = json.loads(path.read_text())
    data["timing"] = "28.4s"
    path.write_text(json.dumps(data, indent=2))


@case(f"{PASS}/timing.json", "timing.total is a string, not a number")
def timing_value_a_string(root):
    path = job_copy(root) / PASS / "timing.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {"total": "28", "verifier": {"s": 1}}))


@case(f"{PASS}/result.json", "model is a list, not a string")
def model_a_list(root):
    edit_result(root, lambda d: d.update(model=["claude", "gpt"], agent=7))


@case(f"{PASS}/config.json", "agent is a JSON object, not a string")
def config_agent_an_object(root):
    path = job_copy(root) / PASS / "config.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {"agent": {"name": "oracle"}, "task_path": 3}))


@case(f"{PASS}/config.json", "holds a list, not a JSON object")
def config_a_list(root):
    (job_copy(root) / PASS / "config.json").write_text("[]")


@case(f"{PASS}/result.json", "scoring is a list, not an object")
def scoring_a_list(root):
    edit_result(root, lambda d: d.update(scoring=[True]))


@case(f"{PASS}/result.json", "verifier_error is a boolean, not a string")
def verifier_error_a_boolean(root):
    edit_result(root, lambda d: d.update(verifier_error=True))


@case(f"{PASS}/result.json", "reward is a boolean")
def reward_a_boolean(root):
    edit_result(root, lambda d: d.update(rewards={"reward": True}))


@case(f"{PASS}/result.json", "reward is '1.0'")
def reward_a_decimal_string(root):
    edit_result(root, lambda d: d.update(rewards={"reward": "1.0"}))


@case(f"{PASS}/result.json", "scoring.passed is 1, not a boolean")
def scoring_passed_one(root):
    edit_result(root, lambda d: d.update(rewards={"reward": 0.0}, scoring={"status": "complete", "passed": 1}))


@case(f"{PASS}/result.json", "scoring.passed is 'true', not a boolean")
def scoring_passed_true_string(root):
    edit_result(root, lambda d: d.update(rewards={"reward": 0.0}, scoring={"status": "complete", "passed": "true"}))


@case(f"{PASS}/result.json", "started_at is a number, not a string")
def started_at_a_number(root):
    edit_result(root, lambda d: d.update(started_at=1764476582))


@case(f"{PASS}/result.json", "started_at is '2026-13-45T99:99:99', not a date and time")
def started_at_out_of_range(root):
    """A 13th month: no time, so not recorded (config.json's start stands in), never sorted
    after every real time."""
    edit_result(root, lambda d: d.update(started_at="2026-13-45T99:99:99"))


@case(f"{PASS}/result.json", "the task recorded, 'spec-fail', is not the one the folder's name gives")
def task_name_not_the_folders(root):
    """spec-pass's result.json names spec-fail: counted as spec-fail (BenchFlow groups by
    task_name), and said so."""
    edit_result(root, lambda d: d.update(task_name="spec-fail"))


@case(None)
def started_at_odd_formats(root):
    """Day-first, a time zone, missing, a word: the zoned one read as written, the day-first one
    and the word not dates and times (each a ledger row, the start in config.json used)."""
    job = job_copy(root)
    for folder, value in zip(
        sorted(p.name for p in job.iterdir() if p.is_dir()),
        ("30/11/2026 04:23:02", "2026-11-30T04:23:02+05:30", None, "yesterday"),
    ):
        path = job / folder / "result.json"
        data = json.loads(path.read_text())
        data["started_at"] = value
        path.write_text(json.dumps(data, indent=2))


# names: control, direction and zero-width characters; case and Unicode normalisation; Windows


TASK_NAMES = {
    "control_characters_in_task_name": "spec\x07pass\x1b[31m",
    "direction_override_in_task_name": "spec-\u202essap",
    "zero_width_in_task_name": "spec\u200b-pass",
    "task_name_of_300_characters": "t" * 300,
    "windows_reserved_task_name": "CON",
}


def _task_name_case(name):
    def build(root):
        edit_result(root, lambda d: d.update(task_name=TASK_NAMES[name]))

    build.__name__ = name
    case(None)(build)


for _name in TASK_NAMES:
    _task_name_case(_name)


@case(None)
def direction_override_in_folder_name(root):
    job_copy(root, "oracle-\u202enur")


@case(None)
def windows_reserved_folder_names(root):
    job_copy(root, "CON")
    job_copy(root, "nul.txt", later=1)
    job_copy(root, "run.", later=2)


@case(None)
def folder_names_in_nfc_and_nfd(root):
    """café as one code point and as e + combining accent: two job folders (two runs), two ids."""
    job_copy(root, "caf\u00e9-run")
    job_copy(root, "cafe\u0301-run", later=1)


@case(None)
def models_differing_by_case_and_normalisation(root):
    """Four job folders whose models differ only by case or normalisation: four settings."""
    for number, model in enumerate(("Modèle-X", "modèle-x", "Mode\u0300le-X", "MODÈLE-X")):
        path = job_copy(root, f"run-{number}", later=number) / PASS / "result.json"
        data = json.loads(path.read_text())
        data.update(model=model, agent="claude-agent-acp")  # a control's setting has no model
        path.write_text(json.dumps(data, indent=2))


# links


@case(f"{PASS}/result.json", "the same attempt as")
def hard_link_between_trials(root):
    """spec-pass's result.json is a hard link to spec-fail's: it names spec-fail's rollout and
    time, so it is that attempt a second time."""
    job = job_copy(root)
    (job / PASS / "result.json").unlink()
    os.link(job / "spec-fail__67b8813a" / "result.json", job / PASS / "result.json")


@case(None)
def job_folder_is_a_link(root):
    """A second name for a job folder inside the root: one job folder, counted once."""
    job_copy(root)
    os.symlink("oracle-run", root / "oracle-run-latest")


@case(".", "outside the job root")
def job_folder_links_outside(root):
    outside = root.parent.parent / "outside" / root.name
    job_copy(outside)
    os.symlink(outside / "oracle-run", root / "elsewhere")


@case(PASS, "outside the job root")
def trial_folder_links_outside(root):
    job = job_copy(root)
    outside = root.parent.parent / "outside" / root.name
    shutil.copytree(job / PASS, outside / PASS)
    shutil.rmtree(job / PASS)
    os.symlink(outside / PASS, job / PASS)


@case(f"{PASS}/config.json", "a link loop")
def symlink_loop_of_a_folder(root):
    """config.json reached through two folder links that point at each other."""
    trial = job_copy(root) / PASS
    (trial / "config.json").unlink()
    for link, target in (("loop-b", "loop"), ("loop", "loop-b"), ("config.json", "loop/config.json")):
        os.symlink(target, trial / link)


# secrets in more places: every one must be redacted before anything is written

OPENAI_KEY = "sk-proj-" + "Z1" * 24
AWS_SECRET = "wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"
ESCAPED_KEY = "sk-ant-api03-" + "E" * 40
URL_TOKEN = "ghp_" + "U" * 36
QUOTED_KEY = "sk-ant-api03-" + "R" * 40
TASK_TOKEN = "hf_" + "T" * 34
PHASE_KEY = "sk-ant-api03-" + "P" * 40
FOLDER_TOKEN = "ghp_" + "F" * 36
# with the tails of the two written in another form (escaped, percent-encoded) in the raw bytes
SECRETS += (
    OPENAI_KEY,
    AWS_SECRET,
    ESCAPED_KEY,
    ESCAPED_KEY[6:],
    URL_TOKEN,
    URL_TOKEN[4:],
    QUOTED_KEY,
    TASK_TOKEN,
    PHASE_KEY,
    FOLDER_TOKEN,
)


@case(None)
def env_dump_in_config(root):
    """An agent_env with keys, and an env dump as one string, in config.json."""
    path = job_copy(root) / PASS / "config.json"
    data = json.loads(path.read_text())
    data["agent_env"] = {"OPENAI_API_KEY": OPENAI_KEY, "AWS_SECRET_ACCESS_KEY": AWS_SECRET}
    data["environment_dump"] = f"PATH=/usr/bin\nOPENAI_API_KEY={OPENAI_KEY}\nAWS_SECRET_ACCESS_KEY={AWS_SECRET}\n"
    path.write_text(json.dumps(data, indent=2))


@case("spec-fail__67b8813a/result.json", "a secret (", ") in error was redacted")
def env_secret_quoted_in_another_attempt(root):
    """A secret known only as an agent_env value of one attempt, quoted in another's error."""
    job = job_copy(root)
    path = job / PASS / "config.json"
    data = json.loads(path.read_text())
    data["agent_env"] = {"AWS_SECRET_ACCESS_KEY": AWS_SECRET}
    path.write_text(json.dumps(data, indent=2))
    path = job / "spec-fail__67b8813a" / "result.json"
    data = json.loads(path.read_text())
    data["error"] = f"aws said: signature mismatch for {AWS_SECRET}"
    path.write_text(json.dumps(data, indent=2))


@case(f"{PASS}/result.json", "reward is '[REDACTED:anthropic api key]'")
def secret_in_a_quoted_value(root):
    """The ledger quotes a bad value: the quote is redacted."""
    edit_result(root, lambda d: d.update(rewards={"reward": QUOTED_KEY}))


@case(f"{PASS}/result.json", "a secret (anthropic api key) in error was redacted")
def key_split_by_json_escapes(root):
    path = job_copy(root) / PASS / "result.json"
    data = json.loads(path.read_text())
    data["error"] = "PLACEHOLDER"
    escaped = "\\u0073k\\u002dant" + ESCAPED_KEY[len("sk-ant") :]
    path.write_text(json.dumps(data, indent=2).replace("PLACEHOLDER", f"bad key {escaped}"))


@case(f"{PASS}/result.json", "a secret (url-encoded github token) in error was redacted")
def url_encoded_token(root):
    encoded = URL_TOKEN.replace("_", "%5F")
    edit_result(root, lambda d: d.update(error=f"GET https://api.example.org/x?token={encoded}&q=1 failed"))


@case(f"{PASS}/result.json", "a secret (hugging face token) in task was redacted")
def token_as_task_name(root):
    edit_result(root, lambda d: d.update(task_name=TASK_TOKEN))


@case(f"{PASS}/timing.json", "a secret (anthropic api key) in timing was redacted")
def key_as_a_timing_phase_name(root):
    """timing.json's phase names are its own keys, and are written out as they are."""
    path = job_copy(root) / PASS / "timing.json"
    path.write_text(json.dumps(json.loads(path.read_text()) | {PHASE_KEY: 1.5}))


@case(None)
def token_in_an_attempt_folder_name(root):
    job = job_copy(root)
    os.rename(job / PASS, job / f"{FOLDER_TOKEN}__3d1c0484")
