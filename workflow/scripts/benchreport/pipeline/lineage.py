"""Lineage records: for every output, how it was made and from exactly which bytes.

A record sits at results/lineage/<path under results>.json. It names the rule, the code (git
commit, whether the tree was dirty, the sha256 of every source file used), the params, the
software versions, every input under results/ with its sha256 and its own record, and for
ingest the job-folder files read. Records carry the time their job started and the time they
were written; outputs never do.
"""

from __future__ import annotations

import contextlib
import datetime
import functools
import gc
import hashlib
import json
import os
import platform
import re
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from ..read import secrets
from ..read.files import sha256_file
from .outputs import dump_json

PACKAGE_DIR = Path(__file__).resolve().parents[1]
SCRIPTS_DIR = PACKAGE_DIR.parent
WORKFLOW_DIR = SCRIPTS_DIR.parent.parent
SOFTWARE = ("snakemake", "numpy", "scipy", "jinja2", "pyyaml", "matplotlib", "pillow")
# Every rule script imports these (the package, its file readers and writers, and lineage).
COMMON = [
    "benchreport/__init__.py",
    "benchreport/read/files.py",
    "benchreport/pipeline/outputs.py",
    "benchreport/pipeline/lineage.py",
]
# The stages. Stage X runs the rule script workflow/scripts/X.py; STAGE_DATA names the files a
# stage reads that no import names: its templates and schemas.
STAGES = (
    "ingest",
    "ingested",
    "coverage_design",
    "report",
    "inspect_image",
    "controls",
    "run_report",
    "bundle",
)
STAGE_DATA = {
    "report": [
        "benchreport/present/templates/report.md.j2",
        "benchreport/schemas/setting-result.schema.json",
        "benchreport/schemas/run-card.schema.json",
        "benchreport/schemas/benchflow-run-summary.v1.schema.json",
    ],
    "run_report": ["benchreport/present/templates/report.html.j2"],
}


# `from . import x`, `from ..x import y`, `from benchreport(.x) import y` at any indentation, the
# names in parentheses across lines. Read by a pattern rather than by ast, which doubles the part
# of a snakemake start spent here; tests/test_stage_code.py checks that the pattern finds what ast
# finds in every module. Text in a string that looks like an import can only add a module, never
# hide one.
_IMPORT_FROM = re.compile(r"^[ \t]*from[ \t]+(\.*)([\w.]*)[ \t]+import[ \t]+(\([^)]*\)|[^\n]*)", re.MULTILINE)


@functools.cache  # every stage's closure walks the shared modules: read each once per process
def imported_modules(name: str) -> frozenset[str]:
    """workflow/scripts-relative paths of the benchreport modules one file there imports, at any
    depth of its code (an import inside a function may run too), with the __init__.py of each
    package on the way to them."""
    package = PurePosixPath(name).parent.parts
    found: set[str] = set()
    for dots, module, names in _IMPORT_FROM.findall((SCRIPTS_DIR / name).read_text(encoding="utf-8")):
        if dots:  # relative to the importing file's package
            if len(dots) - 1 > len(package):
                continue
            base = package[: len(package) - len(dots) + 1]
        elif module != "benchreport" and not module.startswith("benchreport."):
            continue
        else:
            base = ()
        parts = (*base, *filter(None, module.split(".")))
        if parts[:1] == ("benchreport",):
            found.update(filter(None, (_module_file(parts, item) for item in _names(names))))
    inits = {
        "/".join((*path.split("/")[:depth], "__init__.py")) for path in found for depth in range(2, path.count("/") + 1)
    }
    return frozenset(found | inits)


def _module_file(parts: tuple[str, ...], item: str) -> str | None:
    """The file `from <parts> import <item>` names: module <item> of package <parts>, else module
    <parts> itself."""
    for candidate in ((*parts, item), parts):
        for path in ("/".join(candidate) + ".py", "/".join((*candidate, "__init__.py"))):
            if (SCRIPTS_DIR / path).is_file():
                return path
    return None


def _names(text: str) -> list[str]:
    """The names of `import a, b as c` or `import (a,\n b,  # comment\n)`."""
    lines = (line.split("#")[0] for line in text.strip("()").splitlines())
    return [part.split()[0] for line in lines for part in line.split(",") if part.strip()]


def code_closure(script: str) -> list[str]:
    """The script and every package module it imports, directly or not: the code a stage runs.
    The package's __init__.py is hashed for every stage (COMMON) but its imports are not followed:
    they sit in benchreport.load(), which no stage calls."""
    needed, pending = set(), [script]
    while pending:
        name = pending.pop()
        if name not in needed:
            needed.add(name)
            if name != "benchreport/__init__.py":
                pending.extend(imported_modules(name))
    return sorted(needed)


