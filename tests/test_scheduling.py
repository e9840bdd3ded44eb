"""The end-of-run hook finds the installed Snakemake's re-evaluation timer and cancels it; the
parse and the end of a run move the heap to the collector's permanent generation; Snakemake's
params check serialises params as it would with pandas, without importing it; its scheduler
measures a waiting job's inputs once; a run reads the workflow profile, which picks the greedy
scheduler; every rule job logs to its rule's log with the cyclic collector off, and one that
finishes leaves at once."""

import asyncio
import gc
import os
import shutil
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
import time
from snakemake.scheduling.job_scheduler import JobScheduler
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


# What each probe Snakefile begins with: the package, and the patch where the run has it.
PROBE_PREAMBLE = """
import sys
sys.path.insert(0, {scripts!r})
from benchreport import scheduling
if {patched!r}:
    scheduling.{patch}()
"""


def probe_run(tmp_path, snakefile: str, patch: str, patched: bool, *options: str, inputs=()) -> Path:
    """A real Snakemake run of one of the probes, with scheduling.<patch> applied or not, in a
    folder of its own with `inputs` written in in/ first; the folder, once the run has succeeded."""
    folder = tmp_path / ("patched" if patched else "as-is")
    folder.mkdir()
    scripts = str(Path(__file__).parents[1] / "workflow" / "scripts")
    preamble = PROBE_PREAMBLE.format(scripts=scripts, patched=patched, patch=patch)
    (folder / "Snakefile").write_text(preamble + snakefile.format())
    for name in inputs:
        (folder / "in").mkdir(exist_ok=True)
        (folder / "in" / name).write_text(name + "\n")
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1", "--quiet", *options],
        cwd=folder,
        capture_output=True,
        text=True,
        timeout=300,  # a scheduler that stopped waking would wait for ever
    )
    assert done.returncode == 0, done.stdout + done.stderr
    return folder


def rounds_of_a_run(tmp_path, patched: bool) -> tuple[int, float]:
    folder = probe_run(
        tmp_path, ROUNDS_SNAKEFILE, "one_pending_reevaluation", patched, "--max-jobs-per-timespan", "3/1s"
    )
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


class Input(str):
    """An input path as the scheduler measures it: whether it exists, and its size, each counted."""

    measured: list = []

    def __new__(cls, path: str, size: int | None):
        made = super().__new__(cls, path)
        made.known_size = size
        return made

    async def exists(self):
        Input.measured.append(str(self))
        return self.known_size is not None

    async def size(self):
        return self.known_size


def test_a_waiting_jobs_inputs_are_measured_once(monkeypatch):
    monkeypatch.setattr(JobScheduler, "update_input_sizes", JobScheduler.update_input_sizes)  # restored
    assert scheduling.input_sizes_measured_once()
    scheduler = SimpleNamespace(_input_sizes={})
    shared, own, absent = Input("shared", 10), Input("own", 20), Input("absent", None)
    first, second = SimpleNamespace(input=[shared, own]), SimpleNamespace(input=[shared, absent])
    Input.measured = []
    asyncio.run(JobScheduler.update_input_sizes(scheduler, [first, second]))
    assert sorted(Input.measured) == ["absent", "own", "shared"]
    assert scheduler._input_sizes == {"shared": 10, "own": 20, "absent": None}
    Input.measured = []
    asyncio.run(JobScheduler.update_input_sizes(scheduler, [first, second]))  # the next round
    assert Input.measured == ["absent"]  # a path without a size is looked for again
    # above Snakemake's bound, the sizes of paths no waiting job reads go, and no other
    many = [SimpleNamespace(input=[Input(f"other-{n}", n)]) for n in range(scheduling.KEPT_SIZES)]
    asyncio.run(JobScheduler.update_input_sizes(scheduler, [first, *many]))
    assert len(scheduler._input_sizes) == scheduling.KEPT_SIZES + 2
    assert "absent" not in scheduler._input_sizes and scheduler._input_sizes["own"] == 20


# Ten jobs that wait on one core, each reading a file of its own and one they share, all there
# before the run; every time Snakemake asks whether one of them exists, counted.
SIZES_SNAKEFILE = """
from snakemake.io import _IOFile
MEASURED = []
exists = _IOFile.exists
async def counted(self):
    MEASURED.append(str(self))
    return await exists(self)
_IOFile.exists = counted
rule all:
    input: expand("out/{{i}}", i=range(10))
    localrule: True
rule one:
    input: "in/shared", "in/{{i}}"
    output: "out/{{i}}"
    shell: "cat {{input}} > {{output}}"
onsuccess:
    open("measured.txt", "w").write(str(sum(path.startswith("in/") for path in MEASURED)))
"""


def inputs_measured_in_a_run(tmp_path, patched: bool) -> int:
    inputs = ["shared", *map(str, range(10))]
    folder = probe_run(
        tmp_path, SIZES_SNAKEFILE, "input_sizes_measured_once", patched, "--scheduler", "greedy", inputs=inputs
    )
    assert sorted(path.name for path in (folder / "out").iterdir()) == sorted(str(i) for i in range(10))
    assert (folder / "out" / "3").read_text() == "shared\n3\n"
    return int((folder / "measured.txt").read_text())


def test_a_real_run_measures_each_waiting_input_once(tmp_path):
    """In a real Snakemake run, with the patch the scheduler looks for each of the 11 inputs once
    when it ranks the jobs (Snakemake's own checks of a job's inputs come on top, a few per job);
    unpatched, for every job still waiting at every round: far more."""
    patched = inputs_measured_in_a_run(tmp_path, patched=True)
    unpatched = inputs_measured_in_a_run(tmp_path, patched=False)
    assert unpatched - patched >= 30, (patched, unpatched)


def test_a_run_reads_the_workflow_profile_which_picks_the_greedy_scheduler(tmp_path):
    """A real run beside the workflow's profile schedules greedily (the scheduler Snakemake was
    handed, written at the run's start); the workflow's own dry run reads the profile too."""
    from conftest import REPO, copy_real_jobs, copy_workflow

    toy = tmp_path / "toy"
    toy.mkdir()
    shutil.copytree(REPO / "profiles", toy / "profiles")
    (toy / "Snakefile").write_text(
        "onstart:\n"
        "    open('scheduler.txt', 'w').write(workflow.scheduling_settings.scheduler)\n"
        "rule all:\n"
        "    output: 'done'\n"
        "    shell: 'touch {output}'\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "snakemake", "--cores", "1"], cwd=toy, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert (toy / "scheduler.txt").read_text() == "greedy"
    workflow = copy_workflow(tmp_path / "wf")
    dry = workflow.run("--dry-run", roots=copy_real_jobs(workflow))  # fails the test where it fails
    assert "Using workflow specific profile profiles/default" in dry.stderr, dry.stderr
