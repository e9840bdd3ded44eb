"""Every rule's script runs through rulejob.main, not Snakemake's `script` directive: its job
reads the same `snakemake` object (Names as Snakemake's name lists), its duplicates come from a
file rewritten only when they change, and a job handed the run's facts (lineage.RUN_FACTS)
computes none of them."""

import json
import os
import shutil
import subprocess
import sys

import pytest
from benchreport import discover, lineage, rulejob
from benchreport.rulejob import Job, Names
from snakemake.iocontainers import Namedlist


def snakemake_list(values, names):
    """A Snakemake name list: `names` maps a name to its index, or to (start, end) for a list."""
    namedlist = Namedlist(values)
    for name, where in names.items():
        start, end = where if isinstance(where, tuple) else (where, None)
        namedlist._set_name(name, start, end=end)
    return namedlist


def as_passed(namedlist):
    """What rulejob.script_namespace hands the runner for a file list."""
    return json.loads(json.dumps(list(namedlist._allitems())))


def test_names_read_as_snakemakes_name_lists():
    inputs = snakemake_list(
        ["s.stamp", "s.duplicates", "run-oracle.json", "run-nop.json", "plain"],
        {"state": 0, "duplicates": 1, "control_runs": (2, 4)},
    )
    outputs = snakemake_list(["t.json", "i.json"], {"trials": 0, "index": 1})
    ours_in, ours_out = Names(as_passed(inputs), files=True), Names(as_passed(outputs), files=True)
    assert list(ours_in) == list(inputs)
    for name in ("state", "duplicates"):
        assert getattr(ours_in, name) == getattr(inputs, name) == ours_in[name] == inputs[name]
    assert list(ours_in.control_runs) == list(inputs.control_runs) == ["run-oracle.json", "run-nop.json"]
    assert {k: list(v) if isinstance(v, list) else v for k, v in ours_in.items()} == {
        k: list(v) if isinstance(v, list) else v for k, v in inputs.items()
    }
    assert ours_in.get("state") == inputs.get("state") == "s.stamp"
    assert ours_in.get("coverage") is inputs.get("coverage") is None  # an input a rule may not have
    assert ours_in.get("coverage", []) == inputs.get("coverage", []) == []
    assert ours_out.index == outputs.index == "i.json"  # a name before list's own index()
    assert ours_out[1] == outputs[1] and list(ours_out) == list(outputs)
    params = Names({"max_requests": 20, "nop_agents": ["nop-acp"], "job": {"alias": "a"}}.items(), files=False)
    assert params.nop_agents == ["nop-acp"] and params["job"] == {"alias": "a"}
    assert list(params) == [20, ["nop-acp"], {"alias": "a"}]  # a list param is one value


def test_the_runner_hands_a_script_its_job(tmp_path, monkeypatch):
    (tmp_path / "probe.py").write_text(
        "import json\n"
        "seen = {'rule': snakemake.rule, 'threads': snakemake.threads, 'log': snakemake.log[0],\n"
        "        'state': snakemake.input.state, 'inputs': list(snakemake.input),\n"
        "        'params': dict(snakemake.params.items()), 'wildcards': dict(snakemake.wildcards.items()),\n"
        "        'name': __name__}\n"
        "open(snakemake.output.seen, 'w').write(json.dumps(seen))\n"
    )
    monkeypatch.setattr(rulejob, "SCRIPTS_DIR", tmp_path)
    namespace = {
        "input": [["state", "a.stamp"], ["control_runs", ["b", "c"]]],
        "output": [["seen", str(tmp_path / "seen.json")]],
        "params": {"max_requests": 20, "job": {"job_id": "jobs/x"}},
        "wildcards": {"job": "jobs/x"},
    }
    rulejob.main(["probe", "probe.log", "3"], json.dumps(namespace))
    seen = json.loads((tmp_path / "seen.json").read_text())
    assert seen == {
        "rule": "probe",
        "threads": 3,
        "log": "probe.log",
        "state": "a.stamp",
        "inputs": ["a.stamp", "b", "c"],
        "params": {"max_requests": 20, "job": {"job_id": "jobs/x"}},
        "wildcards": {"job": "jobs/x"},
        "name": "__main__",
    }
    assert isinstance(Job("probe", "l", 1, namespace).output, Names)


