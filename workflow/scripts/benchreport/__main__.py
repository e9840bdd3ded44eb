"""Command line: `lineage <file>` prints an output's lineage and re-checks it; `verify <bundle>`
checks a bundle and re-runs its inputs to the same bytes (with the installed code by default);
`check <results>` checks that every output prints the same numbers; `interval [file]` prints the
headline interval of each run (JSON lines in, JSON lines out)."""

from __future__ import annotations

import argparse
import sys

from . import agreement
from .lineage import check_number, check_tree
from .verify import MAX_BYTES, MAX_RATIO, verify


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchreport")
    commands = parser.add_subparsers(dest="command", required=True)
    lineage = commands.add_parser("lineage", help="print an output's lineage tree and re-check every hash")
    lineage.add_argument("file", help="a file under results/")
    lineage.add_argument(
        "--number",
        help="a number of the file's setting (a path into its summary.json: pass_rate, "
        "headline, per_task.<task>, usage.cost_measures.<measure>, controls.<task>, ...): print the "
        "trials it was computed from and re-hash their job-folder files",
    )
    check = commands.add_parser(
        "verify",
        help="check a bundle's manifest and re-run its inputs to the same bytes",
        description="Checks MANIFEST.sha256 and re-runs the bundled job-folder files with this installation's "
        "benchreport workflow (not the code in the archive) and the bundled config with every command switched "
        "off, then compares every output. Proves consistency, not origin.",
    )
    check.add_argument("bundle", help="a results/bundle/<name>.tar.gz")
    check.add_argument("--cores", type=int, default=2)
    check.add_argument(
        "--run-bundled-code",
        action="store_true",
        help="re-run with the workflow code in the archive: this EXECUTES code from the archive",
    )
    check.add_argument(
        "--max-bytes",
        type=int,
        default=MAX_BYTES,
        help="refuse an archive whose contents add up to more (default %(default)s)",
    )
    check.add_argument(
        "--max-ratio",
        type=float,
        default=MAX_RATIO,
        help="refuse an archive whose contents exceed this multiple of its size (default %(default)s)",
    )
    agree = commands.add_parser("check", help="check that every output in a results folder prints the same numbers")
    agree.add_argument("results", nargs="?", default="results", help="a results/ folder (default: results)")
    interval = commands.add_parser("interval", help="the headline interval of runs given as JSON lines")
    interval.add_argument("file", nargs="?", default="-", help="JSON lines, one run each (default: stdin)")
    # defaults: the workflow's (interval.DEFAULTS), filled in below so that --help imports no numpy
    interval.add_argument("--confidence", type=float, help="default: the workflow's statistics.confidence")
    interval.add_argument("--seed", type=int, help="default: the workflow's statistics.seed")
    interval.add_argument("--simulations", type=int, help="default: the workflow's statistics.coverage_simulations")
    args = parser.parse_args(argv)
    if args.command == "check":
        checked, findings = agreement.check(args.results)
        print("\n".join(findings))
        print(f"{checked:,} comparisons, {len(findings):,} disagreements")
        return 1 if findings else 0
    if args.command == "interval":
        from .interval import DEFAULTS

        for name, key in (("confidence", "confidence"), ("seed", "seed"), ("simulations", "coverage_simulations")):
            if getattr(args, name) is None:
                setattr(args, name, DEFAULTS[key])
        return print_headlines(args)
    if args.command == "verify":
        return verify(
            args.bundle,
            args.cores,
            run_bundled_code=args.run_bundled_code,
            max_bytes=args.max_bytes,
            max_ratio=args.max_ratio,
        )
    if args.command == "lineage" and args.number:
        ok, lines = check_number(args.file, args.number)
        print("\n".join(lines))
        print("every trial found, every file unchanged" if ok else "SOME TRIALS OR FILES ARE MISSING OR CHANGED")
        return 0 if ok else 1
    if args.command == "lineage":
        ok, lines = check_tree(args.file)
        print("\n".join(lines))
        print("all hashes match" if ok else "SOME HASHES DO NOT MATCH (or records are missing)")
        return 0 if ok else 1
    return 2


def print_headlines(args) -> int:
    """`interval`: 0 when every line was a run, 1 when some were not (each gets an "error" line)."""
    import json

    from .interval import headlines

    params = {"confidence": args.confidence, "seed": args.seed, "coverage_simulations": args.simulations}
    if args.file == "-":
        lines = sys.stdin.read().splitlines()
    else:
        with open(args.file, encoding="utf-8") as handle:
            lines = handle.read().splitlines()
    results = headlines(lines, params)
    sys.stdout.write("".join(json.dumps(result, sort_keys=True) + "\n" for result in results))
    return 1 if any("error" in result for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
