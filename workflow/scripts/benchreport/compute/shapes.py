"""The shape at which a headline's coverage is measured, and which shape each setting needs.

A shape is the run's tries per task as a profile: how many tasks were tried how often. The
workflow must know each setting's shape before its stats job runs (to name the coverage file that
job reads), so it plans it here from the ingests' index.json (`index_counts`, written by ingest
per job folder), and the stats job checks that the task rows it counted have that shape
(`stats.headline_interval`). Both the counts and the verdicts of the controls come from this
module and `verdicts.version_verdict`, the rule the stats stage applies.

Pure Python (no numpy), since the workflow imports it at parse time.
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict

from .verdicts import POLICY, SCORED, version_verdict, worst

# A run with more distinct numbers of tries than this is measured at a coarser profile: its tasks
# in order of tries, cut into this many groups of (nearly) equal size, each at its median.
MAX_GROUPS = 8
NAME = re.compile(r"[1-9][0-9]*x[1-9][0-9]*(?:\+[1-9][0-9]*x[1-9][0-9]*)*")


def tries_profile(tries_per_task) -> tuple[tuple[int, int], ...]:
    """((tries, tasks), …) in increasing tries: how many tasks were tried how often."""
    tries = sorted(int(value) for value in tries_per_task)
    if any(value < 1 for value in tries):
        raise ValueError("every task needs at least one try")
    if len(set(tries)) > MAX_GROUPS:
        size, extra = divmod(len(tries), MAX_GROUPS)
        coarse, start = [], 0
        for group in range(MAX_GROUPS):
            end = start + size + (group < extra)
            chunk = tries[start:end]
            coarse += [chunk[(len(chunk) - 1) // 2]] * len(chunk)
            start = end
        tries = coarse
    return tuple(sorted(Counter(tries).items()))


def shape_name(profile) -> str:
    """'10x3' (10 tasks × 3 tries), or '4x3+6x4' with unequal tries: the coverage file's name."""
    return "+".join(f"{count}x{tries}" for tries, count in profile)


def parse_shape(name: str) -> tuple[tuple[int, int], ...]:
    if not NAME.fullmatch(name):
        raise ValueError(f"not a coverage shape: {name!r} (expected e.g. 10x3 or 4x3+6x4)")
    groups = [part.split("x") for part in name.split("+")]
    return tuple(sorted((int(tries), int(count)) for count, tries in groups))


def coverage_file(profile) -> str:
    """Where rule coverage_design writes the design at a profile."""
    return f"results/coverage/{shape_name(profile)}.json"


# --- planning: which shape a setting's headline needs ---


# task -> task version -> [finished, passed, scored] trials
VersionCounts = defaultdict[str, defaultdict[str, list[int]]]


def _no_counts() -> VersionCounts:
    return defaultdict(lambda: defaultdict(lambda: [0, 0, 0]))


def index_counts(trials) -> dict:
    """Per task, per task version (digest, "" when none is recorded): [finished, passed, scored]
    trials (interrupted ones are not finished): what `planned_profile` needs of a setting's
    trials, in JSON form (ingest.settings_index writes it per job folder)."""
    counts = _no_counts()
    for trial in trials:
        if trial["outcome"] == "interrupted":
            continue
        cell = counts[trial["task"]][trial["task_digest"] or ""]
        cell[0] += 1
        cell[1] += trial["outcome"] == "passed"
        cell[2] += trial["outcome"] in SCORED
    return {task: dict(sorted(versions.items())) for task, versions in sorted(counts.items())}


def _merged(setting: str, indexes: list[dict]):
    """(the setting's control kind, its counts, control kind -> its counts), summed over the
    index.json of the job folders (a trial is in one of them only)."""

    def add(into, counts):
        for task, versions in counts.items():
            for digest, cell in versions.items():
                total = into[task][digest]
                for position, value in enumerate(cell):
                    total[position] += value

    kind, mine = None, _no_counts()
    controls: defaultdict[str, VersionCounts] = defaultdict(_no_counts)
    for index in indexes:
        for other, entry in index["settings"].items():
            if other == setting:
                kind = entry["key"]["control"]
                add(mine, entry["counts"])
            if entry["key"]["control"]:
                add(controls[entry["key"]["control"]], entry["counts"])
    return kind, mine, controls


def _control_cell(counts, task: str, digest: str) -> dict | None:
    """One control kind's trials on one version of a task (every version when the agent's
    trials record none), as `verdicts.version_verdict` reads them."""
    cells = [cell for version, cell in counts.get(task, {}).items() if not digest or version == digest]
    if not cells:
        return None
    trials, passed, scored = (sum(cell[position] for cell in cells) for position in range(3))
    return {"trials": trials, "passed": passed, "scored": scored, "errored": trials - scored}


def task_verdict(task: str, digests, controls) -> str:
    """The worst verdict of the controls over the versions of a task the agent ran on, as
    `stats.control_summary` gives it."""
    oracle, nop = controls.get("oracle", {}), controls.get("nop", {})
    return worst({version_verdict(_control_cell(oracle, task, d), _control_cell(nop, task, d))[0] for d in digests})


def planned_profile(setting: str, indexes: list[dict], policy: dict) -> tuple[tuple[int, int], ...] | None:
    """The tries profile of a setting's headline, or None (no task scored), from the index.json
    of the ingests its stats job reads: its tasks with a finished trial, less those its controls
    leave out under `policy` (config controls.on_failure / on_unverified: "exclude" leaves a task
    whose controls fail / are not verified out), each with its number of finished trials."""
    kind, mine, controls = _merged(setting, indexes)
    excluded = {verdict for verdict, key in POLICY.items() if policy[key] == "exclude"}
    tries = []
    for task, versions in mine.items():
        finished = sum(cell[0] for cell in versions.values())
        if not finished:
            continue
        digests = [digest for digest, cell in versions.items() if cell[0]]
        if not kind and excluded and task_verdict(task, digests, controls) in excluded:
            continue
        tries.append(finished)
    return tries_profile(tries) if tries else None


def memory_mb(shape: str, threads: int = 1) -> int:
    """Rule coverage_design's mem_mb at a shape (its file name): ~300 MB of interpreter and numpy,
    work blocks of bounded size (coverage_design.BLOCK_ELEMENTS, CONVOLUTION_ELEMENTS) per thread, and
    one Monte-Carlo batch (about six float64 arrays of coverage_design.MC_BATCH runs x tasks)."""
    tasks = sum(count for _, count in parse_shape(shape))
    return 300 + threads * (200 + 6 * 500 * tasks * 8 // 2**20)
