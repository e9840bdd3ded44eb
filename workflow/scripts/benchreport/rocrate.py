"""The bundle as a Provenance Run Crate (ro-crate-metadata.json, and the crate's README.md).

What a reader of the crate finds, from the lineage records: one CreateAction per rule job (its
inputs, its outputs, when it ran, who ran it), a ControlAction linking each to its workflow
step, the engine's OrganizeAction over them, and one CreateAction for the whole run (the
job-folder files in, every output out). Every action is mentioned by the root. Each file
carries its size, its sha256 and its media type. The profiles it declares (Process, Workflow and
Provenance Run Crate 0.5, Workflow RO-Crate 1.0) pass roc-validator at REQUIRED and RECOMMENDED
(tests/test_rocrate.py) but for one RECOMMENDED check: process-run-crate-0.5_5.1 wants the main
workflow's IRI to start with http, and the main workflow is a File in the crate (Workflow
RO-Crate 1.0 requires it, and roc-validator requires the file found), so validated from a folder
its IRI is file://. The engine is named by Snakemake's web address, and each rule's code by
bundle.code_iri when configured (else by a local identifier, which that check flags too).

Written by hand rather than with the `rocrate` library: the crate is a few hundred lines of
plain JSON-LD from data we hold, and must be byte-identical for the same inputs.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import PurePosixPath

import yaml

from . import __version__

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


def media_type(name: str) -> str | None:
    path = PurePosixPath(name)
    if path.name in ("Snakefile", "Dockerfile"):
        return "text/x-snakemake" if path.name == "Snakefile" else "text/x-dockerfile"
    return MEDIA_TYPES.get(path.suffix.lower())


def ref(ids):
    """One reference, or a list of them: RO-Crate recommends a single value over a one-item list."""
    refs = [{"@id": item} for item in ids]
    return refs[0] if len(refs) == 1 else refs


def file_entity(name: str, data: bytes) -> dict:
    entity = {
        "@id": name,
        "@type": "File",
        "name": PurePosixPath(name).name,
        "contentSize": str(len(data)),
        "sha256": hashlib.sha256(data).hexdigest(),
    }
    if media_type(name):
        entity["encodingFormat"] = media_type(name)
    return entity


def readme(name: str, jobs: int, outputs: int, sources: int) -> bytes:
    """The crate's README.md: what the archive is and how to check it."""
    return (
        f"# {name}\n\n"
        "benchreport results of BenchFlow agent-benchmark job folders, with the job-folder files they came\n"
        "from and the workflow code that computed them.\n\n"
        f"- `results/`: {outputs} outputs, each with its lineage record under `results/lineage/`\n"
        f"- `jobs/`: the {sources} job-folder files the run read\n"
        "- `workflow-code/`: the workflow that ran; `config.yaml`: its configuration for a re-run\n"
        "- `environment/requirements.lock`: the Python packages it ran with\n"
        f"- `ro-crate-metadata.json`: the same as a Provenance Run Crate ({jobs} rule jobs)\n"
        "- `MANIFEST.sha256`: the sha256 of every file\n\n"
        "Check it (the manifest, then a re-run of the workflow code on the bundled files, compared byte\n"
        "for byte): `benchreport verify <this archive>`.\n"
    ).encode()


def rule_jobs(records: dict[str, dict]) -> list[tuple[str, dict, list[str]]]:
    """(rule, wildcards, outputs) of each rule job, in a fixed order: the outputs one job wrote
    share their rule and wildcards."""
    jobs: dict[tuple[str, str], list[str]] = {}
    for output in sorted(records):
        record = records[output]
        jobs.setdefault((record["rule"], json.dumps(record.get("wildcards", {}), sort_keys=True)), []).append(output)
    return [(rule, json.loads(wildcards), outputs) for (rule, wildcards), outputs in sorted(jobs.items())]


