"""The bundle as a Provenance Run Crate (ro-crate-metadata.json, and the crate's README.md),
made from the lineage records: an action per rule job, linked to its workflow step, the engine's
run over them and the whole run, every file with its size, sha256 and media type. The profiles it
declares (Process, Workflow and Provenance Run Crate 0.5, Workflow RO-Crate 1.0) pass
roc-validator at REQUIRED and RECOMMENDED (tests/test_rocrate.py) once bundle.code_iri says where
the workflow's code is published and bundle.agent who ran it. Without code_iri the rules' code has
local identifiers, which process-run-crate-0.5_5.1 flags as RECOMMENDED; without an agent the
crate names no one, and the RECOMMENDED checks for an author, a publisher and each action's agent
say so.

Written by hand rather than with the `rocrate` library: the crate is a few hundred lines of
plain JSON-LD from data we hold, and must be byte-identical for the same inputs.
"""

from __future__ import annotations

import itertools
import json
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from json.encoder import encode_basestring
from pathlib import PurePosixPath
from typing import TextIO

import yaml

from .. import __version__

RO_CRATE = "https://w3id.org/ro/crate/1.1"
# RO-Crate 1.1's context has no term for a checksum; sha256 is defined as the RO-Crate 1.2 context
# defines it (schema.org's sha256), so a JSON-LD reader keeps every checksum.
CONTEXT = [f"{RO_CRATE}/context", {"sha256": "http://schema.org/sha256"}]
PROFILES = {
    "process": "https://w3id.org/ro/wfrun/process/0.5",
    "workflow": "https://w3id.org/ro/wfrun/workflow/0.5",
    "provenance": "https://w3id.org/ro/wfrun/provenance/0.5",
    "wroc": "https://w3id.org/workflowhub/workflow-ro-crate/1.0",
}
BIOSCHEMAS_WORKFLOW = "https://bioschemas.org/profiles/ComputationalWorkflow/1.0-RELEASE"
WORKFLOW = "workflow-code/Snakefile"
README = "README.md"
ENGINE = "https://snakemake.github.io"
AGENT = "#agent"
PUBLISHER = "#publisher"
# a string, as the Workflow Run Crate examples and roc-validator's shapes have it
COMPLETED = "http://schema.org/CompletedActionStatus"
MEDIA_TYPES = {
    ".json": "application/json",
    ".jsonl": "application/jsonl",
    ".md": "text/markdown",
    ".csv": "text/csv",
    ".tsv": "text/tab-separated-values",
    ".tex": "text/x-tex",
    ".svg": "image/svg+xml",
    ".png": "image/png",
    ".html": "text/html",
    ".txt": "text/plain",
    ".log": "text/plain",
    ".yaml": "application/yaml",
    ".yml": "application/yaml",
    ".toml": "application/toml",
    ".py": "text/x-python",
    ".smk": "text/x-snakemake",
    ".j2": "text/x-jinja2",
    ".rst": "text/x-rst",
    ".sh": "text/x-shellscript",
    ".gz": "application/gzip",
    ".sha256": "text/plain",
    ".lock": "text/plain",
}


def base_name(name: str) -> str:
    """PurePosixPath(name).name of a bundle's clean relative path, without making the path (the
    crate names every bundled file)."""
    return name.rpartition("/")[2]


def media_type(name: str) -> str | None:
    base = base_name(name)
    if base in ("Snakefile", "Dockerfile"):
        return "text/x-snakemake" if base == "Snakefile" else "text/x-dockerfile"
    dot = base.rfind(".")  # PurePosixPath's suffix: from the last dot, if neither first nor last
    return MEDIA_TYPES.get(base[dot:].lower()) if 0 < dot < len(base) - 1 else None


def ref(ids):
    """One reference, or a list of them: RO-Crate recommends a single value over a one-item list."""
    refs = [{"@id": item} for item in ids]
    return refs[0] if len(refs) == 1 else refs


class Lazy:
    """A JSON list written as its items are made (`write_json`): the crate lists every file of
    the bundle, 700,000 of them at 100 job folders x 1,000 trials, and holding their entities at
    once took more memory than the rest of the bundle."""

    def __init__(self, items):
        self.items = items