EMPTY = json.dumps({"input": [], "output": [], "params": {}, "wildcards": {}})


def test_the_runner_finds_its_package_without_pythonpath(tmp_path):
    """As run_script starts it (a file, -S -P) from another folder with no PYTHONPATH, as Snakemake
    runs a job in a conda env: it imports benchreport from beside itself and gets as far as
    looking for the rule's script (test_a_real_snakemake_job_... runs one that imports from
    site-packages)."""
    (tmp_path / "benchreport").mkdir()  # a folder of that name where the job runs is not imported
    (tmp_path / "benchreport" / "__init__.py").write_text("raise SystemExit('the working directory was imported')")
    environment = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run(
        [
            sys.executable,
            "-S",
            "-P",
            str(rulejob.SCRIPTS_DIR / "benchreport" / "rulejob.py"),
            "no_such_rule",
            "l",
            "1",
        ],
        input=EMPTY,
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
    )
    assert done.returncode != 0
    assert "No module named" not in done.stderr and "working directory" not in done.stderr, done.stderr
    assert str(rulejob.SCRIPTS_DIR / "no_such_rule.py") in done.stderr, done.stderr


def test_duplicates_are_rewritten_only_when_they_change(tmp_path):
    stamps = {"jobs/a": tmp_path / "a.stamp", "jobs/b": tmp_path / "b.stamp"}
    found = {"jobs/b": {"t__1": "the same attempt as jobs/a/t__1 (...); counted once, there"}}
    discover.write_duplicates(stamps, found)
    files = {job: discover.duplicates_file(stamp) for job, stamp in stamps.items()}
    assert json.loads(files["jobs/a"].read_text()) == {}
    assert json.loads(files["jobs/b"].read_text()) == found["jobs/b"]
    for path in files.values():
        os.utime(path, ns=(10**9, 10**9))  # long ago: a rewrite would show
    discover.write_duplicates(stamps, found)
    assert all(path.stat().st_mtime_ns == 10**9 for path in files.values())
    discover.write_duplicates(stamps, {})  # b's copy is gone
    assert files["jobs/a"].stat().st_mtime_ns == 10**9
    assert files["jobs/b"].stat().st_mtime_ns > 10**9 and json.loads(files["jobs/b"].read_text()) == {}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.duplicates", "b.duplicates"]  # no partial left


THIS_CHECKOUT = {"PYTHONPATH": str(lineage.SCRIPTS_DIR)}  # this package, whichever is installed
PROBE = (
    "import json, sys; from benchreport import lineage; "
    "print(json.dumps([lineage.software_versions(), lineage.git_state(lineage.WORKFLOW_DIR), "
    "'importlib.metadata' in sys.modules]))"
)


def test_a_job_handed_the_run_facts_computes_none_and_records_the_same(tmp_path):
    def job(**env):
        environment = {k: v for k, v in os.environ.items() if k != lineage.RUN_FACTS} | env | THIS_CHECKOUT
        environment["PATH"] = str(tmp_path)  # no git to run: a job that needs it notes "not a git checkout"
        done = subprocess.run(
            [sys.executable, "-c", PROBE], env=environment, capture_output=True, text=True, check=True
        )
        return json.loads(done.stdout)

    computed = json.loads(lineage.run_facts(software=True))
    handed = job(**{lineage.RUN_FACTS: lineage.run_facts(software=True)})
    assert handed == [computed["software"], computed["git"], False]
    alone = job()
    assert alone[0] == computed["software"] and alone[2] is True
    assert alone[1]["commit"] is None  # it ran git itself, and found none on its PATH
    # where the jobs run in another Python (a conda env), only the git state is handed
    git_only = job(**{lineage.RUN_FACTS: lineage.run_facts(software=False)})
    assert git_only[0] == computed["software"] and git_only[1] == computed["git"] and git_only[2] is True
    # the Snakemake process finds them anew, whatever facts it was handed itself (a run started
    # from a job of another run)
    inherited = {lineage.RUN_FACTS: json.dumps({"git": {"commit": "0" * 40}, "software": {"python": "2.7"}})}
    found = subprocess.run(
        [sys.executable, "-c", "from benchreport import lineage; print(lineage.run_facts(software=True))"],
        env=os.environ | inherited | THIS_CHECKOUT,
        capture_output=True,
        text=True,
        check=True,
    )
    assert json.loads(found.stdout) == computed


