"""A setting's record (record.SettingResult) and the values it is built from are JSON's own
values, so that rule report builds its outputs from them in memory and a reader of its files
gets the same."""

import json

from benchreport.pipeline.outputs import dump_json
from benchreport.read import discover, ingest
from benchreport.record import report, trial_rows
from test_writeup import NOPS, PARAMS, PRICED, TASKS, write_controls, write_setting


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

    kinds = {
        task: ["passed", "failed", "agent_error", "interrupted"][number % 4 :] for number, task in enumerate(TASKS[:4])
    }
    write_setting(tmp_path, "agent", PRICED, kinds)
    write_controls(tmp_path, TASKS[:3])
    ingests = [ingest.ingest_job(job, 20, NOPS) for job in discover.find_job_folders([str(tmp_path)])]
    for setting in sorted({trial["setting"] for output in ingests for trial in output["trials"]}):
        numbers, rows, parts = trial_rows.setting_parts(setting, ingests, PARAMS)
        record, card = report.setting_record(numbers, parts, rows, [])
        for built in (numbers, parts, rows, record, card):
            assert typed(built) == typed(json.loads(dump_json(built))), setting