def build(
    entries: dict[str, bytes],
    records: dict[str, dict],
    source_map: dict[str, str],
    *,
    name: str,
    date: str,
    license_id: str,
    snakemake_version: str,
) -> bytes:
    """entries: arcname -> bytes of every file in the bundle; records: output arcname -> its
    lineage record; source_map: job-folder path as recorded -> its arcname in the bundle. Who ran
    the workflow (the crate's author, the agent of every action, by affiliation its publisher)
    comes from the bundle's own config.yaml (bundle.agent); each unset part is "not recorded".
    Each rule's code is identified under bundle.code_iri when that is set, else locally.

    Adds the crate's README.md to `entries` and returns the metadata file's bytes."""

    def bundled(path: str) -> str | None:
        return path if path in entries else source_map.get(path)

    jobs = rule_jobs(records)
    sources = sorted(arcname for arcname in entries if arcname.startswith("jobs/"))
    entries[README] = readme(name, len(jobs), len(records), len(sources))
    files = sorted(arcname for arcname in entries if arcname != "ro-crate-metadata.json")
    rules = sorted({rule for rule, _, _ in jobs})
    license_ref = {"@id": f"https://spdx.org/licenses/{license_id}"}
    settings = yaml.safe_load(entries["config.yaml"]).get("bundle", {})
    agent = settings.get("agent") or {}
    # each rule's code: under the configured web address of the workflow's published code, else a
    # local identifier (Process Run Crate 0.5 allows both; its absolute-URI recommendation needs the first)
    code_iri = settings.get("code_iri")

    def code_id(rule: str) -> str:
        return f"{code_iri}#rule-{rule}" if code_iri else f"#rule-{rule}"

    publisher = {
        "@id": agent.get("affiliation_url") or PUBLISHER,
        "@type": "Organization",
        "name": agent.get("affiliation") or "not recorded (config bundle.agent.affiliation)",
    }
    if agent.get("affiliation_url"):
        publisher["url"] = agent["affiliation_url"]
    person = {
        "@id": agent.get("id") or AGENT,
        "@type": "Person",
        "name": agent.get("name") or "not recorded (config bundle.agent.name)",
        "affiliation": {"@id": publisher["@id"]},
    }

    job_actions, control_actions = [], []
    for index, (rule, wildcards, outputs) in enumerate(jobs):
        inputs = []
        for output in outputs:
            record = records[output]
            shared = records.get(record.get("sources_as"), {}).get("sources", [])
            for entry in [*record.get("inputs", []), *(record.get("sources") or shared)]:
                found = bundled(entry["path"])
                if found and found not in inputs:
                    inputs.append(found)
        ran = [records[output] for output in outputs]
        label = ", ".join(f"{key}={value}" for key, value in sorted(wildcards.items()))
        action = {
            "@id": f"#job-{index}",
            "@type": "CreateAction",
            "name": f"rule {rule}" + (f" ({label})" if label else ""),
            "description": f"rule {rule} made {len(outputs)} file(s) from {len(inputs)} input(s)",
            "instrument": {"@id": code_id(rule)},
            "agent": {"@id": person["@id"]},
            "actionStatus": COMPLETED,
            "endTime": max(record["recorded_at"] for record in ran),
        }
        started = [record["started_at"] for record in ran if record.get("started_at")]
        if started:
            action["startTime"] = min(started)
        if inputs:
            action["object"] = ref(sorted(inputs))
        action["result"] = ref(outputs)
        job_actions.append(action)
        control_actions.append(
            {
                "@id": f"#control-{index}",
                "@type": "ControlAction",
                "name": f"run {action['name']}",
                "instrument": {"@id": f"#step-{rule}"},
                "object": {"@id": action["@id"]},
                "actionStatus": COMPLETED,
            }
        )
    times = {"endTime": max((action["endTime"] for action in job_actions), default=date)}
    starts = [action["startTime"] for action in job_actions if "startTime" in action]
    if starts:
        times = {"startTime": min(starts), **times}
    run = {
        "@id": "#run",
        "@type": "CreateAction",
        "name": f"benchreport run of {name}",
        "description": "the workflow run: the job-folder files it read, the outputs it wrote",
        "instrument": {"@id": WORKFLOW},
        "agent": {"@id": person["@id"]},
        "actionStatus": COMPLETED,
        **times,
        "object": ref(sources),
        "result": ref(sorted(records)),
    }
    engine_run = {
        "@id": "#engine-run",
        "@type": "OrganizeAction",
        "name": f"Snakemake {snakemake_version} ran benchreport",
        "description": "the workflow engine's run, which started one rule job per step action",
        "instrument": {"@id": ENGINE},
        "agent": {"@id": person["@id"]},
        "actionStatus": COMPLETED,
        **times,
        "object": ref(action["@id"] for action in control_actions),
        "result": {"@id": "#run"},
    }
    actions = [run, engine_run, *job_actions, *control_actions]

    graph = [
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
            "and the workflow that computed them",
            "datePublished": date,
            "license": license_ref,
            "author": {"@id": person["@id"]},
            "publisher": {"@id": publisher["@id"]},
            "conformsTo": [{"@id": PROFILES[kind]} for kind in ("process", "workflow", "provenance", "wroc")],
            "mainEntity": {"@id": WORKFLOW},
            "hasPart": ref(files),
            "mentions": ref(action["@id"] for action in actions),
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
        {"@id": license_ref["@id"], "@type": "CreativeWork", "name": license_id},
        person,
        publisher,
    ]
    for arcname in files:
        entity = file_entity(arcname, entries[arcname])
        if arcname == WORKFLOW:
            entity.update(
                {
                    "@type": ["File", "SoftwareSourceCode", "ComputationalWorkflow", "HowTo"],
                    "name": "benchreport",
                    "conformsTo": {"@id": BIOSCHEMAS_WORKFLOW},
                    "programmingLanguage": {"@id": "#snakemake"},
                    "version": __version__,
                    "license": license_ref,
                    "dateCreated": date,
                    "url": WORKFLOW,
                    "hasPart": ref(code_id(rule) for rule in rules),
                    "step": ref(f"#step-{rule}" for rule in rules),
                }
            )
        elif arcname == README:
            entity["about"] = {"@id": "./"}
        graph.append(entity)
    for position, rule in enumerate(rules):
        code = next(records[output]["code"] for job_rule, _, outputs in jobs if job_rule == rule for output in outputs)
        tool = {
            "@id": code_id(rule),
            "@type": "SoftwareSourceCode",
            "name": f"rule {rule}",
            "version": code["sha256"][:12],
            "description": f"the code of rule {rule}: its script and the package modules it uses "
            "(version: the first 12 hex of their combined sha256)",
        }
        parts = [
            f"workflow-code/{path}" for path in sorted(code.get("files", {})) if f"workflow-code/{path}" in entries
        ]
        if parts:
            tool["hasPart"] = ref(parts)
            # the rule's script: the one file of its code outside the package and the schemas
            tool["url"] = next(
                (part for part in parts if "/benchreport/" not in part and part.endswith(".py")), parts[0]
            )
        graph.append(tool)
        graph.append(
            {
                "@id": f"#step-{rule}",
                "@type": "HowToStep",
                "position": str(position),
                "workExample": {"@id": code_id(rule)},
                "name": f"step {rule}",
            }
        )
    graph += actions
    crate = {"@context": CONTEXT, "@graph": graph}
    return (json.dumps(crate, indent=2, ensure_ascii=False) + "\n").encode()