class Refs(Lazy):
    """A Lazy of references, given by their ids: each written as the {"@id": id} it stands for,
    without making it (the crate lists every bundled file three times)."""


def refs(ids: list):
    """`ref` of these ids, written as they come when there are several."""
    return {"@id": ids[0]} if len(ids) == 1 else Refs(ids)


# Scalars through the C encoder (no indent: json's pure-Python encoder, which json.dumps uses
# with indent=, makes a cycle of closures at every call, and rule jobs run with the collector off:
# one call per entity kept ~5 KB each, gigabytes over a crate of 700,000 files).
SCALAR = json.JSONEncoder(ensure_ascii=False)


def write_json(out, value, level: int = 0) -> None:
    """Write what json.dumps(value, indent=2, ensure_ascii=False) gives, piece by piece: a Lazy
    is written as its items are made, like a list. Keys must be strings (all of the crate's are).
    A value that holds no Lazy (every entity but the root, the run and the actions with many
    inputs) is made as one string and written with others: a write per piece was slow."""
    try:
        out.write(_text(value, level))
        return
    except _HoldsLazy:
        pass  # written piece by piece below, each part that holds no Lazy at once
    if isinstance(value, dict):
        inner = "\n" + "  " * (level + 1)
        out.write("{")
        for number, (key, item) in enumerate(value.items()):
            out.write(("," if number else "") + inner + _key(key) + ": ")
            write_json(out, item, level + 1)
        out.write("\n" + "  " * level + "}")
    else:  # a list, a tuple or a Lazy
        items = iter(value.items if isinstance(value, Lazy) else value)
        first = next(items, out)  # `out` stands for none: no item can be the file itself
        if first is out:
            out.write("[]")
            return
        out.write("[")
        write_items(
            out, itertools.chain([first], items), level + 1, made=_ref_text if isinstance(value, Refs) else _text
        )
        out.write("\n" + "  " * level + "]")


CHARACTERS_A_WRITE = 1 << 16


def write_items(out, items, level: int, made=None) -> None:
    """The items of a list at `level` as write_json writes them, each after a new line and its
    indent, and a comma but before the first. Items that hold no Lazy are made as strings (by
    `made`, _text unless a Refs' ids are given) and written some together."""
    made = made or _text
    inner = "\n" + "  " * level
    texts: list[str] = []
    size = 0
    for number, item in enumerate(items):
        separator = "," + inner if number else inner
        try:
            text = separator + made(item, level)
        except _HoldsLazy:
            out.write("".join(texts) + separator)
            texts, size = [], 0
            write_json(out, item, level)
            continue
        texts.append(text)
        size += len(text)
        if size >= CHARACTERS_A_WRITE:
            out.write("".join(texts))
            texts, size = [], 0
    out.write("".join(texts))


class _HoldsLazy(Exception):
    """Raised by _text on meeting a Lazy, which it cannot make as one string without holding all
    of its items."""


_KEYS: dict[str, str] = {}  # each key's JSON text: the crate uses a few dozen, 4 million times


def _key(key) -> str:
    text = _KEYS.get(key)
    if text is None:
        if not isinstance(key, str):
            raise TypeError(f"a key of the crate is not a string: {key!r}")
        text = _KEYS[key] = SCALAR.encode(key)
    return text


def _ref_text(identifier: str, level: int) -> str:
    """_text of {"@id": identifier}."""
    return "{\n" + "  " * (level + 1) + '"@id": ' + _text(identifier, level + 1) + "\n" + "  " * level + "}"


def _text(value, level: int) -> str:
    """write_json's text of a value that holds no Lazy (else _HoldsLazy), as one string."""
    if isinstance(value, str):
        return encode_basestring(value)  # what SCALAR.encode does with a string, without its checks
    if isinstance(value, dict):
        if not value:
            return "{}"
        inner = ",\n" + "  " * (level + 1)
        items = [_key(key) + ": " + _text(item, level + 1) for key, item in value.items()]
        return "{" + inner[1:] + inner.join(items) + "\n" + "  " * level + "}"
    if isinstance(value, (list, tuple)):
        if not value:
            return "[]"
        inner = ",\n" + "  " * (level + 1)
        return "[" + inner[1:] + inner.join([_text(item, level + 1) for item in value]) + "\n" + "  " * level + "]"
    if isinstance(value, Lazy):
        raise _HoldsLazy
    return SCALAR.encode(value)


