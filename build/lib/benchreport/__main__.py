"""Command line: `lineage <file>` prints an output's lineage and re-checks it; `verify <bundle>`
checks a bundle and re-runs it to the same bytes."""

from __future__ import annotations

import argparse
import sys

from .lineage import check_tree
from .verify import verify


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchreport")
    commands = parser.add_subparsers(dest="command", required=True)
    lineage = commands.add_parser("lineage", help="print an output's lineage tree and re-check every hash")
    lineage.add_argument("file", help="a file under results/")
    check = commands.add_parser("verify", help="check a bundle's manifest and re-run it to the same bytes")
    check.add_argument("bundle", help="a results/bundle/<name>.tar.gz")
    check.add_argument("--cores", type=int, default=2)
    args = parser.parse_args(argv)
    if args.command == "verify":
        return verify(args.bundle, args.cores)
    if args.command == "lineage":
        ok, lines = check_tree(args.file)
        print("\n".join(lines))
        print("all hashes match" if ok else "SOME HASHES DO NOT MATCH (or records are missing)")
        return 0 if ok else 1
    return 2


if __name__ == "__main__":
    sys.exit(main())
