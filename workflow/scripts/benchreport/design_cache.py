"""Coverage designs kept across runs and projects, in a folder the user names.

A design depends only on its shape, seed, simulations and confidence, on the coverage_design
stage's code, and on numpy and scipy (their FFT and random streams): those make the key, so a
design read from the cache is the bytes the computation would write, and a change to any of them
is a new key. The cache is off unless the environment variable CACHE_VARIABLE names a folder (a
fact of the machine, like Snakemake's own SNAKEMAKE_OUTPUT_CACHE, so it is no param and never
enters a lineage record); `benchreport verify` re-runs a bundle without it, so a bundle's check
always recomputes every design.
"""

from __future__ import annotations

import hashlib
import json
import os
import platform
from pathlib import Path

from .files import write_whole

CACHE_VARIABLE = "BENCHREPORT_COVERAGE_CACHE"


def cache_folder(environ=os.environ) -> Path | None:
    folder = environ.get(CACHE_VARIABLE, "").strip()
    return Path(folder).expanduser() if folder else None


def design_key(shape: str, *, seed: int, simulations: int, confidence: float, code: str) -> str:
    """sha256 of everything a design's bytes depend on."""
    import numpy
    import scipy

    fields = {
        "shape": shape,
        "seed": seed,
        "simulations": simulations,
        "confidence": confidence,
        "code": code,
        "numpy": numpy.__version__,
        "scipy": scipy.__version__,
        "machine": platform.machine(),
    }
    return hashlib.sha256(json.dumps(fields, sort_keys=True).encode()).hexdigest()


def record_key(record: dict) -> str:
    """The key the rule looks up for the design a coverage file's lineage record describes (its
    shape and params): how a cache is filled from a run's own designs."""
    params = record["params"]
    return design_key(
        record["wildcards"]["shape"],
        seed=params["seed"],
        simulations=params["simulations"],
        confidence=params["confidence"],
        code=params["code"],
    )


def load(folder: Path, key: str, *, profile, seed: int, simulations: int, confidence: float) -> str | None:
    """The cached design's text, or None when there is none or it is not the design asked for (a
    torn write, a file put there by hand): the design is then computed as if never cached."""
    try:
        text = (folder / f"{key}.json").read_text(encoding="utf-8")
        design = json.loads(text)
    except (OSError, UnicodeDecodeError, ValueError):
        return None
    expected = {
        "tries_profile": [list(group) for group in profile],
        "seed": seed,
        "simulations": simulations,
        "confidence": confidence,
    }
    if not isinstance(design, dict) or any(design.get(name) != value for name, value in expected.items()):
        return None
    return text


def store(folder: Path, key: str, text: str) -> None:
    """Write whole (files.write_whole), so a reader never sees half a design."""
    folder.mkdir(parents=True, exist_ok=True)
    write_whole(folder / f"{key}.json", text)
