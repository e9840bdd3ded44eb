"""The completeness checklist: the ten parts a published score needs, each present, partial
(with what is missing) or missing, read once off the run card's ten parts (runcard.checkable_parts)
into the record. Pure functions; report.md (report.completeness_markdown) and report.html
(html_setting.completeness_html) print the same rows.
"""

from __future__ import annotations

from ..present.present import count, level, of_total, pct

NOT_COMPUTED = "not computed (stats.json lacks this part)"


def _item(status: str, missing=(), note: str | None = None) -> dict:
    return {"status": status, "missing": list(missing), "note": note}


def _partial_or_present(missing, note=None) -> dict:
    return _item("partial" if missing else "present", missing, note)


def check_number(card: dict) -> dict:
    result = card["result"]
    if result["pass_rate"] is None:
        return _item("missing", ["a pass rate: no task was scored"])
    headline = result["headline"]
    if headline.get("low") is None or headline.get("high") is None:
        return _item("partial", ["an interval: no method gives one here"])
    if headline.get("reaches_target") is False:
        return _item(
            "partial",
            [
                f"an interval method whose coverage reaches {level(result['confidence'])} at this number of tasks and "
                f"tries (the best, {headline.get('method')}, reaches {pct(headline.get('worst_coverage'), 2)})"
            ],
        )
    return _item("present", note=f"{headline.get('method')}, {pct(headline['low'])} to {pct(headline['high'])}")


def check_tasks(card: dict) -> dict:
    part = card["tasks_and_tries"]
    if not part["tasks"]:
        return _item("missing", ["a task with a finished trial"])
    short = part["tasks_under_min_tries"]
    missing = (
        [
            f"{count(part['min_tries_wanted'], 'try', 'tries')} on every task ({of_total(len(short), part['tasks'], 'task')} "
            f"{'has' if len(short) == 1 else 'have'} fewer: {', '.join(short[:8])}{', ...' if len(short) > 8 else ''})"
        ]
        if short
        else []
    )
    return _partial_or_present(missing, f"{count(part['tasks'], 'task')}, {count(part['trials'], 'trial')}")


def check_benchmark(card: dict) -> dict:
    version = card.get("benchmark")
    if version is None:
        return _item("missing", [NOT_COMPUTED])
    missing = []
    if version["basis"] == "not recorded":
        if not version["task_digests"]:
            return _item("missing", ["dataset@version, a task commit, a configured version, and task digests"])
        digests = version["task_digests"]
        missing.append(
            f"dataset@version or a task commit (the tasks are identified only by {digests} task digest{'s' if digests != 1 else ''})"
        )
    elif version["basis"] == "config":
        missing.append("a version recorded in the job folders (it comes from the workflow config)")
    if version["mixed"]:
        missing.append("one version: the trials ran on " + ", ".join(version["values"]))
    if version["trials_without_value"]:
        missing.append(f"the version on {count(version['trials_without_value'], 'trial')}")
    if version["dirty"]:
        missing.append("a clean task tree (the source had uncommitted changes)")
    if version["trials_without_digest"]:
        missing.append(f"a task digest on {count(version['trials_without_digest'], 'trial')}")
    if version["tasks_with_several_digests"]:
        missing.append(
            "one digest per task: " + ", ".join(version["tasks_with_several_digests"]) + " changed between trials"
        )
    return _partial_or_present(missing, version["conditions"])


def check_environment(card: dict) -> dict:
    environment = card["environment"]
    if not environment["inspected"] or not environment["tasks"]:
        return _item("missing", ["an inspection of the task images (environment inspection is off or found no task)"])
    rows = environment["tasks"]
    bad = [row for row in rows if row["status"] != "inspected"]
    named = "; ".join(f"{row['task']} ({row['status']})" for row in bad[:8])
    if len(bad) == len(rows):
        return _item("missing", [f"the image any task ran in: {named}"])
    return _partial_or_present(
        [f"the image of {len(bad)} of {count(len(rows), 'task')}: {named}"] if bad else [],
        f"{len(rows) - len(bad)} of {count(len(rows), 'task image')} inspected",
    )


def check_settings(card: dict) -> dict:
    settings = card["settings"]
    if not settings["agent"]:
        return _item("missing", ["the agent (harness)"] + settings["not_recorded"][1:])
    return _partial_or_present(settings["not_recorded"])


