"""benchreport: turn BenchFlow job folders into results another researcher can check.

The package holds the logic as plain functions over plain data (parse, classify, interval,
render, lineage); the Snakemake rule scripts beside it only read their inputs, call it and
write. Tests import the same functions.
"""

from typing import TYPE_CHECKING, NamedTuple

if TYPE_CHECKING:
    import pandas

__version__ = "0.1.0"


class Results(NamedTuple):
    """What load() returns: pandas DataFrames."""

    trials: "pandas.DataFrame"  # pandas is imported by load() alone, not with the package
    settings: "pandas.DataFrame"
    exclusions: "pandas.DataFrame"


def load(results_dir="results") -> Results:
    """A results folder as pandas DataFrames, the way Inspect's samples_df hands out its samples:
    `trials` (one row per trial, the columns of results/trials.csv, typed and unescaped; a field
    a trial lacks is None, as an empty cell in the CSV),
    `settings` (one row per setting: what defines it, its counts, pass rate and headline
    interval, from reports/*/summary.json) and `exclusions` (results/exclusions.tsv).

    pandas is imported here, not by the workflow's rules, which never need it."""
    import json
    from pathlib import Path

    import pandas

    from .present.trials_table import SETTING_FIELDS, columns

    results = Path(results_dir)
    reports = sorted(path.parent for path in (results / "reports").glob("*/summary.json"))
    summaries = [json.loads((report / "summary.json").read_text(encoding="utf-8")) for report in reports]
    trials = [json.loads((report / "trials.json").read_text(encoding="utf-8")) for report in reports]
    settings = [
        {
            "setting": summary["setting"],
            "description": summary["description"],
            **{field: summary["settings"].get(field) for field in SETTING_FIELDS},
            **summary["counts"],
            "pass_rate": summary["pass_rate"]["value"],
            "pass_rate_over_trials": summary["pass_rate_over_trials"],
            "mean_reward": summary["mean_reward"],
            **{f"headline_{key}": (summary["headline"] or {}).get(key) for key in ("method", "low", "high")},
        }
        for summary in summaries
    ]
    defined = [
        (summary["setting"], summary["settings"], table) for summary, table in zip(summaries, trials, strict=True)
    ]
    return Results(
        trials=pandas.DataFrame(columns(defined)),
        settings=pandas.DataFrame(settings),
        exclusions=pandas.read_csv(results / "exclusions.tsv", sep="\t", dtype=str, keep_default_na=False),
    )
