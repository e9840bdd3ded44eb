"""The attempts reached twice: an attempt folder found in two places (overlapping roots, a link to
a root, a copy of a job folder or of an attempt folder, however renamed or re-encoded) is told
apart by what its record names (identity.py), so that ingest counts it once and the ledger names
where.
"""

from __future__ import annotations

import json
import os
from collections import Counter

from ..pipeline.outputs import loads_written
from .discover import JobFolder, linked_away
from .files import BadFile, locate, parse_json_bytes, read_whole, sha256_bytes
from .identity import RECORD_FILES, attempt_identity, differing_fields, recorded_text, same_content

# How the ledger reason of an attempt seen a second time ends: the overview counts those apart.
COUNTED_THERE = "counted once, there"


def _loaded(data: bytes):
    """The JSON value of a record's bytes, as json reads them (faster: outputs.loads_written), or
    from the text of a file saved with a byte-order mark or as UTF-16 (json.loads finds its
    encoding): such a copy names its attempt as the original does. None when they are not JSON."""
    for decode in (loads_written, json.loads):
        try:
            return decode(data)
        except (ValueError, RecursionError):
            continue
    return None


def attempt_record(job_dir: str, root_real: str, name: str, state: dict) -> list | None:
    """[relpath, sha256 (16 hex), identity as JSON text] of the file that records an attempt
    folder (the first of identity.RECORD_FILES whose stat `state` holds): the identity as
    attempt_identity gives it, None when the file is not a JSON object or records neither rollout
    name nor start; its config.json is read too where the record lacks the start or the task.
    None for a folder with no such file. The bytes decode as json does, faster
    (outputs.loads_written); `duplicates` reads strictly, as ingest does, the few it compares."""
    relpath = next((f"{name}/{file}" for file in RECORD_FILES if len(state.get(f"{name}/{file}") or ()) == 2), None)
    if relpath is None:
        return None
    try:
        data = read_whole(locate(job_dir, relpath, root_real)[0])
    except (BadFile, OSError):
        return [relpath, None, None]
    record = _loaded(data)
    if not isinstance(record, dict):
        return [relpath, sha256_bytes(data)[:16], None]
    config = {}
    lacking = recorded_text(record.get("started_at")) is None or not (
        recorded_text(record.get("task_name")) or recorded_text(record.get("task_id"))
    )
    if lacking and relpath != f"{name}/config.json" and len(state.get(f"{name}/config.json") or ()) == 2:
        try:
            config = _loaded(read_whole(locate(job_dir, f"{name}/config.json", root_real)[0]))
        except (BadFile, OSError):
            pass
    identity = attempt_identity(record, config if isinstance(config, dict) else {}, name)
    return [relpath, sha256_bytes(data)[:16], identity and json.dumps(identity)]


def attempt_records(job: JobFolder, folders: dict, now: dict, files_before: dict | None, before: dict | None) -> dict:
    """attempt folder -> its attempt_record, what `duplicates` compares: kept from the last parse
    (`before`, with the stats it was read at, `files_before`) where no file it may read moved,
    else read. A first parse reads every record; later ones, the records that changed."""
    files_before, before = files_before or {}, before if isinstance(before, dict) else {}
    job_dir, root_real = str(job.path), os.path.realpath(job.root)
    found = {}
    for name in folders:
        paths = [f"{name}/{file}" for file in RECORD_FILES]
        if name in before and all(files_before.get(path) == now.get(path) for path in paths):
            record = before[name]
        else:
            record = attempt_record(job_dir, root_real, name, now)
        if record is not None:
            found[name] = record
    return found


def _preference(job: JobFolder, roots: list[str]) -> tuple:
    """Which of two places of one attempt counts it: the first root listed, then the shorter path
    under it (the original rather than `A (copy)`), then the path."""
    return (roots.index(job.root) if job.root in roots else len(roots), len(job.relpath), job.relpath)


