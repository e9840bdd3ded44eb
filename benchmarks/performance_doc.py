"""Measure today's speed and memory at the benchmark shapes and write docs/performance.md.

For each shape: bench_scale.py (cold run, edited trial, nothing changed, peak memory, BenchFlow's
own `bench eval metrics` on the same folders, the floor that only reads them, Snakemake alone with
nothing to do) and bench_bundle.py (bundle and verify against a cold run of the same call). The
page holds one table of these figures with the date, the commit and the machine; the history of
earlier figures is in benchmarks/RESULTS.md.

    bash benchmarks/install_peer.sh /tmp/benchreport-scale/peer
    python benchmarks/performance_doc.py --peer /tmp/benchreport-scale/peer/venv/bin/bench \\
        --shape 10x100 --shape 50x200
"""

from __future__ import annotations

import argparse
import datetime
import json
import statistics
import sys
from pathlib import Path

import bench_bundle
import bench_scale as scale

DOC = scale.REPO / "docs" / "performance.md"


def measure(shape: str, peer: str | None, tmp: Path, repeats: int) -> dict:
    """One shape's figures: bench_scale's JSON report and bench_bundle's, read back."""
    arguments = ["--shape", shape, "--tmp", str(tmp), "--repeats", str(repeats)]
    scale.main(arguments + (["--peer", peer] if peer else []))
    bundled = tmp / f"bundle-{shape}.json"
    bench_bundle.main(["--shape", shape, "--tmp", str(tmp), "--json", str(bundled)])
    name = scale.data_name(argparse.Namespace(**scale.SHAPES[shape], seed=0, settings=len(scale.synth.SCALE_SETTINGS)))
    return {"scale": json.loads((tmp / f"report-{name}.json").read_text()), "bundle": json.loads(bundled.read_text())}


def row(shape: str, figures: dict) -> str:
    """The table row of one shape: seconds, and each run's ratio where it has a baseline."""
    report, bundled = figures["scale"], figures["bundle"]
    runs = report["runs"]
    cold = runs["cold"]["wall"]
    edited = statistics.median(run["wall"] for label, run in runs.items() if label.startswith("edited-"))
    unchanged = statistics.median(run["wall"] for label, run in runs.items() if label.startswith("nochange-"))
    floor = min(run["seconds"] for run in report["floor"])
    peer = statistics.median(run["wall"] for run in report["peer"]) if report["peer"] else None
    peak = max([run["tree_rss"] for run in runs.values()] + [bundled[k]["tree_rss"] for k in ("bundle", "verify")])
    bundle_ratio = bundled["bundle"]["wall"] / bundled["cold"]["wall"]
    verify_ratio = bundled["verify"]["wall"] / bundled["cold"]["wall"]
    args = report["args"]
    cells = [
        f"{args['jobs']} × {args['trials']:,} ({args['jobs'] * args['trials']:,} trials)",
        f"{cold:.1f} s" + (f" ({cold / peer:.2f}×)" if peer else ""),
        f"{edited:.1f} s",
        f"{unchanged:.1f} s",
        f"{bundle_ratio:.2f}× cold",
        f"{verify_ratio:.2f}× cold",
        f"{peak / 2**20:,.0f} MiB",
        f"{peer:.1f} s" if peer else "not run",
        f"{floor:.2f} s",
        f"{report['snakemake_alone']['nothing to do']:.2f} s",
    ]
    return "| " + " | ".join(cells) + " |"


def page(figures: dict[str, dict]) -> str:
    first = next(iter(figures.values()))["scale"]
    header = (
        "| Folders | Cold (÷ BenchFlow) | Edited trial | Nothing changed | Bundle | Verify | Peak memory "
        "| BenchFlow metrics | Read floor | Snakemake alone |"
    )
    lines = [
        "# Performance",
        "",
        "Written by `benchmarks/performance_doc.py`; earlier figures and the A/B runs behind each design "
        "choice are in `benchmarks/RESULTS.md`.",
        "",
        f"Measured {datetime.date.today().isoformat()} on commit {first['commit']}, "
        f"`snakemake --cores 2`, on this machine:",
        "",
        *(f"- {line}" for line in first["machine"]),
        "",
        header,
        "|" + "---|" * (header.count("|") - 1),
        *(row(shape, figure) for shape, figure in figures.items()),
        "",
        "- **Cold**: a fresh copy of the workflow, no results; in brackets, divided by BenchFlow's own "
        "`bench eval metrics` on the same folders (a best-of-K score and no interval).",
        "- **Edited trial**: the run after flipping one trial's reward; **nothing changed**: a run "
        "with nothing new (medians).",
        "- **Bundle**: `snakemake bundle` after a cold run; **verify**: `benchreport verify` of that "
        "archive, each divided by the cold run of the same call.",
        "- **Peak memory**: the largest sum of resident memory over the whole process tree, any run.",
        "- **Read floor**: one process that only opens, reads and decodes the files ingest reads; "
        "**Snakemake alone**: a one-rule workflow with nothing to do, the least any run can take.",
        "",
        "Times move with the machine's other load (its load average at the start is above); the ratios "
        "within one call are the figures to compare across machines.",
        "",
    ]
    return "\n".join(lines)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--shape", action="append", choices=sorted(scale.SHAPES), required=True)
    parser.add_argument("--peer", help="BenchFlow's `bench` (benchmarks/install_peer.sh)")
    parser.add_argument("--tmp", type=Path, default=Path("/tmp/benchreport-scale"))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--out", type=Path, default=DOC)
    args = parser.parse_args(argv)
    figures = {shape: measure(shape, args.peer, args.tmp, args.repeats) for shape in args.shape}
    args.out.write_text(page(figures))
    print(f"written: {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
