"""The report stage's rendering: a setting's result record (summary.json) assembled from its
numbers (stats.json), its trial rows (trials.json), what its run card counts over them
(trial_rows.setting_parts computes all three) and its environment, and report.md and writeup.md
rendered from it (pure: data in, text out).

The record is the one place a published number is read from: the renderers here, report.html,
paper/ and index.md print its fields through the presentation layer (present, sentences) and
compute nothing. Its type is record.SettingResult; benchreport/schemas/setting-result.schema.json
is its published schema.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path

import jinja2

from ..pipeline.outputs import dump_json
from ..present import sentences, writeup
from ..present.present import NOT_RECORDED, bar, cell, code, count, level, num, pct, reward, seconds, usd, wrap
from ..read.classify import interrupted_row
from ..read.environment import REBUILT, REFRESH, repo_digest_text
from . import completeness, runcard
from .record import CardParts, EnvironmentSummary, JobFolder, LeftOutRow, SettingNumbers, SettingResult, TrialRows

TEMPLATES = Path(__file__).resolve().parents[1] / "present" / "templates"
SCHEMA = Path(__file__).resolve().parents[1] / "schemas" / "setting-result.schema.json"
GRADED_BY = {
    "script": "graded by the verifier script",
    "model": "graded by a model",
    "mixed": "graded partly by a model, partly by the verifier script alone",
}


def environment_rows(resolutions: list[dict], records: dict, per_task: list[dict]) -> list[dict]:
    """Per task: the image it ran in as inspected, beside its task digest."""
    digests = {row["task"]: row["task_digests"] for row in per_task}
    rows = []
    for resolved in sorted(resolutions, key=lambda item: item["task"]):
        task = resolved["task"]
        record = records[resolved["record"]]
        image = record.get("image") or {}
        rows.append(
            {
                "task": task,
                "reference": resolved["reference"],
                "source": resolved["source"],
                "status": record["status"],
                "reason": record.get("reason"),
                "note": record.get("note"),
                "id": image.get("Id"),
                "repo_digest": repo_digest_text(record) if image else None,
                "platform": record.get("platform"),
                "daemon_version": record.get("daemon_version"),
                "task_digests": digests.get(task, []),
            }
        )
    return rows


ENVIRONMENT_HINTS = {
    "image missing": "BenchFlow removes its bf__<task> images after each trial; name the image in "
    "config (environment.images), point environment.tasks_dirs at the task definitions, or set "
    "environment.build_missing",
    "daemon unavailable": "no Docker daemon answered",
    "rebuilt": REBUILT,
}


def uninspected(environment: list[dict]) -> list[dict]:
    """The image rows whose image that ran was not inspected: missing, unreachable, or rebuilt
    now from the task definition (a rebuilt image is not the one that ran)."""
    return [row for row in environment if row["status"] != "inspected"]


def left_out_rows(
    ledger: list[dict], interrupted: list[dict], excluded_by_controls: list[dict], environment: list[dict]
) -> list[LeftOutRow]:
    """Every attempt, task, image and file of the setting left out or not recorded, one row each,
    with the reason and its effect on the numbers: what report.md, summary.json and (over all
    settings) exclusions.tsv list."""
    rows = []
    for row in ledger:
        kind = row.get("kind") or ("attempt" if row["effect"].startswith("attempt") else "file")
        rows.append(_left_out(kind, row["job"], row["folder"], row["file"], row["reason"], row["effect"]))
    for trial in interrupted:
        row = interrupted_row(trial, trial["folder"])
        rows.append(
            _left_out("attempt", row["job"], row["folder"], row["file"], row["reason"], row["effect"], trial["task"], 1)
        )
    for row in excluded_by_controls:
        effect = f"{count(row['trials'], 'trial')} ({row['passed']} passed) left out of the headline"
        rows.append(_left_out("task", "", "", f"task {row['task']}", row["reason"], effect, row["task"], row["trials"]))
    for row in uninspected(environment):
        hint = ENVIRONMENT_HINTS.get(row["status"], row.get("reason") or "see the environment table")
        rows.append(
            _left_out(
                "image",
                "",
                "",
                f"image of task {row['task']} ({row['reference']})",
                f"{row['status']}: {hint}",
                "environment as built not recorded for this task",
                row["task"],
            )
        )
    return rows


def _left_out(kind, job, folder, file, reason, effect, task=None, trials=None) -> LeftOutRow:
    return LeftOutRow(
        kind=kind, job=job, folder=folder, file=file, reason=reason, effect=effect, task=task, trials=trials
    )


def trial_rows(trials: list[dict]) -> list[str]:
    """The Trials table's rows, each as one string: the table has a row per trial, formatted here
    faster than by Jinja; each distinct value of the columns that repeat is made a cell once."""
    cell_of = functools.lru_cache(maxsize=None, typed=True)(cell)  # typed: 1 and True are two cells
    rows = []
    for t in trials:
        verifier = cell_of(t["verifier"] or "ok") if t["reward"] is not None else cell_of(t["verifier"])
        outcome = t["outcome"] + (" (left out: controls)" if t["left_out"] else "")
        tokens = num(t["tokens"]) if t["tokens"] is not None else "—"
        cost = usd(t["cost_usd"]) if t["cost_usd"] is not None else "—"
        rows.append(
            f"| {cell_of(t['task'])} | {t['try'] or '—'} | {cell_of(t['agent_execution'])} | {verifier} | {reward(t['reward'])} "
            f"| {outcome} | {t['attempts']} | {tokens} | {cost} | {seconds(t['seconds'])} "
            f"| {code(t['job'] + '/' + t['folder'])} |"
        )
    return rows


def build_record(numbers: SettingNumbers, parts: CardParts, rows: TrialRows, environment: list[dict]) -> SettingResult:
    """summary.json: the setting's result record, from its numbers, the card parts and trial
    rows (trial_rows.setting_parts) and its image rows (environment_rows); what is computed here
    is what needs the image rows, the sentences of what is not recorded, and the completeness
    checklist and limits read off the card's parts."""
    # the setting's key and what its trials sent and reported
    settings = numbers["key"] | {
        "agent_env_chosen": numbers["agent_env_chosen"],
        "agent_names_reported": numbers["agent_names"],
        "served_models": numbers["served_models"],
        "effort_sent": numbers["effort_sent"],
        "routes": numbers["routes"],
        "sampling_sent": numbers["sampling_sent"],
    }
    record = SettingResult(
        schema="benchreport.setting-result/1",
        setting=numbers["setting"],
        description=numbers["description"],
        settings=settings | {"not_recorded": sentences.not_recorded(settings)},
        counts=numbers["counts"],
        pass_rate=numbers["pass_rate"],
        pass_rate_over_trials=numbers["pass_rate_over_trials"],
        mean_reward=numbers["mean_reward"],
        confidence=numbers["confidence"],
        intervals=numbers["intervals"],
        headline=numbers["headline"],
        methods=numbers["methods"],
        solve_rates=numbers["solve_rates"],
        per_task=numbers["per_task"],
        tries=numbers["tries"],
        usage=numbers["usage"],
        unpriced_reasons=parts["tokens_and_cost"]["unpriced_reasons"],
        sampling=numbers["sampling"],
        trials_recording_requests=numbers["trials_recording_requests"],
        try_numbering=numbers["try_numbering"],
        controls=numbers["controls"],
        environment=environment,
        environment_summary=EnvironmentSummary(
            inspected=bool(environment), not_inspected=[row["task"] for row in uninspected(environment)]
        ),
        environment_refresh=REFRESH,
        warnings=numbers["warnings"],
        mixed_settings=numbers["mixed_settings"],
        seeds=numbers["seeds"],
        jobs=numbers["jobs"],
        job_folders=[
            JobFolder(id=job["id"], try_index=job["try_index"], benchflow_summary=job["crosscheck"])
            for job in parts["job_folders"]
        ],
        left_out=left_out_rows(parts["ledger"], rows["interrupted"], numbers["excluded_by_controls"], environment),
        excluded_by_controls=numbers["excluded_by_controls"],
        benchmark=parts["benchmark"],
        grader_kind=parts["grader"]["kind"],
        left_out_accounting=parts["left_out_accounting"]
        | {
            "images_not_inspected": [
                {"task": row["task"], "status": row["status"], "reason": row.get("reason")}
                for row in uninspected(environment)
            ]
        },
        # read off the card's parts below, once the rest of the record is in place
        limits={},
        completeness=[],
        # the trial rows are in trials.json beside this file
    )
    card = runcard.checkable_parts(record, parts)
    record["limits"] = {"not_controlled": writeup.not_controlled(card), "task_count": writeup.task_count_limits(card)}
    record["completeness"] = completeness.checklist(card)
    return record


