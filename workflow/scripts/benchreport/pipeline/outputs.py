"""Writing outputs deterministically, and reading back what the workflow wrote.

Every JSON output has one serialisation (`dump_json`), byte for byte the same on every run, so a
lineage record's sha256 names a result and a re-run can be compared with it.
"""

from __future__ import annotations

import itertools
import json
import os
from collections.abc import Iterable
from pathlib import Path

from ..read.files import printable, read_whole

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


def _one_line(value) -> bool:
    """Whether _pieces writes a value on one line, as the encoder does: a scalar, a tuple, an empty
    object, or a list that holds no object or list (its items' types asked once per type)."""
    if isinstance(value, dict):
        return not value
    if isinstance(value, list):
        return not value or not any(issubclass(kind, (dict, list)) for kind in set(map(type, value)))
    return True


def _pieces(value, indent: str, head: str = ""):
    """`head` and the text of a value, in pieces: a list of records one record a piece, so that a
    file of 100,000 trials is written without its whole text in memory (write_json). A value
    written on one line is one piece with its head."""
    if _one_line(value):
        yield head + _encode(value)
        return
    yield head
    inner = indent + "  "
    if isinstance(value, dict):
        yield "{\n"
        for number, (key, item) in enumerate(value.items()):
            yield from _pieces(item, inner, f",\n{inner}{_key(key)}: " if number else f"{inner}{_key(key)}: ")
        yield "\n" + indent + "}"
    else:
        # one record per line, in pieces of RECORDS_A_PIECE records, not a write per record
        records = all(issubclass(kind, dict) for kind in set(map(type, value)))
        between = ",\n" + inner
        yield "[\n" + inner
        if records:
            encoded = map(_encode, value)
            yield between.join(itertools.islice(encoded, RECORDS_A_PIECE))
            while piece := between.join(itertools.islice(encoded, RECORDS_A_PIECE)):
                yield between + piece
        else:
            for number, item in enumerate(value):
                yield from _pieces(item, inner, between if number else "")
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
    and is far cheaper than indenting every field (benchmarks/RESULTS.md). A lone surrogate (a
    file name's undecodable byte) is written escaped, as ensure_ascii would."""
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
    """Whether text that _pieces made is printable as it is, so that printable's search can be
    skipped: the encoder escapes every C0 control, and each other character printable rewrites is
    DEL or not ASCII."""
    return text.isascii() and "\x7f" not in text


def write_text(path: str | os.PathLike, text: str) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")


def load_json(path: str | os.PathLike):
    """Read a JSON file the workflow itself wrote (rule scripts reading their inputs)."""
    return loads_written(read_whole(path))


# Every byte a digit becomes "0", every other byte a space: a run of 19 digits is then a plain
# substring search, cheaper than a regular expression over an ingest's megabytes.
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
    """The value of JSON the workflow wrote, as json.loads gives it from the UTF-8 text, decoded
    by orjson, which is faster (rule report decodes every ingest of a setting), where the two
    cannot differ: else by json, for text that may hold an integer of 19 digits or more (orjson
    makes one beyond 64 bits a float) and whatever orjson refuses (NaN, Infinity, a lone
    surrogate's escape, nesting past 1,024 levels). tests/test_json_output.py holds the two to the
    same values."""
    import orjson  # here, not with the module: `benchreport --help` imports this module and no dependency

    if not _long_integer(data):
        try:
            return orjson.loads(data)
        except orjson.JSONDecodeError:
            pass
    return json.loads(data.decode("utf-8"))