@functools.cache
def stage_files(stage: str) -> tuple[str, ...]:
    """The code a stage runs (code_closure of its script) and the templates and schemas it reads."""
    return (*code_closure(f"{stage}.py"), *STAGE_DATA.get(stage, []))


class _StageCode(Mapping):
    """stage -> stage_files(stage), read when first asked: the workflow asks, while an installed
    copy of the package (the `benchreport` command) has no rule scripts beside it and never does."""

    def __getitem__(self, stage: str) -> tuple[str, ...]:
        return stage_files(stage)

    def __iter__(self):
        return iter(STAGES)

    def __len__(self) -> int:
        return len(STAGES)


# The code each stage runs, read off the import graph of its rule script (so it cannot drift
# from the imports): a change to one of these files re-runs that stage and what depends on it,
# nothing else.
STAGE_CODE = _StageCode()


def results_dir_of(path: Path) -> Path:
    for parent in [path, *path.parents]:
        if parent.name == "results":
            return parent
    raise ValueError(f"{path} is not under a results/ folder")


def record_path(output: str | Path) -> Path:
    """Where the lineage record of an output lives."""
    output = Path(output)
    results = results_dir_of(output)
    return results / "lineage" / (output.relative_to(results).as_posix() + ".json")


def lineage_of(output: str) -> str:
    """record_path as the text a rule names among its outputs (a pattern under results/)."""
    return record_path(output).as_posix()


# What check_tree and closure read of every record (write_for_rule writes them all).
RECORD_KEYS = ("output", "sha256", "rule", "code", "inputs", "recorded_at")


def read_record(path: Path) -> dict:
    """A lineage record, or ValueError naming the file when it is not one (damaged, not JSON, or
    not of the shape write_for_rule writes)."""
    try:
        record = json.loads(path.read_text(encoding="utf-8"))
    except ValueError as error:
        raise ValueError(f"{path}: not a lineage record ({error})") from None
    if not (
        isinstance(record, dict)
        and all(key in record for key in RECORD_KEYS)
        and isinstance(record["code"], dict)
        and "sha256" in record["code"]
        and _file_list(record["inputs"])
        and _file_list(record.get("sources", []))
    ):
        raise ValueError(
            f"{path}: not a lineage record of this version (keys {', '.join(RECORD_KEYS)}; lists of files)"
        )
    return record


def _file_list(entries) -> bool:
    """Whether a record's inputs or sources are what write_for_rule writes: a list of {path, sha256}."""
    return isinstance(entries, list) and all(isinstance(e, dict) and "path" in e and "sha256" in e for e in entries)


def stage_code(stage: str) -> dict:
    """sha256 of each code file of a stage and one combined hash (a rule param: edits re-run)."""
    hashes = {
        f"workflow/scripts/{name}": sha256_file(SCRIPTS_DIR / name) for name in sorted({*COMMON, *STAGE_CODE[stage]})
    }
    return {"sha256": hashlib.sha256(json.dumps(hashes, sort_keys=True).encode()).hexdigest(), "files": hashes}


# The environment variable in which the Snakemake process hands every job of its run the code
# and software facts lineage records (run_facts), found once rather than by each job, for speed
# alone (two git commands and a scan of the installed distributions; benchmarks/RESULTS.md).
RUN_FACTS = "BENCHREPORT_RUN_FACTS"


def run_facts(software: bool) -> str:
    """The git state of the workflow and, where the jobs run in this Python (`software`: no
    conda env), the software versions, found now (never those handed to this process): what
    common.smk puts in RUN_FACTS."""
    facts = {"git": _find_git_state()}
    if software:
        facts["software"] = _find_software_versions()
    return json.dumps(facts, sort_keys=True)


def _handed(name: str, find):
    """The fact `name` the Snakemake process handed this job (run_facts), else find()."""
    try:
        handed = json.loads(os.environ[RUN_FACTS]).get(name)
    except (KeyError, ValueError, AttributeError):
        handed = None
    return find() if handed is None else handed


@functools.cache
def git_state() -> dict:
    """The workflow's git commit and whether its tree is dirty."""
    return _handed("git", _find_git_state)


