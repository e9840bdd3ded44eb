"""`benchreport verify <bundle>`: check a bundle, then re-run its inputs to the same bytes.

The archive is read once, as a stream: each member's name and type are checked against the
rules below and its declared size against the limits before a byte of it is read; every file is
hashed as it streams by; only what the re-run reads (the job-folder files but the attempts'
verifier files, the inspection records, the config) is written to disk. Then MANIFEST.sha256 is
checked both ways, and the re-run's outputs are compared with the manifest's hashes of the
bundled outputs, so results/ is never unpacked.

By default nothing from the archive is executed: the re-run uses the verifier's own installed
benchreport workflow, and a config built from the bundled one with every key that would run a
command switched off (controls.run, Docker: inspection records are replayed from the bundle).
`--run-bundled-code` runs the archive's workflow-code/ instead.

What verify proves is consistency: the outputs follow from the bundled inputs and config under
the code that re-ran them. It cannot prove origin: inputs, outputs and manifest forged together
verify too.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from .discover import REVIEW_DIRS, VERIFIER_FILES, VERIFIER_FOLDER
from .files import printable
from .lineage import PACKAGE_DIR, WORKFLOW_DIR
from .stamps import INGESTED_RECORD

NOT_RERUN = ("results/lineage/", "results/bundle/", "results/controls/")
# written to disk for the re-run (but the verifier's files: not_read); everything else is only hashed
RERUN_INPUTS = ("jobs/", "replay/")
CODE = "workflow-code/"
# An installed wheel carries the workflow tree it was built from in this folder of the package, laid
# out as a checkout (setup.py's build_workflow); a checkout, or an editable install, is the tree.
WORKFLOW_COPY = "workflow-tree"
SMALL = {"MANIFEST.sha256": 1 << 30, "config.yaml": 16 << 20, "BUNDLE.json": 64 << 20}
MAX_BYTES = 64 << 30  # all members' contents together
MAX_RATIO = 200  # contents / archive bytes; gzip'd JSON and text are 5-30
RATIO_FLOOR = 256 << 20  # small archives may expand to this whatever their ratio
MAX_MEMBERS = 20_000_000
MAX_CONFIG_NODES = 1_000_000  # a real config.yaml has a few hundred
MANIFEST_LINE = re.compile(r"([0-9a-f]{64})  (.+)")
DRIVE = re.compile(r"[A-Za-z]:")
ABSENT = object()  # not among the members
PROOF = (
    "proved: every file matches MANIFEST.sha256, and the outputs follow byte for byte from the bundled "
    "job-folder files and config under the code that re-ran them.\n"
    "not proved: origin. Nothing in a bundle is signed; inputs, outputs and manifest made up together "
    "verify as well."
)


def shown(text: str) -> str:
    """Text as one printable line: a name from the archive may hold a newline, a control or
    direction-override character, or an undecodable byte (a lone surrogate), each written out."""
    return "".join(ch if ch.isprintable() else ascii(ch)[1:-1] for ch in printable(text))


class Refused(Exception):
    """The archive is refused as it stands (unsafe, over a limit, truncated, incomplete)."""


def check_name(name: str, what: str = "path") -> None:
    """A relative path of plain components, as a member name or a manifest line may hold."""
    if not name or "\0" in name or "\\" in name or name.startswith("/") or DRIVE.match(name):
        raise Refused(f"{what} refused (absolute or malformed): {name!r}")
    if any(part in ("..", ".", "") for part in name.rstrip("/").split("/")):
        raise Refused(f"{what} with '..' or an empty part refused: {name!r}")


def check_member(member: tarfile.TarInfo) -> None:
    check_name(member.name, "member")
    if member.issym() or member.islnk():
        raise Refused(f"link refused: {member.name} -> {member.linkname}")
    if member.issparse():
        raise Refused(f"sparse member refused: {member.name}")
    if not (member.isreg() or member.isdir()):
        raise Refused(f"special file refused: {member.name}")


class Limits:
    """Declared sizes, summed as the headers arrive, against the limits (checked before reading)."""

    def __init__(self, archive_bytes: int, max_bytes: int, max_ratio: float):
        self.allowed = min(max_bytes, max(RATIO_FLOOR, int(archive_bytes * max_ratio)))
        self.archive_bytes, self.max_ratio = archive_bytes, max_ratio
        self.total = self.members = 0

    def take(self, member: tarfile.TarInfo) -> None:
        self.members += 1
        self.total += member.size
        if self.members > MAX_MEMBERS:
            raise Refused(f"more than {MAX_MEMBERS:,} members")
        if self.total > self.allowed:
            raise Refused(
                f"{member.name} takes the contents past {self.allowed:,} bytes ({self.archive_bytes:,}-byte archive, "
                f"at most {self.max_ratio:g}x it, or --max-bytes): a compression bomb or a bundle too large"
            )


def stream_file(source, size: int, sinks) -> bytes:
    """Copy a member's bytes to each sink; its sha256 digest."""
    digest = hashlib.sha256()
    remaining = size
    while remaining:
        chunk = source.read(min(remaining, 1 << 20))
        if not chunk:
            raise Refused("the archive ends inside a member (truncated)")
        remaining -= len(chunk)
        digest.update(chunk)
        for sink in sinks:
            sink.write(chunk)
    return digest.digest()


