"""Every sentence that states a result, written once.

Each function reads a setting's result record (summary.json: its numbers, what its run card
counts over the trials, the environment) and returns plain text; each renderer escapes
it for its own format (Markdown: present.cell, HTML: Jinja's autoescape). None computes a number:
they place the record's numbers in words, at the record's own confidence level.
"""

from __future__ import annotations

from collections import Counter

from ..read.settings import MAX_TOKEN_KEYS
from .present import count, interval_text, level, method, of_total, pass_rule, pct, seconds, usd

# What of an agent's env a job folder cannot show: BenchFlow leaves these out of config.json
# (_utils/config_redaction.py), so two runs that differ only there read alike.
ENV_DROPPED = (
    "the agent env variables whose names hold KEY, TOKEN, SECRET, AUTH, SESSION, PASSWORD or the like "
    "(MAX_THINKING_TOKENS among them), which BenchFlow leaves out of config.json"
)
ENV_NOT_RECORDED = "the agent env (no config.json of these trials records one)"


def not_recorded(settings: dict) -> list[str]:
    """What a setting's conditions leave unrecorded, each as a phrase: `settings` is the record's
    settings (the setting key with what was served and sent)."""
    missing = [
        phrase
        for field, phrase in (
            ("agent", "the agent (harness)"),
            ("harness_version", "the harness version"),
            ("benchflow_version", "the BenchFlow version"),
        )
        if not settings.get(field)
    ]
    missing.append(ENV_NOT_RECORDED if settings.get("agent_env") is None else ENV_DROPPED)
    if not settings.get("sandbox"):
        missing.append("the sandbox")
    if settings.get("control"):
        return missing
    # an agent setting: the model, and how it was asked to sample
    if not settings.get("model"):
        missing.append("the model requested")
    if not settings["served_models"]:
        missing.append("the model served (no provider call was captured)")
    sent = settings["sampling_sent"]
    absent = [name for name in ("temperature", "top_p") if name not in sent]
    if not any(name in sent for name in MAX_TOKEN_KEYS):
        absent.append("max_tokens")
    if absent:
        missing.append(
            "sampling: " + ", ".join(absent) + " not recorded in any request (the provider's defaults applied)"
        )
    if not settings["effort_sent"]:
        missing.append(
            f"the effort sent (requested {settings['reasoning_effort']}; none seen in the recorded requests)"
            if settings.get("reasoning_effort")
            else "the effort (none requested, none seen in the recorded requests)"
        )
    return missing


def tries_phrase(n: int) -> str:
    return count(n, "try", "tries")


def first_line(record: dict) -> str:
    """The report's first line: trials, tasks, the setting, passes by its rule, the rate and its
    headline interval ('95% interval 31% to 83% over tasks, wilson over task means'), mean reward
    and its interval, errors and timeouts."""
    c, headline = record["counts"], record["headline"]
    return (
        f"{count(c['trials'], 'trial')} of {count(c['tasks'], 'task')}, {record['description']}: "
        f"{c['passed']} passed ({pass_rule(record['pass_rate']['solve_threshold'])}: "
        f"{pct(record['pass_rate']['value'])}, {level(record['confidence'])} interval "
        f"{interval_text(headline.get('low'), headline.get('high'))} over tasks, {method(headline.get('method'))}), "
        f"{mean_reward(record)}, {c['with_error']} with an error, {c['timed_out']} timed out."
    )


def two_digits(value) -> str:
    return "n/a" if value is None else f"{value:.2f}"


def mean_reward(record: dict) -> str:
    """'mean reward 0.55 over tasks (95% interval 0.31 to 0.79, t over task means)'."""
    mean = record["mean_reward"]
    interval = mean["interval"]
    if interval["low"] is None:
        said = interval.get("note") or "no interval"
    else:
        said = (
            f"{level(interval['level'])} interval {interval_text(interval['low'], interval['high'], two_digits)}, "
            f"{interval['method']}"
        )
    return f"mean reward {two_digits(mean['value'])} over tasks ({said})"


