"""The sentences a paper prints of a run: the write-up (writeup.md, in the shape of BenchFlow's
"Write it up" sample: what ran, the number and its uncertainty, per task, the controls, what was
left out, tokens and cost, what was not controlled; each fact once, a long list counted with a
pointer to report.md), what the run did not control and what its task count cannot support (the
run card's `limits`), from the record and the run card, at the record's confidence level."""

from __future__ import annotations

from collections import Counter

from ..read.settings import env_phrase
from .present import count, interval_text, level, method, of_total, pass_rule, pct, usd
from .sentences import (
    ENV_NOT_RECORDED,
    coverage_text,
    over_trials_label,
    shape_text,
    token_total,
    tries_phrase,
    warning,
)

# The report beside writeup.md, which lists in full what the write-up counts.
REPORT = "report.md"
# Up to this many tasks the write-up gives each task's passes; above, how many passed always,
# never and sometimes.
PER_TASK_LISTED = 12
# Up to this many tasks of a controls verdict or a warning are named; above, they are counted.
TASKS_NAMED = 3
# What the write-up's first lines say was not recorded, so its "Not controlled" line leaves out.
SAID_IN_CONDITIONS = ("served_model", "harness_version", "benchflow_version", "benchmark_version")
# What BenchFlow leaves out of the agent env, as the write-up's "Not controlled" line counts it
# (report.md and the run card say which names: sentences.ENV_DROPPED).
ENV_DROPPED_SHORT = "secret-named agent env variables (BenchFlow drops them)"
# Warnings the write-up states in another line: the few tries with the task-count limit; the
# versions no control ran on and the kept tasks whose controls did not hold, with the controls.
WARNINGS_SAID_ELSEWHERE = (
    "few tries",
    "version without control",
    "controls fails, kept",
    "controls not verified, kept",
)


def uncontrolled(card: dict) -> dict[str, str]:
    """What the run did not control or record, each as a phrase, by what it is."""
    settings = card["settings"]
    parts = {}
    if not settings["control"]:
        if not settings["sampling_sent"]:
            parts["sampling"] = "the provider's sampling defaults"
        else:
            absent = [item for item in settings["not_recorded"] if item.startswith("sampling:")]
            if absent:
                parts["sampling"] = "; ".join(item.replace("sampling: ", "the sampling parameters ") for item in absent)
        if not settings["models_served"]:
            parts["served_model"] = "which model the provider served"
        if not settings["effort_sent"]:
            parts["effort_sent"] = "the effort the requests carried"
    if not settings["harness_version"]:
        parts["harness_version"] = "the harness version"
    if not settings["benchflow_version"]:
        parts["benchflow_version"] = "the BenchFlow version"
    parts["agent_env"] = ENV_NOT_RECORDED if settings["agent_env"] is None else ENV_DROPPED_SHORT
    environment = card["environment"]
    if not environment["inspected"]:
        parts["images"] = "the images the tasks ran in (not inspected)"
    elif environment["not_inspected"]:
        parts["images"] = f"the images of {count(len(environment['not_inspected']), 'task')} (not inspected)"
    if (card.get("benchmark") or {}).get("basis") == "not recorded":
        parts["benchmark_version"] = "the benchmark version (only task digests identify the tasks)"
    return parts


def not_controlled(card: dict, said: tuple[str, ...] = ()) -> str | None:
    """What the run did not control or record, but what is `said` elsewhere, as one sentence (None
    when nothing)."""
    parts = [phrase for key, phrase in uncontrolled(card).items() if key not in said]
    return ("Not controlled or not recorded: " + "; ".join(parts) + ".") if parts else None


def _sentence_start(text: str) -> str:
    return text[:1].upper() + text[1:]