class Inflate(io.RawIOBase):
    """The deflate stream of a .gz file, decompressed as it is read. As tarfile's own "r|gz"
    does, the trailer's CRC is not checked (every member is checked by its sha256 instead), so a
    member is refused for what its header says before a bad end of the file is reached."""

    def __init__(self, handle):
        self.handle, self.inflater = handle, zlib.decompressobj(-zlib.MAX_WBITS)
        head = handle.read(10)
        if len(head) < 10 or head[:3] != b"\x1f\x8b\x08":
            raise tarfile.ReadError("not a gzip file")
        flags = head[3]
        if flags & 4:  # FEXTRA: a length, then that many bytes
            size = handle.read(2)
            handle.read(int.from_bytes(size, "little") if len(size) == 2 else 0)
        for flag in (8, 16):  # FNAME, FCOMMENT: zero-terminated
            if flags & flag:
                while handle.read(1) not in (b"\0", b""):
                    pass
        if flags & 2:  # FHCRC
            handle.read(2)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer) -> int:
        while not self.inflater.eof:
            compressed = self.inflater.unconsumed_tail or self.handle.read(1 << 16)
            # with no input left, zlib may still hold output (decompress(b"") gives it)
            data = self.inflater.decompress(compressed, len(buffer))
            if data:
                buffer[: len(data)] = data
                return len(data)
            if not compressed:
                raise EOFError("the archive ends inside its compressed stream (truncated)")
        return 0


def inflated(handle) -> io.BufferedReader:
    return io.BufferedReader(Inflate(handle), buffer_size=1 << 16)


class Unwritable(Exception):
    """A file or folder of the re-run that cannot be made (a full disk, a member that is a file
    where another needs a folder): verify fails, the archive is not refused for it."""


def _unwritable(exc: OSError, path: str) -> Unwritable:
    return Unwritable(f"{exc.strerror or type(exc).__name__}: {exc.filename or path}")


class FileMaker:
    """Makes the re-run's folders and files: one mkdir per folder, not per file (file creation is
    the cost here). An error is raised as Unwritable, naming the place."""

    def __init__(self):
        self.made: set[str] = set()

    def folder(self, path: str) -> None:
        if path not in self.made:
            try:
                os.makedirs(path, exist_ok=True)
            except OSError as exc:
                raise _unwritable(exc, path) from None
            self.made.add(path)

    @contextlib.contextmanager
    def file(self, path: str):
        """A new file at `path`, its folder made if need be, open for writing (stream_file's sink)."""
        self.folder(os.path.dirname(path))
        try:
            handle = open(path, "xb")
        except OSError as exc:
            raise _unwritable(exc, path) from None
        with handle:
            yield handle


def read_archive(bundle: Path, target: Path, *, keep_code: bool, limits: Limits, progress) -> tuple[str, dict, dict]:
    """One pass over the archive: (top folder, member name -> sha256 digest, small files by
    name). Writes the re-run's inputs (and workflow-code/ with keep_code) under target; every
    other member is only hashed."""
    return _read_members(bundle, target, keep_code, limits, progress, FileMaker())


