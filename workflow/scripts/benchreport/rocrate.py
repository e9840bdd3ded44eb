"""The bundle's lineage as a Workflow Run RO-Crate (ro-crate-metadata.json).

One CreateAction for the run (the workflow, the job-folder files it read, the outputs it wrote)
and one per rule job, from the lineage records: each links the output to the inputs it was
computed from, and the rule that did it (Provenance Run Crate style, with ControlActions).
"""

from __future__ import annotations

import hashlib
import json

PROFILES = {
    "process": "https://w3id.org/ro/wfrun/process/0.5",
    "workflow": "https://w3id.org/ro/wfrun/workflow/0.5",
    "provenance": "https://w3id.org/ro/wfrun/provenance/0.5",
    "wroc": "https://w3id.org/workflowhub/workflow-ro-crate/1.0",
}
WORKFLOW = "workflow-code/Snakefile"


def _file(name: str, data: bytes) -> dict:
    return {"@id": name, "@type": "File", "name": name.rsplit("/", 1)[-1], "contentSize": str(len(data)),
            "sha256": hashlib.sha256(data).hexdigest()}


def build(entries: dict[str, bytes], records: dict[str, dict], source_map: dict[str, str], *,
          name: str, date: str, license_id: str, snakemake_version: str) -> bytes:
    """entries: arcname -> bytes of every file in the bundle; records: output arcname -> its
    lineage record; source_map: job-folder path as recorded -> its arcname in the bundle."""
    def bundled(path: str) -> str | None:
        return path if path in entries else source_map.get(path)

    graph = [
        {"@id": "ro-crate-metadata.json", "@type": "CreativeWork", "about": {"@id": "./"},
         "conformsTo": [{"@id": "https://w3id.org/ro/crate/1.1"}, {"@id": PROFILES["wroc"]}]},
        {"@id": "https://w3id.org/ro/crate/1.1", "@type": "CreativeWork", "name": "RO-Crate 1.1"},
        {"@id": PROFILES["wroc"], "@type": "CreativeWork", "name": "Workflow RO-Crate", "version": "1.0"},
        {"@id": "#snakemake", "@type": "ComputerLanguage", "name": "Snakemake", "identifier": {"@id": "https://snakemake.readthedocs.io"},
         "url": {"@id": "https://snakemake.github.io"}, "version": snakemake_version},
        {"@id": f"https://spdx.org/licenses/{license_id}", "@type": "CreativeWork", "name": license_id},
    ]
    for kind in ("process", "workflow", "provenance"):
        graph.append({"@id": PROFILES[kind], "@type": "CreativeWork", "name": f"{kind.title()} Run Crate", "version": "0.5"})
    files = sorted(name_ for name_ in entries if name_ != "ro-crate-metadata.json")
    rules = sorted({record["rule"] for record in records.values()})
    job_inputs = sorted(name_ for name_ in files if name_.startswith("jobs/"))
    outputs = sorted(records)
    graph.append({
        "@id": "./", "@type": "Dataset", "name": name, "description":
        "benchreport results of BenchFlow agent-benchmark job folders, with the files they came from "
        "and the workflow that computed them",
        "datePublished": date, "license": {"@id": f"https://spdx.org/licenses/{license_id}"},
        "conformsTo": [{"@id": PROFILES[kind]} for kind in ("process", "workflow", "provenance", "wroc")],
        "mainEntity": {"@id": WORKFLOW},
        "hasPart": [{"@id": f} for f in files],
        "mentions": [{"@id": "#run"}],
    })
    for f in files:
        entity = _file(f, entries[f])
        if f == WORKFLOW:
            entity["@type"] = ["File", "SoftwareSourceCode", "ComputationalWorkflow", "HowTo"]
            entity["programmingLanguage"] = {"@id": "#snakemake"}
            entity["name"] = "benchreport"
            entity["hasPart"] = [{"@id": f"#rule-{rule}"} for rule in rules]
            entity["step"] = [{"@id": f"#step-{rule}"} for rule in rules]
        graph.append(entity)
    for position, rule in enumerate(rules):
        graph.append({"@id": f"#rule-{rule}", "@type": "SoftwareApplication", "name": f"rule {rule}"})
        graph.append({"@id": f"#step-{rule}", "@type": "HowToStep", "position": str(position),
                      "workExample": {"@id": f"#rule-{rule}"}, "name": f"step {rule}"})
    graph.append({"@id": "#run", "@type": "CreateAction", "name": f"benchreport run of {name}",
                  "instrument": {"@id": WORKFLOW}, "object": [{"@id": f} for f in job_inputs],
                  "result": [{"@id": f} for f in outputs]})
    for output in outputs:
        record = records[output]
        used = []
        sources = record.get("sources") or records.get(record.get("sources_as"), {}).get("sources", [])
        for entry in [*record.get("inputs", []), *sources]:
            found = bundled(entry["path"])
            if found:
                used.append({"@id": found})
        action = f"#action-{output}"
        graph.append({"@id": action, "@type": "CreateAction", "name": f"rule {record['rule']} made {output}",
                      "instrument": {"@id": f"#rule-{record['rule']}"}, "object": used, "result": [{"@id": output}]})
        graph.append({"@id": f"#control-{output}", "@type": "ControlAction", "name": f"run rule {record['rule']}",
                      "instrument": {"@id": f"#step-{record['rule']}"}, "object": {"@id": action}})
    crate = {"@context": "https://w3id.org/ro/crate/1.1/context", "@graph": graph}
    return (json.dumps(crate, indent=2, ensure_ascii=False) + "\n").encode()