def find(jobs: list[JobFolder], roots: list[str], records: dict[str, dict]) -> dict[str, dict[str, str]]:
    """job id -> {attempt folder, or "" for the whole job folder: why it is not counted there},
    for the job folders that hold such places.

    The same folder is the same real path after resolving links (overlapping roots, a root and a
    link to it). An attempt seen twice is two attempt folders, in one job folder or two, whose
    records (`records`: attempt_records) name one rollout, task and started_at, however the
    folders are named and the files written: it is counted at one of them (the folder named as
    its rollout, then the preferred job folder: _preference) and the others say where. Sightings
    whose records hold other values (a reward edited in one copy) are none of them counted, each
    saying where the others are and which fields differ: which is right cannot be told. A record
    that names neither rollout nor start is another's sighting only by the same bytes.
    """
    found: dict[str, dict[str, str]] = {}
    ordered = sorted((job for job in jobs if not linked_away(job)), key=lambda job: _preference(job, roots))
    first_at: dict[str, JobFolder] = {}
    for job in ordered:
        real = os.path.realpath(job.path)
        if real in first_at:
            found[job.job_id] = {
                "": f"the same folder as {first_at[real].name} (one real folder reached twice, "
                f"through overlapping job_roots or a link); {COUNTED_THERE}"
            }
        else:
            first_at[real] = job
    # Only an identity found twice is a second sighting. Those first, by set operations over each
    # folder's identities, then the places of those alone, rather than every attempt's place.
    held: list[tuple[JobFolder, dict, set[str]]] = []
    seen: set[str] = set()
    twice: set[str] = set()
    for job in ordered:
        if job.job_id in found:
            continue
        mine = records.get(job.job_id, {})
        keys = [identity or sha for _, sha, identity in mine.values() if sha is not None]
        distinct = set(keys)
        if len(distinct) < len(keys):  # one attempt twice in this job folder
            twice.update(key for key, number in Counter(keys).items() if number > 1)
        twice.update(distinct & seen)
        seen.update(distinct)
        held.append((job, mine, distinct))
    sightings: dict[str, list[tuple]] = {}
    for job, mine, distinct in held:
        if not distinct.isdisjoint(twice):
            for folder, (relpath, sha, identity) in mine.items():
                if sha is not None and (identity or sha) in twice:
                    sightings.setdefault(identity or sha, []).append((job, folder, relpath, sha))
    for key, places in sightings.items():
        identity = json.loads(key) if key.startswith("[") else None
        rollout = identity[0] if identity else None
        places.sort(key=lambda place: (place[1] != rollout, _preference(place[0], roots), place[1]))
        for job, folder, reason in _sightings(places, identity):
            found.setdefault(job.job_id, {})[folder] = reason
    return found


def _place(job: JobFolder, folder: str, seen_from: JobFolder) -> str:
    """An attempt folder as a ledger row of `seen_from` names it: by its name within the same job
    folder, else with its job folder's."""
    return folder if job.job_id == seen_from.job_id else f"{job.name}/{folder}"


def _record_value(job: JobFolder, relpath: str) -> tuple[dict | None, bool]:
    """(the values of an attempt's record, whether ingest reads it as it is): read strictly, as
    ingest reads it; else, for a file saved with a byte-order mark or as UTF-16 (as Windows tools
    save text), the same strict reading of its text, which ingest refuses. (None, False) for a
    record no reading makes a JSON object of (ingest says why)."""
    try:
        data = read_whole(locate(str(job.path), relpath, os.path.realpath(job.root))[0])
    except (BadFile, OSError):
        return None, False
    for readable, text in ((True, data), (False, None)):
        try:
            if text is None:
                text = data.decode(json.detect_encoding(data)).encode()
            value = parse_json_bytes(text, relpath)
        except (BadFile, UnicodeError):
            continue
        return (value, readable) if isinstance(value, dict) else (None, False)
    return None, False


def _sightings(places: list[tuple], identity: list | None) -> list[tuple[JobFolder, str, str]]:
    """(job folder, attempt folder, why it is not counted) of every place but the one that counts
    one attempt seen at `places` (in order of preference), or of every place when their records
    disagree. Records of the same bytes are the same; others are read strictly (_record_value) and
    compared by their values, and the attempt is counted at the first place whose record ingest
    reads as it is (one it cannot read is its own ledger row there)."""
    said = "its rollout name, task and started_at" if identity else "no rollout name or start recorded"
    if len({sha for *_, sha in places}) == 1:
        kept, how = places[0], "and the same bytes"
    else:
        values, readable = {}, []
        for place in places:
            value, as_it_is = _record_value(place[0], place[2])
            if value is not None:
                values[place[0].job_id, place[1]] = value
                readable += [place] if as_it_is else []
        places = [place for place in places if (place[0].job_id, place[1]) in values]
        if not readable:
            return []
        if not same_content(list(values.values())):
            assert identity is not None, "places keyed by their bytes alone hold the same bytes"
            return _disagreeing(places, values, identity)
        kept, how = readable[0], "and the same values, written differently"
    kept_job, kept_folder = kept[0], kept[1]
    return [
        (job, folder, f"the same attempt as {_place(kept_job, kept_folder, job)} ({said}, {how}); {COUNTED_THERE}")
        for job, folder, *_ in places
        if (job, folder) != (kept_job, kept_folder)
    ]


def _disagreeing(places: list[tuple], values: dict, identity: list) -> list[tuple[JobFolder, str, str]]:
    """Why each sighting of one attempt whose records disagree is not counted."""
    rollout, task, started = identity
    fields = ", ".join(differing_fields(list(values.values())))
    found = []
    for job, folder, relpath, _ in places:
        others = [
            _place(other, other_folder, job)
            for other, other_folder, *_ in places
            if (other, other_folder) != (job, folder)
        ]
        listed = ", ".join(others[:3]) + (f" and {len(others) - 3} more" if len(others) > 3 else "")
        found.append(
            (
                job,
                folder,
                f"the attempt {rollout or 'with no rollout name'} (task {task}, started_at {started or 'not recorded'}) "
                f"is recorded also at {listed}, whose {relpath.split('/')[-1]} differs in {fields}: which is right "
                "cannot be told, so none is counted",
            )
        )
    return found