def task_count_limits(card: dict) -> str | None:
    """What this number of tasks and tries cannot support, from the run's own interval."""
    part, result = card["tasks_and_tries"], card["result"]
    n = part["tasks"]
    if not n:
        return None
    headline = result["headline"]
    target = level(result["confidence"])
    width = headline.get("width")
    if n == 1:
        text = "One task says nothing about a benchmark as a whole"
        if width is not None:
            text += f", and the {target} interval is {width * 100:.0f} points wide"
    else:
        text = f"With {count(n, 'task')}, one task moves the pass rate by {part['one_task_moves_points']:.0f} points"
        if width is not None:
            text += (
                f" and the {target} interval is {width * 100:.0f} points wide: this run alone cannot support a "
                "smaller difference between settings"
            )
    text += "."
    if headline.get("reaches_target") is False:
        text += f" No interval method reaches {target} coverage at {count(n, 'task')}, so the interval itself is approximate."
    short = len(part["tasks_under_min_tries"])
    if short:
        text += (
            f" {_sentence_start(of_total(short, n, 'task'))} {'has' if short == 1 else 'have'} fewer than "
            f"{tries_phrase(part['min_tries_wanted'])}, too few to tell a hard task from a flaky one."
        )
    return text


def named(tasks: list[str]) -> str:
    """'a', 'a and b', 'a, b and c'; more than TASKS_NAMED: '12 tasks (listed in report.md)'."""
    if len(tasks) > TASKS_NAMED:
        return f"{count(len(tasks), 'task')} (listed in {REPORT})"
    return tasks[0] if len(tasks) == 1 else ", ".join(tasks[:-1]) + " and " + tasks[-1]


def conditions(record: dict, card: dict) -> str:
    """What ran, on what, how often: BenchFlow's first two lines."""
    key, c = record["settings"], record["counts"]
    agent = (
        f"{key.get('agent') or 'agent not recorded'} ({key.get('harness_version') or 'harness version not recorded'})"
    )
    if key.get("control"):
        agent += f", the {key['control']} control (no model)"
    else:
        served = ", ".join(key.get("served_models") or {})
        agent += f" on {key.get('model') or 'a model not recorded'}"
        agent += f" (served: {served})" if served else " (served model not recorded)"
        agent += (
            f", effort {key['reasoning_effort']}" if key.get("reasoning_effort") else ", the agent's default effort"
        )
    benchflow = (
        f"BenchFlow {key['benchflow_version']}" if key.get("benchflow_version") else "BenchFlow (version not recorded)"
    )
    sandbox = f"on {key['sandbox']}" if key.get("sandbox") else "on a sandbox not recorded"
    benchmark = card["benchmark"]
    version = (
        f"at {benchmark['text']}"
        if benchmark and benchmark["basis"] != "not recorded"
        else "(benchmark version not recorded)"
    )
    tries = card["tasks_and_tries"]["tries_per_task"]
    if not tries:
        ran = f"no task counted {version}"
    elif tries["min"] == tries["max"]:
        each = " each" if c["tasks"] > 1 else ""
        ran = (
            f"{count(c['tasks'], 'task')} {version}, {tries_phrase(tries['min'])}{each} ({count(c['trials'], 'trial')})"
        )
    else:
        ran = (
            f"{count(c['tasks'], 'task')} {version}, {tries['min']} to {tries['max']} tries each "
            f"({count(c['trials'], 'trial')})"
        )
    retried = f"{count(c['retried'], 'trial')} retried" if c["retried"] else "no trial retried"
    env = env_phrase(key["agent_env_chosen"]) or "agent env as BenchFlow sets it"
    return (
        f"{agent}; {benchflow} {sandbox}; {ran}; {retried}, {count(c['attempts'], 'attempt')} in all. "
        f"{_sentence_start(env)}."
    )


def passes(counts: dict) -> str:
    """'29 of 50 trials passed', 'The only trial passed'."""
    if counts["trials"] == 1:
        return f"The only trial {'passed' if counts['passed'] else 'did not pass'}"
    return f"{counts['passed']:,} of {count(counts['trials'], 'trial')} passed"


