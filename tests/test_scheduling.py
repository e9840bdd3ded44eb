"""The end-of-run hook finds the installed Snakemake's re-evaluation timer and cancels it; the
parse and the end of a run move the heap to the collector's permanent generation; Snakemake's
params check serialises params as it would with pandas, without importing it; every rule job
logs to its rule's log with the cyclic collector off, and one that finishes leaves at once."""

import gc
import os
import subprocess
import sys
import threading
from pathlib import Path
from types import SimpleNamespace

from benchreport import rulejob, scheduling
from benchreport.scheduling import cancel_rescheduling_timers
from snakemake.persistence import PersistenceBase
from snakemake.scheduling.job_scheduler import JobScheduler


def test_the_schedulers_pending_timer_is_cancelled_and_no_other():
    scheduler = SimpleNamespace(_open_jobs=threading.Semaphore(0))
    JobScheduler._schedule_reevalutation(scheduler, 60)  # the timer Snakemake leaves behind
    unrelated = threading.Timer(60, lambda: None)
    unrelated.start()
    try:
        assert cancel_rescheduling_timers() == 1
        pending = [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t is not unrelated]
        for timer in pending:
            timer.join(timeout=5)
        assert not any(timer.is_alive() for timer in pending)
        assert unrelated.is_alive()
        assert not scheduler._open_jobs.acquire(blocking=False)  # cancelled, so it never fired
    finally:
        unrelated.cancel()


def pending_wakes() -> list[threading.Timer]:
    return [t for t in threading.enumerate() if isinstance(t, threading.Timer) and t.function is scheduling._wake]


def test_the_scheduler_keeps_one_reevaluation_pending(monkeypatch):
    monkeypatch.setattr(JobScheduler, "_schedule_reevalutation", JobScheduler._schedule_reevalutation)  # restored
    assert scheduling.one_pending_reevaluation()
    scheduler = SimpleNamespace(_open_jobs=threading.Semaphore(0))
    try:
        for _ in range(5):  # five rounds ask for a wake in a minute: one timer
            JobScheduler._schedule_reevalutation(scheduler, 60)
        assert len(pending_wakes()) == 1
        JobScheduler._schedule_reevalutation(scheduler, 0.05)  # due sooner: a timer of its own
        assert len(pending_wakes()) == 2
        assert scheduler._open_jobs.acquire(timeout=30)  # it woke the scheduler
        for timer in pending_wakes():  # the woken one may still be ending: wait for it alone
            if timer.interval < 1:
                timer.join()
        # and cleared its mark first: the round it woke asks for the next wake and gets one
        JobScheduler._schedule_reevalutation(scheduler, 60)
        assert len(pending_wakes()) == 2
    finally:
        assert cancel_rescheduling_timers() == len(pending_wakes())
    assert not scheduler._open_jobs.acquire(blocking=False)


# Twenty short jobs, one at a time, three a second at most; each round of the scheduler counted.
ROUNDS_SNAKEFILE = """
import sys, time
sys.path.insert(0, {scripts!r})
from benchreport import scheduling
from snakemake.scheduling.job_scheduler import JobScheduler
if {patched!r}:
    scheduling.one_pending_reevaluation()
ROUNDS = []
select = JobScheduler.job_selector
def counted(self, jobs):
    ROUNDS.append(time.monotonic())
    return select(self, jobs)
JobScheduler.job_selector = counted
JOBS = [f"out/{{i}}" for i in range(20)]
rule all:
    input: JOBS
    localrule: True
rule one:
    output: "out/{{i}}"
    shell: "sleep 0.2; touch {{output}}"
onsuccess:
    open("rounds.txt", "w").write(f"{{len(ROUNDS)}} {{ROUNDS[-1] - ROUNDS[0]}}")
"""


def rounds_of_a_run(tmp_path, patched: bool) -> tuple[int, float]:
    folder = tmp_path / ("patched" if patched else "as-is")
    folder.mkdir()
    scripts = str(Path(__file__).parents[1] / "workflow" / "scripts")
    (folder / "Snakefile").write_text(ROUNDS_SNAKEFILE.format(scripts=scripts, patched=patched))
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1", "--quiet", "--max-jobs-per-timespan", "3/1s"],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,  # a scheduler that stopped waking would wait for ever
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert len(list((folder / "out").iterdir())) == 20
    rounds, seconds = (folder / "rounds.txt").read_text().split()
    return int(rounds), float(seconds)


