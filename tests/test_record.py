"""record.as_json walks a record once; it must give exactly what dataclasses.asdict gives, with
tuples as lists, for every record the stages write (task rows, cost measures, left-out rows)."""

import dataclasses
import json

from benchreport.record import CostMeasure, Interval, LeftOutRow, TaskRow, as_json
from hypothesis import given, settings
from hypothesis import strategies as st

leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), st.text(max_size=5))
nested = st.recursive(
    leaf,
    lambda inner: (
        st.lists(inner, max_size=3) | st.tuples(inner, inner) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=8,
)
interval = st.builds(Interval, st.text(max_size=5), leaf, leaf, st.floats(0, 1), st.text(max_size=5))
task_row = st.builds(
    TaskRow,
    task=st.text(max_size=5),
    trials=st.integers(0, 9),
    passed=st.integers(0, 9),
    rate=st.floats(0, 1),
    interval=interval,
    rewards=st.tuples(leaf, leaf) | st.lists(leaf, max_size=4).map(tuple),
    mean_reward=st.floats(0, 1),
    outcomes=st.lists(st.text(max_size=3), max_size=4).map(tuple),
    timed_out=st.integers(0, 3),
    task_digests=st.lists(st.text(max_size=3), max_size=2).map(tuple),
    trial_ids=st.lists(nested, max_size=3).map(tuple),
    mean_cost_usd=st.none() | st.floats(0, 9),
    controls=st.none() | st.dictionaries(st.text(max_size=3), nested, max_size=3),
)
cost_measure = st.builds(
    CostMeasure,
    *(st.text(max_size=4) for _ in range(4)),
    st.integers(0, 9),
    st.none() | st.floats(0, 9),
    st.none() | st.floats(0, 9),
    st.none() | st.dictionaries(st.text(max_size=3), nested, max_size=3),
    st.text(max_size=4),
)
left_out = st.builds(LeftOutRow, *(st.text(max_size=4) for _ in range(6)), st.none() | st.text(max_size=3))
records = st.one_of(task_row, cost_measure, left_out, interval)


def reference(value):
    """The definition as_json replaced: dataclasses.asdict, then tuples made lists."""
    if isinstance(value, list):
        return [reference(item) for item in value]
    return _lists(dataclasses.asdict(value))


def _lists(value):
    if isinstance(value, dict):
        return {key: _lists(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_lists(item) for item in value]
    return value


@settings(max_examples=300, deadline=None)
@given(st.one_of(records, st.lists(records, max_size=4)))
def test_as_json_is_asdict_with_lists(value):
    plain = as_json(value)
    assert plain == reference(value)
    assert json.dumps(plain) == json.dumps(reference(value))
    assert not _has_tuple(plain)


def _has_tuple(value):
    if isinstance(value, tuple):
        return True
    if isinstance(value, dict):
        return any(_has_tuple(item) for item in value.values())
    if isinstance(value, list):
        return any(_has_tuple(item) for item in value)
    return False


def test_no_tuple_survives_and_nothing_is_shared_with_the_record():
    row = TaskRow(
        "t",
        2,
        1,
        0.5,
        Interval("wilson", 0.1, 0.9, 0.95, "x"),
        (1.0, None),
        0.5,
        ("passed", "failed"),
        0,
        ("d",),
        ("j/a", "j/b"),
        None,
        {"k": ("a", ["b", ("c",)])},
    )
    plain = as_json(row)
    assert not _has_tuple(plain)
    plain["rewards"].append(2.0)
    assert row.rewards == (1.0, None)


def typed(value):
    """A value with the type of every part beside it: lists, tuples and the other sequences, or
    1 and 1.0 and "1", are told apart, as JSON tells them apart."""
    if isinstance(value, dict):
        return "dict", [(typed(key), typed(item)) for key, item in value.items()]
    if isinstance(value, (list, tuple)) or not isinstance(value, (str, int, float, bool, type(None))):
        return type(value).__name__, [typed(item) for item in value]
    return type(value).__name__, value


def test_a_settings_values_in_memory_are_what_its_files_read_back(tmp_path):
    """Rule report builds summary.json and run-card.json from the numbers, card parts and trial
    rows it has just written to stats.json and trials.json, not from those files: each value must
    be JSON's own (lists, string keys) for the outputs to be those a reader rebuilds from the
    files."""
    from benchreport import discover, files, ingest, trial_rows
    from test_writeup import NOPS, PARAMS, PRICED, TASKS, write_controls, write_setting

    kinds = {
        task: ["passed", "failed", "agent_error", "interrupted"][number % 4 :] for number, task in enumerate(TASKS[:4])
    }
    write_setting(tmp_path, "agent", PRICED, kinds)
    write_controls(tmp_path, TASKS[:3])
    ingests = [ingest.ingest_job(job, 20, NOPS) for job in discover.find_job_folders([str(tmp_path)])]
    for setting in sorted({trial["setting"] for output in ingests for trial in output["trials"]}):
        numbers, rows, parts = trial_rows.setting_parts(setting, ingests, PARAMS)
        built = numbers | parts | rows
        assert typed(built) == typed(json.loads(files.dump_json(built))), setting