def file_entity(name: str, size: int, sha256: str) -> dict:
    entity = {
        "@id": name,
        "@type": "File",
        "name": base_name(name),
        "contentSize": str(size),
        "sha256": sha256,
    }
    kind = media_type(name)
    if kind:
        entity["encodingFormat"] = kind
    return entity


RUNNER_NOT_RECORDED = "who ran the workflow is not recorded (config bundle.agent)"


def runner_entities(agent: dict) -> tuple[dict | None, dict | None]:
    """(the Person, the Organization) who ran the workflow, from config bundle.agent: each with
    the parts of it that are set (a Person from name or id, an Organization, its affiliation,
    from affiliation or affiliation_url), and None when none is. Nothing is written in place of
    an unset part: a placeholder would stand in the crate as a person or organization, whose
    name and web address the RO-Crate checks then ask for."""
    organization = None
    if agent.get("affiliation") or agent.get("affiliation_url"):
        organization = {"@id": agent.get("affiliation_url") or PUBLISHER, "@type": "Organization"}
        organization |= {"name": agent["affiliation"]} if agent.get("affiliation") else {}
        organization |= {"url": agent["affiliation_url"]} if agent.get("affiliation_url") else {}
    person = None
    if agent.get("name") or agent.get("id"):
        person = {"@id": agent.get("id") or AGENT, "@type": "Person"}
        person |= {"name": agent["name"]} if agent.get("name") else {}
        person |= {"affiliation": {"@id": organization["@id"]}} if organization else {}
    return person, organization


def readme_for(files: Mapping[str, tuple[int, bytes]], records: Mapping[str, dict], name: str) -> bytes:
    """The crate's README.md, from the files bundled before it and the records: what the archive
    is and how to check it."""
    sources = sum(1 for arcname in files if arcname.startswith("jobs/"))
    return (
        f"# {name}\n\n"
        "benchreport results of BenchFlow agent-benchmark job folders, with the job-folder files they came\n"
        "from and the workflow code that computed them.\n\n"
        f"- `results/`: {len(records)} outputs, each with its lineage record under `results/lineage/`\n"
        f"- `jobs/`: the {sources} job-folder files the run read\n"
        "- `workflow-code/`: the workflow that ran; `config.yaml`: its configuration for a re-run\n"
        "- `environment/requirements.lock`: the Python packages it ran with\n"
        f"- `ro-crate-metadata.json`: the same as a Provenance Run Crate ({len(rule_jobs(records))} rule jobs)\n"
        "- `MANIFEST.sha256`: the sha256 of every file\n\n"
        "Check it (the manifest, then a re-run of the workflow code on the bundled files, compared byte\n"
        "for byte): `benchreport verify <this archive>`.\n"
    ).encode()


def rule_jobs(records: Mapping[str, dict]) -> list[tuple[str, dict, list[str]]]:
    """(rule, wildcards, outputs) of each rule job, in a fixed order: the outputs one job wrote
    share their rule and wildcards."""
    jobs: dict[tuple[str, str], list[str]] = {}
    for output in sorted(records):
        record = records[output]
        jobs.setdefault((record["rule"], json.dumps(record.get("wildcards", {}), sort_keys=True)), []).append(output)
    return [(rule, json.loads(wildcards), outputs) for (rule, wildcards), outputs in sorted(jobs.items())]


