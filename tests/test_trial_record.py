"""The Trial record (benchreport/read/trial.py) is what ingest writes: every row of the real BenchFlow
0.7.12 folders and of the generated example matches it, and a row that does not is named."""

from __future__ import annotations

import ast
import json

import pytest
from benchreport.read import discover, ingest, trial
from conftest import EXAMPLE

ROOTS = [str(EXAMPLE / name) for name in ("benchflow-real-jobs", "benchflow-samples", "generated")]


@pytest.fixture(scope="module")
def rows() -> list[dict]:
    found = []
    for job in discover.find_job_folders(ROOTS):
        found += ingest.ingest_job(job)["trials"]
    return found


def test_every_ingested_row_is_a_trial_record(rows):
    assert len(rows) > 100
    assert {f"{row['job']}/{row['folder']}": found for row in rows if (found := trial.problems(row))} == {}
    # the record is the whole row: every field occurs, and each optional one is set somewhere
    assert set().union(*(row.keys() for row in rows)) == set(trial.FIELDS)
    assert any(row["cost_usd"] is not None for row in rows) and any(row["reward"] is None for row in rows)


def test_a_row_that_breaks_the_record_is_named(rows):
    row = dict(rows[0])
    del row["task"]
    row["attempts"] = True  # a bool is not a count
    row["cost_usd"] = "0.1"
    row["stray"] = 1
    found = trial.problems(row)
    assert "missing field task" in found and "field stray is not a Trial field" in found
    assert any(p.startswith("attempts is bool") for p in found) and any(p.startswith("cost_usd is str") for p in found)
    with pytest.raises(TypeError, match=f"{row['folder']} breaks the Trial record: missing field task"):
        trial.check_rows([rows[1], row])
    trial.check_rows(rows[:2])


def batch(ingests: dict) -> dict:
    """A batch's trials.json as rule ingest writes it: job id -> that folder's ingest."""
    return {"jobs": {job_id: ingest | {"job": {"id": job_id}} for job_id, ingest in ingests.items()}}