def _read_members(bundle: Path, target: Path, keep_code: bool, limits: Limits, progress, maker: FileMaker) -> tuple:
    top, hashes, small = None, {}, {}
    started = last = time.monotonic()
    # a buffered inflater under a plain tar stream: tarfile's own "r|gz" decompresses in 10 KiB
    # steps and copies its buffer at each read (13.5 s of CPU against 8.7 s for 70,000 members)
    with open(bundle, "rb") as handle, tarfile.open(fileobj=inflated(handle), mode="r|") as tar:
        while (member := tar.next()) is not None:
            # a stream is read once: tarfile's list of every member read so far (for random
            # access, which a stream never has) is let go, ~300 MB at 700,000 members
            tar.members.clear()
            check_member(member)
            limits.take(member)
            first, _, name = member.name.rstrip("/").partition("/")
            if top is None:
                top = first
            if first != top:
                raise Refused(f"expected one top folder, found {top!r} and {first!r}")
            if not name:
                continue
            if member.isdir():  # the job folders' folders made as they are (an attempt folder may be empty)
                if name.startswith(RERUN_INPUTS) and not not_read(name):
                    maker.folder(os.path.join(target, name))
                continue
            if name in hashes:
                raise Refused(f"member twice in the archive: {member.name}")
            source = tar.extractfile(member)
            sinks = []
            if name in SMALL:
                if member.size > SMALL[name]:
                    raise Refused(f"{name} is {member.size:,} bytes, more than {SMALL[name]:,}")
                small[name] = io.BytesIO()
                sinks.append(small[name])
            keep = name.startswith(RERUN_INPUTS) or (keep_code and name.startswith(CODE))
            if keep and not not_read(name):
                destination = os.path.join(target, name[len(CODE) :] if name.startswith(CODE) else name)
                with maker.file(destination) as sink:
                    hashes[name] = stream_file(source, member.size, [*sinks, sink])
            else:
                hashes[name] = stream_file(source, member.size, sinks)
            now = time.monotonic()
            if now - last >= 5:
                last = now
                progress(f"read {len(hashes):,} files, {limits.total / 2**20:,.0f} MiB, in {now - started:.0f} s")
    if top is None:
        raise Refused("the archive is empty")
    return top, hashes, {name: data.getvalue() for name, data in small.items()}


def not_read(name: str) -> bool:
    """Whether a job-folder member is an attempt's verifier folder or one of its files
    (discover.VERIFIER_FILES), which no stage reads (ingest reads the trial files, the
    trajectory, reviews/ and scoring/), so the re-run does without them: a third of what verify
    would make and remove at 100 x 1,000. Its attempt folder is still made (from its own folder
    member). Under reviews/ or scoring/ every file is read (a review's own verifier)."""
    parts = name.split("/")
    if parts[0] != "jobs" or any(part in REVIEW_DIRS for part in parts):
        return False
    return parts[-1] == VERIFIER_FOLDER or "/".join(parts[-2:]) in VERIFIER_FILES


def manifest_lines(data: bytes):
    """(name, sha256 hex) of each line of MANIFEST.sha256, "<64 hex>  <name>", each name a safe
    relative path. Read a line at a time: a manifest of 700,000 lines is ~120 MB, its lines as
    strings as much again. (Lines end where str.splitlines ends them: each \n-ended line is split
    again, as a name may hold another line break.)"""
    number = 0
    for raw in io.BytesIO(data):
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            raise Refused("MANIFEST.sha256 is not UTF-8") from None
        for line in text.splitlines():
            number += 1
            match = MANIFEST_LINE.fullmatch(line)
            if not match:
                raise Refused(f"MANIFEST.sha256 line {number} is not '<sha256>  <name>'")
            digest, name = match.groups()
            check_name(name, f"MANIFEST.sha256 line {number}: name")
            yield name, digest


def parse_manifest(data: bytes) -> dict[str, str]:
    """name -> sha256 hex; each line "<64 hex>  <name>", each name a safe relative path, once."""
    listed = {}
    for name, digest in manifest_lines(data):
        if name in listed:
            raise Refused(f"MANIFEST.sha256 lists {name} twice")
        listed[name] = digest
    return listed


def check_manifest(listed: dict[str, str], hashes: dict[str, bytes]) -> list[str]:
    return check_listing(listed.items(), dict(hashes), lambda name: False)[0]


def check_listing(lines, hashes: dict[str, bytes], wanted) -> tuple[list[str], dict[str, str], int]:
    """The manifest's (name, sha256 hex) lines against the members' digests, as they come: the
    problems (sorted as the manifest is), the lines `wanted` names and how many lines there were. `hashes` is used up: each
    member matched is marked None (so a name listed twice is found without a set of them all)."""
    problems, kept, missing, count = [], {}, set(), 0
    for name, digest in lines:
        count += 1
        found = hashes.get(name, ABSENT)
        if found is None or name in missing:
            raise Refused(f"MANIFEST.sha256 lists {name} twice")
        if found is ABSENT:
            missing.add(name)
            problems.append((name, f"missing: {name}"))
        else:
            hashes[name] = None
            if found.hex() != digest:
                problems.append((name, f"changed (sha256 differs from the manifest): {name}"))
        if wanted(name):
            kept[name] = digest
    unlisted = sorted(name for name, digest in hashes.items() if digest is not None and name != "MANIFEST.sha256")
    return [f"not in the manifest: {name}" for name in unlisted] + [line for _, line in sorted(problems)], kept, count


