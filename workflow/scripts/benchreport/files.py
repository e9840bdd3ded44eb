"""Reading job-folder files defensively and writing outputs deterministically.

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
from collections.abc import Iterable, Sequence
from pathlib import Path

MISSING = "the file is missing"


class BadFile(Exception):
    """A job-folder file that cannot be used; `reason` is a plain-words sentence."""

    def __init__(self, path: str, reason: str):
        super().__init__(f"{path}: {reason}")
        self.path = path
        self.reason = reason

    def __reduce__(self):  # rebuilt from both arguments when it crosses a process (forked_map)
        return BadFile, (self.path, self.reason)


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
    # the bytes of one read as they are: joining copies them (12 ms for 7 MB here, in page faults)
    return chunks[0] if len(chunks) <= 2 else b"".join(chunks)


def sha256_file(path: str | os.PathLike, limit: int | None = None) -> str:
    """Hash a whole file, or only its first `limit` bytes (what a prefix reader consumed)."""
    digest = hashlib.sha256()
    remaining = limit
    with open(path, "rb") as handle:
        while remaining is None or remaining > 0:
            size = 1 << 20 if remaining is None else min(1 << 20, remaining)
            chunk = handle.read(size)
            if not chunk:
                break
            digest.update(chunk)
            if remaining is not None:
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


def read_json_file(path: str | os.PathLike, label: str, expect: type = dict):
    """Read a JSON file; return (value, sha256). Raise BadFile for any unusable file."""
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
    if expect is not None and not isinstance(value, expect):
        raise BadFile(label, f"holds {json_type_name(value)}, not {json_type_name(expect())}")
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


RECORDS_A_PIECE = 1000
_ENCODER = json.JSONEncoder(ensure_ascii=False, allow_nan=False, separators=(", ", ": "))
# JSONEncoder.encode makes a new C encoder at each call (and a dict for its cycle check): an ingest
# writes ~50,000 short values a folder of 1,000 trials, so the C encoder of the same settings is
# made once here, with no cycle check (an output holds no cycle; one would end in RecursionError).
# Without the C module, encode is used instead.
_ONE_SHOT = json.encoder.c_make_encoder and json.encoder.c_make_encoder(  # type: ignore[attr-defined]  # typeshed omits the C module's name
    None,
    _ENCODER.default,
    json.encoder.encode_basestring,
    None,
    _ENCODER.key_separator,
    _ENCODER.item_separator,
    False,
    False,
    False,
)


def _encode(value) -> str:
    """One value as the encoder writes it on one line."""
    return "".join(_ONE_SHOT(value, 0)) if _ONE_SHOT else _ENCODER.encode(value)


def _key(key) -> str:
    """A dict key as JSON writes it (non-string keys become strings, as json.dumps makes them)."""
    return _encode(key if isinstance(key, str) else next(iter(json.loads(json.dumps({key: None})))))


class LazyRecords(Sequence):
    """A list of records, each made from its item when it is read: write_json writes them one at
    a time, so the rows of 100,000 trials are never all in memory (60 MB in rule report)."""

    def __init__(self, make, items: list):
        self.make, self.items = make, items

    def __len__(self) -> int:
        return len(self.items)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self.make(item) for item in self.items[index]]
        return self.make(self.items[index])

    def __iter__(self):
        return map(self.make, self.items)


def _kinds(items: list) -> set[type]:
    """The distinct types of a list's items, asked once per type rather than once per item (the 55
    columns of an ingest's 1,000 trials hold 55,000 items)."""
    return set(map(type, items))


def _one_line(value) -> bool:
    """Whether _pieces writes a value on one line, as the encoder does: a scalar, a tuple, an empty
    object, or a list that holds no object or list."""
    if isinstance(value, dict):
        return not value
    if isinstance(value, list):
        return not value or not any(issubclass(kind, (dict, list)) for kind in _kinds(value))
    return not isinstance(value, LazyRecords)


