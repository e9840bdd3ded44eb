"""Rule inspect_image: `docker image inspect` of one image reference, as a JSON record."""

import datetime
import os
import sys
from pathlib import Path

from benchreport.pipeline.lineage import start_job, write_for_rule
from benchreport.pipeline.outputs import write_json
from benchreport.read.environment import inspect_image, redacted_record, replay_record

start_job(snakemake)

params = snakemake.params
env = dict(os.environ)
if params.docker_host:
    env["DOCKER_HOST"] = params.docker_host
now = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
if params.records_from:
    # replaying a bundle: the record made when the bundle was made, not a new inspection, so its
    # lineage gives no inspection time
    replayed = Path(params.records_from, Path(snakemake.output.record).name)
    record = replay_record(params.reference, replayed)
    when = {"replayed_at": now}
else:
    when = {"inspected_at": now}
    record = inspect_image(
        params.reference,
        docker=params.docker,
        env=env,
        timeout=params.timeout,
        build_context=params.build_context,
        build_tag=params.build_tag,
    )
record = redacted_record(record)
print(f"{params.reference}: {record['status']} {record.get('reason') or ''}", file=sys.stderr)
write_json(snakemake.output.record, record)
write_for_rule(snakemake, extra=when)