def read_and_check(path: Path, work: Path, keep_code: bool, limits: Limits, progress) -> tuple:
    """read_archive, then the manifest checked against the members' digests: (the problems, the
    outputs' and the code's manifest lines, how many lines, the small files but the manifest)."""
    _, hashes, small = read_archive(path, work, keep_code=keep_code, limits=limits, progress=progress)
    if "MANIFEST.sha256" not in small:
        raise Refused("no MANIFEST.sha256 in the archive: not a benchreport bundle, or an incomplete one")
    # checked as it is read; only the outputs' and the code's lines are kept
    problems, listed, files = check_listing(
        manifest_lines(small.pop("MANIFEST.sha256")), hashes, lambda name: name.startswith(("results/", CODE))
    )
    return problems, listed, files, small


def within_nodes(value, limit: int) -> bool:
    """Whether a parsed YAML value has at most `limit` values counted as written out: YAML aliases
    share one object, so a few kilobytes can stand for billions of values, or for a cycle."""
    pending, count = [value], 0
    while pending:
        item = pending.pop()
        count += 1
        if count > limit:
            return False
        if isinstance(item, dict):
            pending.extend(item.keys())
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return True


def rerun_config(data: bytes, labels: list[str]) -> tuple[dict, list[str]]:
    """The bundled config with every key that runs a command switched off, and what was refused.
    Job roots must be the bundled ones (jobs/<label>)."""
    import yaml  # here, so that `benchreport --help` needs none of the run-time dependencies

    try:
        config = yaml.safe_load(data)
    except yaml.YAMLError as exc:
        raise Refused(f"config.yaml does not parse: {str(exc).splitlines()[0]}") from None
    except RecursionError:
        raise Refused("config.yaml is nested too deeply") from None
    if not isinstance(config, dict):
        raise Refused("config.yaml is not a mapping")
    if not within_nodes(config, MAX_CONFIG_NODES):
        raise Refused(f"config.yaml expands past {MAX_CONFIG_NODES:,} values (aliases of aliases, or a cycle)")
    refused = []
    roots = config.get("job_roots")
    if not isinstance(roots, list) or any(root not in [f"jobs/{label}" for label in labels] for root in roots):
        raise Refused(f"config.yaml job_roots must be folders of the bundle's jobs/ ({repr(roots)[:200]})")
    controls = config.setdefault("controls", {})
    run = controls.setdefault("run", {}) if isinstance(controls, dict) else None
    environment = config.setdefault("environment", {})
    for key, value in (("controls", controls), ("controls.run", run), ("environment", environment)):
        if not isinstance(value, dict):
            raise Refused(f"config.yaml {key} is {type(value).__name__}, not a mapping")
    if run.get("enabled"):
        command = repr(run.get("command"))[:200]
        refused.append(f"controls.run (command {command}) was enabled: switched off, nothing run")
    run["enabled"] = False
    if environment.get("build_missing"):
        refused.append("environment.build_missing was on: switched off, no image built")
    if (
        environment.get("records_from") != "replay/environment/images"
        or environment.get("docker", "docker") != "docker"
    ):
        refused.append("environment: Docker is never asked; the bundle's inspection records are replayed")
    environment.update(
        {"build_missing": False, "records_from": "replay/environment/images", "docker": "docker", "docker_host": ""}
    )
    return config, refused


def installed_workflow() -> Path:
    """The workflow tree of this installation of benchreport (its Snakefile, rules, scripts and
    config, laid out as in a checkout): the copy inside an installed wheel, or the checkout the
    package sits in."""
    for root in (PACKAGE_DIR / WORKFLOW_COPY, WORKFLOW_DIR):
        if (root / "Snakefile").is_file() and (root / "workflow" / "rules").is_dir():
            return root
    raise Refused(
        f"this benchreport installation has no workflow tree ({PACKAGE_DIR / WORKFLOW_COPY} or {WORKFLOW_DIR}): "
        "install it from its source with pip (which builds the wheel that carries it), or pass --run-bundled-code"
    )