@dataclass
class Crate:
    """What the crate's entities are made from: the bundled files (arcname -> size, sha256
    digest), the lineage records, each rule job's action (`actions`), and who ran the workflow."""

    files: Mapping[str, tuple[int, bytes]]
    records: Mapping[str, dict]
    source_of: Callable[[str], str | None]
    date: str
    license_ref: dict
    code_iri: str | None
    person: dict | None
    publisher: dict | None
    names: list[str] = field(init=False)
    rules: list[str] = field(init=False)
    actions: list[JobAction] = field(init=False)

    def __post_init__(self):
        self.names = sorted(self.files)
        self.actions = []
        for index, (rule, wildcards, outputs) in enumerate(rule_jobs(self.records)):
            ran = [self.records[output] for output in outputs]
            label = ", ".join(f"{key}={value}" for key, value in sorted(wildcards.items()))
            started = [record["started_at"] for record in ran if record.get("started_at")]
            end = max(record["recorded_at"] for record in ran)
            self.actions.append(
                JobAction(index, rule, outputs, f"rule {rule}" + (f" ({label})" if label else ""), end, started)
            )
        self.rules = sorted({action.rule for action in self.actions})

    @property
    def main_workflow(self) -> str:
        """Where the workflow's code is published (a web-based data entity, which the crate also
        carries as WORKFLOW), else the bundled file itself."""
        return f"{self.code_iri.rstrip('/')}/{PurePosixPath(WORKFLOW).name}" if self.code_iri else WORKFLOW

    @property
    def ran_by(self) -> dict:
        """Who ran each action, where it is recorded."""
        runner = self.person or self.publisher
        return {"agent": {"@id": runner["@id"]}} if runner else {}

    def code_id(self, rule: str) -> str:
        """A rule's code: under the configured web address of the workflow's published code, else
        a local identifier (Process Run Crate 0.5 allows both; its absolute-URI recommendation
        needs the first)."""
        return f"{self.code_iri}#rule-{rule}" if self.code_iri else f"#rule-{rule}"

    def bundled(self, path: str) -> str | None:
        return path if path in self.files else self.source_of(path)


@dataclass
class JobAction:
    """What a rule job's CreateAction needs but its inputs (listed when it is written)."""

    index: int
    rule: str
    outputs: list[str]
    name: str
    end: str
    started: list[str]


def build(
    out: TextIO,
    files: Mapping[str, tuple[int, bytes]],
    records: Mapping[str, dict],
    source_of: Callable[[str], str | None],
    *,
    config: bytes,
    name: str,
    date: str,
    license_id: str,
    snakemake_version: str,
) -> None:
    """Write ro-crate-metadata.json to `out`. files: arcname -> (size, sha256 digest) of every
    bundled file but the crate metadata and the manifest; records: output arcname -> its lineage
    record (a Mapping may load them on demand); source_of: a job-folder path as recorded -> its
    arcname, or None; `config`: the bundle's config.yaml (bundle.agent, bundle.code_iri). The
    lists of every file are written as they are made: memory holds the rule jobs, not the files."""
    settings = yaml.safe_load(config).get("bundle", {})
    person, publisher = runner_entities(settings.get("agent") or {})
    crate = Crate(
        files,
        records,
        source_of,
        date,
        {"@id": f"https://spdx.org/licenses/{license_id}"},
        settings.get("code_iri"),
        person,
        publisher,
    )
    graph = itertools.chain(
        head_entities(crate, name, license_id, snakemake_version),
        file_entities(crate),
        rule_entities(crate),
        run_actions(crate, name, snakemake_version),
        job_actions(crate),
        control_actions(crate),
    )
    out.write('{\n  "@context": ' + _text(CONTEXT, 1) + ',\n  "@graph": [')
    write_items(out, graph, 2)
    out.write("\n  ]\n}\n")


def mentions(crate: Crate) -> list[str]:
    """Every action, as the root mentions it."""
    jobs = [f"#job-{action.index}" for action in crate.actions]
    return ["#run", "#engine-run", *jobs, *(f"#control-{action.index}" for action in crate.actions)]


