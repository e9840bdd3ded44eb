"""Rule bundle: results/bundle/<name>.tar.gz, secret-scanned, with a manifest and an RO-Crate."""

import io
import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from benchreport.archive import bundle, rocrate
from benchreport.pipeline.lineage import WORKFLOW_DIR, closure, git_state, software_versions, start_job, write_for_rule
from benchreport.pipeline.outputs import dump_json, write_json
from benchreport.read.discover import root_labels

start_job(snakemake)
STARTED = time.monotonic()
params = snakemake.params
config = params.config


def progress(line):
    """A step of the bundle in its log, with the seconds since the job started."""
    print(f"{time.monotonic() - STARTED:6.1f} s  {line}", file=sys.stderr, flush=True)


files = bundle.every_output(closure(list(snakemake.input)))
# only each ingest's job, from its batch's index.json (the same job as in trials.json, without the trial rows)
ingests = [
    {"job": index["job"]}
    for f in files
    if f.startswith("results/ingest/") and f.endswith("/index.json")
    for index in json.loads(Path(f).read_text(encoding="utf-8"))["jobs"].values()
]
roots = {
    label: root for root, label in root_labels([*config["job_roots"], config["controls"]["run"]["jobs_dir"]]).items()
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
    git=git_state(),
)
del ingests
progress(f"{len(plan):,} files to scan")
target = Path(snakemake.output.bundle)
target.parent.mkdir(parents=True, exist_ok=True)
found = bundle.scan(plan, directories, target.parent, progress)
progress(f"first pass done: {len(found.values)} secret values")
# written under another name and moved into place when whole; refused (on_secret: fail), removed
partial = target.with_name(target.name + ".partial")
# kept to be read again: the lineage records (the RO-Crate's actions) and config.yaml (its agent)
kept = lambda name: name.startswith("results/lineage/") or name == "config.yaml"  # noqa: E731
archive = bundle.Archive(partial, params.name, target.parent, keep=kept)
hits = bundle.sort_hits(found.name_hits + bundle.write_members(archive, plan, found, progress))
found.raw.close()
progress("second pass done")
del plan
if hits and params.on_secret == "fail":
    archive.close()
    partial.unlink()
    named = sorted({f"{hit['file']} ({hit['kind']})" for hit in hits})
    sys.exit("bundle refused: secrets found in " + "; ".join(named) + " (config bundle.on_secret is 'fail')")
# the crate names files as the bundle holds them (a secret in a file name is redacted there too)
records = bundle.Records(archive, [found.name_of(f) for f in files])
job_dirs = {found.name_of(path): found.name_of(base) for path, base in extra["job_dirs"].items()}
archive.add("README.md", rocrate.readme_for(archive.files, records, params.name))
archive.add("REDACTIONS.json", dump_json(hits).encode())
info = extra["info"] | {"redactions": len(hits)}
info["not_bundled"] = [row | {"file": found.name_of(row["file"])} for row in info["not_bundled"]]
archive.add("BUNDLE.json", dump_json(info).encode())
committed = subprocess.run(
    ["git", "-C", str(WORKFLOW_DIR), "log", "-1", "--format=%cs"], capture_output=True, text=True
)
progress("writing the RO-Crate")
with tempfile.TemporaryFile(dir=target.parent) as crate:
    text = io.TextIOWrapper(crate, encoding="utf-8", newline="")  # newline="": the bytes as written
    rocrate.build(
        text,
        archive.files,
        records,
        bundle.source_of(job_dirs, archive.files),
        config=archive.read("config.yaml"),
        name=params.name,
        date=committed.stdout.strip() or "1970-01-01",
        license_id=params.license,
        snakemake_version=software_versions()["snakemake"] or "unknown",
    )
    text.flush()
    archive.add_file("ro-crate-metadata.json", crate)
    text.detach()
with tempfile.TemporaryFile(dir=target.parent) as listing:
    bundle.write_manifest(listing, archive.files)
    archive.add_file("MANIFEST.sha256", listing)
count = len(archive.files)
archive.close()
partial.replace(target)
write_json(snakemake.output.redactions, hits)
progress(f"{count:,} files, {len(hits)} redactions")
write_for_rule(snakemake)