def coverage_text(headline: dict) -> str:
    """'97.66%', or '95.2% ± 0.3%' where the coverage was simulated (its Monte Carlo standard error)."""
    text = pct(headline.get("worst_coverage"), 2)
    error = headline.get("coverage_standard_error")
    return f"{text} ± {pct(error, 2)}" if error else text


def shape_text(coverage: dict) -> str:
    """'10 tasks × 4 tries', or '1 task × 3 tries + 9 tasks × 4 tries' for unequal tries."""
    profile = coverage.get("tries_profile") or [[coverage["tries_per_task"], coverage["n_tasks"]]]
    return " + ".join(f"{count(tasks, 'task')} × {tries_phrase(tries)}" for tries, tasks in profile)


def headline_method(record: dict) -> str:
    """How the headline interval was chosen, and the other two intervals a reader expects."""
    headline, c = record["headline"], record["counts"]
    target = level(record["confidence"])
    parts = [f"Pass rate: {record['pass_rate']['rule']}."]
    coverage = headline.get("coverage")
    if coverage:
        methods = len(record["methods"])
        if headline.get("reaches_target"):
            parts.append(
                f"Headline interval: {headline['method']}, the narrowest of {methods} methods whose worst-case "
                f"coverage at these {shape_text(coverage)} is at least {target} ({coverage_text(headline)}); "
                f"it covers {headline['covers']}."
            )
        else:
            parts.append(
                f"No interval method reaches {target} coverage at these {shape_text(coverage)}: the headline "
                f"is the best of {methods}, {headline['method']}, whose worst-case coverage is "
                f"{coverage_text(headline)}; it covers {headline['covers']}."
            )
        parts.append(
            f"Coverage ({headline['coverage_evaluation']}; seed {coverage['seed']}) was measured over "
            f"{coverage['design']}."
        )
    elif headline.get("text"):
        parts.append(f"Headline interval: {headline['text']}.")
    over_tasks, over_trials = record["intervals"]["over_tasks"], record["intervals"]["over_trials"]
    parts.append(
        f"Interval over tasks, resampled: {interval_text(over_tasks.get('low'), over_tasks.get('high'))} "
        f"(percentile bootstrap over the {count(c['tasks'], 'task')}, {over_tasks.get('resamples') or 0:,} "
        f"resamples, seed {over_tasks.get('seed')})."
    )
    tail = ", which tries of one task are not" if c["trials"] > c["tasks"] else ""
    parts.append(
        f"Wilson over trials: {interval_text(over_trials.get('low'), over_trials.get('high'))} "
        f"{over_trials_label(c['trials'])}{tail}."
    )
    return " ".join(parts)


def over_trials_label(trials: int) -> str:
    return f"if the {trials} trials were independent" if trials != 1 else "from a single trial"


def warning(item: dict) -> str:
    """One warning of the record (stats._warnings) in words."""
    kind = item["kind"]
    if kind == "few tries":
        short = len(item["tasks"])
        return f"{of_total(short, item['of'], 'task')} {'has' if short == 1 else 'have'} fewer than " + (
            f"{count(item['minimum'], 'trial')}: " + ", ".join(item["tasks"])
        )
    if kind == "mixed settings in a job folder":
        split = "; ".join(f"{row['setting']}: {count(row['trials'], 'trial')}" for row in item["settings"])
        # the agent env named with its variables that differ
        env = f"agent env ({', '.join(item['agent_env_names'])})" if item["agent_env_names"] else "agent env"
        differ = [env if name == "agent_env" else name for name in item["differ"]]
        return (
            f"mixed settings: job folder {item['job']} holds trials of {len(item['settings'])} settings, "
            f"which differ in {', '.join(differ) or 'their setting id'} ({split}); each is reported apart"
        )
    if kind == "mixed settings":
        values = "; ".join(f"{value}: {count(n, 'trial')}" for value, n in item["values"].items())
        label = "the served model" if item["field"] == "served model" else f"the {item['field']} values requests sent"
        return f"mixed settings: {label} differs across trials ({values})"
    if kind == "task drift":
        return "task drift: these tasks ran with different task digests: " + ", ".join(item["tasks"])
    if kind == "version without control":
        return "not covered by a control: " + "; ".join(
            f"{row['task']} on digest {short_digest(row['digest'])} ({count(row['trials'], 'trial')}: "
            f"{', '.join(row['trial_ids'])}), a version no oracle or nop ran on"
            for row in item["versions"]
        )
    if kind in ("controls fails, kept", "controls not verified, kept"):
        verdict = "failed" if kind.startswith("controls fails") else "are not verified"
        return f"kept although their controls {verdict}: " + "; ".join(
            f"{row['task']} ({'; '.join(row['reasons'])})" for row in item["tasks"]
        )
    if kind == "partial rewards failed":
        return (
            f"partial rewards count as not passed ({pass_rule(item['solve_threshold'])}; "
            "statistics.solve_threshold sets it, and the mean reward counts them): "
        ) + "; ".join(f"{row['task']} ({', '.join(f'{r:g}' for r in row['rewards'])})" for row in item["tasks"])
    raise ValueError(f"no sentence for warning kind {kind!r}")