def head_entities(crate: Crate, name: str, license_id: str, snakemake_version: str) -> list[dict]:
    """The metadata descriptor, the root dataset, the profiles, the engine, the license and who
    ran the workflow."""
    runner = crate.person or crate.publisher
    parts = crate.names if crate.main_workflow == WORKFLOW else [*crate.names, crate.main_workflow]
    return [
        {
            "@id": "ro-crate-metadata.json",
            "@type": "CreativeWork",
            "about": {"@id": "./"},
            "conformsTo": [{"@id": RO_CRATE}, {"@id": PROFILES["wroc"]}],
        },
        {
            "@id": "./",
            "@type": "Dataset",
            "name": name,
            "description": "benchreport results of BenchFlow agent-benchmark job folders, with the files they came from "
            "and the workflow that computed them" + ("" if runner else f"; {RUNNER_NOT_RECORDED}"),
            "datePublished": crate.date,
            "license": crate.license_ref,
            **({"author": {"@id": runner["@id"]}} if runner else {}),
            **({"publisher": {"@id": crate.publisher["@id"]}} if crate.publisher else {}),
            "conformsTo": [{"@id": PROFILES[kind]} for kind in ("process", "workflow", "provenance", "wroc")],
            "mainEntity": {"@id": crate.main_workflow},
            "hasPart": refs(parts),
            "mentions": ref(mentions(crate)),
        },
        {"@id": RO_CRATE, "@type": "CreativeWork", "name": "RO-Crate", "version": "1.1"},
        {"@id": PROFILES["wroc"], "@type": "CreativeWork", "name": "Workflow RO-Crate", "version": "1.0"},
        *(
            {"@id": PROFILES[kind], "@type": "CreativeWork", "name": f"{kind.title()} Run Crate", "version": "0.5"}
            for kind in ("process", "workflow", "provenance")
        ),
        {
            "@id": "#snakemake",
            "@type": "ComputerLanguage",
            "name": "Snakemake",
            "identifier": {"@id": "https://snakemake.readthedocs.io"},
            "url": {"@id": ENGINE},
            "version": snakemake_version,
        },
        {
            "@id": ENGINE,
            "@type": "SoftwareApplication",
            "name": "Snakemake",
            "url": ENGINE,
            "softwareVersion": snakemake_version,
        },
        {"@id": crate.license_ref["@id"], "@type": "CreativeWork", "name": license_id},
        *(entity for entity in (crate.person, crate.publisher) if entity),
    ]


def file_entities(crate: Crate):
    """A File entity for each bundled file; the main workflow's is also its code."""
    main_workflow = crate.main_workflow
    for arcname in crate.names:
        size, digest = crate.files[arcname]
        entity = file_entity(arcname, size, digest.hex())
        if arcname == WORKFLOW and main_workflow != WORKFLOW:
            yield {**entity, "description": f"the bundled copy of the main workflow, {main_workflow}"}
            # as published: its bytes are the bundled copy's, fetched on the date of the bundle
            entity = {**file_entity(main_workflow, size, digest.hex()), "sdDatePublished": crate.date}
        if arcname == WORKFLOW:
            entity.update(workflow_fields(crate))
        elif arcname == README:
            entity["about"] = {"@id": "./"}
        yield entity


def workflow_fields(crate: Crate) -> dict:
    """What makes the main workflow's entity a computational workflow whose steps are the rules."""
    return {
        "@type": ["File", "SoftwareSourceCode", "ComputationalWorkflow", "HowTo"],
        "name": "benchreport",
        "conformsTo": {"@id": BIOSCHEMAS_WORKFLOW},
        "programmingLanguage": {"@id": "#snakemake"},
        "version": __version__,
        "license": crate.license_ref,
        "dateCreated": crate.date,
        "url": crate.main_workflow,
        "hasPart": ref(crate.code_id(rule) for rule in crate.rules),
        "step": ref(f"#step-{rule}" for rule in crate.rules),
    }


