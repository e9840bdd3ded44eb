"""Command line: `benchreport <command>`, each command's help its own (`benchreport --help`).

Bad usage, and a file that is missing, unreadable or not what the command reads, end in
argparse's one-line usage error naming the file (exit 2), never in a traceback."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from . import __version__
from .archive import agreement
from .archive.verify import MAX_BYTES, MAX_DRAWS, MAX_RATIO, verify
from .pipeline.lineage import check_number, check_tree


def main(argv=None) -> int:
    args = command_parser().parse_args(argv)
    usage: argparse.ArgumentParser = args.usage
    try:
        return args.run(args)
    except OSError as error:  # a file that is missing, unreadable, or a folder
        usage.error(f"{error.filename}: {error.strerror}" if error.filename else str(error))
    except ValueError as error:  # a file that is not what the command reads (the message names it)
        usage.error(str(error))


def command_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="benchreport")
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True)
    lineage = command(commands, "lineage", print_lineage, help="print an output's lineage tree and re-check every hash")
    lineage.add_argument("file", type=existing(Path.is_file, "a file"), help="a file under results/")
    lineage.add_argument(
        "--number",
        help="a number of the file's setting (a path into its summary.json: pass_rate, "
        "headline, per_task.<task>, usage.cost_measures.<measure>, controls.<task>, ...): print the "
        "trials it was computed from and re-hash their job-folder files",
    )

    verifier = bundle_command(
        commands,
        "verify",
        verify_bundle,
        help="check a bundle's manifest and re-run its inputs to the same bytes",
        description="Checks MANIFEST.sha256 and re-runs the bundled job-folder files with this installation's "
        "benchreport workflow (not the code in the archive) and the bundled config with every command switched "
        "off, then compares every output. Proves consistency, not origin.",
    )
    verifier.add_argument("--cores", type=positive(int), default=2)
    verifier.add_argument(
        "--run-bundled-code",
        action="store_true",
        help="re-run with the workflow code in the archive: this EXECUTES code from the archive",
    )
    verifier.add_argument(
        "--max-bytes",
        type=positive(int),
        default=MAX_BYTES,
        help="refuse an archive whose contents add up to more (default %(default)s)",
    )
    verifier.add_argument(
        "--max-ratio",
        type=positive(float),
        default=MAX_RATIO,
        help="refuse an archive whose contents exceed this multiple of its size (default %(default)s)",
    )
    verifier.add_argument(
        "--max-draws",
        type=draw_limit,
        action="append",
        default=[],
        metavar="KEY=N",
        help="refuse a bundle whose config sets more than N draws for KEY before re-running it; defaults: "
        + ", ".join(f"{key}={most}" for key, most in MAX_DRAWS.items()),
    )

    bundle_command(
        commands,
        "review",
        review_bundle,
        help="list what a bundle would publish that still looks like a secret",
        description="Reads every file and name of the bundle and prints one line per string the secret scan "
        "still finds or that looks random (high entropy) and was left unredacted: the file, the rule and a masked "
        "context. Read it before sharing the bundle; exit status 1 when anything is listed.",
    )

    agree = command(
        commands, "check", check_agreement, help="check that every output in a results folder prints the same numbers"
    )
    agree.add_argument(
        "results",
        nargs="?",
        default="results",
        type=existing(Path.is_dir, "a folder"),
        help="a results/ folder (default: results)",
    )

    interval = json_lines_command(commands, "interval", print_headlines, "the headline interval of runs", "run")
    interval.add_argument(
        "--simulations", type=positive(int), help="default: the workflow's statistics.coverage_simulations"
    )

    compare = json_lines_command(
        commands, "compare", print_comparisons, "the paired comparison of two settings' per-task counts", "comparison"
    )
    compare.add_argument(
        "--permutations",
        type=positive(int),
        help="Monte Carlo draws where the exact law is too large; default: the workflow's statistics.permutations",
    )

    planner = json_lines_command(
        commands, "plan", print_plans, "how many tasks and tries reach a target, from a pilot's counts", "pilot"
    )
    planner.add_argument(
        "--results", type=existing(Path.is_dir, "a folder"), help="plan from each setting of a results/ folder instead"
    )
    planner.add_argument("--half-width", type=fraction, help="the interval half-width to reach (0.05: ±5 points)")
    planner.add_argument("--difference", type=fraction, help="the mean difference between two settings to detect")
    planner.add_argument("--power", type=fraction, help="the power to detect it with (default 0.8)")
    planner.add_argument(
        "--assurance", type=fraction, help="the share of runs that must reach the half-width (default 0.8)"
    )
    planner.add_argument("--simulations", type=positive(int), help="simulated runs per shape tried (default 2000)")
    return parser


def command(commands, name: str, run, **described) -> argparse.ArgumentParser:
    """A command that runs `run`, its own usage line the one a bad file's message ends in."""
    parser = commands.add_parser(name, **described)
    parser.set_defaults(run=run, usage=parser)
    return parser


def bundle_command(commands, name: str, run, **described) -> argparse.ArgumentParser:
    parser = command(commands, name, run, **described)
    parser.add_argument("bundle", type=existing(Path.is_file, "a file"), help="a results/bundle/<name>.tar.gz")
    return parser