def check_controls(card: dict) -> dict:
    controls = card["controls"]
    if not controls["applicable"]:
        return _item("present", note=controls["note"])
    if not controls["oracle"]["trials"] and not controls["nop"]["trials"]:
        return _item("missing", ["an oracle or nop trial on any of these tasks"])
    missing = []
    for kind in ("oracle", "nop"):
        tasks = controls[f"tasks_without_{kind}"]
        if tasks:
            missing.append(
                f"a {kind} control on {count(len(tasks), 'task')}: {', '.join(tasks[:8])}{', ...' if len(tasks) > 8 else ''}"
            )
    failing, unverified = controls["tasks_failing_controls"], controls["tasks_unverified"]
    if unverified:
        missing.append(
            f"verified controls on {count(len(unverified), 'task')} ("
            + "; ".join(f"{task}: {', '.join(controls['verdicts'][task]['reasons'])}" for task in unverified[:8])
            + ("; ..." if len(unverified) > 8 else "")
            + ")"
        )
    note = (
        f"controls hold on {count(len(controls['tasks_holding']), 'task')}, fail on {len(failing)} "
        f"(controls.on_failure: {controls['policy']['on_failure']}), not verified on {len(unverified)} "
        f"(controls.on_unverified: {controls['policy']['on_unverified']})"
    )
    return _partial_or_present(missing, note)


def check_grader(card: dict) -> dict:
    grading = card.get("grader")
    if grading is None:
        return _item("missing", [NOT_COMPUTED])
    if not grading["model_graded"]:
        return _item("present", note="the verifier was a script")
    return _partial_or_present(
        grading["missing"], f"a model graded {grading['graded_trials']} of {count(grading['trials'], 'trial')}"
    )


def check_left_out(card: dict) -> dict:
    left = card.get("left_out")
    if left is None:
        return _item("missing", [NOT_COMPUTED])
    missing = (
        []
        if left["adds_up"]
        else [f"an account of {left['unaccounted']} of the {count(left['folders_found'], 'attempt folder')} found"]
    )
    return _partial_or_present(missing, f"{count(left['folders_found'], 'attempt folder')}, each in one category")


def check_tokens_and_cost(card: dict) -> dict:
    usage = card.get("tokens_and_cost")
    if usage is None:
        return _item("missing", [NOT_COMPUTED])
    if card["settings"]["control"]:
        return _item("present", note="a control: no model was called")
    calls = [row for row in usage["unpriced"] if row["cause"] not in ("control", "interrupted")]
    no_usage = [row for row in calls if row["cause"] == "no usage captured"]
    if usage["tokens_all_attempts"]["total"] is None and usage["cost_measures"]["spent"]["value_usd"] is None:
        return _item("missing", ["tokens and cost: no trial recorded any usage"])
    missing = []
    if no_usage:
        missing.append(f"token counts for {count(len(no_usage), 'trial')} (no usage captured)")
    priced_gap = [row for row in calls if row["cause"] != "no usage captured"]
    if priced_gap:
        causes = sorted({row["cause"] for row in priced_gap})
        missing.append(f"a cost for {count(len(priced_gap), 'trial')} ({'; '.join(causes)})")
    return _partial_or_present(missing)


def check_trials(card: dict) -> dict:
    trials = card["trials"]
    if not trials:
        return _item("missing", ["any trial"])
    unplaced = [row for row in trials if not row.get("folder")]
    return _partial_or_present(
        [f"the folder of {count(len(unplaced), 'trial')}"] if unplaced else [],
        f"{count(len(trials), 'trial')}, each with its folder",
    )


# (part, title, its check), in the checklist's order
PARTS = (
    ("number", "The number, its interval and how it was computed", check_number),
    ("tasks_and_tries", "Tasks and tries", check_tasks),
    ("benchmark_version", "The benchmark's version", check_benchmark),
    ("environment", "The environment as built", check_environment),
    ("settings", "The settings that change a score", check_settings),
    ("controls", "The oracle and nop controls", check_controls),
    ("grader", "The grader", check_grader),
    ("left_out", "What was left out, and why", check_left_out),
    ("tokens_and_cost", "Tokens and cost", check_tokens_and_cost),
    ("trials", "The trials themselves", check_trials),
)


def checklist(card: dict) -> list[dict]:
    """The ten parts in order: {part, title, status, missing, note}."""
    return [{"part": part, "title": title} | check(card) for part, title, check in PARTS]


def tally(items: list[dict]) -> str:
    """'6 of 10 parts present, 3 partial, 1 missing'."""
    counts = {status: sum(item["status"] == status for item in items) for status in ("present", "partial", "missing")}
    return (
        f"{counts['present']} of {len(items)} parts present, {counts['partial']} partial, {counts['missing']} missing"
    )
