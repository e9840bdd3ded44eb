"""`benchreport verify <bundle>`: check a bundle, then re-run its inputs to the same bytes.

The archive is read once, as a stream, each member checked before a byte of it is read; only
what the re-run reads is written to disk, and its outputs are compared with the manifest's
hashes, so results/ is never unpacked. By default nothing from the archive is executed: the
re-run uses the verifier's own installed benchreport workflow, and a config built from the
bundled one with every key that would run a command switched off (`--run-bundled-code` runs the
archive's workflow-code/ instead). What this proves, and what it cannot: PROOF.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile
import threading
import time
import zlib
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from ..pipeline.lineage import PACKAGE_DIR, WORKFLOW_DIR
from ..pipeline.stamps import INGESTED_RECORD
from ..read.discover import REVIEW_DIRS, VERIFIER_FILES, VERIFIER_FOLDER
from ..read.files import printable

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
# The re-run's draws (config/schema.yaml's statistics), whose time grows with their count: at 100
# times the schema's defaults (10,000), since a bundle made with the documented settings never
# comes near and one past them would keep the verifier busy for hours
MAX_DRAWS = {
    "statistics.resamples": 1_000_000,
    "statistics.coverage_simulations": 1_000_000,
    "statistics.permutations": 1_000_000,
}
# a full disk or quota, as the re-run's Python reports an OSError
DISK_FULL = re.compile(r"\[Errno (?:28|122)\]|No space left on device|Disk quota exceeded")
STOP_GRACE = 10  # seconds the re-run's processes have to end on SIGTERM before SIGKILL
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


class WrittenFile:
    """A re-run file being written (stream_file's sink): an error writing or closing it (a full
    disk, a quota) is Unwritable naming it."""

    def __init__(self, path: str):
        self.path = path
        try:
            self.handle = open(path, "xb")
        except OSError as exc:
            raise _unwritable(exc, path) from None

    def write(self, data: bytes) -> None:
        try:
            self.handle.write(data)
        except OSError as exc:
            raise _unwritable(exc, self.path) from None

    def close(self) -> None:
        try:
            self.handle.close()
        except OSError as exc:
            raise _unwritable(exc, self.path) from None


class FileMaker:
    """Makes the re-run's folders and files: one mkdir per folder, not per file (file creation is
    the cost here). An error is raised as Unwritable, naming the place."""

    def __init__(self) -> None:
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
        sink = WrittenFile(path)
        try:
            yield sink
        finally:
            sink.close()


def read_archive(bundle: Path, target: Path, *, keep_code: bool, limits: Limits, progress) -> tuple[str, dict, dict]:
    """One pass over the archive: (top folder, member name -> sha256 digest, small files by
    name). Writes the re-run's inputs (and workflow-code/ with keep_code) under target; every
    other member is only hashed."""
    top, hashes, small, maker = None, {}, {}, FileMaker()
    started = last = time.monotonic()
    # a buffered inflater under a plain tar stream, for speed alone: tarfile's own "r|gz"
    # decompresses in 10 KiB steps and copies its buffer at each read (benchmarks/RESULTS.md)
    with open(bundle, "rb") as handle, tarfile.open(fileobj=inflated(handle), mode="r|") as tar:
        while (member := tar.next()) is not None:
            # a stream is read once: tarfile's list of every member read so far (for random
            # access, which a stream never has) is let go, ~300 MB at 700,000 members
            tar.members.clear()  # type: ignore[attr-defined]  # typeshed omits TarFile's list of members
            check_name(member.name, "member")
            if member.issym() or member.islnk():
                raise Refused(f"link refused: {member.name} -> {member.linkname}")
            if member.issparse():
                raise Refused(f"sparse member refused: {member.name}")
            if not (member.isreg() or member.isdir()):
                raise Refused(f"special file refused: {member.name}")
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
    """Whether a job-folder member is an attempt's verifier folder or one of its files, which no
    stage reads, so the re-run does without them (a third of its files); under reviews/ or
    scoring/ every file is read (a review's own verifier)."""
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


def check_listing(lines, hashes: dict[str, bytes | None], wanted) -> tuple[list[str], dict[str, str], int]:
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
            assert isinstance(found, bytes)  # neither None nor ABSENT
            hashes[name] = None
            if found.hex() != digest:
                problems.append((name, f"changed (sha256 differs from the manifest): {name}"))
        if wanted(name):
            kept[name] = digest
    unlisted = sorted(name for name, digest in hashes.items() if digest is not None and name != "MANIFEST.sha256")
    return [f"not in the manifest: {name}" for name in unlisted] + [line for _, line in sorted(problems)], kept, count


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
    assert run is not None  # refused above unless a mapping
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
    removing files mostly waits on the disk, the rest of the re-run on the cores."""

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


class Stopped(Exception):
    """verify was sent SIGINT or SIGTERM."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


class StopSignals:
    """SIGINT and SIGTERM raise Stopped in the main thread, but while `holding` (a re-run being
    started, whose process would be lost to an exception inside subprocess.Popen), when they are
    kept for raise_pending. From the first one on both are ignored, so that stopping the re-run
    and removing the temporary folder run to their end."""

    NUMBERS = (signal.SIGINT, signal.SIGTERM)

    def __init__(self) -> None:
        self.holding, self.pending = False, None

    def handle(self, signum, frame) -> None:
        for number in self.NUMBERS:
            signal.signal(number, signal.SIG_IGN)
        if self.holding:
            self.pending = signum
        else:
            raise Stopped(signum)

    def raise_pending(self) -> None:
        if self.pending:
            raise Stopped(self.pending)

    @contextlib.contextmanager
    def held(self):
        self.holding = True
        try:
            yield
        finally:
            self.holding = False

    @contextlib.contextmanager
    def installed(self):
        if threading.current_thread() is not threading.main_thread():
            yield
            return
        self.pending = None
        previous = {number: signal.signal(number, self.handle) for number in self.NUMBERS}
        try:
            yield
        finally:
            for number, handler in previous.items():
                signal.signal(number, handler)


STOP_SIGNALS = StopSignals()


def stop_rerun(process: subprocess.Popen) -> None:
    """Ends the re-run's process group (Snakemake and every job it started): SIGTERM, then SIGKILL
    for whatever is left after STOP_GRACE seconds or once Snakemake has ended."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGTERM)
    with contextlib.suppress(subprocess.TimeoutExpired):
        process.wait(STOP_GRACE)
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, signal.SIGKILL)
    process.wait()


def run_snakemake(work: Path, cores: int, progress, remove_inputs: bool = False) -> tuple[int, str, str | None]:
    """The re-run in `work`: (its exit code, the tail of its output, its first line that reports a
    full disk or quota). With `remove_inputs`, its copy of the job folders is removed as soon as
    its ingests are done (InputsRemover). It runs in a process group of its own, ended with verify
    (stop_rerun): a terminal's Ctrl-C reaches verify's group only."""
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
    tail: list[str] = []
    last, full = time.monotonic(), None
    # once the checkpoint's record is written no rule of the installed workflow reads a job-folder
    # file (only rule ingest does; the plan comes from the ingests' outputs, the stamps from
    # .snakemake/), so the re-run's copy of them can go
    remover = InputsRemover(work / INGESTED_RECORD, work / "jobs", progress) if remove_inputs else None
    if remover:
        remover.start()
    try:
        with STOP_SIGNALS.held():
            process = subprocess.Popen(
                command,
                cwd=work,
                stdout=subprocess.PIPE,
                stderr=subprocess.STDOUT,
                text=True,
                errors="replace",
                start_new_session=True,
            )
        assert process.stdout is not None  # stdout=PIPE
        try:
            STOP_SIGNALS.raise_pending()
            for line in process.stdout:
                tail = (tail + [line])[-80:]
                if full is None and DISK_FULL.search(line):
                    full = line.strip()
                if "steps (" in line and "done" in line and (time.monotonic() - last >= 5 or "(100%)" in line):
                    last = time.monotonic()
                    progress("re-run: " + line.strip())
            process.wait()
        finally:  # verify stopped, or its watching failed: the re-run ends with it
            if process.poll() is None:
                stop_rerun(process)
            process.stdout.close()
    finally:  # the re-run ended, or could not start: no more watching
        if remover:
            remover.ended.set()
    if remover:
        remover.join()  # a removal under way ends before the outputs are compared and the rest removed
    return process.returncode, "".join(tail), full


def rerun_output(name: str) -> bool:
    return name.startswith("results/") and not name.startswith(NOT_RERUN)


def compare(listed: dict[str, str], work: Path) -> tuple[list[str], int]:
    """Every output the re-run makes and every one the bundle holds (`listed`: the manifest's
    name -> sha256 hex), but NOT_RERUN: a line for each that differs, that the re-run did not
    make, or that it made and the bundle lacks; and how many there were."""
    bundled = {name: digest for name, digest in listed.items() if rerun_output(name)}
    made: set[str] = set()
    for folder, _, files in os.walk(work / "results"):
        made.update(name for file in files if rerun_output(name := Path(folder, file).relative_to(work).as_posix()))
    differences = []
    for name in sorted(bundled.keys() | made):
        if name not in made:
            differences.append(f"not made again: {name}")
        elif name not in bundled:
            differences.append(f"made again but not in the bundle nor its manifest: {name}")
        elif hashlib.sha256((work / name).read_bytes()).hexdigest() != bundled[name]:
            differences.append(f"differs: {name}")
    return differences, len(bundled.keys() | made)


def check_draws(config: dict, limits: dict[str, int]) -> None:
    """Refuses a config whose draws (dotted key -> most allowed) are past their limits."""
    for key, most in sorted(limits.items()):
        section, _, name = key.partition(".")
        value = config[section].get(name) if isinstance(config.get(section), dict) else None
        if isinstance(value, int) and not isinstance(value, bool) and value > most:
            raise Refused(
                f"config.yaml {key} is {value:,}, past verify's limit of {most:,} (--max-draws {key}={value} allows it)"
            )


def verify(
    bundle: str,
    cores: int = 2,
    out=sys.stdout,
    *,
    run_bundled_code: bool = False,
    max_bytes: int = MAX_BYTES,
    max_ratio: float = MAX_RATIO,
    max_draws: dict[str, int] = MAX_DRAWS,
    err=sys.stderr,
) -> int:
    """0: consistent; 1: a file or an output differs, the re-run failed, or its files cannot be
    written; 2: refused; 128 + its number: stopped by a signal. The last line printed is the
    verdict, after the temporary folder is removed."""

    def progress(line: str) -> None:
        print(line, file=err, flush=True)

    with STOP_SIGNALS.installed():
        try:
            code, verdict = in_temporary_folder(
                Path(bundle), cores, out, progress, run_bundled_code, max_bytes, max_ratio, max_draws
            )
        except Stopped as stop:
            code, verdict = 128 + stop.signum, f"verify STOPPED by {stop}: the re-run was stopped, nothing verified"
    print(verdict, file=out, flush=True)
    return code


def in_temporary_folder(bundle: Path, cores: int, out, progress, *limits) -> tuple[int, str]:
    """verify's work (read_then_rerun), in a temporary folder removed afterwards whatever the outcome."""
    try:
        temporary = Path(tempfile.mkdtemp(prefix="benchreport-verify-"))
    except OSError as exc:
        return 1, f"verify FAILED: no temporary folder can be made: {shown(str(exc))}"
    try:
        return read_then_rerun(bundle, temporary / "rerun", cores, out, progress, *limits)
    except Unwritable as exc:
        return 1, f"verify FAILED: the re-run's files cannot be written: {shown(str(exc))}"
    finally:
        progress("removing the temporary folder")
        removing = time.monotonic()
        try:
            remove_tree(temporary)
        except Stopped:  # the signals are ignored from now on: this removal runs to its end
            remove_tree(temporary)
            raise
        progress(f"verify: removed the temporary folder in {time.monotonic() - removing:.0f} s")


def remove_tree(root: Path, workers: int = 8, enough: int = 64) -> None:
    """shutil.rmtree, with the folders of the first level below `root` that has `enough` of them
    removed side by side: the file system's unlinks release the GIL and overlap (a large re-run
    leaves hundreds of thousands of files). Links are removed, never followed."""
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


def read_then_rerun(
    path: Path, work: Path, cores: int, out, progress, run_bundled_code: bool, max_bytes, max_ratio, max_draws
) -> tuple[int, str]:
    """verify's work in `work`: the archive read and checked against its manifest, the config it
    would re-run with made, then the re-run (_rerun_and_compare): (exit code, verdict)."""
    started = time.monotonic()
    try:
        workflow = None if run_bundled_code else installed_workflow()
        size = path.stat().st_size
        progress(f"reading {path} ({size:,} bytes)")
        _, hashes, small = read_archive(
            path, work, keep_code=run_bundled_code, limits=Limits(size, max_bytes, max_ratio), progress=progress
        )
        if "MANIFEST.sha256" not in small:
            raise Refused("no MANIFEST.sha256 in the archive: not a benchreport bundle, or an incomplete one")
        # checked as it is read; only the outputs' and the code's lines are kept
        problems, listed, files = check_listing(
            manifest_lines(small.pop("MANIFEST.sha256")), hashes, lambda name: name.startswith(("results/", CODE))
        )
        if "config.yaml" not in small:
            raise Refused("no config.yaml in the archive")
        labels = sorted(p.name for p in (work / "jobs").iterdir()) if (work / "jobs").is_dir() else []
        config, refused = rerun_config(small["config.yaml"], labels)
        check_draws(config, max_draws)
    except Refused as exc:
        return 2, f"REFUSED: {shown(str(exc))}"
    except (tarfile.TarError, EOFError, zlib.error, OSError) as exc:
        reason = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
        return 2, f"REFUSED: the archive cannot be read to its end (truncated or not a .tar.gz): {shown(reason)}"
    progress(f"verify: read and checked the archive in {time.monotonic() - started:.0f} s")
    for problem in problems:
        print(f"MANIFEST: {shown(problem)}", file=out)
    if problems:
        return 1, f"verify FAILED: {len(problems):,} files do not match MANIFEST.sha256; nothing re-run"
    print(f"manifest: {files} files match", file=out)
    for line in refused:
        print(f"config: {line}", file=out)
    if run_bundled_code:
        print(
            "re-run: with the archive's own workflow-code/ (--run-bundled-code: code from the archive executes)",
            file=out,
        )
    else:
        assert workflow is not None  # the installed workflow, found unless the archive's code runs
        copy_workflow(workflow, work)
        print(
            f"re-run: with the installed benchreport code at {workflow}, not the code in the archive; "
            f"{code_difference(listed, workflow)}",
            file=out,
        )
    return _rerun_and_compare(work, cores, out, progress, run_bundled_code, config, listed, files)


# Below this many free bytes a failed re-run's folder counts as full: a job that meets a full disk
# while its interpreter closes its log has no room left to say so (it exits 120, silently), and
# Snakemake then removes that job's outputs, so the disk is no longer quite full.
FULL_BELOW = 1 << 20


def disk_left_full(work: Path) -> str | None:
    """What to say of a failed re-run's disk when its output named no full disk but the disk is
    nearly full now; None when it has room."""
    try:
        free = shutil.disk_usage(work).free
    except OSError:
        return None
    return f"No space left on device (after the failed job, {free:,} bytes free)" if free < FULL_BELOW else None


def _rerun_and_compare(work: Path, cores: int, out, progress, run_bundled_code: bool, config, listed, files: int):
    """The re-run in `work` with `config`, its outputs compared with the bundle's (`listed`, the
    manifest's lines): (exit status, verdict)."""
    with FileMaker().file(str(work / "bundle-config.yaml")) as sink:
        sink.write(json.dumps(config, sort_keys=True).encode())
    progress("re-running the workflow on the bundled job-folder files")
    started = time.monotonic()
    # the archive's own code (--run-bundled-code) may read the job folders later: not removed early
    code, tail, full = run_snakemake(work, cores, progress, remove_inputs=not run_bundled_code)
    progress(f"verify: re-ran the workflow in {time.monotonic() - started:.0f} s")
    if code != 0 and not full:
        full = disk_left_full(work)
    if code != 0 and full:
        return 1, f"verify FAILED: the re-run's disk is full (its folder {work}): {shown(full)}"
    if code != 0:
        print("re-run FAILED:\n" + tail[-6000:], file=out)
        return 1, f"verify FAILED: the re-run exited with {code}"
    differences, compared = compare(listed, work)
    for difference in differences:
        print(shown(difference), file=out)
    print(f"re-run: {compared - len(differences)} of {compared} outputs byte-identical", file=out)
    if differences:
        return 1, f"verify FAILED: {len(differences):,} of {compared:,} outputs differ, are missing or are extra"
    print(PROOF, file=out)
    return (
        0,
        f"verify PASSED: {files:,} files match MANIFEST.sha256 and {compared:,} outputs were made again, byte for byte",
    )


def copy_workflow(workflow: Path, work: Path) -> None:
    """The installed workflow tree's Snakefile, rules, scripts and config, copied into `work`
    (made here when the archive held no job folders)."""
    FileMaker().folder(str(work))
    for name in ("Snakefile", "workflow", "config"):
        source = workflow / name
        try:
            if source.is_dir():
                shutil.copytree(source, work / name, ignore=shutil.ignore_patterns("__pycache__"))
            else:
                shutil.copy(source, work / name)
        except shutil.Error as exc:  # copytree's errors, each (source, destination, why)
            raise Unwritable(exc.args[0][0][2]) from None
        except OSError as exc:
            raise _unwritable(exc, str(work / name)) from None