def rule_entities(crate: Crate):
    """Each rule's code (its script and the package modules it uses) and its workflow step."""
    for position, rule in enumerate(crate.rules):
        code = next(crate.records[action.outputs[0]]["code"] for action in crate.actions if action.rule == rule)
        tool = {
            "@id": crate.code_id(rule),
            "@type": "SoftwareSourceCode",
            "name": f"rule {rule}",
            "version": code["sha256"][:12],
            "description": f"the code of rule {rule}: its script and the package modules it uses "
            "(version: the first 12 hex of their combined sha256)",
        }
        parts = [
            f"workflow-code/{path}" for path in sorted(code.get("files", {})) if f"workflow-code/{path}" in crate.files
        ]
        if parts:
            tool["hasPart"] = ref(parts)
            # the rule's script: the one file of its code outside the package and the schemas
            tool["url"] = next(
                (part for part in parts if "/benchreport/" not in part and part.endswith(".py")), parts[0]
            )
        yield tool
        yield {
            "@id": f"#step-{rule}",
            "@type": "HowToStep",
            "position": str(position),
            "workExample": {"@id": crate.code_id(rule)},
            "name": f"step {rule}",
        }


def run_actions(crate: Crate, name: str, snakemake_version: str) -> list[dict]:
    """The whole run (the job-folder files in, every output out) and the engine's run over the
    rule jobs' control actions."""
    times = {"endTime": max((action.end for action in crate.actions), default=crate.date)}
    starts = [min(action.started) for action in crate.actions if action.started]
    if starts:
        times = {"startTime": min(starts), **times}
    sources = [arcname for arcname in crate.names if arcname.startswith("jobs/")]
    run = {
        "@id": "#run",
        "@type": "CreateAction",
        "name": f"benchreport run of {name}",
        "description": "the workflow run: the job-folder files it read, the outputs it wrote",
        "instrument": {"@id": crate.main_workflow},
        **crate.ran_by,
        "actionStatus": COMPLETED,
        **times,
        "object": refs(sources),
        "result": ref(sorted(crate.records)),
    }
    engine_run = {
        "@id": "#engine-run",
        "@type": "OrganizeAction",
        "name": f"Snakemake {snakemake_version} ran benchreport",
        "description": "the workflow engine's run, which started one rule job per step action",
        "instrument": {"@id": ENGINE},
        **crate.ran_by,
        "actionStatus": COMPLETED,
        **times,
        "object": ref(f"#control-{action.index}" for action in crate.actions),
        "result": {"@id": "#run"},
    }
    return [run, engine_run]


def job_inputs(crate: Crate, outputs: list[str]) -> list[str]:
    """The bundled inputs of the rule job that wrote `outputs`, sorted."""
    inputs: dict[str, None] = {}  # a dict, not a list: an ingest job has thousands of sources
    listed = set()  # the outputs whose sources are looked up: a job's outputs share one list
    for output in outputs:
        record = crate.records[output]
        entries = record.get("inputs", [])
        owner = output if record.get("sources") else record.get("sources_as")
        if owner is not None and owner in crate.records and owner not in listed:
            listed.add(owner)
            entries = [*entries, *crate.records[owner].get("sources", [])]
        for entry in entries:
            found = crate.bundled(entry["path"])
            if found:
                inputs[found] = None
    return sorted(inputs)


def job_actions(crate: Crate):
    """One CreateAction per rule job: its inputs, its outputs, when it ran, who ran it."""
    for action in crate.actions:
        inputs = job_inputs(crate, action.outputs)
        entity = {
            "@id": f"#job-{action.index}",
            "@type": "CreateAction",
            "name": action.name,
            "description": f"rule {action.rule} made {len(action.outputs)} file(s) from {len(inputs)} input(s)",
            "instrument": {"@id": crate.code_id(action.rule)},
            **crate.ran_by,
            "actionStatus": COMPLETED,
            "endTime": action.end,
        }
        if action.started:
            entity["startTime"] = min(action.started)
        if inputs:
            entity["object"] = refs(inputs)
        entity["result"] = ref(action.outputs)
        yield entity


def control_actions(crate: Crate):
    """One ControlAction per rule job, linking its action to its workflow step."""
    for action in crate.actions:
        yield {
            "@id": f"#control-{action.index}",
            "@type": "ControlAction",
            "name": f"run {action.name}",
            "instrument": {"@id": f"#step-{action.rule}"},
            "object": {"@id": f"#job-{action.index}"},
            "actionStatus": COMPLETED,
        }
