"""The run-level view: every setting with its headline, the job folders that mixed settings, and
the exclusion ledger (index.md, exclusions.tsv): each printed from the settings' result records
and the job folders' ledgers, nothing computed but the sums of the per-folder counts."""

from __future__ import annotations

from ..record.completeness import tally
from . import sentences
from .present import cell, level, pct, spreadsheet_cell

LEDGER_COLUMNS = ("kind", "setting", "job", "folder", "file", "reason", "effect")


def combined_ledger(job_ledgers: list[dict], summaries: list[dict]) -> list[dict]:
    """Every row left out: each job folder's ledger (ingest.job_ledger: files and attempts), each
    named with the settings whose summary lists it, and each setting's task and image rows
    (summary.json left_out), in one sorted list."""
    listing: dict[tuple[str, str, str], set[str]] = {}
    for summary in summaries:
        for row in summary["left_out"]:
            if row.get("job"):
                listing.setdefault((row["job"], row.get("folder", ""), row["file"]), set()).add(summary["setting"])
    rows = [
        {
            "kind": row.get("kind") or ("attempt" if row["effect"].startswith(("attempt", "trial")) else "file"),
            "setting": ", ".join(sorted(listing.get((row["job"], row.get("folder", ""), row["file"]), ()))),
        }
        | row
        for job in job_ledgers
        for row in job["ledger"]
    ]
    images: dict[tuple[str, str], tuple[dict, list[str]]] = {}
    for summary in summaries:
        for row in summary["left_out"]:
            if row["kind"] == "task":
                rows.append(row | {"setting": summary["setting"]})
            elif row["kind"] == "image":
                images.setdefault((row["file"], row["reason"]), (row, []))[1].append(summary["setting"])
    rows += [row | {"setting": ", ".join(sorted(settings))} for row, settings in images.values()]
    return sorted(
        ({column: row.get(column) or "" for column in LEDGER_COLUMNS} for row in rows),
        key=lambda row: tuple(row[column] for column in LEDGER_COLUMNS),
    )


def render_ledger_tsv(rows: list[dict]) -> str:
    def field(value):
        return spreadsheet_cell(str(value).replace("\t", " ").replace("\n", " ").replace("\r", " "))

    lines = ["\t".join(LEDGER_COLUMNS)]
    lines += ["\t".join(field(row[column]) for column in LEDGER_COLUMNS) for row in rows]
    return "\n".join(lines) + "\n"


def render_index(summaries: list[dict], job_ledgers: list[dict], ledger: list[dict]) -> str:
    """index.md; `ledger` is combined_ledger(...), which exclusions.tsv lists too."""
    counts = [job["counts"] for job in job_ledgers]
    # found, in reports, interrupted, unusable, duplicates: summed over the job folders
    totals = [
        sum(row[key] for row in counts) for key in ("found", "in_reports", "interrupted", "left_out", "duplicates")
    ]
    shown = level(summaries[0]["confidence"]) if summaries else "n/a"
    lines = [
        "# benchreport: all settings",
        "",
        f"{len(job_ledgers)} job folders, " + sentences.accounting(*totals),
        "",
        f"| Setting | Tasks | Trials | Passed | Pass rate | {shown} interval (headline method) | Controls | Completeness | Report |",
        "| --- | ---: | ---: | ---: | ---: | --- | --- | --- | --- |",
    ]
    for summary in sorted(summaries, key=lambda s: (s["settings"]["control"] or "", s["setting"])):
        row = summary["counts"]
        lines.append(
            f"| {cell(summary['description'])} | {row['tasks']} | {row['trials']} | {row['passed']} | "
            f"{pct(summary['pass_rate']['value'])} | {cell(sentences.index_row_interval(summary))} | "
            f"{cell(sentences.controls_summary(summary))} | {tally(summary['completeness'])} | "
            f"[report](reports/{summary['setting']}/report.md) |"
        )
    mixed = {job["job"]: job for summary in summaries for job in summary["mixed_settings"]}
    if mixed:
        lines += ["", "## Mixed settings", ""]
        lines += [
            f"- Warning: {cell(sentences.warning({'kind': 'mixed settings in a job folder'} | job))}."
            for _, job in sorted(mixed.items())
        ]
    lines += [
        "",
        "## Job folders",
        "",
        "| Job folder | Attempt folders | In reports | Interrupted | Unusable | Adds up |",
        "| --- | ---: | ---: | ---: | ---: | --- |",
    ]
    lines += [
        f"| {cell(row['job'])} | {row['found']} | {row['in_reports']} | {row['interrupted']} | {row['left_out']} | "
        f"{'yes' if row['adds_up'] else 'NO'} |"
        for row in counts
    ]
    lines += ["", "## What was left out", "", sentences.ledger_tally(ledger), ""]
    if ledger:
        lines += ["| Kind | Setting | Job folder | File | Reason | Effect |", "| --- | --- | --- | --- | --- | --- |"]
        lines += [
            f"| {r['kind']} | {cell(r['setting'])} | {cell(r['job'])} | {cell(r['file'])} | {cell(r['reason'])} | "
            f"{cell(r['effect'])} |"
            for r in ledger
        ]
    return "\n".join(lines) + "\n"