def agent_env(env: dict) -> str:
    """A setting's agent env as config.json recorded it: 'A=1, B=2' or 'none'."""
    return ", ".join(f"{name}={value}" for name, value in env.items()) or "none"


def env_line(settings: dict) -> str:
    """The agent env of a setting (its key: summary.json `settings`) and what of it, and of the
    setting, BenchFlow does not record, so that a difference there cannot be seen."""
    env = settings.get("agent_env")
    unseen = [ENV_NOT_RECORDED if env is None else ENV_DROPPED]
    if not settings.get("harness_version"):
        unseen.append("the harness version")
    if not settings.get("benchflow_version"):
        unseen.append("the BenchFlow version, which BenchFlow writes nowhere in a job folder")
    shown = "" if env is None else f"Agent env as config.json records it: {agent_env(env)}. "
    return shown + "Not recorded, so a difference there cannot be seen: " + "; ".join(unseen) + "."


def short_digest(digest) -> str:
    if not digest:
        return "(none recorded)"
    return digest.split(":", 1)[-1][:8] + "…"


def control_cell(kind: str, cell: dict | None) -> str:
    """'oracle 3/3', 'nop 0/3 (3 errored)', 'no nop'."""
    if not cell:
        return f"no {kind}"
    return f"{kind} {cell['passed']}/{cell['trials']}" + (f" ({cell['errored']} errored)" if cell["errored"] else "")


def task_controls(entry: dict | None) -> str:
    """A task's controls column: 'oracle 3/3, nop 0/3 (3 errored): not verified (nop errored 3 of 3)'."""
    if entry is None:
        return "(a control itself)"
    text = f"{control_cell('oracle', entry['oracle'])}, {control_cell('nop', entry['nop'])}: {entry['verdict']}"
    return text + (f" ({'; '.join(entry['reasons'])})" if entry["reasons"] else "")


def controls_lines(record: dict) -> list[str]:
    """The controls paragraph: totals, then each verdict with its tasks and what it did."""
    controls = record.get("controls")
    if not controls:
        return []
    oracle, nop = controls["oracle"], controls["nop"]
    if not (oracle["trials"] or nop["trials"]):
        return [
            "Controls on the same tasks: none found (no oracle or nop trial on these tasks), so a broken task "
            "cannot be told from a hard one."
        ]
    lines = [
        f"Controls on the same tasks (matched by task digest): oracle {oracle['passed']}/{oracle['trials']}, "
        f"nop {nop['passed']}/{nop['trials']}; controls hold on {count(len(controls['tasks_holding']), 'task')}, "
        f"fail on {len(controls['tasks_failing_controls'])}, not verified on {len(controls['tasks_unverified'])}."
    ]
    policy = controls["policy"]
    for verdict, key, said, meaning in (
        ("fails", "on_failure", "fail", "the oracle did not pass every try or the nop passed one"),
        (
            "not verified",
            "on_unverified",
            "are not verified",
            "no oracle ran, or the nop was not scored on every try, so doing nothing was never shown to fail",
        ),
    ):
        tasks = [(task, entry) for task, entry in controls["per_task"].items() if entry["verdict"] == verdict]
        if not tasks:
            continue
        listed = ", ".join(f"{task} ({'; '.join(entry['reasons'])})" for task, entry in tasks)
        effect = "left out of the headline" if policy[key] == "exclude" else "kept in the headline"
        lines.append(
            f"Controls {said} ({meaning}) on {count(len(tasks), 'task')}, {effect} "
            f"(controls.{key}: {policy[key]}): {listed}."
        )
    for row in controls["uncovered"]:
        lines.append(
            f"Not covered by a control: {row['task']} on digest {short_digest(row['digest'])}, "
            f"{count(row['trials'], 'trial')} ({', '.join(row['trial_ids'])}); no oracle or nop ran on "
            "that version of the task."
        )
    return lines