PROBE_SNAKEFILE = """
import os, sys
sys.path.insert(0, "scripts")
from benchreport.rulejob import run_script, runner_params
os.environ.update(BENCHREPORT_PYTHON=sys.executable, BENCHREPORT_RUNNER=os.path.abspath("scripts/benchreport/rulejob.py"))
INPUTS = [f"inputs/{i:05d}-{'x' * 100}" for i in range(2000)]
shell.suffix("&& touch suffix-ran")  # an importing workflow's own
rule probe:
    input: files=INPUTS, first=INPUTS[0]
    output: seen="seen-{name}.json"
    log: "probe-{name}.log"
    threads: 2
    params: **runner_params(level=0.95, tricky=lambda wildcards: TRICKY, version="bv-{name}", tags=["{name}", 3])
    shell: run_script("probe", one_blas_thread=ONE_BLAS_THREAD)
"""

# a param the here-document must carry as it is: a line that would end it, quotes, expansions
TRICKY = 'it\'s "quoted"\nNAMESPACE\n$HOME `echo x` $(echo y) \\ é'


@pytest.mark.parametrize("one_blas_thread", [False, True])
def test_a_real_snakemake_job_gets_a_namespace_longer_than_a_command_line_may_hold(tmp_path, one_blas_thread):
    """run_script's command, run by Snakemake: 2,000 input files of ~110 characters are a namespace
    of more than 128 KiB, longer than one argument may be, and reach the script whole; plain
    string params get the job's wildcards, as Snakemake's own; a shell suffix the workflow sets
    runs after the script; and the numerical libraries' thread variables are the job's threads,
    or 1 with one_blas_thread."""
    scripts = tmp_path / "scripts"
    shutil.copytree(
        rulejob.SCRIPTS_DIR / "benchreport", scripts / "benchreport", ignore=shutil.ignore_patterns("__pycache__")
    )
    (scripts / "probe.py").write_text(
        "import json\n"
        "seen = {'inputs': list(snakemake.input), 'first': snakemake.input.first, 'files': len(snakemake.input.files),\n"
        "        'params': dict(snakemake.params.items()), 'threads': snakemake.threads,\n"
        "        'wildcards': dict(snakemake.wildcards.items()), 'site_packages': __import__('yaml').__name__,\n"
        "        'blas': sorted({__import__('os').environ.get(name) for name in THREAD_VARIABLES})}\n"
        "open(snakemake.output.seen, 'w').write(json.dumps(seen))\n"
    )
    (scripts / "probe.py").write_text(
        f"THREAD_VARIABLES = {rulejob.THREAD_VARIABLES!r}\n" + (scripts / "probe.py").read_text()
    )
    (tmp_path / "Snakefile").write_text(f"TRICKY = {TRICKY!r}\nONE_BLAS_THREAD = {one_blas_thread}\n" + PROBE_SNAKEFILE)
    (tmp_path / "inputs").mkdir()
    inputs = [f"inputs/{i:05d}-{'x' * 100}" for i in range(2000)]
    for name in inputs:
        (tmp_path / name).touch()
    assert len(json.dumps(inputs)) > 128 * 1024
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "seen-probe.json", "--cores", "2", "--quiet"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (tmp_path / "suffix-ran").exists()
    seen = json.loads((tmp_path / "seen-probe.json").read_text())
    assert seen == {
        "inputs": inputs + inputs[:1],
        "first": inputs[0],
        "files": 2000,
        "params": {"level": 0.95, "tricky": TRICKY, "version": "bv-probe", "tags": ["probe", 3]},
        "threads": 2,
        "wildcards": {"name": "probe"},
        "site_packages": "yaml",  # the command starts Python with -S: rulejob.py adds site-packages
        "blas": ["1"] if one_blas_thread else ["2"],
    }