def number_lines(record: dict) -> list[str]:
    """The pass rate and its headline interval with the method and its coverage; then the interval
    resampled over tasks and the Wilson interval over trials it is contrasted with."""
    c, headline = record["counts"], record["headline"]
    if not c["trials"]:
        if c["tasks_left_out_by_controls"]:
            why = "the controls left every task out"
        elif c["interrupted_left_out"]:
            why = "every trial was interrupted"
        else:
            why = "no trial finished"
        return [f"No trial counts toward a pass rate: {why}."]
    averaged = f"mean over the {count(c['tasks'], 'task')}" if c["tasks"] > 1 else "its only task's rate"
    coverage = headline.get("coverage")
    first = (
        f"{passes(c)} ({pass_rule(record['pass_rate']['solve_threshold'])}); pass rate "
        f"{pct(record['pass_rate']['value'])} ({averaged}). {level(record['confidence'])} interval: "
        f"{interval_text(headline.get('low'), headline.get('high'))} ({method(headline.get('method'))}"
        + (f", {coverage_text(headline)} worst-case coverage at {shape_text(coverage)}" if coverage else "")
        + ");"
    )
    over_tasks, over_trials = record["intervals"]["over_tasks"], record["intervals"]["over_trials"]
    rates = {row["rate"] for row in record["per_task"]}
    if c["tasks"] == 1:
        resampled = "no interval resampled over tasks (there is one task)"
    elif len(rates) == 1:
        resampled = f"resampled over tasks: no spread, as every task's rate is {pct(rates.pop())}"
    else:
        resampled = f"resampled over tasks: {interval_text(over_tasks.get('low'), over_tasks.get('high'))}"
    second = (
        f"{resampled}; Wilson {over_trials_label(c['trials'])}: "
        f"{interval_text(over_trials.get('low'), over_trials.get('high'))}"
        + (", which tries of one task aren't." if c["trials"] > c["tasks"] else ".")
    )
    return [first, second]


def timed_out_tries(row: dict) -> str:
    """'2 tries', 'every try' of a task that stopped at the time limit."""
    return "every try" if row["timed_out"] == row["trials"] > 1 else count(row["timed_out"], "try", "tries")


def per_task_line(record: dict) -> str | None:
    """'Per task: a 3/3, b 0/3 (...)' up to PER_TASK_LISTED tasks; above, how many always, never
    and sometimes passed, and where the list is."""
    rows = record["per_task"]
    if not rows:
        return None
    if len(rows) <= PER_TASK_LISTED:
        return (
            "Per task: "
            + ", ".join(
                f"{row['task']} {row['passed']}/{row['trials']}"
                + (f" ({timed_out_tries(row)} stopped at the time limit)" if row["timed_out"] else "")
                for row in rows
            )
            + "."
        )
    always = sum(row["passed"] == row["trials"] for row in rows)
    never = sum(row["passed"] == 0 for row in rows)
    groups = [
        (n, what) for n, what in ((always, "every try"), (never, "none"), (len(rows) - always - never, "some")) if n
    ]
    if len(groups) == 1:
        said = f"{of_total(len(rows), len(rows), 'task')} passed {groups[0][1]}"
    else:
        said = f"of the {len(rows):,} tasks, " + ", ".join(f"{n:,} passed {what}" for n, what in groups)
    timed_out = sum(row["timed_out"] for row in rows)
    if timed_out:
        said += f"; {count(timed_out, 'try', 'tries')} stopped at the time limit"
    return f"Per task: {said} (each task is listed in {REPORT})."


ELSEWHERE = "on a version no oracle or nop ran on"