TRY_RULES = {
    "folder": "the try folders of the layout (trial-NN, seed-N, repeat-N, sample-N, run-N, try-N)",
    "seed": "the seed each trial recorded",
    "started_at": "each trial's recorded start (started_at), as no folder or seed tells the tries apart",
    "None": "nothing (no try index)",
}


def try_numbering(rules: dict[str, int]) -> str:
    """'Tries are numbered by ...' (settings.number_tries decided the rule)."""
    return (
        "Tries are numbered by "
        + "; ".join(
            TRY_RULES.get(rule, rule) + (f" ({count(n, 'trial')})" if len(rules) > 1 else "")
            for rule, n in rules.items()
        )
        + "."
    )


def outcomes(record: dict) -> str:
    c = record["counts"]
    text = f"Per-task intervals are Wilson over that task's trials, at {level(record['confidence'])}."
    if record.get("try_numbering"):
        text += " " + try_numbering(record["try_numbering"])
    if c["errored"] or c["verifier_errored"] or c["unscored"]:
        text += (
            f" Outcomes other than pass or fail: {c['errored']} errored, {c['verifier_errored']} with a verifier "
            f"error, {c['unscored']} unscored; each counts as not passed."
        )
    if c["timed_out"]:
        text += (
            f" {count(c['timed_out'], 'trial')} timed out (the agent ran out of its time budget; BenchFlow still "
            "runs the verifier, so each counts by its reward, as BenchFlow counts it: failed below 1, errored "
            "with no reward)."
        )
    return text + f" {count(c['retried'], 'trial')} retried ({count(c['attempts'], 'attempt')} in all)."


def token_total(tokens: dict) -> str:
    """A token total (record.TokenTotals) as every output states it: '28,458,551 tokens',
    '14,728,688 tokens, recorded for 47 of 48 trials', 'tokens not recorded'."""
    if tokens["total"] is None:
        return "tokens not recorded"
    text = f"{tokens['total']:,} tokens"
    if tokens["trials_recorded"] < tokens["trials"]:
        text += f", recorded for {tokens['trials_recorded']:,} of {count(tokens['trials'], 'trial')}"
    return text


def _amount(value, noun: str) -> str:
    return f"{noun} not recorded" if value is None else f"{value:,} {noun}"


def _tokens(tokens: dict) -> str:
    if tokens["total"] is None:
        return token_total(tokens)
    return (
        f"{token_total(tokens)} ({_amount(tokens['input'], 'input')}, of which "
        f"{_amount(tokens['cache_read'], 'cache reads')} and {_amount(tokens['cache_creation'], 'cache writes')}; "
        f"{_amount(tokens['output'], 'output')})"
    )


def cost_measure(measure: dict, lower_bound: bool = False) -> str:
    """'$1.22 per solved task (the cost of the counted trials / 8 counted tasks with a pass)'."""
    value = measure["value_usd"]
    if value is None:
        return f"{measure['label']}: n/a"
    text = f"{measure['label']} {'at least ' if lower_bound else ''}{usd(value)}"
    interval = measure.get("interval")
    if interval:
        text += (
            f" ({level(interval['level'])} interval {interval_text(interval['low'], interval['high'], usd)}, "
            f"{interval['method']})"
        )
    if measure["denominator"]:
        text += f" ({measure['numerator']}, {usd(measure['numerator_usd'])}, / {measure['denominator_count']:,} {measure['denominator']})"
    return text