def json_lines_command(commands, name: str, run, what: str, line: str) -> argparse.ArgumentParser:
    """A command that reads JSON lines, one `line` each, with the workflow's level and seed as
    defaults (filled in by `run`, so that --help imports no numpy)."""
    parser = command(commands, name, run, help=f"{what} given as JSON lines")
    parser.add_argument("file", nargs="?", default="-", help=f"JSON lines, one {line} each (default: stdin)")
    parser.add_argument("--confidence", type=fraction, help="a level strictly between 0 and 1; default: the workflow's")
    seed = _bounded(int, lambda value: value >= 0, "0 or more")
    parser.add_argument("--seed", type=seed, help="default: the workflow's statistics.seed")
    return parser


def existing(test, what: str):
    """An argument type: a path that `test` (Path.is_file, Path.is_dir) accepts."""

    def path(text: str) -> str:
        if not Path(text).exists():
            raise argparse.ArgumentTypeError(f"{text}: no such file or folder")
        if not test(Path(text)):
            raise argparse.ArgumentTypeError(f"{text}: not {what}")
        return text

    return path


def draw_limit(text: str) -> tuple[str, int]:
    """An argument type: KEY=N, KEY one of verify's MAX_DRAWS, N a whole number above 0."""
    key, _, most = text.partition("=")
    if key not in MAX_DRAWS:
        raise argparse.ArgumentTypeError(f"{key!r} is not one of {', '.join(MAX_DRAWS)}")
    return key, positive(int)(most)


def positive(kind):
    """An argument type: a number of `kind` above 0."""
    return _bounded(kind, lambda value: value > 0, "above 0")


def fraction(text: str) -> float:
    return _bounded(float, lambda value: 0 < value < 1, "strictly between 0 and 1")(text)


def _bounded(kind, accepts, bounds: str):
    def number(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(
                f"{text!r} is not {'a whole number' if kind is int else 'a number'}"
            ) from None
        if not accepts(value):
            raise argparse.ArgumentTypeError(f"{text} is not {bounds}")
        return value

    return number


def print_lineage(args) -> int:
    if args.number:
        ok, lines = check_number(args.file, args.number)
        print("\n".join(lines))
        print("every trial found, every file unchanged" if ok else "SOME TRIALS OR FILES ARE MISSING OR CHANGED")
        return 0 if ok else 1
    ok, lines = check_tree(args.file)
    print("\n".join(lines))
    print("all hashes match" if ok else "SOME HASHES DO NOT MATCH (or records are missing)")
    return 0 if ok else 1


def verify_bundle(args) -> int:
    return verify(
        args.bundle,
        args.cores,
        run_bundled_code=args.run_bundled_code,
        max_bytes=args.max_bytes,
        max_ratio=args.max_ratio,
        max_draws=MAX_DRAWS | dict(args.max_draws),
    )


def review_bundle(args) -> int:
    from .archive.review import review_archive

    members, findings = review_archive(args.bundle)
    for finding in findings:
        print(f"{finding.file}\t{finding.rule}\t{finding.context}")
    print(f"{members:,} files read, {len(findings):,} strings that look like secrets")
    return 1 if findings else 0


def check_agreement(args) -> int:
    checked, findings = agreement.check(args.results)  # a ValueError names the summary.json
    print("\n".join(findings))
    print(f"{checked:,} comparisons, {len(findings):,} disagreements")
    return 1 if findings else 0


def print_headlines(args) -> int:
    """`interval`: 0 when every line was a run, 1 when some were not (each gets an "error" line)."""
    from .compute.interval import DEFAULTS, headlines

    params = given_over(DEFAULTS, confidence=args.confidence, seed=args.seed, coverage_simulations=args.simulations)
    return write_json_lines(headlines(read_lines(args.file), params))


def print_comparisons(args) -> int:
    """`compare`: 0 when every line was a comparison, 1 when some were not (each gets an "error" line)."""
    from .compute.compare import DEFAULTS, comparisons

    params = given_over(DEFAULTS, confidence=args.confidence, seed=args.seed, permutations=args.permutations)
    return write_json_lines(comparisons(read_lines(args.file), params))


def print_plans(args) -> int:
    """`plan`: 0 when every pilot gave a plan, 1 when some did not (each gets an "error" line)."""
    from .compute.plan import DEFAULTS, pilots

    if args.half_width is None and args.difference is None:
        args.usage.error("give --half-width, --difference or both")
    chosen = {"power": args.power, "assurance": args.assurance, "simulations": args.simulations}
    params = given_over(DEFAULTS, confidence=args.confidence, seed=args.seed, **chosen)
    lines = None if args.results else read_lines(args.file)
    return write_json_lines(pilots(args.results, lines, params, args.half_width, args.difference))


def given_over(defaults: dict, **given) -> dict:
    """The workflow's defaults, each option given on the command line in its place."""
    return defaults | {key: value for key, value in given.items() if value is not None}


def read_lines(file: str) -> list[str]:
    """The lines of a UTF-8 file, or of stdin for "-"."""
    source = "stdin" if file == "-" else file
    try:
        if file == "-":
            return sys.stdin.read().splitlines()
        with open(file, encoding="utf-8") as handle:
            return handle.read().splitlines()
    except UnicodeDecodeError as error:
        raise ValueError(f"{source}: not UTF-8 text ({error.reason} at byte {error.start})") from None


def write_json_lines(results: list[dict]) -> int:
    """One JSON line per result; 1 when some line was an error, else 0."""
    import json

    sys.stdout.write("".join(json.dumps(result, sort_keys=True) + "\n" for result in results))
    return 1 if any("error" in result for result in results) else 0


if __name__ == "__main__":
    sys.exit(main())
