"""Which version of the benchmark a setting ran.

In order of preference: `dataset_name@dataset_version` (a `bench eval run -d name@version`
run records both in config.json, result.json and summary.json), else the git commit (or
Hugging Face revision) of the tasks from the recorded source provenance (`source.resolved_sha`,
`source.resolved_revision`), else a value given in the workflow's config, else "not recorded".
Beside it, the number of distinct task digests: the digest covers every file of a task, so it
is what tells two runs of "the same" task apart when nothing else is recorded.
"""

from __future__ import annotations

from collections import Counter, defaultdict

NOT_RECORDED = "not recorded"


def text_or_none(value) -> str | None:
    """A non-blank string, stripped; None for anything else."""
    return value.strip() if isinstance(value, str) and value.strip() else None


def as_dict(value) -> dict:
    """The value when it is a JSON object, else an empty one."""
    return value if isinstance(value, dict) else {}


_text, _dict = text_or_none, as_dict


def source_ref(block) -> dict | None:
    """The task source provenance reduced to what names a version: kind, repo, commit."""
    block = _dict(block)
    if not block:
        return None
    commit = _text(block.get("resolved_sha")) or _text(block.get("resolved_revision"))
    kind = _text(block.get("type")) or (
        "huggingface" if block.get("repo_type") or block.get("resolved_revision") else "git"
    )
    return {
        "kind": kind,
        "repo": _text(block.get("repo")),
        "commit": commit,
        "requested_ref": _text(block.get("requested_ref")) or _text(block.get("requested_revision")),
        "path": _text(block.get("path")),
        "dirty": block.get("dirty") if isinstance(block.get("dirty"), bool) else None,
    }


def trial_provenance(result, config=None) -> dict:
    """Dataset, source provenance and task digest of one attempt (result.json first)."""
    result, config = _dict(result), _dict(config)

    def pick(key):
        return _text(result.get(key)) or _text(config.get(key))

    return {
        "dataset_name": pick("dataset_name"),
        "dataset_version": pick("dataset_version"),
        "source": source_ref(result.get("source") or config.get("source")),
        "task_digest": pick("task_digest"),
    }


def job_provenance(summary) -> dict:
    """The same from a job's summary.json, plus the tasks whose provenance did not match."""
    summary = _dict(summary)
    mismatch = summary.get("source_mismatch_tasks")
    return {
        "dataset_name": _text(summary.get("dataset_name")),
        "dataset_version": _text(summary.get("dataset_version")),
        "source": source_ref(summary.get("source")),
        "source_mismatch_tasks": sorted(str(task) for task in mismatch) if isinstance(mismatch, list) else [],
    }


def _dataset_of(record: dict) -> str | None:
    name, version = record.get("dataset_name"), record.get("dataset_version")
    if not name:
        return None
    return f"{name}@{version}" if version else name


def _commit_of(source) -> str | None:
    if not source or not source.get("commit"):
        return None
    return f"{source.get('repo') or 'unnamed repository'}@{source['commit']}"


def _short(commit_value: str) -> str:
    repo, _, commit = commit_value.rpartition("@")
    return f"{repo}@{commit[:12]}"


def benchmark_version(trials: list[dict], jobs=(), config_value: str | None = None) -> dict:
    """The benchmark version of a setting, how it was found, and its distinct task digests.

    `trials`: the setting's trial rows (task, and `provenance` from `trial_provenance`). `jobs`: `job_provenance` of its job folders. `config_value`: what the
    workflow's config says the benchmark is, used only when the job folders record nothing.
    """
    records = [(trial["task"], trial["provenance"]) for trial in trials]
    jobs = [job for job in jobs if job]
    datasets = Counter(_dataset_of(record) for _, record in records)
    commits = Counter(_commit_of(record.get("source")) for _, record in records)
    # a job's summary.json may record what its trials do not
    job_datasets = {value for value in map(_dataset_of, jobs) if value is not None}
    job_commits = {value for value in (_commit_of(job.get("source")) for job in jobs) if value is not None}
    dirty = any((record.get("source") or {}).get("dirty") for _, record in records) or any(
        (job.get("source") or {}).get("dirty") for job in jobs
    )
    found_datasets = sorted(value for value in datasets if value is not None) or sorted(job_datasets)
    found_commits = sorted(value for value in commits if value is not None) or sorted(job_commits)
    if found_datasets:
        # trials without the value count only when other trials record it themselves
        basis, values, text = "dataset", found_datasets, ", ".join(found_datasets)
        without = datasets.get(None, 0) if set(datasets) - {None} else 0
    elif found_commits:
        basis, values, text = "git commit of the tasks", found_commits, ", ".join(_short(v) for v in found_commits)
        without = commits.get(None, 0) if set(commits) - {None} else 0
    elif configured := _text(config_value):
        basis, values, without, text = "config", [configured], 0, configured
    else:
        basis, values, without, text = NOT_RECORDED, [], 0, NOT_RECORDED
    digests_by_task: defaultdict[str, set[str]] = defaultdict(set)
    no_digest = 0
    for task, record in records:
        if record.get("task_digest"):
            digests_by_task[task].add(record["task_digest"])
        else:
            no_digest += 1
    digests = {digest for found in digests_by_task.values() for digest in found}
    tasks = {task for task, _ in records}
    result = {
        "text": text,
        "basis": basis,
        "values": values,
        "mixed": len(values) > 1,
        "trials_without_value": without,
        "dirty": bool(dirty),
        "config_value": _text(config_value),
        "tasks": len(tasks),
        "task_digests": len(digests),
        "trials_without_digest": no_digest,
        "tasks_with_several_digests": sorted(task for task, found in digests_by_task.items() if len(found) > 1),
        "source_mismatch_tasks": sorted({task for job in jobs for task in job.get("source_mismatch_tasks", [])}),
    }
    result["conditions"] = conditions_text(result)
    return result


def conditions_text(version: dict) -> str:
    """The benchmark part of the report's conditions line."""
    if version["basis"] == "dataset":
        head = f"benchmark {version['text']} (dataset@version)"
    elif version["basis"] == "git commit of the tasks":
        head = f"benchmark tasks at {version['text']} (git commit of the task source)"
    elif version["basis"] == "config":
        head = f"benchmark {version['text']} (from the workflow config; the job folders record no version)"
    else:
        head = "benchmark version not recorded"
    if version["mixed"]:
        head += ", MIXED versions"
    if version["dirty"]:
        head += ", from a task tree with uncommitted changes"
    digests = f"{version['task_digests']} distinct task digest{'s' if version['task_digests'] != 1 else ''}"
    tail = f"{digests} over {version['tasks']} task{'s' if version['tasks'] != 1 else ''}"
    if version["trials_without_digest"]:
        tail += f" ({version['trials_without_digest']} trials record no digest)"
    return f"{head}; {tail}"