def tokens_and_cost(record: dict) -> str:
    """Tokens over every attempt and over the counted trials; each cost measure with what it
    divides by what; every trial without a cost, with the reason."""
    usage = record["usage"]
    text = (
        f"Over all {count(usage['attempts'], 'attempt')} of the {count(usage['trials'], 'trial')} (retries, "
        f"interrupted trials and left-out tasks included): {_tokens(usage['tokens_all_attempts'])}. "
    )
    if usage["tokens_all_attempts"]["total"] is not None and usage["counted_trials"]:
        text += f"Over the {count(usage['counted_trials'], 'counted trial')}: {_tokens(usage['tokens_counted'])}. "
    measures = usage["cost_measures"]
    if measures["spent"]["value_usd"] is None:
        text += "No cost: no trial has one. "
    else:
        bound = usage["cost_is_lower_bound"]
        text += (
            f"Cost of every attempt {'at least ' if bound else ''}{usd(measures['spent']['value_usd'])} "
            f"({usage['trials_priced']} of {count(usage['trials'], 'trial')} priced); "
            f"cost of the counted trials {usd(measures['counted']['value_usd'])} "
            f"({usage['counted_trials_priced']} of {usage['counted_trials']} priced); "
            + "; ".join(
                cost_measure(measures[key], not usage["cost_complete"])
                for key in ("per_solved_task", "per_passed_trial", "one_run")
            )
            + ". "
        )
    for row in record.get("unpriced_reasons") or []:
        text += f"{count(row['trials'], 'trial')} without a cost ({', '.join(row['models'])}): {row['reason']}. "
    text += (
        f"Trial time {seconds(usage['trial_seconds_min'])} to {seconds(usage['trial_seconds_max'])} s, "
        f"{usage['trial_minutes_all_attempts']} trial-minutes in all."
    )
    return text


def sampling(record: dict) -> str:
    """What set how the model sampled: the sampling parameters the requests carried, then the
    agent env the run gave the agent (MAX_THINKING_TOKENS, DISABLE_PROMPT_CACHING and the like)
    and what BenchFlow does not record (env_line)."""
    values = record.get("sampling") or {}
    if values:
        parts = [
            key + " " + ", ".join(f"{value} ({count(n, 'trial')})" for value, n in seen.items())
            for key, seen in values.items()
        ]
        missing = [key for key in ("max_tokens", "temperature", "top_p") if key not in values]
        said = (
            "Sampling the model requests carried (the first requests of each trial, with how many trials sent "
            f"each value): {'; '.join(parts)}. Not recorded: {', '.join(missing) or 'nothing'}."
        )
    elif record.get("trials_recording_requests"):
        said = (
            f"Sampling the model requests carried: none recorded in the first requests of "
            f"{count(record['trials_recording_requests'], 'trial')} (BenchFlow 0.7.12 keeps no max_tokens, "
            "temperature or top_p)."
        )
    else:
        said = "Sampling the model requests carried: none recorded (no trial has a trajectory/llm_trajectory.jsonl)."
    return f"{said} {env_line(record['settings'])}"


def seeds(record: dict) -> str:
    s = record["seeds"]
    text = f"Seeds: resampling seed {s['resampling_seed']} ({s['generator']}, {s['resamples']:,} resamples); "
    if s["trial_seeds"]:
        return text + "trial seeds recorded: " + ", ".join(s["trial_seeds"]) + "."
    return text + "the job folders record no agent or sampling seed."


def solve_rates(record: dict) -> str:
    rates = record.get("solve_rates") or {}
    per_k = rates.get("per_k") or []
    if not per_k:
        return ""
    parts = [
        f"k={row['k']}: pass@k {pct(row['pass_at_k'])}, pass^k {pct(row['pass_hat_k'])} "
        f"({count(row['tasks_at_k'], 'task')})"
        for row in per_k
    ]
    note = f" {rates['counting']}" if rates.get("counting") else ""
    return (
        "pass@k and pass^k (unbiased estimators over tasks with at least k trials; descriptive, not the "
        f"headline): {'; '.join(parts)}.{note}{'.' if note else ''} {denominators(record)}"
    )


