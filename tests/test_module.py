"""The workflow as a module of someone else's (what `snakedeploy deploy-workflow` writes): a
Snakefile in another folder that includes it with `module` and `use rule *`, with its own config.
The dry run plans the ingest of every job folder; a wrong base directory (the package looked up
beside the user's Snakefile) fails at parse time with ModuleNotFoundError."""

from __future__ import annotations

import re
import subprocess
import sys

import yaml
from conftest import EXAMPLE, copy_workflow

DEPLOYED = """\
configfile: "config/config.yaml"


module benchreport:
    snakefile:
        "{snakefile}"
    config:
        config


use rule * from benchreport
"""


def test_deployed_as_a_module_in_another_folder_dry_runs(tmp_path):
    module = copy_workflow(tmp_path / "benchreport")
    deployment = tmp_path / "analysis"
    (deployment / "config").mkdir(parents=True)
    config = yaml.safe_load((module.path / "config" / "config.yaml").read_text())
    config["job_roots"] = [str(EXAMPLE / "benchflow-real-jobs")]
    (deployment / "config" / "config.yaml").write_text(yaml.safe_dump(config))
    (deployment / "Snakefile").write_text(DEPLOYED.format(snakefile=module.path / "workflow" / "Snakefile"))
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--dry-run", "--cores", "1"],
        cwd=deployment,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    planned = dict(re.findall(r"^(\w+)\s+(\d+)$", done.stdout, flags=re.M))
    assert int(planned["ingest"]) >= 2 and planned["all"] == "1", done.stdout
    assert not (deployment / "results").exists()