def _pieces(value, indent: str):
    """The text of a value, in pieces: a list of records one record a piece, so that a file of
    100,000 trials is written without its whole text in memory (write_json)."""
    if _one_line(value):
        yield _encode(value)
    else:
        yield from _lines(value, indent)


def _lines(value, indent: str):
    """_pieces of a value it does not write on one line. A member or an item that is written on
    one line is one piece with what goes before it; one that is not is asked _one_line once."""
    inner = indent + "  "
    if isinstance(value, dict):
        yield "{\n"
        for number, (key, item) in enumerate(value.items()):
            head = f",\n{inner}{_key(key)}: " if number else f"{inner}{_key(key)}: "
            if _one_line(item):
                yield head + _encode(item)
            else:
                yield head
                yield from _lines(item, inner)
        yield "\n" + indent + "}"
    elif isinstance(value, LazyRecords) and not value:
        yield "[]"
    else:
        # one record per line (a LazyRecords' items are made as they are written), in pieces of
        # RECORDS_A_PIECE records: a piece per record cost 0.3 s of rule report's 100,000
        records = isinstance(value, LazyRecords) or all(issubclass(kind, dict) for kind in _kinds(value))
        between = ",\n" + inner
        yield "[\n" + inner
        if records:
            encoded = map(_encode, value)
            yield between.join(itertools.islice(encoded, RECORDS_A_PIECE))
            while piece := between.join(itertools.islice(encoded, RECORDS_A_PIECE)):
                yield between + piece
        else:
            for number, item in enumerate(value):
                head = between if number else ""
                if _one_line(item):
                    yield head + _encode(item)
                else:
                    yield head
                    yield from _lines(item, inner)
        yield "\n" + indent + "]"


