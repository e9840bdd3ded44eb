"""The README is a front page: short, its two commands first, every file it names present, and
no development history in the repository's prose or code."""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
README = REPO / "README.md"


def test_readme_is_a_front_page_of_at_most_200_lines():
    lines = README.read_text().splitlines()
    assert len(lines) <= 200, f"README.md has {len(lines)} lines"


def test_readme_opens_with_its_two_commands():
    text = README.read_text()
    block = re.search(r"```bash\n(.*?)```", text, re.S)
    assert block, "README.md has no ```bash block"
    commands = [line for line in block.group(1).splitlines() if line.strip()]
    assert len(commands) == 2
    assert "python3 -m venv .venv" in commands[0] and "snakemake --cores 4" in commands[0]
    assert commands[1].endswith("python3 -m pytest")


def test_every_file_the_readme_names_exists():
    named = set(re.findall(r"`((?:docs|config|workflow|tests|benchmarks|resources)/[^`<>* ]+)`", README.read_text()))
    assert named, "the README names no file of the repository"
    missing = sorted(path for path in named if not (REPO / path.rstrip("/")).exists())
    assert not missing, f"README.md names files that do not exist: {missing}"


# a development session or an issue tracker's number, in any case (spelt apart so this file is no hit)
HISTORY_WORDS = ("sess" + "ion", "iss" + "ue")


def test_no_development_history_in_prose_or_code():
    """Sessions, issues and spec sections belong to git and benchmarks/RESULTS.md."""
    if not (REPO / ".git").exists():
        pytest.skip("not a git checkout: git grep needs one")
    found = subprocess.run(
        [
            "git",
            "grep",
            "-niE",
            "(" + "|".join(HISTORY_WORDS) + r") [0-9]+|" + "spec" + " §",
            "--",
            ".",
            ":!benchmarks/RESULTS.md",
        ],
        cwd=REPO,
        capture_output=True,
        text=True,
    )
    assert found.returncode in (0, 1), found.stderr
    assert found.stdout == "", found.stdout