def setting_record(
    numbers: SettingNumbers, parts: CardParts, rows: TrialRows, environment: list[dict]
) -> tuple[SettingResult, dict]:
    """(summary.json, run-card.json) of a setting, each checked against its schema, from its
    numbers, card parts and trial rows (trial_rows.setting_parts) and its image rows
    (environment_rows)."""
    record = build_record(numbers, parts, rows, environment)
    validate_record(record)
    card = runcard.build_run_card(record, parts)
    runcard.validate(card)
    return record, card


def validate_record(record: SettingResult) -> None:
    """Raise jsonschema.ValidationError unless the record follows its schema. A per-task row's
    trial_ids are checked as one id of each JSON type they hold: the schema asks of them only a
    type and at least one (a test holds it to that), and checking every id is slow."""
    import jsonschema  # a Snakemake dependency; imported here so only the report stage pays

    checked = record | {"per_task": _ids_by_type(record.get("per_task"))}
    jsonschema.Draft202012Validator(json.loads(SCHEMA.read_text(encoding="utf-8"))).validate(checked)


def _ids_by_type(rows):
    """Per-task rows with their trial_ids cut to the last id of each type (what is not a row, or
    not a list, as it is: the schema then says what is wrong)."""
    if not isinstance(rows, list):
        return rows
    return [
        row | {"trial_ids": list({type(item): item for item in row["trial_ids"]}.values())}
        if isinstance(row, dict) and isinstance(row.get("trial_ids"), list)
        else row
        for row in rows
    ]


