"""The one JSON serialisation (benchreport.pipeline.outputs): write_json, which writes a file piece
by piece, writes exactly the bytes of dump_json, on any JSON value (hypothesis), hostile characters
too. And its reading back
(outputs.load_json, loads_written, by orjson where it agrees): the values json.loads gives, or its
refusal, on what dump_json writes and on any text made from it by a few edits."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from benchreport.pipeline import outputs
from benchreport.pipeline.outputs import RECORDS_A_PIECE, _pieces, dump_json, load_json, write_json
from benchreport.read import files
from benchreport.read.files import printable
from hypothesis import given, settings
from hypothesis import strategies as st

TEXT = st.text(
    st.characters(codec="utf-8") | st.sampled_from(["\ud800", "\u200b", "\x00", "\x7f", "\x85", "\u202e", "\ufeff"])
)
SCALARS = st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False) | TEXT
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(TEXT, inner, max_size=4)
        # a list of records, as trials.json holds them
        | st.lists(st.dictionaries(TEXT, SCALARS | st.lists(SCALARS, max_size=2), max_size=3), min_size=1, max_size=4)
    ),
    max_leaves=30,
)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_write_json_writes_the_bytes_of_dump_json(tmp_path_factory, value):
    path = tmp_path_factory.mktemp("json") / "out.json"
    write_json(path, value)
    text = path.read_bytes().decode("utf-8")
    assert text == dump_json(value)
    assert json.loads(text) == json.loads(json.dumps(value))  # and it reads back as the value


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_the_text_is_the_encoders_made_printable(value):
    """Where write_json and dump_json skip printable's search (outputs._plain: ASCII without DEL),
    they write what printable makes of the encoder's text."""
    assert dump_json(value) == printable("".join(_pieces(value, "")) + "\n")


def layout(value, indent: str = "") -> str:
    """dump_json's layout, stated plainly: an object one member a line, indented; a list that holds
    an object or a list one item a line (a list of objects each as the encoder writes it, any
    other item laid out the same way); anything else on one line as the encoder writes it."""

    def one_line(item) -> str:
        return json.dumps(item, ensure_ascii=False, allow_nan=False, separators=(", ", ": "))

    inner = indent + "  "
    if isinstance(value, dict) and value:
        members = [f"{inner}{one_line(key)}: {layout(item, inner)}" for key, item in value.items()]
        return "{\n" + ",\n".join(members) + "\n" + indent + "}"
    if isinstance(value, list) and any(isinstance(item, (dict, list)) for item in value):
        lay = one_line if all(isinstance(item, dict) for item in value) else lambda item: layout(item, inner)
        return "[\n" + inner + (",\n" + inner).join(map(lay, value)) + "\n" + indent + "]"
    return one_line(value)


@settings(max_examples=300, deadline=None)
@given(VALUES)
def test_the_text_is_laid_out_as_stated(value):
    """The pieces _pieces writes are the plain statement of the layout (layout above), whatever
    shortcuts they take to it (one encoder made once, a member on one line as one piece)."""
    assert dump_json(value) == printable(layout(value) + "\n")


def test_a_long_list_of_records_is_written_one_record_a_line_across_pieces(tmp_path):
    """write_json joins RECORDS_A_PIECE records into one piece: across pieces, the text is still one
    record per line, each as the encoder writes it, made printable (a lone surrogate escaped)."""
    records = [{"n": n, "text": "\ud800" if n % 997 == 0 else "é"} for n in range(2 * RECORDS_A_PIECE + 3)]
    lines = ["    " + json.dumps(record, ensure_ascii=False, separators=(", ", ": ")) for record in records]
    expected = printable('{\n  "rows": [\n' + ",\n".join(lines) + '\n  ],\n  "n": 1\n}\n')
    path = tmp_path / "out.json"
    write_json(path, {"rows": records, "n": 1})
    assert path.read_bytes().decode("utf-8") == expected == dump_json({"rows": records, "n": 1})
    assert json.loads(expected)["rows"] == json.loads(json.dumps(records))


def json_reads(data: bytes):
    """What load_json made of the bytes before orjson: the json module's value of the UTF-8 text."""
    return json.loads(data.decode("utf-8"))


def read(reader, data: bytes) -> str:
    """The value's repr, which tells 1, 1.0, True and -0.0 apart and keeps an object's order, or
    that it is refused (json's JSONDecodeError, a UnicodeDecodeError)."""
    try:
        return repr(reader(data))
    except ValueError:
        return "refused"


