"""Command line: `lineage <file>` prints an output's lineage and re-checks it; `verify <bundle>`
checks a bundle and re-runs its inputs to the same bytes (with the installed code by default)."""

from __future__ import annotations

import argparse
import sys

from .lineage import check_tree
from .verify import MAX_BYTES, MAX_RATIO, verify


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchreport")
    commands = parser.add_subparsers(dest="command", required=True)
    lineage = commands.add_parser("lineage", help="print an output's lineage tree and re-check every hash")
    lineage.add_argument("file", help="a file under results/")
    check = commands.add_parser(
        "verify", help="check a bundle's manifest and re-run its inputs to the same bytes",
        description="Checks MANIFEST.sha256 and re-runs the bundled job-folder files with this installation's "
        "benchreport workflow (not the code in the archive) and the bundled config with every command switched "
        "off, then compares every output. Proves consistency, not origin.")
    check.add_argument("bundle", help="a results/bundle/<name>.tar.gz")
    check.add_argument("--cores", type=int, default=2)
    check.add_argument("--run-bundled-code", action="store_true",
                       help="re-run with the workflow code in the archive: this EXECUTES code from the archive")
    check.add_argument("--max-bytes", type=int, default=MAX_BYTES,
                       help="refuse an archive whose contents add up to more (default %(default)s)")
    check.add_argument("--max-ratio", type=float, default=MAX_RATIO,
                       help="refuse an archive whose contents exceed this multiple of its size (default %(default)s)")
    args = parser.parse_args(argv)
    if args.command == "verify":
        return verify(args.bundle, args.cores, run_bundled_code=args.run_bundled_code, max_bytes=args.max_bytes,
                      max_ratio=args.max_ratio)
    if args.command == "lineage":
        ok, lines = check_tree(args.file)
        print("\n".join(lines))
        print("all hashes match" if ok else "SOME HASHES DO NOT MATCH (or records are missing)")
        return 0 if ok else 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
