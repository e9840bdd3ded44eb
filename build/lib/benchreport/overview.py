"""The run-level view: every setting, and the accounting that nothing was lost."""

from __future__ import annotations

from .completeness import tally
from .render import cell, pct

LEDGER_COLUMNS = ("job", "folder", "file", "reason", "effect")


def combined_ledger(job_ledgers: list[dict]) -> list[dict]:
    """Every job folder's ledger rows (ingest.job_ledger), in one sorted list."""
    rows = [row for job in job_ledgers for row in job["ledger"]]
    return sorted(rows, key=lambda row: tuple(row[column] for column in LEDGER_COLUMNS))


def render_ledger_tsv(rows: list[dict]) -> str:
    def field(value):
        return str(value).replace("\t", " ").replace("\n", " ")

    lines = ["\t".join(LEDGER_COLUMNS)]
    lines += ["\t".join(field(row[column]) for column in LEDGER_COLUMNS) for row in rows]
    return "\n".join(lines) + "\n"


def render_index(summaries: list[dict], job_ledgers: list[dict], ledger: list[dict]) -> str:
    """index.md; `ledger` is combined_ledger(job_ledgers), which exclusions.tsv lists too."""
    counts = [job["counts"] for job in job_ledgers]
    found = sum(row["found"] for row in counts)
    in_reports = sum(row["in_reports"] for row in counts)
    interrupted = sum(row["interrupted"] for row in counts)
    left_out = sum(row["left_out"] for row in counts)
    lines = [
        "# benchreport: all settings",
        "",
        f"{len(job_ledgers)} job folders, {found} attempt folders found: {in_reports} counted in a report, "
        f"{interrupted} interrupted and {left_out} unusable, both listed in exclusions.tsv "
        f"({'the counts add up' if found == in_reports + interrupted + left_out else 'THE COUNTS DO NOT ADD UP'}).",
        "",
        "| Setting | Tasks | Trials | Passed | Pass rate | 95% interval over tasks | Completeness | Report |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- | --- |",
    ]
    for summary in sorted(summaries, key=lambda s: (s["settings"]["control"] or "", s["setting"])):
        interval = summary["intervals"]["over_tasks"]
        counts_row = summary["counts"]
        lines.append(
            f"| {cell(summary['description'])} | {counts_row['tasks']} | {counts_row['trials']} | {counts_row['passed']} | "
            f"{pct(summary['pass_rate']['value'])} | {pct(interval['low'])} to {pct(interval['high'])} | "
            f"{tally(summary['completeness'])} | [report](reports/{summary['setting']}/report.md) |"
        )
    lines += [
        "",
        "## Job folders",
        "",
        "| Job folder | Attempt folders | In reports | Interrupted | Unusable | Adds up |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    for row in counts:
        lines.append(
            f"| {cell(row['job'])} | {row['found']} | {row['in_reports']} | {row['interrupted']} | {row['left_out']} | "
            f"{'yes' if row['adds_up'] else 'NO'} |"
        )
    lines += ["", "## What was left out", ""]
    if ledger:
        lines += ["| Job folder | File | Reason | Effect |", "| --- | --- | --- | --- |"]
        lines += [f"| {cell(r['job'])} | {cell(r['file'])} | {cell(r['reason'])} | {cell(r['effect'])} |" for r in ledger]
    else:
        lines.append("Nothing.")
    return "\n".join(lines) + "\n"
