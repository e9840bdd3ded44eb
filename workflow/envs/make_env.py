"""Write benchreport.yaml, the conda env of every rule, from requirements.txt's pins, so that
the conda and pip installs run the same versions: python3 workflow/envs/make_env.py."""

from __future__ import annotations

import re
from pathlib import Path

HERE = Path(__file__).parent
REQUIREMENTS = HERE.parent.parent / "requirements.txt"
# conda-forge's name where it differs from PyPI's: matplotlib-base is matplotlib without the Qt GUI
CONDA_NAMES = {"matplotlib": "matplotlib-base"}
# Snakemake runs the env, it is not needed inside it (a rule's script finds Snakemake's own
# modules), and conda-forge does not carry it
OUTSIDE = {"snakemake"}
# no conda-forge build of it is known here; without it secrets.Literals searches by str.find, to
# the same results, slower
NOT_ON_CONDA_FORGE = {"ahocorasick_rs"}
PYTHON = "3.11"
HEADER = """\
# Written by make_env.py from requirements.txt's pins (edit those, then run it): for users who run
# with --software-deployment-method conda. CI installs with pip, since no conda channel is
# reachable there.
"""


def pins(text: str) -> list[tuple[str, str]]:
    """(name, version) of each `name==version` line."""
    found = []
    for line in text.splitlines():
        line = line.split("#", 1)[0].strip()
        if line:
            match = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s;]+)", line)
            if not match:
                raise ValueError(f"requirements.txt: not a name==version pin: {line}")
            found.append((match.group(1).lower(), match.group(2)))
    return found


def conda_env(requirements: str) -> str:
    lines = [
        HEADER.rstrip("\n"),
        "channels:",
        "  - conda-forge",
        "  - nodefaults",
        "dependencies:",
        f"  - python ={PYTHON}",
    ]
    lines += [
        f"  - {CONDA_NAMES.get(name, name)} ={version}"
        for name, version in pins(requirements)
        if name not in OUTSIDE | NOT_ON_CONDA_FORGE
    ]
    return "\n".join(lines) + "\n"


if __name__ == "__main__":
    (HERE / "benchreport.yaml").write_text(conda_env(REQUIREMENTS.read_text(encoding="utf-8")), encoding="utf-8")
