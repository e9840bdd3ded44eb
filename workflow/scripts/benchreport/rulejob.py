"""What every rule script does first (start) and, where it holds many rows, last (finish); and
the runner of a rule script that is not run by Snakemake's `script:` (main)."""

from __future__ import annotations

import datetime
import gc
import json
import os
import runpy
import sys
from pathlib import Path

SCRIPTS_DIR = Path(__file__).resolve().parent.parent  # workflow/scripts: the rule scripts

# When this process's rule job began (start()), for its lineage records and the RO-Crate's actions.
STARTED_AT: str | None = None


def start(snakemake):
    """Send the job's messages to its rule's log (returned, open) and turn the cyclic garbage
    collector off for the job.

    A rule job is one short process whose data (parsed JSON, trial rows, numbers) holds no
    reference cycles; the collections the interpreter would run as it allocates walk every row
    again for nothing (0.3 s of the 2.4 s stats takes for a setting of 25,000 trials). The few
    cycles a job makes (matplotlib's figures) are freed when it exits.
    """
    global STARTED_AT
    STARTED_AT = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
    log = open(snakemake.log[0], "w")
    sys.stderr = log
    gc.disable()
    return log


def finish() -> None:
    """End the rule job once its outputs and their lineage records are written: flush what it
    printed (its log is sys.stderr) and leave without the interpreter's teardown, which frees
    every object the job still holds one by one (0.2-0.6 s after stats, trial_rows, report and
    trials_table at 100,000 trials); the operating system takes the memory back at once. Every
    output is closed by then (written inside `with`), and a job runs no thread or atexit hook
    that is still needed."""
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


class Names(list):
    """One of a job's name lists (input, output, log, params, wildcards) as a rule script reads
    Snakemake's: the values in order, each named one also an attribute and a key; a named list
    of files is its files in order, and the list under its name."""

    def __init__(self, items, files: bool):
        super().__init__()
        self._named = {}
        for name, value in items:
            if files and isinstance(value, list):
                self.extend(value)
                value = Names([(None, item) for item in value], files=True)
            else:
                self.append(value)
            if name is not None:
                self._named[name] = value
        self.__dict__.update(self._named)  # ahead of list's own attributes: an output named "index"

    def __getitem__(self, key):
        return self._named[key] if isinstance(key, str) else super().__getitem__(key)

    def items(self):
        return self._named.items()


class Job:
    """What a rule script reads of its job, as Snakemake's `snakemake` object holds it: rule,
    threads, log, input, output, params and wildcards."""

    def __init__(self, rule: str, log: str, threads: int, namespace: dict):
        self.rule = rule
        self.threads = threads
        self.log = Names([(None, log)], files=True)
        self.input = Names(namespace["input"], files=True)
        self.output = Names(namespace["output"], files=True)
        self.params = Names(namespace["params"].items(), files=False)
        self.wildcards = Names(namespace["wildcards"].items(), files=False)


def main(argv: list[str]) -> None:
    """Run workflow/scripts/<rule>.py as Snakemake's `script` directive would, its `snakemake` a
    Job made from the command line common.smk's run_script writes: rule, log, threads and
    namespace (common.smk's script_namespace). Used where a rule's jobs are many and the
    directive's own cost per job counts (rule ingest)."""
    rule, log, threads, namespace = argv
    job = Job(rule, log, int(threads), json.loads(namespace))
    runpy.run_path(str(SCRIPTS_DIR / f"{rule}.py"), init_globals={"snakemake": job}, run_name="__main__")


if __name__ == "__main__":
    # started as a file by common.smk's run_script, with -P: the package is found from here, not
    # from PYTHONPATH, which Snakemake clears for a job in a conda env; and the module the script
    # imports, benchreport.rulejob, not this copy of it, runs the script
    sys.path.insert(0, str(SCRIPTS_DIR))
    from benchreport import rulejob

    rulejob.main(sys.argv[1:])