def _jinja() -> jinja2.Environment:
    env = jinja2.Environment(
        loader=jinja2.FileSystemLoader(TEMPLATES),
        autoescape=False,  # Markdown; every interpolated value goes through `cell` or a formatter
        undefined=jinja2.StrictUndefined,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=True,
    )
    env.filters.update({f.__name__: f for f in (pct, num, usd, reward, cell, code, bar, count, seconds, level)})
    env.globals.update(NOT_RECORDED=NOT_RECORDED, sentences=sentences)
    return env


def render_report(record: dict, card: dict, trials: dict) -> str:
    """report.md from the record, the run card (grader, left-out accounting, completeness) and
    trials.json (the Trials table)."""
    differences = [(trial, sentences.bucket_difference(trial)) for trial in trials["trials"]]
    context = {
        "record": record,
        "card": card,
        "graded_by": GRADED_BY[card["grader"]["kind"]],
        "sections": {
            "grader": grader_markdown(card["grader"]),
            "left_out": left_out_markdown(card["left_out"]),
            "completeness": completeness_markdown(card["completeness"]),
        },
        "trial_rows": trial_rows(trials["trials"]),
        "differences": [(trial, why) for trial, why in differences if why],
    }
    return _jinja().get_template("report.md.j2").render(**context)


def render_writeup(record: dict, card: dict) -> str:
    """writeup.md: BenchFlow's write-up shape (writeup.writeup), each paragraph wrapped to lines a
    reader can paste."""
    paragraphs = writeup.writeup(record, card)
    return "\n".join("\n".join(wrap(cell(paragraph))) if paragraph else "" for paragraph in paragraphs) + "\n"