def denominators(record: dict) -> str:
    """What the pass rate and pass@1 each divide by, where both are printed: the pass rate counts
    a trial with no reward as a failure, pass@1 (BenchFlow's solve rate) leaves it out."""
    c, rates = record["counts"], record["solve_rates"]
    everything = f"all {count(c['trials'], 'trial')} of {count(c['tasks'], 'task')}"
    unscored = rates["unscored_left_out"]
    if not unscored:
        return f"Denominators: the pass rate and pass@k both count {everything}, as every one has a reward."
    lacking = f"the {count(unscored, 'trial')} with no reward"
    return (
        f"Denominators: the pass rate is over {everything}, counting {lacking} as "
        f"{'a failure' if unscored == 1 else 'failures'}; pass@k, as BenchFlow counts, is over the "
        f"{count(rates['trials'], 'scored trial')} of {count(rates['tasks'], 'task')}, leaving "
        f"{'it' if unscored == 1 else 'them'} out."
    )


def left_out(record: dict) -> str:
    """One sentence over the record's left-out rows: what, how many, and the effect."""
    by_kind: dict[str, list[dict]] = {}
    for row in record["left_out"]:
        by_kind.setdefault(row["kind"], []).append(row)
    parts = []
    if by_kind.get("task"):
        parts.append(
            f"{count(len(by_kind['task']), 'task')} whose controls left them out of the headline ("
            + "; ".join(f"{row['task']}: {row['reason']}, {count(row['trials'], 'trial')}" for row in by_kind["task"])
            + ")"
        )
    for kind, noun, what in (
        ("attempt", "attempt", "interrupted or unfinished"),
        ("file", "file", "not read"),
        ("image", "task image", "not inspected"),
        ("duplicate", "duplicate attempt", "counted once"),
    ):
        if by_kind.get(kind):
            parts.append(f"{count(len(by_kind[kind]), noun)} {what}")
    c = record["counts"]
    text = ("Left out: " + "; ".join(parts) + ".") if parts else "Left out: nothing."
    return (
        text + f" Counted as not passed: {c['errored']} errored, {c['verifier_errored']} verifier-errored, "
        f"{c['unscored']} unscored; {c['timed_out']} timed out (counted by their reward); "
        f"{count(c['retried'], 'trial')} retried."
    )


def index_row_interval(record: dict) -> str:
    """index.md's and the paper table's interval cell: the headline with its method."""
    headline = record["headline"]
    return f"{interval_text(headline.get('low'), headline.get('high'))} ({method(headline.get('method'))})"


def accounting(found: int, in_reports: int, interrupted: int, unusable: int, duplicates: int = 0) -> str:
    adds_up = found == in_reports + interrupted + unusable + duplicates
    return (
        f"{count(found, 'attempt folder')} found: {in_reports} counted in a report, {interrupted} interrupted, "
        f"{unusable} unusable"
        + (f", {duplicates} duplicates counted once" if duplicates else "")
        + f", each listed in exclusions.tsv ({'the counts add up' if adds_up else 'THE COUNTS DO NOT ADD UP'})."
    )


CROSSCHECK_COUNTS = ("total", "passed", "failed", "errored", "verifier_errored")
# A job folder's summary.json by its summary_status, where there are no counts of it to compare.
SUMMARY_MISSING: dict[str | None, str] = {
    "absent": "no summary.json (the job did not finish)",
    "unusable": "summary.json unusable (see what was left out)",
}


def crosscheck_counts(check: dict) -> tuple[str, str]:
    """(BenchFlow's summary.json counts, the recount of the trial folders), as the cross-check
    table prints them: total / passed / failed / errored / verifier errored."""
    theirs, recount = check.get("benchflow"), check.get("recount_last_attempts") or {}
    if theirs:
        bf = " / ".join(str(theirs.get(key)) for key in CROSSCHECK_COUNTS)
    else:
        bf = SUMMARY_MISSING.get(check.get("summary_status"), "summary.json records no counts")
    ours = " / ".join(str(recount.get(key)) for key in CROSSCHECK_COUNTS)
    if recount.get("unscored"):
        ours += f" (+{recount['unscored']} unscored)"
    return bf, ours