@settings(max_examples=400, deadline=None)
@given(VALUES)
def test_what_dump_json_writes_reads_back_as_json_reads_it(tmp_path_factory, value):
    """Integers of any size (orjson makes one beyond 64 bits a float), any double, hostile text."""
    text = dump_json(value)
    data = text.encode("utf-8")
    assert read(outputs.loads_written, data) == read(json_reads, data) != "refused"
    path = tmp_path_factory.mktemp("json") / "out.json"
    write_json(path, value)
    assert repr(load_json(path)) == repr(json.loads(text))


EDIT_BYTES = st.sampled_from(
    [b"0", b"9", b"-", b".", b"e", b"E", b"+", b'"', b"\\", b"u", b"d", b"8", b"[", b"]", b"{", b"}", b",", b":"]
    + [b" ", b"\t", b"\r", b"\x00", b"\x1f", b"\x7f", b"\xff", b"\xed\xa0\x80", b"\xef\xbb\xbf", b"NaN"]
    + [b"Infinity", b"1e400", b"true", b"null", b"9" * 19, b"-9223372036854775809", b"\\ud800", b"\\u0000"]
)


@settings(max_examples=1500, deadline=None)
@given(VALUES, st.lists(st.tuples(st.integers(0, 10**6), st.integers(0, 2), EDIT_BYTES), max_size=4))
def test_edited_text_is_read_or_refused_as_json_reads_it(value, edits):
    """A few bytes inserted, replaced or removed anywhere: the same value, or refused as json
    refuses it (numbers past a double or 64 bits, NaN, a BOM, bad UTF-8, a lone surrogate...)."""
    data = bytearray(dump_json(value).encode("utf-8"))
    for at, kind, piece in edits:
        at %= len(data) + 1
        data[at : at + (kind != 0)] = piece if kind != 2 else b""
    assert read(outputs.loads_written, bytes(data)) == read(json_reads, bytes(data))


@pytest.mark.parametrize(
    "number",
    ["9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809"]
    + ["18446744073709551616", "-9999999999999999999", "123456789012345678901234567890", "1" + "0" * 400],
)
def test_a_long_integer_is_read_exactly_wherever_it_stands(number):
    """An integer past 64 bits stays an integer (orjson would make it a float): alone, first or
    last in a list, a member's value with or without spaces, beside strings full of digits."""
    for text in (
        number,
        f"[{number}]",
        f'{{"n":{number}}}',
        f'{{"sha": "sha256:{number}ab", "n":\t{number}\n}}',
        f'["{number}", {number}, 1]',
        f"[1,\r{number}\r]",
        f"[1,\n{number}\t]",
        f"[ {number} ]",
        f"{number} ",
    ):
        data = text.encode()
        assert repr(outputs.loads_written(data)) == repr(json.loads(data))
        assert outputs._long_integer(data)


def test_digits_inside_strings_or_floats_leave_the_decoding_to_orjson():
    """A digest's hex, a name or a float's digits holding 19 digits in a row are no integer."""
    for text in ('"sha256:12345678901234567890abcd"', '["a1234567890123456789012345"]', "1.12345678901234567890123"):
        assert not outputs._long_integer(text.encode())


def test_nesting_deeper_than_orjson_reads_is_read_as_json_reads_it():
    """orjson reads 1,024 levels and refuses more; json reads as deep as Python's recursion goes
    (~1,000 levels under pytest), so up to 1,024 levels is read whole, beyond as json reads it."""

    def depth(value) -> int:
        levels = 0
        while isinstance(value, list):
            value, levels = (value[0] if value else None), levels + 1
        return levels

    def outcome(read, data):
        try:
            return depth(read(data))
        except RecursionError:
            return "too deep"

    for levels in (10, 1024):
        assert outcome(outputs.loads_written, b"[" * levels + b"]" * levels) == levels
    for levels in (1025, 5000):
        data = b"[" * levels + b"]" * levels
        assert outcome(outputs.loads_written, data) == outcome(json.loads, data)


@pytest.mark.parametrize("size", [0, 1, 3000, (1 << 20) + 7, 3 << 20])
def test_a_file_is_read_whole_by_os_calls_as_read_bytes_reads_it(tmp_path, size):
    """files.read_whole, which every job-folder JSON file and every load_json goes through, reads
    what Path.read_bytes does, past its first read of the stated size, and fails as open() does."""
    path = tmp_path / "file.json"
    path.write_bytes(bytes(range(256)) * (size // 256) + b"x" * (size % 256))
    assert files.read_whole(path) == path.read_bytes() and len(files.read_whole(str(path))) == size
    # a file whose stated size is 0 but holds bytes (read on past the first read)
    assert files.read_whole("/proc/self/cmdline") == Path("/proc/self/cmdline").read_bytes() != b""
    with pytest.raises(FileNotFoundError):
        files.read_whole(tmp_path / "absent.json")
    with pytest.raises(IsADirectoryError):
        files.read_whole(tmp_path)
