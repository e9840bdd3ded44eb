"""The package type-checks: mypy, configured in pyproject.toml, finds no error in benchreport."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from conftest import REPO


def mypy(root: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    """mypy on the package under `root`, as pyproject.toml there configures it."""
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--cache-dir", str(cache)],
        cwd=root,
        capture_output=True,
        text=True,
    )


def test_package_has_no_type_error():
    result = mypy(REPO, REPO / ".mypy_cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert result.stdout.startswith("Success: no issues found"), result.stdout


def test_a_type_error_in_the_package_fails_the_check(tmp_path):
    """The check reads the package itself: a wrong return type planted in a copy is reported."""
    shutil.copy(REPO / "pyproject.toml", tmp_path)
    package = tmp_path / "workflow" / "scripts" / "benchreport"
    shutil.copytree(
        REPO / "workflow" / "scripts" / "benchreport", package, ignore=shutil.ignore_patterns("__pycache__")
    )
    planted = package / "read" / "files.py"
    lines = planted.read_text().count("\n")
    planted.write_text(planted.read_text() + '\n\ndef planted() -> int:\n    return "one"\n')
    result = mypy(tmp_path, tmp_path / "cache")
    assert result.returncode == 1, result.stdout + result.stderr
    assert f"files.py:{lines + 4}: error: Incompatible return value type" in result.stdout, result.stdout
    assert "Found 1 error in 1 file" in result.stdout, result.stdout