def crosscheck_agrees(check: dict) -> str:
    """index.md's and report.md's 'Agrees' cell of the cross-check against summary.json."""
    if check.get("matches"):
        return "yes"
    if check.get("benchflow"):
        return "NO: summary.json disagrees with the trial folders"
    return "n/a: " + SUMMARY_MISSING.get(check.get("summary_status"), "summary.json records no counts to compare")


def bucket_difference(trial: dict) -> str | None:
    """Why BenchFlow's summary bucket for a trial differs from benchreport's outcome, in words."""
    theirs, ours = trial["benchflow_bucket"], trial["outcome"]
    if theirs is None or theirs == ours:
        return None
    if trial["attempts"] > 1:
        return (
            f"BenchFlow's summary counts the last of {trial['attempts']} attempts ({theirs}); "
            f"benchreport keeps the scored attempt first, then the newest, as BenchFlow does on resume ({ours})"
        )
    if theirs == "verifier_errored":
        return "the verifier reported an error but still wrote a reward; BenchFlow's summary counts the verifier error first, benchreport counts the reward"
    if theirs == "unscored":
        return "BenchFlow's summary has no unscored bucket: the trial is in its total and in none of its counts"
    return f"BenchFlow's summary says {theirs}, benchreport {ours}"


def controls_summary(summary: dict) -> str:
    """'oracle 35/36, nop 1/36; hold 8, fail 2 (left out), not verified 0' for an agent setting;
    'control (oracle)' for a control."""
    control = summary["settings"]["control"] if "settings" in summary else summary["key"]["control"]
    if control:
        return f"control ({control})"
    controls = summary.get("controls")
    if not controls:
        return "no controls"
    oracle, nop = controls["oracle"], controls["nop"]
    if not oracle["trials"] and not nop["trials"]:
        return "no oracle or nop on these tasks"
    policy = controls["policy"]
    failing = len(controls["tasks_failing_controls"])
    unverified = len(controls["tasks_unverified"])
    return (
        f"oracle {oracle['passed']}/{oracle['trials']}, nop {nop['passed']}/{nop['trials']}; "
        f"hold {len(controls['tasks_holding'])}, fail {failing}"
        + (f" ({'left out' if policy['on_failure'] == 'exclude' else 'kept'})" if failing else "")
        + f", not verified {unverified}"
        + (f" ({'left out' if policy['on_unverified'] == 'exclude' else 'kept'})" if unverified else "")
    )


def ledger_tally(rows: list[dict]) -> str:
    """'3 attempts, 2 tasks, 12 images left out or not recorded' over exclusion-ledger rows."""
    if not rows:
        return "Nothing: every attempt folder was read and counted, every task kept, every image inspected."
    kinds = Counter(row["kind"] for row in rows)
    return (
        "Left out or not recorded (every row is in exclusions.tsv): "
        + ", ".join(count(n, kind) for kind, n in sorted(kinds.items()))
        + "."
    )


def inspection(record: dict) -> str:
    """When the images were inspected, and how to inspect them again."""
    return (
        "Each inspection's time is in its lineage record (results/lineage/environment/images/, "
        "inspected_at), not here, so that an unchanged image leaves this report's bytes alone. Every record, "
        "a missing daemon's or image's too, is kept until "
        f"`{record['environment_refresh']}`."
    )


def results_are_in(paths: list[str], images_not_inspected: int, inspect_again: str) -> str:
    """The last lines of a run: where its results are, and how many task images it could not
    inspect, with the command that inspects them again."""
    lines = ["benchreport: the results are in", *(f"  {path}" for path in paths)]
    if images_not_inspected:
        images = count(images_not_inspected, "task image")
        verb = "was" if images_not_inspected == 1 else "were"
        lines.append(
            f"benchreport: {images} {verb} not inspected (daemon unavailable or image missing); "
            f"to inspect again: {inspect_again}"
        )
    return "\n".join(lines)
