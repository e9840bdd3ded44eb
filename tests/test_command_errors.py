"""`benchreport <command>` on bad arguments and bad files: argparse's usage and one error line
naming what is wrong (exit 2), never a traceback; and `--version`."""

from __future__ import annotations

import importlib.metadata
import json
import re
import subprocess
import sys

import pytest
from benchreport.__main__ import command_parser
from conftest import REPO

SETTING = "agent--model--abc123"


@pytest.fixture
def results(tmp_path):
    """A results folder holding one setting's result record and an output whose lineage record
    is damaged, and beside it files of the wrong kind."""
    reports = tmp_path / "results" / "reports" / SETTING
    reports.mkdir(parents=True)
    record = {"setting": SETTING, "per_task": [], "excluded_by_controls": [], "controls": None}
    (reports / "summary.json").write_text(json.dumps(record))
    (tmp_path / "results" / "index.md").write_text("# index\n")
    (tmp_path / "results" / "lineage").mkdir()
    (tmp_path / "results" / "lineage" / "index.md.json").write_text("{")
    (tmp_path / "results" / "trials.csv").write_text("trial\n")
    record = {"output": "results/trials.csv", "sha256": "ab", "rule": "run_report", "code": {"sha256": "cd"}}
    (tmp_path / "results" / "lineage" / "trials.csv.json").write_text(
        json.dumps(record | {"inputs": 3, "recorded_at": ""})
    )
    (tmp_path / "results" / "reports" / "other").mkdir()
    (tmp_path / "results" / "reports" / "other" / "summary.json").write_text("[]")
    (tmp_path / "elsewhere.txt").write_text("not under results/\n")
    (tmp_path / "latin1.jsonl").write_bytes(b'{"id": "caf\xe9"}\n')
    (tmp_path / "not-a-bundle.tar.gz").write_bytes(b"")
    (tmp_path / "damaged" / "reports" / SETTING).mkdir(parents=True)
    (tmp_path / "damaged" / "reports" / SETTING / "summary.json").write_text("{")
    return tmp_path