def render_summary(record: dict) -> str:
    return dump_json(record)


def left_out_markdown(accounting: dict) -> str:
    """The 'What was left out' section: one table whose folder counts add up."""
    lines = [
        "| What | Attempt folders | Effect | Detail |",
        "| --- | ---: | --- | --- |",
    ]
    for category in accounting["categories"]:
        if category["folders"]:
            detail = ", ".join(f"{name} {count}" for name, count in category["by"].items())
            lines.append(
                f"| {cell(category['label'])} | {category['folders']} | {cell(category['effect'])} | {cell(detail)} |"
            )
    verdict = (
        "every one is counted above"
        if accounting["adds_up"]
        else f"{accounting['unaccounted']} are NOT accounted for above"
    )
    lines += ["", f"{count(accounting['folders_found'], 'attempt folder')} found; {verdict}."]
    for stop in accounting["budget_stops"]:
        lines.append(
            f"Budget stop in {cell(stop['job'])}: {cell(stop['reason'] or 'no reason recorded')}; "
            f"{count(stop['cancelled'], 'task')} cancelled (their folders, if any, are counted above), "
            f"{stop['not_started']} never started (no folder)"
            + (f": {cell(', '.join(stop['not_started_tasks']))}" if stop["not_started_tasks"] else "")
            + "."
        )
    if not accounting["budget_stops"]:
        lines.append(
            "Budget stops: none"
            + ("" if accounting["budget_recorded"] else " (no summary.json records a budget)")
            + "."
        )
    for row in accounting["files_not_read"]:
        lines.append(
            f"File not read: {cell(row['file'])} in {cell(row['job'])}: {cell(row['reason'])} ({cell(row['effect'])})."
        )
    by_status: dict[str, list[str]] = {}
    for row in accounting["images_not_inspected"]:
        by_status.setdefault(row["status"], []).append(row["task"])
    for status, tasks in sorted(by_status.items()):
        lines.append(
            f"Images not inspected ({cell(status)}) for {count(len(tasks), 'task')}: {cell(', '.join(tasks))}."
        )
    return "\n".join(lines) + "\n"


def grader_markdown(description: dict) -> str:
    """A '## Grader' section: the sentence, then each graded trial's verdict beside its verifier
    reward."""
    lines = ["## Grader", "", description["sentence"], ""]
    if description["per_trial"]:
        lines += [
            "| Task | Try | Verifier reward | Model verdict | Rubric reward | Reward | Outcome |",
            "| --- | ---: | ---: | --- | ---: | ---: | --- |",
        ]
        for row in description["per_trial"]:
            values = [
                row["task"],
                row["try"] or "—",
                _three_digits(row["verifier_reward"]),
                row["model_verdict"],
                _three_digits(row["rubric_reward"]),
                _three_digits(row["reward"]),
                row["outcome"],
            ]
            lines.append("| " + " | ".join(cell("—" if value is None else value) for value in values) + " |")
        lines.append("")
    return "\n".join(lines)


def _three_digits(value) -> str:
    return "—" if value is None else f"{value:.3g}"


def completeness_markdown(items: list[dict]) -> str:
    """The '## Completeness' section that ends report.md."""
    lines = [
        "## Completeness",
        "",
        "| Part | Status | What is missing |",
        "| --- | --- | --- |",
    ]
    for item in items:
        missing = "; ".join(item["missing"]) or "—"
        lines.append(f"| {cell(item['title'])} | {item['status']} | {cell(missing)} |")
    lines += ["", completeness.tally(items) + ".", ""]
    return "\n".join(lines)