def _find_git_state() -> dict:
    def git(*args):
        return subprocess.run(
            ["git", "-C", str(WORKFLOW_DIR), *args], capture_output=True, text=True, timeout=30, check=True
        ).stdout.strip()

    try:
        return {"commit": git("rev-parse", "HEAD"), "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}
    except (OSError, subprocess.SubprocessError):
        return {"commit": None, "dirty": None, "note": "not a git checkout"}


@functools.cache
def software_versions() -> dict:
    return _handed("software", _find_software_versions)


def _find_software_versions() -> dict:
    import importlib.metadata  # here: a job handed the versions needs no import of it

    versions: dict[str, str | None] = {"python": platform.python_version()}
    for name in SOFTWARE:
        try:
            versions[name] = importlib.metadata.version(name)
        except importlib.metadata.PackageNotFoundError:
            versions[name] = None
    return versions


# When this process's rule job began (start_job), for its lineage records and the RO-Crate's actions.
STARTED_AT: str | None = None


# The collector off (start_job) and no teardown (finish_job) are for speed alone: an edited run's
# jobs hold many rows (benchmarks/RESULTS.md).
def start_job(smk):
    """What a rule script does first: note when its job began, send its messages to its rule's
    log (returned, open), and turn the cyclic garbage collector off (its rows hold no cycles)."""
    global STARTED_AT
    STARTED_AT = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    log = open(smk.log[0], "w")
    sys.stderr = log
    gc.disable()
    return log


def finish_job() -> None:
    """What a rule script that holds many rows does last, its outputs and records written: flush
    what it printed and leave without the teardown that frees every object one by one."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def input_entry(path: str, hashes: dict) -> dict:
    """An input's path, sha256 and lineage record; `hashes` (path -> sha256) is shared by the
    records of one job, so that each input is hashed once, not once per output."""
    if path not in hashes:
        hashes[path] = sha256_file(path)
    entry = {"path": Path(path).as_posix(), "sha256": hashes[path]}
    with contextlib.suppress(ValueError):  # not under results/: no record
        record = record_path(path)
        if record.exists():
            entry["lineage"] = record.as_posix()
    return entry


def without_secrets(value):
    """A rule's params with the secrets in their strings redacted: a record is published in the
    bundle, and a config may hold one (a password in environment.docker_host)."""
    if isinstance(value, str):
        return secrets.redact_text(value)[0]
    if isinstance(value, Mapping):
        return {key: without_secrets(item) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [without_secrets(item) for item in value]
    return value


def write_for_rule(
    smk, sources: list[dict] | None = None, extra: dict | None = None, made_from: dict | None = None
) -> None:
    """Write the record of every non-lineage output of a Snakemake job (called from rule scripts).
    The rule's name is its stage's (one name per stage), so its code is the stage's.

    `extra` holds facts about this run that must not enter the outputs (a time of inspection).
    `made_from` (output name -> input names) names what each output of a job whose outputs are
    made from different inputs is made from; an output it does not name lists every input."""
    code = {**git_state(), **stage_code(smk.rule)}
    params = without_secrets(dict(smk.params.items()))
    # stamp files under .snakemake/ only tell Snakemake when to re-run; they are not data
    inputs = [path for path in smk.input if not Path(path).as_posix().startswith(".snakemake/")]
    input_hashes: dict[str, str] = {}  # path -> sha256, each input hashed once
    name_of = {path: name for name, path in smk.output.items()}
    # The output whose record lists the job-folder files, which the others point to (sources_as):
    # a job folder's thousands of sources are recorded once, not once per output.
    first = None
    for output in smk.output:
        if Path(output).as_posix().startswith("results/lineage/") or "/results/lineage/" in output:
            continue
        names = (made_from or {}).get(name_of.get(output))
        record = {
            "output": Path(output).as_posix(),
            "sha256": sha256_file(output),
            "rule": smk.rule,
            "wildcards": dict(smk.wildcards.items()),
            "params": params,
            "code": code,
            "software": software_versions(),
            "inputs": [
                input_entry(path, input_hashes)
                for path in (inputs if names is None else [path for name in names for path in smk.input[name]])
            ],
            "sources": (sources or []) if first is None else [],
            "started_at": STARTED_AT,
            "recorded_at": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        }
        if sources and first:
            record["sources_as"] = Path(first).as_posix()
        first = first or output
        record.update(extra or {})
        target = record_path(output)
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(dump_json(record), encoding="utf-8")


def check_tree(
    output: str | Path, base: Path | None = None, depth: int = 0, lines=None, seen=None
) -> tuple[bool, list[str]]:
    """Re-hash an output, its inputs recursively, and the job-folder files; return (ok, lines)."""
    lines = [] if lines is None else lines
    seen = set() if seen is None else seen
    output = Path(output)
    base = base or results_dir_of(output.resolve()).parent
    indent = "  " * depth
    location = output if output.is_absolute() else base / output
    try:
        record_file = record_path(location)
    except ValueError:
        lines.append(f"{indent}{output}: not under results/, no lineage record")
        return False, lines
    if not record_file.exists():
        lines.append(f"{indent}{output}: NO LINEAGE RECORD ({record_file})")
        return False, lines
    record = read_record(record_file)
    ok = location.exists() and sha256_file(location) == record["sha256"]
    code = record["code"]
    commit = (code.get("commit") or "no git")[:12] + (" (dirty)" if code.get("dirty") else "")
    lines.append(
        f"{indent}{'ok     ' if ok else 'CHANGED'} {output}  [rule {record['rule']}, commit {commit}, code {code['sha256'][:12]}, recorded {record['recorded_at']}]"
    )
    if location in seen:
        return ok, lines
    seen.add(location)
    for entry in record["inputs"]:
        if "lineage" in entry:
            ok = check_tree(entry["path"], base, depth + 1, lines, seen)[0] and ok
        same = _unchanged(base, entry)
        if "lineage" not in entry:
            lines.append(f"{indent}  {'ok     ' if same else 'CHANGED'} {entry['path']}")
        elif not same:
            lines.append(f"{indent}  CHANGED since use: {entry['path']}")
        ok = ok and bool(same)
    if record.get("sources_as"):
        lines.append(f"{indent}  job-folder files: those recorded for {record['sources_as']}")
        ok = check_tree(record["sources_as"], base, depth + 1, lines, seen)[0] and ok
    for source in record.get("sources", []):
        same = _unchanged(base, source)
        status = "MISSING" if same is None else "ok     " if same else "CHANGED"
        extra = f" (first {source['bytes']} bytes)" if "bytes" in source else ""
        lines.append(f"{indent}  {status} {source['path']}{extra}")
        ok = ok and bool(same)
    return ok, lines


def _unchanged(base: Path, entry: dict) -> bool | None:
    """Whether a recorded file (path under `base` or absolute, sha256 of its first `bytes`, if
    given) still hashes the same; None when it is gone."""
    path = base / entry["path"]  # an absolute path stays itself
    if not path.exists():
        return None
    return sha256_file(path, limit=entry.get("bytes")) == entry["sha256"]


def closure(outputs: list[str]) -> list[str]:
    """The outputs, everything under results/ they were computed from, and all their records."""
    seen, pending = set(), [Path(output).as_posix() for output in outputs]
    while pending:
        path = pending.pop()
        if path in seen or not Path(path).is_file():
            continue
        seen.add(path)
        record = record_path(path)
        if record.is_file():
            seen.add(record.as_posix())
            data = read_record(record)
            pending.extend(entry["path"] for entry in data["inputs"])
            if data.get("sources_as"):
                pending.append(data["sources_as"])
    return sorted(seen)


# ------------------------------------------------------------------------------------------
# a published number, back to its trials and their job-folder files


def _setting_of(output: Path) -> str:
    """The setting an output under results/reports/<setting>/ or results/settings/<setting>/ is of."""
    parts = output.resolve().parts
    for folder in ("reports", "settings"):
        if folder in parts and parts.index(folder) + 1 < len(parts) - 1:
            return parts[parts.index(folder) + 1]
    raise ValueError(f"{output} is not a setting's output (results/reports/<setting>/...)")


def number_trials(record: dict, number: str) -> list[str]:
    """The ids of the trials a number of a setting's result record was computed from.

    number: a path into the record: pass_rate, mean_reward, headline, intervals.over_tasks,
    methods.<method>, counts.<count>, per_task.<task>, usage.cost_measures.<measure>,
    controls.<task>, excluded_by_controls.<task>. Numbers over every per-task row resolve to
    every counted trial; a measure over every attempt also to the trials the controls left out.
    ValueError names a number the record does not hold.
    """
    counted = [trial for row in record["per_task"] for trial in row["trial_ids"]]
    left_out = [trial for row in record["excluded_by_controls"] for trial in row["trial_ids"]]
    head, _, rest = number.partition(".")
    if head in ("pass_rate", "mean_reward", "headline", "intervals", "methods", "solve_rates", "counts"):
        return counted
    if head in ("per_task", "excluded_by_controls"):
        rows = {row["task"]: row["trial_ids"] for row in record[head]}
        task = rest.split(".")[0] if head == "per_task" else rest
        if task in rows:
            return rows[task]
    if head == "usage":
        measure = record["usage"]["cost_measures"].get(rest.rsplit(".", 1)[-1])
        return counted + left_out if measure and measure["trials"] == "all" else counted
    if head == "controls" and rest in ((record["controls"] or {}).get("per_task") or {}):
        entry = record["controls"]["per_task"][rest]
        return sorted({i for kind in ("oracle", "nop") if entry[kind] for i in entry[kind]["trial_ids"]})
    raise ValueError(f"{record['setting']} has no number {number!r} (see `benchreport lineage --help`)")


def trial_sources(base: Path, trial_ids: list[str]) -> dict[str, list[dict]]:
    """trial id -> the job-folder files its ingest recorded for its folder (path, sha256): in the
    lineage record of its job folder's batch, among the sources of that folder (the record's
    sources_per_job: each folder's, one after the other)."""
    folders = _ingested_folders(base)
    found = {}
    by_job: dict[str, list[tuple[str, str]]] = {}
    for trial in trial_ids:
        job, _, folder = trial.rpartition("/")
        by_job.setdefault(job, []).append((trial, folder))
    for job, trials in sorted(by_job.items()):
        batch, key = folders.get(job, (job, job))
        record_file = record_path(base / ingest_file(batch, "trials"))
        record = json.loads(record_file.read_text(encoding="utf-8")) if record_file.is_file() else {}
        sources = _job_sources(record, key)
        for trial, folder in trials:
            found[trial] = [source for source in sources if f"/{folder}/" in "/" + source["path"]]
    return found


def ingest_file(batch: str, name: str) -> str:
    """An output of a batch's ingest: trials, index, tasks or ledger, each {"jobs": {job id:
    what the job folder holds}} in the batch's order (stamps.ingest_batches)."""
    return f"results/ingest/{batch}/{name}.json"


def ingested_batches(base: str | os.PathLike) -> list[str]:
    """The batches the last run's checkpoint listed in results/ingested.json under the workflow
    folder `base`, in its order (their files: ingest_file): never a batch folder that an earlier
    plan left behind under results/ingest/."""
    return list(json.loads((Path(base) / "results" / "ingested.json").read_text(encoding="utf-8"))["batches"])


def _ingested_folders(base: Path) -> dict[str, tuple[str, str]]:
    """The job folder a trial id names (its shown id) -> (its batch, its job id), from the
    batches results/ingested.json lists and their index files; {} where they cannot be read."""
    try:
        found = {}
        for batch in ingested_batches(base):
            index = json.loads((base / ingest_file(batch, "index")).read_text(encoding="utf-8"))
            found.update({entry["job"]["id"]: (batch, key) for key, entry in index["jobs"].items()})
        return found
    except (OSError, ValueError, KeyError, TypeError, AttributeError):
        return {}


def _job_sources(record: dict, job: str) -> list[dict]:
    """The sources a batch's ingest record lists for one of its job folders."""
    sources = record.get("sources", [])
    start = 0
    for member, count in record.get("sources_per_job", {job: len(sources)}).items():
        if member == job:
            return sources[start : start + count]
        start += count
    return []


def check_number(output: str | Path, number: str) -> tuple[bool, list[str]]:
    """A number of the setting `output` belongs to, its trials, and each trial's job-folder files
    re-hashed: (every file unchanged and every trial found, lines)."""
    output = Path(output)
    base = results_dir_of(output.resolve()).parent
    setting = _setting_of(output)
    summary = base / "results" / "reports" / setting / "summary.json"
    try:
        trials = number_trials(json.loads(summary.read_text(encoding="utf-8")), number)
    except (KeyError, TypeError, AttributeError) as error:  # ValueError (not JSON, no such number) names itself
        raise ValueError(f"{summary}: not a result record of this version ({type(error).__name__}: {error})") from None
    except json.JSONDecodeError as error:
        raise ValueError(f"{summary}: not a result record ({error})") from None
    lines = [f"{number} of {setting}: {len(trials)} trials"]
    ok = bool(trials)
    for trial, sources in trial_sources(base, trials).items():
        lines.append(f"  {trial}")
        ok = ok and bool(sources)
        if not sources:
            lines.append("    NO JOB-FOLDER FILES RECORDED")
        for source in sources:
            same = bool(_unchanged(base, source))
            lines.append(f"    {'ok     ' if same else 'CHANGED'} {source['path']}")
            ok = ok and same
    return ok, lines