def code_difference(listed: dict[str, str], workflow: Path) -> str:
    """How the installed code compares with the code the bundle says ran (by sha256)."""
    bundled = {name[len(CODE) :]: digest for name, digest in listed.items() if name.startswith(CODE)}
    differ = []
    for relpath, digest in sorted(bundled.items()):
        path = workflow / relpath
        if not path.is_file() or hashlib.sha256(path.read_bytes()).hexdigest() != digest:
            differ.append(relpath)
    if not bundled:
        return "the bundle holds no workflow code to compare it with"
    if not differ:
        return f"it is the same bytes as the bundled workflow-code/ ({len(bundled)} files)"
    shown = ", ".join(differ[:5]) + (", ..." if len(differ) > 5 else "")
    return f"it differs from the bundled workflow-code/ in {len(differ)} of {len(bundled)} files ({shown})"


class InputsRemover(threading.Thread):
    """Removes `tree` once `marker` exists, while the process that made the marker goes on:
    removing ~600,000 files (100 x 1,000) mostly waits on the disk (60,000 took 4.7-6.1 s, 1 s of
    it CPU), and the rest of the re-run waits on the cores (at 100 x 1,000, after its ingests:
    stats, coverage, reports and figures, ~half of it)."""

    def __init__(self, marker: Path, tree: Path, progress):
        super().__init__(daemon=True)
        self.marker, self.tree, self.progress = marker, tree, progress
        self.ended = threading.Event()

    def run(self) -> None:
        while not self.ended.wait(0.2):
            if self.marker.exists():
                self.progress("re-run: every ingest done; removing its copy of the job folders meanwhile")
                try:
                    remove_tree(self.tree)
                except OSError as exc:  # (or verify stopped, its folder removed under it) left to the end
                    self.progress(f"re-run: its copy of the job folders left to the end ({shown(str(exc))})")
                return


def run_snakemake(work: Path, cores: int, progress, remove_inputs: bool = False) -> tuple[int, str]:
    """The re-run in `work`: (its exit code, the tail of its output). With `remove_inputs`, its
    copy of the job folders is removed as soon as its ingests are done (InputsRemover)."""
    command = [
        sys.executable,
        "-m",
        "snakemake",
        "--cores",
        str(cores),
        "--configfile",
        "bundle-config.yaml",
        "--quiet",
        "rules",
    ]
    tail, last = [], time.monotonic()
    # once the checkpoint's record is written no rule of the installed workflow reads a job-folder
    # file (only rule ingest does; the plan comes from the ingests' outputs, the stamps from
    # .snakemake/), so the re-run's copy of them can go
    remover = InputsRemover(work / INGESTED_RECORD, work / "jobs", progress) if remove_inputs else None
    if remover:
        remover.start()
    try:
        with subprocess.Popen(
            command,
            cwd=work,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        ) as process:
            for line in process.stdout:
                tail = (tail + [line])[-80:]
                if "steps (" in line and "done" in line and (time.monotonic() - last >= 5 or "(100%)" in line):
                    last = time.monotonic()
                    progress("re-run: " + line.strip())
    finally:  # the re-run ended, or could not start, or verify was stopped: no more watching
        if remover:
            remover.ended.set()
    if remover:
        remover.join()  # a removal under way ends before the outputs are compared and the rest removed
    return process.returncode, "".join(tail)


def compare(listed: dict[str, str], work: Path) -> tuple[list[str], int]:
    differences, compared = [], 0
    for name, digest in sorted(listed.items()):
        if not name.startswith("results/") or name.startswith(NOT_RERUN):
            continue
        compared += 1
        again = work / name
        if not again.is_file():
            differences.append(f"not made again: {name}")
        elif hashlib.sha256(again.read_bytes()).hexdigest() != digest:
            differences.append(f"differs: {name}")
    return differences, compared


def verify(
    bundle: str,
    cores: int = 2,
    out=sys.stdout,
    *,
    run_bundled_code: bool = False,
    max_bytes: int = MAX_BYTES,
    max_ratio: float = MAX_RATIO,
    err=sys.stderr,
) -> int:
    """0: consistent; 1: a file or an output differs, or the re-run failed; 2: refused."""

    def progress(line: str) -> None:
        print(line, file=err, flush=True)

    with tempfile.TemporaryDirectory(prefix="benchreport-verify-") as temporary:
        code = check(
            Path(bundle), Path(temporary) / "rerun", cores, out, progress, run_bundled_code, max_bytes, max_ratio
        )
        progress("removing the temporary folder")
        removing = time.monotonic()
        remove_tree(Path(temporary) / "rerun")
    progress(f"verify: removed the temporary folder in {time.monotonic() - removing:.0f} s")
    return code


