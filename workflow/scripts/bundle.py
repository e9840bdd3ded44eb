"""Rule bundle: results/bundle/<name>.tar.gz, secret-scanned, with a manifest and an RO-Crate."""

import json
import subprocess
import sys
from pathlib import Path

from benchreport import bundle, rocrate, rulejob
from benchreport.discover import root_labels
from benchreport.files import dump_json, write_text
from benchreport.lineage import WORKFLOW_DIR, closure, git_state, software_versions, write_for_rule

rulejob.start(snakemake)
params = snakemake.params
config = params.config


def progress(line):
    print(line, file=sys.stderr, flush=True)


files = bundle.every_output(list(snakemake.input), closure(list(snakemake.input)))
ingests = [
    json.loads(Path(f).read_text(encoding="utf-8"))
    for f in files
    if f.startswith("results/ingest/") and f.endswith("/trials.json")
]
used = {ingest["job"]["label"] for ingest in ingests}
roots = {
    label: root
    for root, label in root_labels([*config["job_roots"], config["controls"]["run"]["jobs_dir"]]).items()
    if label in used
}
plan, directories, extra = bundle.collect(
    name=params.name,
    results=files,
    ingests=ingests,
    roots=roots,
    config=config,
    workflow_dir=WORKFLOW_DIR,
    trajectories=params.trajectories,
    max_requests=config["ingest"]["max_requests"],
    git=git_state(WORKFLOW_DIR),
)
del ingests
progress(f"{len(plan):,} files to scan")
target = Path(snakemake.output.bundle)
target.parent.mkdir(parents=True, exist_ok=True)
entries, directories, hits = bundle.scan_and_spool(plan, directories, target.parent, progress)
if hits and params.on_secret == "fail":
    found = sorted({f"{hit['file']} ({hit['kind']})" for hit in hits})
    sys.exit("bundle refused: secrets found in " + "; ".join(found) + " (config bundle.on_secret is 'fail')")
entries.add("REDACTIONS.json", dump_json(hits).encode())
info = extra["info"] | {"redactions": len(hits)}
info["not_bundled"] = [row | {"file": entries.name_of(row["file"])} for row in info["not_bundled"]]
entries.add("BUNDLE.json", dump_json(info).encode())
# the crate names files as the bundle holds them (a secret in a file name is redacted there too)
outputs = [entries.name_of(f) for f in files]
records = {
    output: json.loads(entries[f"results/lineage/{output[len('results/') :]}.json"])
    for output in outputs
    if not output.startswith("results/lineage/") and f"results/lineage/{output[len('results/') :]}.json" in entries
}
source_map = {entries.name_of(path): entries.name_of(name) for path, name in extra["source_map"].items()}
committed = subprocess.run(
    ["git", "-C", str(WORKFLOW_DIR), "log", "-1", "--format=%cs"], capture_output=True, text=True
)
entries.add(
    "ro-crate-metadata.json",
    rocrate.build(
        entries,
        records,
        source_map,
        name=params.name,
        date=committed.stdout.strip() or "1970-01-01",
        license_id=params.license,
        snakemake_version=software_versions()["snakemake"] or "unknown",
    ),
)
del records, source_map
entries.add("MANIFEST.sha256", bundle.manifest(entries.hashes))
progress("writing the archive")
bundle.write_targz(target, params.name, entries, directories)
entries.spool.close()
write_text(snakemake.output.redactions, dump_json(hits))
progress(f"{len(entries.hashes):,} files, {len(hits)} redactions")
write_for_rule(snakemake)