def test_ingests_loaded_together_hold_each_repeated_value_once(rows, tmp_path):
    """load_ingests gives the rows json.load gives, with each repeated value one object."""
    import json

    from benchreport.pipeline.outputs import write_json

    paths = []
    halves = list(enumerate((rows[: len(rows) // 2], rows[len(rows) // 2 :])))
    for number, part in halves:
        paths.append(tmp_path / f"{number}.json")
        write_json(paths[-1], batch({str(number): {"trials": trial.as_columns(part)}}))
    loaded = trial.load_ingests(paths)
    assert loaded == [{"job": {"id": str(number)}, "trials": json.loads(json.dumps(part))} for number, part in halves]
    found = [row for ingest in loaded for row in ingest["trials"]]
    assert len({repr(row["timing"]) for row in found}) > 1  # a column of values that differ
    for name in trial.SHARED:
        values = {repr(row[name]) for row in found}
        assert len({id(row[name]) for row in found}) == len(values), name


def test_a_stage_loads_the_folders_it_names_from_the_batches_in_its_order(rows, tmp_path):
    """load_ingests with `jobs`: only those folders of the batches' files, in the list's order
    (a setting's folders, which a batch may share with another setting's)."""
    from benchreport.pipeline.outputs import write_json

    first, second = tmp_path / "first.json", tmp_path / "second.json"
    write_json(first, batch({name: {"trials": trial.as_columns(rows[:1])} for name in ("a", "b", "c")}))
    write_json(second, batch({"d": {"trials": trial.as_columns(rows[1:2])}}))
    loaded = trial.load_ingests([first, second], jobs=["d", "c", "a"])
    assert [ingest["job"]["id"] for ingest in loaded] == ["d", "c", "a"]
    assert [len(ingest["trials"]) for ingest in loaded] == [1, 1, 1]
    assert [ingest["job"]["id"] for ingest in trial.load_ingests([first, second])] == ["a", "b", "c", "d"]
    assert trial.load_ingests([first], jobs=[]) == []
    with pytest.raises(ValueError, match="no ingest of d in"):
        trial.load_ingests([first], jobs=["a", "d"])


def test_values_that_json_tells_apart_stay_apart_in_the_columns(rows, tmp_path):
    """as_columns holds a value once per repr: 1, 1.0, True, "1", 0.0 and -0.0 each come back as
    they went in, and so do dicts with the same items in another order."""
    import json

    from benchreport.pipeline.outputs import write_json

    kinds = [1, 1.0, True, "1", None, 0.0, -0.0, 1, True, {"a": 1, "b": 2}, {"b": 2, "a": 1}, "1"]
    made = [dict(rows[number % len(rows)], seed=value) for number, value in enumerate(kinds)]
    path = tmp_path / "trials.json"
    write_json(path, batch({"j": {"trials": trial.as_columns(made)}}))
    assert len(json.loads(path.read_text())["jobs"]["j"]["trials"]["seed"]["values"]) == 9
    loaded = [row["seed"] for row in trial.load_ingests([path])[0]["trials"]]
    assert [(type(value), json.dumps(value)) for value in loaded] == [
        (type(value), json.dumps(value)) for value in kinds
    ]


# stage (its rule script) -> the module whose TRIAL_FIELDS and TRIAL_PARTS it loads
FIELDS_OF = {"report": "benchreport.record.trial_rows"}


@pytest.mark.parametrize("stage", list(FIELDS_OF))
def test_a_stage_loads_its_fields_as_json_gives_them_in_the_records_order(stage, rows, tmp_path):
    """load_ingests with a stage's fields and parts: each row is the row json.load gives, cut to
    those fields (in the Trial record's order) and parts, whatever the order of the file's keys."""
    import importlib
    import json
    import random

    from benchreport.pipeline.outputs import write_json

    module = importlib.import_module(FIELDS_OF[stage])
    shuffled = [dict(random.Random(number).sample(list(row.items()), len(row))) for number, row in enumerate(rows)]
    path, empty = tmp_path / "trials.json", tmp_path / "empty.json"
    write_json(path, batch({"j": {"trials": trial.as_columns(shuffled)}}))
    write_json(empty, batch({"e": {"trials": trial.as_columns([])}}))
    loaded, none = (
        ingest["trials"] for ingest in trial.load_ingests([path, empty], module.TRIAL_FIELDS, module.TRIAL_PARTS)
    )
    assert none == []
    order = [name for name in trial.FIELDS if name in module.TRIAL_FIELDS]
    expected = [
        {
            name: {key: row[name][key] for key in module.TRIAL_PARTS[name] if key in row[name]}
            if name in module.TRIAL_PARTS
            else row[name]
            for name in order
        }
        for row in json.loads(json.dumps(rows))
    ]
    assert loaded == expected
    assert all(list(row) == order for row in loaded)
    for name in {*trial.SHARED, *module.TRIAL_PARTS} & set(order):  # one object per value
        assert len({id(row[name]) for row in loaded}) == len({repr(row[name]) for row in loaded}), name
    for name, other in trial.SAME_WHEN_EQUAL:
        if {name, other} <= set(order):
            assert all(row[name] is row[other] for row in loaded if row[name] == row[other]), name


def _fields_named(stage: str) -> set[str]:
    """The Trial fields a stage's code names as a string anywhere (its script and every module it
    imports, as lineage hashes them; not trial.py, which defines the record)."""

    from benchreport.pipeline import lineage

    named = set()
    for name in lineage.code_closure(f"{stage}.py"):
        if name != "benchreport/read/trial.py":
            tree = ast.parse((lineage.SCRIPTS_DIR / name).read_text(encoding="utf-8"))
            named |= {node.value for node in ast.walk(tree) if isinstance(node, ast.Constant)}
    return named & set(trial.FIELDS)


@pytest.mark.parametrize("stage", list(FIELDS_OF))
def test_a_stage_loads_every_field_its_code_reads(stage):
    """trial.load_ingests drops the fields not in the stage's TRIAL_FIELDS: a field the code reads
    by name but the list leaves out would read as missing."""
    import importlib

    fields = importlib.import_module(FIELDS_OF[stage]).TRIAL_FIELDS
    assert _fields_named(stage) - set(fields) == set()
    assert set(fields) <= set(trial.FIELDS)


def _parts_read(stage: str, fields) -> tuple[dict[str, set], list[str]]:
    """Per dict field in `fields`, the keys a stage's code reads of it (`row["timing"].get("total")`,
    `row["timing"]["total"]`), and every other use of such a field (which would need it whole)."""
    from benchreport.pipeline import lineage

    read, whole = {}, []
    for name in lineage.code_closure(f"{stage}.py"):
        if name == "benchreport/read/trial.py":
            continue
        tree = ast.parse((lineage.SCRIPTS_DIR / name).read_text(encoding="utf-8"))
        parents = {child: node for node in ast.walk(tree) for child in ast.iter_child_nodes(node)}
        for node in ast.walk(tree):
            field = _named_key(node)
            if field not in fields:
                continue
            parent = parents[node]
            key = _named_key(parent) if isinstance(parent, ast.Subscript) else _named_key(parents.get(parent))
            if key is not None and (isinstance(parent, ast.Subscript) or parent.attr == "get"):
                read.setdefault(field, set()).add(key)
            else:
                whole.append(f"{name}:{node.lineno} {field}")
    return read, whole


def _named_key(node):
    """The constant key of `x["key"]` or `x.get("key", ...)`, else None."""
    if isinstance(node, ast.Subscript) and isinstance(node.slice, ast.Constant):
        return node.slice.value
    if (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == "get"
        and node.args
        and isinstance(node.args[0], ast.Constant)
    ):
        return node.args[0].value
    return None


@pytest.mark.parametrize("stage", list(FIELDS_OF))
def test_a_stage_reads_only_the_parts_of_a_field_it_loads(stage):
    """load_ingests keeps of a dict field in TRIAL_PARTS only the keys listed: the stage's code
    must read nothing else of it, and never use it whole."""
    import importlib

    parts = importlib.import_module(FIELDS_OF[stage]).TRIAL_PARTS
    read, whole = _parts_read(stage, parts)
    assert parts, "the stage loads every dict field whole: this test then checks nothing"
    for field, keys in parts.items():
        assert read.get(field, set()) <= set(keys), field
        assert [use for use in whole if use.endswith(f" {field}")] == []


def test_parts_and_equal_fields_are_loaded_as_the_stage_reads_them(rows, tmp_path):
    """Of timing only the listed keys are loaded; the tokens of every attempt are the kept
    attempt's object when they are equal; every other field is as json.load gives it."""
    import json

    from benchreport.pipeline.outputs import write_json

    rows = [dict(row) for row in rows]  # one trial retried: its attempts' tokens sum to more than its own
    rows[0]["tokens_all_attempts"] = {field: (count or 0) + 1 for field, count in rows[0]["tokens"].items()}
    path = tmp_path / "trials.json"
    write_json(path, batch({"j": {"trials": trial.as_columns(rows)}}))
    loaded = trial.load_ingests([path], parts={"timing": ("total",)})[0]["trials"]
    plain = json.loads(json.dumps(rows))
    assert [{**row, "timing": None} for row in loaded] == [{**row, "timing": None} for row in plain]
    assert [row["timing"] for row in loaded] == [
        {"total": row["timing"]["total"]} if "total" in row["timing"] else {} for row in plain
    ]
    assert any("total" in row["timing"] for row in loaded) and any(len(row["timing"]) > 1 for row in plain)
    equal = [row for row in loaded if row["tokens_all_attempts"] == row["tokens"]]
    assert equal and all(row["tokens_all_attempts"] is row["tokens"] for row in equal)
    assert any(row["tokens_all_attempts"] != row["tokens"] for row in loaded)


def test_a_trial_resolves_to_its_own_folders_files_in_a_batch_record(tmp_path):
    """Two folders of one batch holding an attempt folder of the same name: lineage.trial_sources
    gives each trial only its own folder's files (the record's sources_per_job), and finds a
    folder by the id trials name it by (its index entry's job id), not its key."""
    from benchreport.pipeline import lineage

    results = tmp_path / "results"
    batch = "root/cell/trial-01/t1"
    jobs = {batch: "root/cell/trial-01/t1", "root/cell/trial-02/t2": "root/cell/trial-02/shown"}
    (results / "ingest" / batch).mkdir(parents=True)
    (results / "lineage" / "ingest" / batch).mkdir(parents=True)
    (results / "ingested.json").write_text(json.dumps({"job_folders": list(jobs), "batches": {batch: list(jobs)}}))
    index = {"jobs": {key: {"job": {"id": shown, "key": key}} for key, shown in jobs.items()}}
    (results / "ingest" / batch / "index.json").write_text(json.dumps(index))
    sources = [{"path": f"{shown}/task__0a/result.json", "sha256": key} for key, shown in jobs.items()]
    record = {"sources": sources, "sources_per_job": dict.fromkeys(jobs, 1)}
    (results / "lineage" / "ingest" / batch / "trials.json.json").write_text(json.dumps(record))
    found = lineage.trial_sources(tmp_path, [f"{shown}/task__0a" for shown in jobs.values()])
    assert found == {f"{shown}/task__0a": [source] for shown, source in zip(jobs.values(), sources, strict=True)}
