"""Reading job-folder files defensively.

Every read returns the bytes' sha256 so lineage can name exactly what a number came from, and
every failure becomes a `BadFile` carrying a sentence a researcher can act on.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import re
import stat
from collections.abc import Iterable
from pathlib import Path

MISSING = "the file is missing"


class BadFile(Exception):
    """A job-folder file that cannot be used; `reason` is a plain-words sentence."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason


def sha256_bytes(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def read_whole(path: str | os.PathLike) -> bytes:
    """A file's bytes, read by os calls alone: open() also makes a buffered reader and asks isatty,
    lseek twice and fstat again, which costs more than the read for the small files ingest reads
    by the thousand. Raises what open() and read() do (FileNotFoundError, IsADirectoryError, ...)."""
    handle = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    try:
        chunks = [os.read(handle, os.fstat(handle).st_size + 1)]
        while chunks[-1]:  # to the end, as read() does, whatever the size said
            chunks.append(os.read(handle, 1 << 16))
    finally:
        os.close(handle)
    # the bytes of one read as they are, since joining copies them
    return chunks[0] if len(chunks) <= 2 else b"".join(chunks)


def sha256_file(path: str | os.PathLike, limit: int | None = None) -> str:
    """Hash a whole file, or only its first `limit` bytes (what a prefix reader consumed)."""
    digest = hashlib.sha256()
    remaining = math.inf if limit is None else limit
    with open(path, "rb") as handle:
        while remaining > 0 and (chunk := handle.read(int(min(1 << 20, remaining)))):
            digest.update(chunk)
            remaining -= len(chunk)
    return digest.hexdigest()


def _reject_constant(name: str):
    raise ValueError(f"{name} is not valid JSON")


class DuplicateKey(ValueError):
    """An object with one key twice: parsers differ on which value is meant (Python's keeps the
    last, others the first), so the file says two things."""


def _unique_keys(pairs: list) -> dict:
    value = dict(pairs)
    if len(value) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise DuplicateKey(json.dumps(key)[:80])
            seen.add(key)
    return value


# One strict decoder for every job-folder file (json.loads with an option builds a new one per call).
_STRICT = json.JSONDecoder(parse_constant=_reject_constant, object_pairs_hook=_unique_keys)
# Written out as \uXXXX: a lone surrogate, which no UTF-8 output can carry (parsed from a
# \uD800-\uDFFF escape: harnesses write them when they cut a string in the middle of an emoji; or
# an undecodable file-name byte), and the characters that act on a reader instead of being read:
# C0 and C1 controls but tab, newline and carriage return (a bell, a terminal escape sequence),
# and the zero-width and direction characters (U+200B-U+200F, U+202A-U+202E, U+2066-U+2069,
# U+FEFF), which hide text or reorder it (a task name shown backwards).
_UNREADABLE = re.compile(
    "[\ud800-\udfff\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]"
)


def printable(text: str) -> str:
    """The text with every lone surrogate, control and zero-width or direction character written
    out as \\uXXXX (see _UNREADABLE), so that it can be written as UTF-8 and read as it is."""
    if not _UNREADABLE.search(text):
        return text
    return _UNREADABLE.sub(lambda match: f"\\u{ord(match.group()):04x}", text)


def parse_json_bytes(data: bytes, label: str):
    """Parse strict JSON (no NaN/Infinity literals); raise BadFile naming the problem."""
    if not data or data.isspace():
        raise BadFile(label, "the file is empty")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise BadFile(label, f"not UTF-8 text (byte {exc.start} cannot be decoded)") from None
    try:
        if text.startswith("\ufeff"):  # as json.loads says it
            raise ValueError("Unexpected UTF-8 BOM (decode using utf-8-sig)")
        value = _STRICT.decode(text)
    except RecursionError:
        raise BadFile(
            label, "nested too deeply to be read (arrays or objects inside each other thousands of levels down)"
        ) from None
    except DuplicateKey as exc:
        raise BadFile(label, f"holds the key {exc} twice in one object, so which value is meant is ambiguous") from None
    except ValueError as exc:
        reason = str(exc)
        if "is not valid JSON" in reason:
            raise BadFile(label, f"holds {reason.split(' is not')[0]}, which is not valid JSON") from None
        raise BadFile(label, f"not valid JSON, perhaps truncated ({reason})") from None
    return value


def read_json_file(path: str | os.PathLike, label: str):
    """Read a JSON object's file; return (value, sha256). Raise BadFile for any unusable file."""
    try:
        data = read_whole(path)
    except FileNotFoundError:
        raise BadFile(label, MISSING) from None
    except PermissionError:
        raise BadFile(label, "the file cannot be read (permission denied)") from None
    except IsADirectoryError:
        raise BadFile(label, "is a folder, not a file") from None
    except OSError as exc:
        raise BadFile(label, f"the file cannot be read ({exc.strerror})") from None
    value = parse_json_bytes(data, label)
    if not isinstance(value, dict):
        raise BadFile(label, f"holds {json_type_name(value)}, not a JSON object")
    return value, sha256_bytes(data)


def json_type_name(value) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if value is None:
        return "null"
    return {
        dict: "a JSON object",
        list: "a list",
        str: "a string",
        int: "a number",
        float: "a number",
    }.get(type(value), type(value).__name__)


def finite_number(value) -> float | None:
    """A JSON number that is finite, else None (booleans are not numbers here)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    try:
        value = float(value)
    except OverflowError:  # an integer beyond any double
        return None
    return value if math.isfinite(value) else None


def check_inside(path: Path, root_real: str, label: str) -> Path:
    """Refuse a path that resolves (through links) outside the job root, before reading it."""
    try:
        real = os.path.realpath(path, strict=True)
    except FileNotFoundError:
        if path.is_symlink():
            raise BadFile(label, "is a link to something that does not exist") from None
        raise BadFile(label, MISSING) from None
    except OSError as exc:
        raise BadFile(label, f"cannot be resolved ({exc.strerror}; a link loop?)") from None
    if real != root_real and not real.startswith(root_real.rstrip(os.sep) + os.sep):
        raise BadFile(label, "is a link pointing outside the job root; it was not read")
    return Path(real)


def locate(job_dir: str, relpath: str, root_real: str) -> tuple[str, os.stat_result]:
    """Where a file of an attempt folder can be read, and its stat; refuses links out of the root.

    The job folder and its attempt folders (the first component of relpath) were found without
    following links, so only the components below them can lead out: each is lstat'ed, and only
    a link pays for the full resolution of `check_inside`. Raises BadFile like check_inside,
    and also for a folder or a FIFO/socket/device in place of the file (reading one could hang).
    """
    path = f"{job_dir}/{relpath}"
    try:
        info = os.lstat(path)
        linked = stat.S_ISLNK(info.st_mode)
        if not linked and relpath.count("/") > 1:
            parts = relpath.split("/")
            linked = any(
                stat.S_ISLNK(os.lstat("/".join([job_dir, *parts[:depth]])).st_mode) for depth in range(2, len(parts))
            )
        if linked:
            path = str(check_inside(Path(path), root_real, relpath))
            info = os.stat(path)
    except (FileNotFoundError, NotADirectoryError):
        raise BadFile(relpath, MISSING) from None
    except PermissionError:
        raise BadFile(relpath, "the file cannot be read (permission denied)") from None
    except OSError as exc:  # a folder on the way that is a link loop (ELOOP), a name too long
        raise BadFile(relpath, f"cannot be resolved ({exc.strerror}; a link loop?)") from None
    if stat.S_ISDIR(info.st_mode):
        raise BadFile(relpath, "is a folder, not a file")
    if not stat.S_ISREG(info.st_mode):
        raise BadFile(relpath, "is not a regular file (a FIFO, socket or device); it was not read")
    return path, info


class ReadAhead:
    """While a pass reads many small files in turn, ask the kernel to bring the next ones into the
    page cache (posix_fadvise WILLNEED), so the disk works while the pass computes. After each
    path the pass calls advance(); the next AHEAD paths then stay asked for, in batches of half that.

    It starts only once the pass is seen reading from the disk (`storage_reads` grew over PROBE
    paths), and stops again once AHEAD paths go by with nothing read from it: with every file
    cached, asking costs system calls and gains nothing. It is for speed alone
    (benchmarks/RESULTS.md), and asks in the pass's own thread: a thread of its own contends with
    the pass for the GIL. Nothing is read, and only a regular file that is not a link is opened
    (a FIFO would wait for a writer, a device could act, a link may lead out of the job root).
    """

    AHEAD = 256
    PROBE = 64
    # of each file, only the start is asked for: a trajectory of which a pass reads the first
    # requests may be hundreds of MB, and the kernel reads ahead of a sequential read itself
    FIRST_BYTES = 1 << 20

    def __init__(self, paths: Iterable[str | None]):
        """`paths`: in the order the pass reads them (None where it reads no file)."""
        self.paths = iter(paths)
        self.read = self.asked = 0  # paths the pass read; paths asked for (or passed over)
        self.probe_at = self.PROBE
        self.fetched = storage_reads() if hasattr(os, "posix_fadvise") else None
        self.asking = False

    def advance(self, paths: int = 1) -> None:
        """So many more paths read."""
        self.read += paths
        if self.fetched is not None and self.read >= self.probe_at:
            fetched = storage_reads()
            self.asking = fetched is not None and fetched > self.fetched
            self.fetched = fetched
            # asking, the next probe comes after AHEAD paths: the reads of those asked for, if any
            self.probe_at = self.read + (self.AHEAD if self.asking else self.PROBE)
        if not self.asking:
            return
        if self.asked < self.read:  # those the pass read meanwhile are not asked for
            self.asked += sum(1 for _ in itertools.islice(self.paths, self.read - self.asked))
        if self.asked - self.read <= self.AHEAD // 2:
            for path in itertools.islice(self.paths, self.read + self.AHEAD - self.asked):
                self.asked += 1
                if path is not None:
                    _ask_for(path, self.FIRST_BYTES)


def _ask_for(path: str, length: int) -> None:
    """posix_fadvise WILLNEED on the first `length` bytes of a regular file; nothing for a link
    (locate checks where one leads before the pass reads through it) or anything else."""
    try:
        if not stat.S_ISREG(os.lstat(path).st_mode):
            return
        handle = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW)
    except OSError:
        return
    try:
        os.posix_fadvise(handle, 0, length, os.POSIX_FADV_WILLNEED)
    except OSError:
        pass
    finally:
        os.close(handle)


def storage_reads() -> int | None:
    """The bytes this process has had read from storage, not found in the page cache, so far
    (/proc/self/io's read_bytes); None where the system does not say."""
    try:
        with open("/proc/self/io", "rb") as handle:
            for line in handle:
                if line.startswith(b"read_bytes:"):
                    return int(line.split()[1])
    except (OSError, ValueError):
        pass
    return None