def remove_tree(root: Path, workers: int = 8, enough: int = 64) -> None:
    """shutil.rmtree, with disjoint subtrees removed side by side: the time goes to the file
    system's unlinks, which release the GIL and overlap (here, on ext4 with online discard, a file
    written back to disk took 0.6 ms to unlink one at a time and 0.2 ms with 8 at once; the re-run
    of 100 x 1,000 leaves ~600,000 files). The subtrees are the folders of the first level below
    `root` that has `enough` of them; links are removed, never followed."""
    if not root.is_dir():
        return
    level: list[str] = [str(root)]
    for _ in range(8):
        below = []
        for folder in level:
            with os.scandir(folder) as entries:
                below += [entry.path for entry in entries if entry.is_dir(follow_symlinks=False)]
        if not below:
            break
        level = below
        if len(level) >= enough:
            break
    if level != [str(root)]:
        with ThreadPoolExecutor(workers) as pool:
            list(pool.map(shutil.rmtree, level))
    shutil.rmtree(root)


def check(
    path: Path,
    work: Path,
    cores: int,
    out,
    progress,
    run_bundled_code: bool,
    max_bytes: int,
    max_ratio: float,
) -> int:
    """verify's work in the folder `work` (made here; its parent is removed by the caller)."""
    started = time.monotonic()
    try:
        workflow = None if run_bundled_code else installed_workflow()
        size = path.stat().st_size
        progress(f"reading {path} ({size:,} bytes)")
        problems, listed, files, small = read_and_check(
            path, work, run_bundled_code, Limits(size, max_bytes, max_ratio), progress
        )
        if "config.yaml" not in small:
            raise Refused("no config.yaml in the archive")
        labels = sorted(p.name for p in (work / "jobs").iterdir()) if (work / "jobs").is_dir() else []
        config, refused = rerun_config(small["config.yaml"], labels)
    except Refused as exc:
        print(f"REFUSED: {shown(str(exc))}", file=out)
        return 2
    except Unwritable as exc:
        print(f"verify FAILED: the re-run's files cannot be written: {shown(str(exc))}", file=out)
        return 1
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        print(
            f"REFUSED: the archive cannot be read to its end (truncated or not a .tar.gz): {shown(reason)}",
            file=out,
        )
        return 2
    progress(f"verify: read and checked the archive in {time.monotonic() - started:.0f} s")
    for problem in problems:
        print(f"MANIFEST: {shown(problem)}", file=out)
    if problems:
        return 1
    print(f"manifest: {files} files match", file=out)
    for line in refused:
        print(f"config: {line}", file=out)
    if run_bundled_code:
        print(
            "re-run: with the archive's own workflow-code/ (--run-bundled-code: code from the archive executes)",
            file=out,
        )
    else:
        for name in ("Snakefile", "workflow", "config"):
            source = workflow / name
            (shutil.copytree if source.is_dir() else shutil.copy)(
                source,
                work / name,
                **({"ignore": shutil.ignore_patterns("__pycache__")} if source.is_dir() else {}),
            )
        print(
            f"re-run: with the installed benchreport code at {workflow}, not the code in the archive; "
            f"{code_difference(listed, workflow)}",
            file=out,
        )
    listed = {name: digest for name, digest in listed.items() if name.startswith("results/")}
    (work / "bundle-config.yaml").write_text(json.dumps(config, sort_keys=True), encoding="utf-8")
    progress("re-running the workflow on the bundled job-folder files")
    started = time.monotonic()
    # the archive's own code (--run-bundled-code) may read the job folders later: not removed early
    code, tail = run_snakemake(work, cores, progress, remove_inputs=not run_bundled_code)
    progress(f"verify: re-ran the workflow in {time.monotonic() - started:.0f} s")
    if code != 0:
        print("re-run FAILED:\n" + tail[-6000:], file=out)
        return 1
    differences, compared = compare(listed, work)
    for difference in differences:
        print(shown(difference), file=out)
    print(f"re-run: {compared - len(differences)} of {compared} outputs byte-identical", file=out)
    print(PROOF, file=out)
    return 1 if differences else 0
