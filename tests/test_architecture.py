"""docs/ARCHITECTURE.md stays true and short: every benchreport name it gives in backticks is
defined in that module, every repository file it names exists, every Snakemake rule it names is
one, and it holds no machine timings and no history."""

from __future__ import annotations

import ast
import functools
import glob
import itertools
import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
DOC = REPO / "docs" / "ARCHITECTURE.md"
PACKAGE = REPO / "workflow" / "scripts" / "benchreport"
MAX_LINES = 210

# what follows a dot in a file name, not a name in a module (`stats.json`, `report.md.j2`)
FILE_SUFFIXES = {"py", "json", "md", "html", "csv", "tsv", "tex", "svg", "png", "j2", "gz", "yaml", "smk", "txt"}
# `module.name` or `module.Class.method`, optionally as `benchreport.module.name`; not the tail of
# a path or of a longer dotted name
DOTTED = re.compile(
    r"(?<![\w/.<>{-])(?:benchreport\.)?([a-z_][a-z0-9_]*)\.([A-Za-z_]\w*)(?:\.([A-Za-z_]\w*))?(?![\w/-])"
)
# a path in backticks: a folder (no dot in its name but a leading one) and more, placeholders as
# <name> or {a,b} allowed; not a dotted id such as a schema's `benchreport.setting-result/1`
PATH = re.compile(r"^(?:\.?[\w<>{},*-]+)(?:/[\w.<>{},*-]+)+/?$")
# first folders of paths the workflow writes or a bundle holds, not files of the repository
WRITTEN = {"results", "logs", ".snakemake", "jobs", "replay", "workflow-code", "job_roots"}
RULE_NAMED = re.compile(r"\b(?:rule|checkpoint) `([\w-]+)`|`(?:rule|checkpoint) ([\w-]+)`")
RULE_DEFINED = re.compile(r"^(?:rule|checkpoint) (\w+):", re.M)
# history and development words (three spelt apart, which the repository's own text never uses)
HISTORY = re.compile(
    r"\b(?:was|were|used to|no longer|now|before|formerly|" + "sess" + "ion|" + "iss" + "ue|" + "rev" + r"iew)\b",
    re.I,
)
TIMING = re.compile(r"\d\s*(?:ms|µs|s|sec|seconds?|min|minutes?|h|hours?)\b|% (?:faster|slower)|\bCPU\b")


def spans(text: str) -> list[str]:
    """The text of each code span and each fenced block (the diagram), fenced blocks whole."""
    fenced = re.findall(r"```.*?```", text, re.S)
    rest = re.sub(r"```.*?```", "", text, flags=re.S)
    return fenced + re.findall(r"`([^`\n]+)`", rest)


@functools.cache
def defined(module: str) -> dict[str, frozenset[str] | None]:
    """name -> None for a module-level function, constant or variable; for a class, the names
    its body defines (methods, attributes, dataclass fields). Imported names are not defined."""
    tree = ast.parse(module_files()[module].read_text(encoding="utf-8"))
    names: dict[str, frozenset[str] | None] = {}

    def targets(node) -> list[str]:
        if isinstance(node, ast.Assign):
            found = list(node.targets)
        elif isinstance(node, ast.AnnAssign):
            found = [node.target]
        else:
            return []
        flat = itertools.chain.from_iterable(t.elts if isinstance(t, ast.Tuple) else [t] for t in found)
        return [target.id for target in flat if isinstance(target, ast.Name)]

    def visit(body) -> None:
        for node in body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                names[node.name] = None
            elif isinstance(node, ast.ClassDef):
                members = [n.name for n in node.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))]
                members += itertools.chain.from_iterable(targets(n) for n in node.body)
                names[node.name] = frozenset(members)
            elif isinstance(node, (ast.If, ast.Try)):
                visit(node.body)
                visit(node.orelse)
                for handler in getattr(node, "handlers", []):
                    visit(handler.body)
            else:
                names.update(dict.fromkeys(targets(node)))

    visit(tree.body)
    return names


@functools.cache
def module_files() -> dict[str, Path]:
    """module name -> its file, in whichever subpackage it sits (the names are unique)."""
    files = [path for path in PACKAGE.rglob("*.py") if path.stem != "__init__"]
    assert len({path.stem for path in files}) == len(files), "two modules of one name"
    return {path.stem: path for path in files} | {"__init__": PACKAGE / "__init__.py"}


def modules() -> set[str]:
    return set(module_files()) - {"__init__"}


