"""A setting's result record (summary.json), typed: `SettingResult` and its parts.

Rule report computes each part once (stats, trial_rows) and assembles the record from them
(report.build_record), which mypy holds to these types; every renderer reads the record and
computes nothing. The parts are plain dicts and lists, so the record is written as it is and a
reader of the JSON gets the same values. benchreport/schemas/setting-result.schema.json is its
published schema, for readers outside.
"""

from __future__ import annotations

from typing import Any, TypedDict


class Interval(TypedDict):
    """An interval at a confidence level, with the method that gave it and what it covers."""

    method: str
    low: float | None
    high: float | None
    level: float
    covers: str


class TaskRow(TypedDict):
    """One task of a setting: its trials in try order (their ids), passes, rate and its interval."""

    task: str
    trials: int
    passed: int
    rate: float
    interval: Interval
    rewards: list[float | None]
    mean_reward: float
    outcomes: list[str]
    timed_out: int
    task_digests: list[str]
    trial_ids: list[str]
    mean_cost_usd: float | None  # over the trials with a recorded cost (all attempts)
    controls: dict | None  # the task's controls verdict (stats.control_summary), agents only


class CostMeasure(TypedDict):
    """One cost measure, defined once: a label, what is divided by what, and the value.

    `trials` says which trials the numerator covers: "counted" (those the pass rate counts) or
    "all" (every attempt of the setting)."""

    key: str
    label: str
    numerator: str
    denominator: str
    denominator_count: int
    numerator_usd: float | None
    value_usd: float | None
    interval: dict | None
    trials: str


class TokenTotals(TypedDict):
    """Each token count summed over the trials that recorded usage (trial.recorded_tokens), all
    their attempts; a count is None where no trial recorded it, never a 0 standing for that."""

    input: int | None
    output: int | None
    cache_read: int | None
    cache_creation: int | None
    total: int | None
    trials_recorded: int  # the trials whose usage was recorded
    trials: int  # the trials summed over


class Usage(TypedDict):
    """Tokens and every cost measure of a setting (stats.usage)."""

    tokens_all_attempts: TokenTotals
    tokens_counted: TokenTotals
    attempts: int
    trials: int
    trials_priced: int
    counted_trials: int
    counted_trials_priced: int
    cost_complete: bool
    cost_is_lower_bound: bool
    cost_measures: dict[str, CostMeasure]
    price_sources: dict[str, int]
    usage_sources: dict[str, int]
    token_note: str
    trial_seconds_min: float | None
    trial_seconds_max: float | None
    trial_minutes_all_attempts: float


class Counts(TypedDict):
    """A setting's trials counted: by outcome over the counted ones, and those left out."""

    tasks: int
    trials: int
    passed: int
    failed: int
    errored: int
    verifier_errored: int
    unscored: int
    with_error: int
    timed_out: int
    retried: int
    attempts: int
    interrupted_left_out: int
    left_out_by_controls: int
    tasks_left_out_by_controls: int


class PassRate(TypedDict):
    value: float | None
    rule: str
    trials: str  # "per_task": computed over every per-task row
    solve_threshold: float


class MeanReward(TypedDict):
    value: float | None
    rule: str
    trials: str
    interval: dict


class Seeds(TypedDict):
    resampling_seed: int
    generator: str
    resamples: int
    trial_seeds: list[str]


class LeftOutRow(TypedDict):
    """One thing left out of a setting's numbers or not recorded: an attempt, a file, a task
    (its controls), an image (not inspected), a duplicate; with the reason and the effect."""

    kind: str
    job: str
    folder: str
    file: str
    reason: str
    effect: str
    task: str | None
    trials: int | None


class JobFolder(TypedDict):
    id: str
    try_index: Any
    benchflow_summary: Any  # ingest.crosscheck against BenchFlow's own summary.json


class RateEstimates(TypedDict):
    """The pass rate over tasks and over trials, each interval method on it and the headline."""

    pass_rate: PassRate
    pass_rate_over_trials: float | None
    intervals: dict[str, dict]
    confidence: float
    headline: dict[str, Any]
    methods: dict[str, dict]


class Tries(TypedDict):
    """How many tries a setting's tasks had, against the config's statistics.min_trials_per_task."""

    min_wanted: int
    per_task: dict[str, float] | None  # min, median and max over the tasks; None with no task
    one_task_moves_points: float | None  # how far one task moves the pass rate, in points
    tasks_under_min_tries: list[str]


class Numbers(RateEstimates):
    """The numbers of a setting that its record copies from stats.json as they are."""

    setting: str
    description: str
    counts: Counts
    solve_rates: dict | None
    mean_reward: MeanReward
    per_task: list[TaskRow]
    usage: Usage
    sampling: dict[str, dict[str, int]]
    tries: Tries
    trials_recording_requests: int
    try_numbering: dict[str, int]
    controls: dict | None
    excluded_by_controls: list[dict]
    mixed_settings: list[dict]
    warnings: list[dict]
    seeds: Seeds


class SettingNumbers(Numbers):
    """stats.json: a setting's numbers (stats.setting_stats), the record's main part."""

    schema: str
    key: dict[str, Any]  # the setting key (settings.setting_key)
    agent_env_chosen: dict | None
    agent_names: list[str]
    routes: list[str]
    served_models: dict[str, int]
    jobs: list[str]
    effort_sent: dict[str, dict[str, int]]  # the part of `sampling` that carries the effort
    sampling_sent: dict[str, dict[str, int]]  # the part of `sampling` that sets how the model samples


class EnvironmentSummary(TypedDict):
    """Whether the task images were inspected, and the tasks whose image that ran was not."""

    inspected: bool  # any image row at all (inspection on, a task found)
    not_inspected: list[str]  # a rebuilt image counts: it is not the one that ran


class SettingResult(Numbers):
    """summary.json: every number a setting's outputs print."""

    schema: str
    # the setting key, with what the run chose, what was served and sent, what is not recorded
    settings: dict[str, Any]
    unpriced_reasons: list[dict]
    environment: list[dict]
    environment_summary: EnvironmentSummary
    environment_refresh: str
    jobs: list[str]
    job_folders: list[JobFolder]
    left_out: list[LeftOutRow]
    benchmark: dict | None
    grader_kind: str
    left_out_accounting: dict | None
    limits: dict[str, str | None]  # writeup.not_controlled, writeup.task_count_limits
    completeness: list[dict]


class CardParts(TypedDict):
    """What the run card counts over a setting's trial rows (trial_rows.card_parts)."""

    job_folders: list[dict]  # each ingest's job block, with BenchFlow's crosscheck
    ledger: list[dict]
    grader: dict
    benchmark: dict
    left_out_accounting: dict
    tokens_and_cost: dict
    run_summary: dict
    trials: list[dict]  # every trial with the grader's verdict (trial_rows.card_trials)


class TrialRows(TypedDict):
    """trials.json: every trial of a setting, one row each (trial_rows.setting_trial_rows)."""

    setting: str
    trials: list[dict]
    interrupted: list[dict]