def test_a_real_run_wakes_its_scheduler_once_a_second_not_once_per_ended_job(tmp_path):
    """In a real Snakemake run with a rate limit that holds jobs back (three a second), the jobs
    all run, and the scheduler selects once per job that ends (and per held job) plus once a
    second; unpatched, once a second for every job that has ended so far."""
    rounds, seconds = rounds_of_a_run(tmp_path, patched=True)
    assert rounds <= 2 * 20 + seconds + 3
    unpatched, unpatched_seconds = rounds_of_a_run(tmp_path, patched=False)
    assert unpatched > 2 * 20 + unpatched_seconds + 3  # what the bound tells apart


def collected(probe) -> bool:
    """Whether the cyclic collector still walks `probe`: gc.get_objects() lists its three
    generations, never the permanent one that gc.freeze() fills."""
    return any(found is probe for found in gc.get_objects())


def test_the_parse_and_the_end_of_a_run_freeze_what_is_alive():
    # Asked of the objects themselves, not of gc.get_freeze_count(): that count drops whenever a
    # frozen object is freed, as when a thread an earlier test left (a Snakemake re-evaluation
    # timer, which end_of_run cancels) ends between two counts, so it made this test fail after
    # some others and pass alone.
    gc.unfreeze()
    try:
        parsed = [object()]
        assert collected(parsed)
        scheduling.keep_parsed_objects()
        assert not collected(parsed)
        during_the_run = [object()]
        assert collected(during_the_run)
        scheduling.end_of_run()
        assert not collected(during_the_run) and not collected(parsed)
    finally:
        gc.unfreeze()


def test_a_rule_job_logs_to_its_log_without_the_cyclic_collector(tmp_path):
    log = tmp_path / "logs" / "stage.log"
    log.parent.mkdir()
    job = SimpleNamespace(log=[str(log)])
    stderr, enabled = sys.stderr, gc.isenabled()
    try:
        handle = rulejob.start(job)
        print("to the log", file=sys.stderr)
        assert sys.stderr is handle and not gc.isenabled()
        handle.close()
    finally:
        sys.stderr = stderr
        if enabled:
            gc.enable()
    assert log.read_text() == "to the log\n"


def test_a_rule_job_that_finishes_keeps_its_log_and_exits_with_0(tmp_path):
    """rulejob.finish leaves without the interpreter's teardown: what the job printed to its log
    and to stdout is written all the same, and nothing after it runs."""
    log = tmp_path / "stage.log"
    script = (
        "import sys, types\n"
        "from benchreport import rulejob\n"
        f"rulejob.start(types.SimpleNamespace(log=[{str(log)!r}]))\n"
        "print('to the log', file=sys.stderr)\n"
        "print('to stdout')\n"
        "rulejob.finish()\n"
        "print('after finish', file=sys.stderr)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        capture_output=True,
        text=True,
        env=os.environ | {"PYTHONPATH": str(Path(__file__).parents[1] / "workflow" / "scripts")},
    )
    assert done.returncode == 0 and done.stdout == "to stdout\n"
    assert log.read_text() == "to the log\n"


def test_params_are_serialised_as_with_pandas_without_importing_it(tmp_path, monkeypatch):
    # the serialisers read nothing of the instance: a bare one, without the storage methods
    bare = type("Bare", (PersistenceBase,), {})
    bare.__abstractmethods__ = frozenset()
    persistence = bare(path=tmp_path / ".snakemake")
    params = [
        "text",
        3,
        2.5,
        None,
        True,
        [1, "a"],
        ("t", 1),
        {"nested": {"list": [1, 2], "none": None}},
        {"b", "a"},
        b"bytes",
        lambda wildcards: None,  # a callable is left out, with and without
        object(),
    ]
    original = PersistenceBase.__dict__["_serialize_param"]
    try:
        with_pandas = [persistence._serialize_param_pandas(value) for value in params]
        assert scheduling.compare_params_without_pandas()
        monkeypatch.delitem(sys.modules, "pandas", raising=False)
        assert persistence._serialize_param.__func__ is PersistenceBase._serialize_param_builtin
        assert [persistence._serialize_param(value) for value in params] == with_pandas
        assert "pandas" not in sys.modules
        # where pandas is imported (a DataFrame param can only come from there), pandas' own
        monkeypatch.setitem(sys.modules, "pandas", type(sys)("pandas"))
        assert persistence._serialize_param.__func__ is PersistenceBase._serialize_param_pandas
    finally:
        PersistenceBase._serialize_param = original