def _reasons(entry: dict, elsewhere: int) -> list[str]:
    """Why a task's controls did not hold; where `elsewhere` of its trials ran on a version of the
    task no control ran on, the reasons of the versions controls ran on, and those trials."""
    if not elsewhere:
        return entry["reasons"]
    covered = {
        reason for version in entry["versions"] if version["oracle"] or version["nop"] for reason in version["reasons"]
    }
    return [*sorted(covered), f"{count(elsewhere, 'trial')} {ELSEWHERE}"]


def _verdict_clause(record: dict, verdict: str, said: str, policy_key: str) -> str | None:
    """'fail on 2 tasks, left out with their 10 trials (a: oracle passed 2 of 3; b: ...)'; past
    TASKS_NAMED tasks, the reasons they all share, the trials on versions no control ran on, and
    where each is listed."""
    controls = record["controls"]
    tasks = [(task, entry) for task, entry in controls["per_task"].items() if entry["verdict"] == verdict]
    if not tasks:
        return None
    elsewhere: Counter[str] = Counter()
    for row in controls["uncovered"]:
        elsewhere[row["task"]] += row["trials"]
    text = f"{said} on {count(len(tasks), 'task')}, "
    if controls["policy"][policy_key] == "exclude":
        left_out = {row["task"]: row["trials"] for row in record["excluded_by_controls"]}
        text += f"left out with their {count(sum(left_out.get(task, 0) for task, _ in tasks), 'trial')}"
    else:
        text += "kept"
    if len(tasks) <= TASKS_NAMED:
        named_reasons = (f"{task}: {', '.join(_reasons(entry, elsewhere[task]))}" for task, entry in tasks)
        return f"{text} ({'; '.join(named_reasons)})"
    shared = sorted(set.intersection(*(set(_reasons(entry, elsewhere[task])) for task, entry in tasks)))
    notes = [f"on each, {', '.join(shared)}"] if shared else []
    off = [(task, elsewhere[task]) for task, _ in tasks if elsewhere[task]]
    if len(off) > TASKS_NAMED:
        notes.append(f"{count(sum(n for _, n in off), 'trial')} {ELSEWHERE}")
    else:
        notes += [f"{count(n, 'trial')} of {task} {ELSEWHERE}" for task, n in off]
    return f"{text} ({'; '.join([*notes, f'listed in {REPORT}'])})"


def controls_line(record: dict) -> str | None:
    """The oracle and nop on the same tasks, and how many tasks each verdict holds (None for a
    setting that is itself a control)."""
    controls = record.get("controls")
    if not controls:
        return None
    oracle, nop = controls["oracle"], controls["nop"]
    if not (oracle["trials"] or nop["trials"]):
        return "Controls: no oracle or nop ran on these tasks, so a broken task cannot be told from a hard one."
    by_digest = all(entry["matched_by"] == "task digest" for entry in controls["per_task"].values())
    holding, tasks = len(controls["tasks_holding"]), len(controls["per_task"])
    clauses = [
        clause
        for clause in (
            ("hold on every task" if holding == tasks else f"hold on {count(holding, 'task')}") if holding else None,
            _verdict_clause(record, "fails", "fail", "on_failure"),
            _verdict_clause(record, "not verified", "are not verified", "on_unverified"),
        )
        if clause
    ]
    where = "the same task versions" if by_digest else "the same tasks (by name where no task digest was recorded)"
    listed = ", ".join(clauses[:-1]) + " and " + clauses[-1] if len(clauses) > 1 else clauses[0]
    return (
        f"Controls on {where}: oracle {oracle['passed']}/{oracle['trials']}, nop {nop['passed']}/{nop['trials']}; "
        f"they {listed}."
    )


def outcomes_line(record: dict) -> str | None:
    """The counted trials that did not reach pass or fail, each counted as not passed."""
    c = record["counts"]
    if not c["trials"]:
        return None
    kinds = [(c["errored"], "errored"), (c["verifier_errored"], "with a verifier error"), (c["unscored"], "unscored")]
    found = [(n, what) for n, what in kinds if n]
    if not found:
        return "No trial errored or went unscored."
    if len(found) == 1 and found[0][0] == c["trials"]:
        return f"Counted as not passed: {of_total(c['trials'], c['trials'], 'trial')} {found[0][1]}."
    return "Counted as not passed: " + ", ".join(f"{n:,} {what}" for n, what in found) + "."


