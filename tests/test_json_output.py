"""The one JSON serialisation (benchreport.files): write_json, which writes a file piece by piece,
writes exactly the bytes of dump_json, on any JSON value (hypothesis), hostile characters too; a
list of records made as it is written (LazyRecords) writes as the list."""

from __future__ import annotations

import json

from benchreport.files import RECORDS_A_PIECE, LazyRecords, _pieces, dump_json, printable, write_json
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
    """Where write_json and dump_json skip printable's search (files._plain: ASCII without DEL),
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


RECORDS = st.lists(st.dictionaries(TEXT, SCALARS | st.lists(SCALARS, max_size=2), max_size=3), max_size=4)


@settings(max_examples=200, deadline=None)
@given(RECORDS, st.dictionaries(TEXT, SCALARS, max_size=2))
def test_records_made_as_they_are_written_give_the_bytes_of_the_list(tmp_path_factory, records, extra):
    """LazyRecords (each made from its item when read) inside a value, empty or not, nested or at the
    top: the bytes of the same value holding the plain list; and it reads like the list."""
    made = LazyRecords(lambda record: record | extra, records)
    plain = [record | extra for record in records]
    assert len(made) == len(plain) and list(made) == plain and made[:2] == plain[:2]
    for value, expected in ((made, plain), ({"rows": made, "n": 1}, {"rows": plain, "n": 1})):
        path = tmp_path_factory.mktemp("json") / "out.json"
        write_json(path, value)
        assert path.read_bytes().decode("utf-8") == dump_json(expected) == dump_json(value)


def test_a_long_list_of_records_is_written_one_record_a_line_across_pieces(tmp_path):
    """write_json joins RECORDS_A_PIECE records into one piece: across pieces, the text is still one
    record per line, each as the encoder writes it, made printable (a lone surrogate escaped)."""
    records = [{"n": n, "text": "\ud800" if n % 997 == 0 else "é"} for n in range(2 * RECORDS_A_PIECE + 3)]
    lines = ["    " + json.dumps(record, ensure_ascii=False, separators=(", ", ": ")) for record in records]
    expected = printable('{\n  "rows": [\n' + ",\n".join(lines) + '\n  ],\n  "n": 1\n}\n')
    for rows in (records, LazyRecords(dict, records)):
        path = tmp_path / "out.json"
        write_json(path, {"rows": rows, "n": 1})
        assert path.read_bytes().decode("utf-8") == expected == dump_json({"rows": rows, "n": 1})
        assert json.loads(expected)["rows"] == json.loads(json.dumps(records))