def references(text: str) -> list[str]:
    """Every `module.name` / `module.Class.method` of a benchreport module the text gives in a
    code span or the diagram, and every `benchreport.name` (a module, or a name of the package's
    __init__)."""
    found = []
    known = modules()
    for span in spans(text):
        for match in DOTTED.finditer(span):
            module, name, member = match.groups()
            if name in FILE_SUFFIXES:
                continue
            if module in known or (module == "benchreport" and not member):
                found.append(match.group(0).removeprefix("benchreport.") if module in known else match.group(0))
    return found


def missing_names(text: str) -> list[str]:
    """The references the package does not define where they say."""
    missing = []
    for reference in references(text):
        module, name, *member = reference.split(".")
        if module == "benchreport":
            if name not in modules() and name not in defined("__init__"):
                missing.append(reference)
            continue
        names = defined(module)
        if name not in names:
            missing.append(reference)
        elif member and names[name] is not None and member[0] not in names[name]:
            missing.append(reference)
    return sorted(set(missing))


def as_glob(path: str) -> list[str]:
    """The glob patterns a path with placeholders stands for: <name> and * any name, {a,b} each."""
    path = re.sub(r"<[^>/]*>", "*", path.rstrip("/"))
    choices = re.search(r"\{([^{}]*)\}", path)
    if not choices:
        return [path]
    return [
        expanded
        for choice in choices.group(1).split(",")
        for expanded in as_glob(path[: choices.start()] + choice + path[choices.end() :])
    ]


def missing_paths(text: str) -> list[str]:
    """The repository paths the text names in backticks that match no file or folder; a path under
    benchreport/ is one of the package's."""
    missing = []
    for span in re.findall(r"`([^`\n]+)`", re.sub(r"```.*?```", "", text, flags=re.S)):
        if not PATH.match(span) or span.split("/")[0] in WRITTEN:
            continue
        base = REPO / "workflow" / "scripts" if span.startswith("benchreport/") else REPO
        if not all(glob.glob(pattern, root_dir=base) for pattern in as_glob(span)):
            missing.append(span)
    return sorted(set(missing))


def rules() -> set[str]:
    sources = [REPO / "workflow" / "Snakefile", *sorted((REPO / "workflow" / "rules").glob("*.smk"))]
    return {name for source in sources for name in RULE_DEFINED.findall(source.read_text(encoding="utf-8"))}


def named_rules(text: str) -> set[str]:
    return {first or second for first, second in RULE_NAMED.findall(text)}


def test_every_name_it_gives_is_defined_in_its_module():
    text = DOC.read_text(encoding="utf-8")
    assert len(set(references(text))) >= 40, "ARCHITECTURE.md points at too few module.function names"
    missing = missing_names(text)
    assert not missing, f"ARCHITECTURE.md names what its module does not define: {missing}"


def test_every_file_it_names_exists():
    assert not missing_paths(DOC.read_text(encoding="utf-8"))


def test_every_rule_it_names_is_a_rule_and_every_rule_is_named():
    text = DOC.read_text(encoding="utf-8")
    defined_rules = rules()
    assert named_rules(text) - defined_rules == set()
    unnamed = {rule for rule in defined_rules if not re.search(rf"\b{rule}\b", text)}
    assert unnamed <= {"all"}, f"rules ARCHITECTURE.md does not mention: {sorted(unnamed)}"


def test_it_is_short_with_no_timings_and_no_history():
    text = DOC.read_text(encoding="utf-8")
    lines = text.splitlines()
    assert len(lines) <= MAX_LINES, f"ARCHITECTURE.md has {len(lines)} lines"
    assert not HISTORY.findall(text)
    assert not TIMING.findall(text)


def test_the_checks_catch_a_moved_name_a_missing_file_and_an_unknown_rule():
    text = (
        "`stamps.refresh_state`, `stamps.no_such_function`, `stats.SettingTrials.mine`, "
        "`stats.SettingTrials.no_such_field`, `stats.version_verdict` (imported there, defined in "
        "verdicts), `benchreport.no_such_module`, `results/x.json`\n"
        "```\n  ├──► ingest  stamps.ingest_batches, files.no_such_name ──► results/ingest/<batch>/trials.json\n```\n"
        "`workflow/rules/*.smk`, `workflow/rules/{ingest,no_such}.smk`, `benchreport/pipeline/stamps.py`\n"
        "rule `ingest`, rule `no_such_rule`, checkpoint `ingested`\n"
    )
    assert missing_names(text) == [
        "benchreport.no_such_module",
        "files.no_such_name",
        "stamps.no_such_function",
        "stats.SettingTrials.no_such_field",
        "stats.version_verdict",
    ]
    assert missing_paths(text) == ["workflow/rules/{ingest,no_such}.smk"]
    assert named_rules(text) - rules() == {"no_such_rule"}
