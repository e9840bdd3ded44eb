"""What every rule script does first (start) and, where it holds many rows, last (finish); and
the runner of every rule script (main), in place of Snakemake's `script:` directive."""

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

    def get(self, key, default=None):
        return self._named.get(key, default)


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


def main(argv: list[str], namespace: str) -> None:
    """Run workflow/scripts/<rule>.py as Snakemake's `script` directive would, its `snakemake` a
    Job made from the command run_script writes: rule, log and threads as
    arguments, the namespace (common.smk's script_namespace) as JSON on standard input. Every
    rule runs its script this way: the directive costs each job ~0.14 s more."""
    rule, log, threads = argv
    job = Job(rule, log, int(threads), json.loads(namespace))
    runpy.run_path(str(SCRIPTS_DIR / f"{rule}.py"), init_globals={"snakemake": job}, run_name="__main__")


def script_namespace(params: dict):
    """A params function: the job's input, output, `params` (name -> a value or a function of the
    wildcards, which the rule also lists as its own params, for Snakemake's params trigger) and
    wildcards as one line of JSON, which main hands to the rule's script as Snakemake's
    `snakemake` object would. Made from the job's files, it is itself left out of the params
    trigger."""

    def namespace(wildcards, input, output):
        return json.dumps(
            {
                "input": list(input._allitems()),
                "output": list(output._allitems()),
                "params": {name: concrete(value, wildcards) for name, value in params.items()},
                "wildcards": dict(wildcards.items()),
            }
        )  # in the rule's own order, as the script directive hands them

    return namespace


def concrete(value, wildcards):
    """A param's value as Snakemake hands it to a script: a function's result as it is; a string,
    or each string in a list, with the job's wildcards filled in (snakemake.rules'
    concretize_param), so "bv-{setting}" is the setting's own."""
    from snakemake.io import apply_wildcards  # in Snakemake's process only: a rule script never imports it

    if callable(value):
        return value(wildcards)
    if isinstance(value, str):
        return apply_wildcards(value, wildcards)
    if isinstance(value, list):
        return [apply_wildcards(item, wildcards) if isinstance(item, str) else item for item in value]
    return value


# The variables Snakemake sets to a job's threads for the numerical libraries (BLAS, OpenMP,
# numexpr), which read them as they load.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)


def runner_params(**params) -> dict:
    """A rule's params when main runs its script (run_script): its own, which Snakemake's params
    trigger compares (a new code hash or config value re-runs the job), and `namespace`, made
    from them and the job's files (script_namespace)."""
    return {**params, "namespace": script_namespace(params)}


def run_script(rule: str, one_blas_thread: bool = False) -> str:
    """The shell command that runs workflow/scripts/<rule>.py through main, with the Python and
    the runner's file that common.smk hands in the environment (BENCHREPORT_PYTHON,
    BENCHREPORT_RUNNER). The namespace goes on standard input, a here-document: one line of JSON
    (json.dumps escapes every line break), so no line of it ends the here-document. The command
    is one group, `{ ... }`, and ends on its closing brace, not on the here-document's last line:
    a suffix a workflow sets with shell.suffix, which Snakemake appends after a space, follows the
    group on that line, and the group's status is the script's.

    With one_blas_thread, the numerical libraries of a job of several threads run on one
    (THREAD_VARIABLES at 1 for the runner, over the job's threads that Snakemake sets): the job's
    threads are then its script's own workers (processes or Python threads), and the run's fork
    server, whose libraries run on one, serves the job rather than starting a Python for it."""
    blas = "".join(f"{name}=1 " for name in THREAD_VARIABLES) if one_blas_thread else ""
    # -P: neither the working directory nor the runner's own folder goes first on the module path.
    # -S: site (the .pth files of site-packages) is read only where the runner needs
    # site-packages: the fork server's client imports none (C modules of the standard library),
    # and rulejob.py reads it first. A .pth may be slow to run: here one of the machine's
    # imports certifi, 20 of a start's 28 ms of CPU, and a run of 10,000 trials starts ~60 jobs.
    return (
        f'{{{{ {blas}"$BENCHREPORT_PYTHON" -S -P "$BENCHREPORT_RUNNER" {rule} {{log:q}} {{threads}}'
        " <<'NAMESPACE'\n{params.namespace}\nNAMESPACE\n}}"
    )


if __name__ == "__main__":
    # started as a file by run_script's command, with -P: the package is found from here, not
    # from PYTHONPATH, which Snakemake clears for a job in a conda env; and the module the script
    # imports, benchreport.rulejob, not this copy of it, runs the script. With -S (run_script's
    # command) site-packages are added here, as the interpreter would have added them.
    if sys.flags.no_site:
        import site

        site.main()
    sys.path.insert(0, str(SCRIPTS_DIR))
    from benchreport import rulejob

    rulejob.main(sys.argv[1:], sys.stdin.read())