LEFT_OUT = {  # kind of left-out row -> (noun, what happened to it); tasks and images have lines of their own
    "attempt": ("attempt", "interrupted or unfinished"),
    "file": ("file or value", "not used"),
    "duplicate": ("duplicate attempt", "counted once"),
}


def left_out_line(record: dict) -> str:
    """The attempts, files and duplicates left out (tasks are in the controls line, images in
    what was not controlled)."""
    kinds = Counter(row["kind"] for row in record["left_out"] if row["kind"] in LEFT_OUT)
    if not kinds:
        return f"No {'other ' if record['excluded_by_controls'] else ''}attempt or file was left out."
    return (
        "Left out: "
        + "; ".join(f"{count(kinds[kind], noun)} {what}" for kind, (noun, what) in LEFT_OUT.items() if kinds[kind])
        + f" (listed in {REPORT})."
    )


def warning_lines(record: dict) -> list[str]:
    """The record's warnings not said in another line, tasks counted past TASKS_NAMED."""
    lines = []
    for item in record["warnings"]:
        kind = item["kind"]
        if kind in WARNINGS_SAID_ELSEWHERE:
            continue
        if kind == "task drift":
            lines.append(f"Task drift: {named(item['tasks'])} ran on more than one task version.")
        elif kind == "partial rewards failed":
            lines.append(f"Partial rewards failed on {named([row['task'] for row in item['tasks']])}.")
        else:
            lines.append(f"Warning: {warning(item)}.")
    return lines


def usage_line(record: dict) -> str:
    """Tokens over every attempt, recorded or not, and the cost with the cost per solved task."""
    usage = record["usage"]
    tokens, measures = usage["tokens_all_attempts"], usage["cost_measures"]
    spent = measures["spent"]["value_usd"]
    said = token_total(tokens)
    if record["settings"].get("control") and tokens["total"] is None and spent is None:
        return f"Tokens and cost: {said}, and no cost, as a control calls no model."
    if tokens["total"] is not None and tokens["trials_recorded"] == tokens["trials"]:
        said += " in all"
    if spent is None:
        causes = "; ".join(f"{row['cause']}: {count(row['trials'], 'trial')}" for row in record["unpriced_reasons"])
        return f"Tokens and cost: {said}; no cost ({causes or 'none recorded'})."
    bound = "" if usage["cost_complete"] else "at least "
    cost = f"cost {bound}{usd(spent)}"
    if bound:
        cost += f" ({usage['trials_priced']:,} of {count(usage['trials'], 'trial')} priced)"
    per_solved = measures["per_solved_task"]
    if per_solved["value_usd"] is None:
        cost += ", and no task solved to divide it by"
    else:
        cost += (
            f", cost per solved task {bound}{usd(per_solved['value_usd'])} (the counted trials' "
            f"{usd(per_solved['numerator_usd'])} / {per_solved['denominator_count']:,})"
        )
    return f"Tokens and cost: {said}; {cost}."


def writeup(record: dict, card: dict) -> list[str]:
    """writeup.md, paragraph by paragraph ("" between them; each wrapped when rendered), in the
    shape BenchFlow's 'Report a result' page gives: what ran, then the number and its
    uncertainty and what bears on it, each fact once."""
    lines = [
        conditions(record, card),
        "",
        *number_lines(record),
        per_task_line(record),
        controls_line(record),
        outcomes_line(record),
        left_out_line(record),
        *warning_lines(record),
        usage_line(record),
        not_controlled(card, said=SAID_IN_CONDITIONS),
        card["limits"]["task_count"],
    ]
    return [line for line in lines if line is not None]