def write_whole(path: Path, text: str | bytes) -> os.stat_result:
    """Write `text` (UTF-8) or bytes to a temporary file beside `path`, then rename it over
    `path`: a reader (a cluster job parsing the workflow at the same time) sees the old file or
    the new, never half. The stat of what was written (another writer may have renamed its own
    over it by the time `path` is stat'ed)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.partial")
    if isinstance(text, bytes):
        partial.write_bytes(text)
    else:
        partial.write_text(text, encoding="utf-8")
    written = os.stat(partial)
    os.replace(partial, path)
    return written


def dump_json(value) -> str:
    """The one serialisation of every JSON output: stable, readable, newline-terminated.

    Objects are indented; a list of records (trials, ledger rows) is written one record per line
    and a list of scalars on one line, by the C encoder: a trial per line reads and diffs well,
    and it is 5-10x faster than indenting every field (seconds per file at 25,000 trials). A lone
    surrogate (a file name's undecodable byte) is written escaped, as ensure_ascii would."""
    text = "".join(_pieces(value, "")) + "\n"
    return text if _plain(text) else printable(text)  # a lone surrogate written as JSON's \\uXXXX escape


def write_json(path: str | os.PathLike, value) -> None:
    """dump_json(value) written to `path` a few pieces at a time (printable is per character, so the
    bytes are the same): at 100,000 trials of one setting its text and that text encoded were 270 MB
    held at once in rule report."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "w", encoding="utf-8") as handle:
        for text in _joined(_pieces(value, "")):
            handle.write(text if _plain(text) else printable(text))
        handle.write("\n")


def _joined(pieces: Iterable[str], size: int = 1 << 16) -> Iterable[str]:
    """The pieces joined into texts of about `size` characters or one larger piece: an ingest's
    files are ~50,000 short pieces a folder of 1,000 trials, each a write and a _plain of its own."""
    held, length = [], 0
    for piece in pieces:
        held.append(piece)
        length += len(piece)
        if length >= size:
            yield "".join(held)
            held, length = [], 0
    yield "".join(held)


def _plain(text: str) -> bool:
    """Whether text that _pieces made is printable as it is, so that printable's pattern search
    can be skipped (0.25 s over trials.json's 69 MB at 100,000 trials): the encoder escapes every
    C0 control, and each other character printable rewrites is DEL or not ASCII (isascii reads
    a flag of the string)."""
    return text.isascii() and "\x7f" not in text


def write_text(path: str | os.PathLike, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


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
    page cache (posix_fadvise WILLNEED starts their reads and returns), so the disk works while the
    pass computes: out of the cache, each file would cost the pass one disk wait, one after the
    other. The pass calls advance() after each path it reads; from then on the next AHEAD paths
    stay asked for, asked in batches of half that.

    It starts only once the pass is seen reading from the disk: every PROBE paths read,
    `storage_reads` is asked, and the first time it grew it starts from where the pass is. With
    every file cached, asking costs system calls and gains nothing, so it stops again once AHEAD
    paths go by with nothing read from the disk (the bundle's second pass reads what its first
    has just read: asking for each of 700,000 cached files cost it ~2 s). Measured at 100 job folders x
    1,000 trials: an ingest job of 1,000 attempts took 0.8 s with its folder out of the cache and
    0.5-0.7 s with this (0.5 s cached); the bundle rule 170 s with the job folders out of the cache
    and 112 s with this (110 s cached). (A thread asking ahead of the pass, tried first, took
    ingest_job from 0.205 to 0.27 s with every file cached: its system calls and the pass
    contended for the GIL.)

    Nothing is read: a path that cannot be opened is left to the pass, which meets it and says
    so, and only a regular file that is not a link is opened (a FIFO would wait for a writer, a
    device could act, a link may lead out of the job root). The caller leaves out a path below a
    linked folder (None).
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


def load_json(path: str | os.PathLike):
    """Read a JSON file the workflow itself wrote (rule scripts reading their inputs)."""
    return loads_written(read_whole(path))


# Every byte a digit becomes "0", every other byte a space: a run of 19 digits is then a plain
# substring search (0.5 ms over an ingest's 1.4 MB, where a regular expression takes 1.6 ms).
_DIGITS = bytes(0x30 if 0x30 <= byte <= 0x39 else 0x20 for byte in range(256))
_LONG_RUN = b"0" * 19
# What may stand before an integer's digits in JSON (its sign, a separator, whitespace; b"": the
# text's start) and after them (a separator, whitespace, the text's end); a run with anything
# else beside it is inside a string (a sha256 digest's hex holds such runs) or a float's digits.
_BEFORE_INTEGER = {b"", b"-", b",", b":", b"[", b" ", b"\t", b"\r", b"\n"}
_AFTER_INTEGER = {b"", b",", b"]", b"}", b" ", b"\t", b"\r", b"\n"}


def _long_integer(data: bytes) -> bool:
    """Whether the text may hold an integer of 19 digits or more (one that may not fit 64 bits)."""
    digits = data.translate(_DIGITS)
    start = digits.find(_LONG_RUN)
    while start != -1:  # the start of a run of digits: a digit before it would have been found first
        end = digits.find(b" ", start)  # the run's end: the translated text is digits and spaces
        end = len(digits) if end == -1 else end
        if data[start - 1 : start] in _BEFORE_INTEGER and data[end : end + 1] in _AFTER_INTEGER:
            return True
        start = digits.find(_LONG_RUN, end)
    return False


def loads_written(data: bytes):
    """The value of JSON the workflow wrote, as json.loads gives it from the UTF-8 text.

    orjson decodes it in under half of json's time, and rule report decodes every ingest of a
    setting. Where the two could differ, json decodes: text that may hold an integer
    of 19 digits or more (orjson makes one beyond 64 bits a float, where json keeps it exact; one
    of 18 digits or fewer fits either way), and whatever orjson refuses (NaN, Infinity and
    numbers beyond a double, a lone surrogate's escape, nesting past 1,024 levels), which json
    reads or refuses as it would have. tests/test_json_output.py holds the two to the same values."""
    import orjson  # here, not with the module: `benchreport --help` imports this module and no dependency

    if not _long_integer(data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(data.decode("utf-8"))