# (arguments, what the error line says); "{tmp}" is the fixture's folder
BAD = [
    (["lineage"], "the following arguments are required: file"),
    (["lineage", "{tmp}/results/index.md", "--numbr", "pass_rate"], "unrecognized arguments: --numbr"),
    (["lineage", "{tmp}/missing.md"], "missing.md: no such file or folder"),
    (["lineage", "{tmp}/results"], "results: not a file"),
    (["lineage", "{tmp}/elsewhere.txt"], "elsewhere.txt is not under a results/ folder"),
    (["lineage", "{tmp}/results/index.md"], "lineage/index.md.json: not a lineage record"),
    (["lineage", "{tmp}/results/index.md", "--number", "pass_rate"], "index.md is not a setting's output"),
    (["lineage", "{tmp}/results/trials.csv"], "trials.csv.json: not a lineage record of this version"),
    (["lineage", "{tmp}/results/reports/other/summary.json", "--number", "pass_rate"], "not a result record of this"),
    (["lineage", f"{{tmp}}/results/reports/{SETTING}/summary.json", "--number", "pass-rate"], "no number 'pass-rate'"),
    (
        ["lineage", f"{{tmp}}/results/reports/{SETTING}/summary.json", "--number", "per_task.x"],
        "no number 'per_task.x'",
    ),
    (
        ["lineage", f"{{tmp}}/results/reports/{SETTING}/summary.json", "--number", "controls.x"],
        "no number 'controls.x'",
    ),
    (["verify"], "the following arguments are required: bundle"),
    (["verify", "{tmp}/missing.tar.gz"], "missing.tar.gz: no such file or folder"),
    (["verify", "{tmp}/results"], "results: not a file"),
    (["verify", "{tmp}/not-a-bundle.tar.gz", "--cores", "0"], "argument --cores: 0 is not above 0"),
    (["verify", "{tmp}/not-a-bundle.tar.gz", "--max-ratio", "lots"], "argument --max-ratio: 'lots' is not a number"),
    (["check", "{tmp}/missing"], "missing: no such file or folder"),
    (["check", "{tmp}/results/index.md"], "index.md: not a folder"),
    (["check", "{tmp}/results", "extra"], "unrecognized arguments: extra"),
    (["check", "{tmp}/damaged"], f"damaged/reports/{SETTING}/summary.json: not a readable result record"),
    (["review"], "the following arguments are required: bundle"),
    (["review", "{tmp}/missing.tar.gz"], "missing.tar.gz: no such file or folder"),
    (["review", "{tmp}/not-a-bundle.tar.gz"], "not-a-bundle.tar.gz: not a readable .tar.gz bundle"),
    (["interval", "{tmp}/missing.jsonl"], "missing.jsonl: No such file or directory"),
    (["interval", "{tmp}/results"], "results: Is a directory"),
    (["interval", "{tmp}/latin1.jsonl"], "latin1.jsonl: not UTF-8 text"),
    (["interval", "--confidence", "95"], "argument --confidence: 95 is not strictly between 0 and 1"),
    (["interval", "--seed", "-1"], "argument --seed: -1 is not 0 or more"),
    (["interval", "--simulations", "1e4"], "argument --simulations: '1e4' is not a whole number"),
    (["compare", "{tmp}/missing.jsonl"], "missing.jsonl: No such file or directory"),
    (["compare", "{tmp}/results"], "results: Is a directory"),
    (["compare", "{tmp}/latin1.jsonl"], "latin1.jsonl: not UTF-8 text"),
    (["compare", "--confidence", "1"], "argument --confidence: 1 is not strictly between 0 and 1"),
    (["compare", "--seed", "x"], "argument --seed: 'x' is not a whole number"),
    (["compare", "--permutations", "0"], "argument --permutations: 0 is not above 0"),
    (["plan", "{tmp}/missing.jsonl", "--half-width", "0.1"], "missing.jsonl: No such file or directory"),
    (["plan", "--difference", "0.1", "--results", "{tmp}/damaged"], "summary.json: not a readable result record"),
    (["plan", "--difference", "0.1", "--results", "{tmp}/latin1.jsonl"], "latin1.jsonl: not a folder"),
    (["plan", "--half-width", "5"], "argument --half-width: 5 is not strictly between 0 and 1"),
    (["plan", "{tmp}/latin1.jsonl"], "give --half-width, --difference or both"),
    (["intervals"], "invalid choice: 'intervals'"),
]


def run_command(*args, cwd):
    return subprocess.run(
        [sys.executable, "-m", "benchreport", *args], capture_output=True, text=True, cwd=cwd, timeout=120, check=False
    )


@pytest.mark.parametrize(("arguments", "error"), BAD, ids=[" ".join(arguments) for arguments, _ in BAD])
def test_bad_usage_is_one_usage_error_naming_what_is_wrong(results, arguments, error):
    done = run_command(*[argument.format(tmp=results) for argument in arguments], cwd=results)
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    assert done.stderr.startswith("usage: benchreport") and done.stdout == "", done.stderr
    last = done.stderr.splitlines()[-1]
    assert last.startswith("benchreport") and ": error: " in last and error in last, done.stderr


def test_every_command_is_tried_with_bad_arguments():
    commands = next(action for action in command_parser()._actions if action.dest == "command").choices
    assert set(commands) <= {arguments[0] for arguments, _ in BAD}


def test_the_version_is_the_installed_distributions():
    """The distribution's version is the package's __version__ (pyproject reads it from there)."""
    import benchreport

    done = run_command("--version", cwd=REPO)
    assert done.returncode == 0
    assert done.stdout.split() == ["benchreport", importlib.metadata.version("benchreport")]
    assert importlib.metadata.version("benchreport") == benchreport.__version__


def test_a_checkout_run_without_install_reads_the_version_from_the_package():
    """-S leaves the installed distribution (site-packages) out of reach; --version needs no dependency."""
    done = subprocess.run(
        [sys.executable, "-S", "-m", "benchreport", "--version"],
        capture_output=True,
        text=True,
        cwd=REPO / "workflow" / "scripts",
        timeout=120,
        check=False,
    )
    source = (REPO / "workflow" / "scripts" / "benchreport" / "__init__.py").read_text(encoding="utf-8")
    version = re.search(r'^__version__ = "([^"]+)"$', source, re.M).group(1)
    assert done.returncode == 0 and done.stdout.split()[-1] == version, done.stderr
