"""What the workflow does about the costs of the Snakemake process it runs in: its garbage
collector after the parse, the import of pandas by its params check, its scheduler's
re-evaluation timers, during a run and at its end, and the input sizes its scheduler measures;
and what the process prints last. (Which scheduler picks the jobs is the workflow profile's:
profiles/default/config.yaml.)"""

from __future__ import annotations

import asyncio
import atexit
import gc
import inspect
import os
import sys
import threading
import time

from . import forkserver

# Snakemake's JobScheduler._schedule_reevalutation starts a threading.Timer (not a daemon) after
# every scheduling round when a job rate limit is set, and --max-jobs-per-timespan defaults to
# 100/1s: the interpreter then waits up to a second after the last job before it can exit.
RESCHEDULING = "JobScheduler._schedule_reevalutation."


# The scheduler's attribute holding its pending re-evaluation: (when it is due, its timer).
PENDING = "_benchreport_pending_reevaluation"


def one_pending_reevaluation() -> bool:
    """Have Snakemake's scheduler keep one re-evaluation timer pending, not one per job that ended.

    Each scheduling round starts a timer that wakes the scheduler a second later (the rate limit
    above), the round a timer starts included, so every round that a job's end starts begins
    another chain: after k jobs have ended, k timers wake the scheduler every second, and each
    wake selects again among every waiting job. At 100 ingest jobs of 1,000 attempts on 2 cores
    that was 1,099 rounds for 102 jobs and 4.8 s of the Snakemake process's CPU, taken from the
    jobs. Here a round asked for while one is pending that is due no later is left out: that one
    wakes the scheduler first, and its round asks for the next. The timer clears its mark before
    it wakes the scheduler, so a round that follows always finds none pending and starts one.
    Returns whether it applied (not where the scheduler has changed shape)."""
    from snakemake.scheduling.job_scheduler import JobScheduler

    if not callable(JobScheduler.__dict__.get("_schedule_reevalutation")):
        return False
    JobScheduler._schedule_reevalutation = _schedule_once
    return True


def _schedule_once(scheduler, delay) -> None:
    due = time.monotonic() + delay
    pending = getattr(scheduler, PENDING, None)
    if pending is not None and pending[0] <= due:
        return
    timer = threading.Timer(delay, _wake, args=(scheduler,))
    setattr(scheduler, PENDING, (due, timer))
    timer.start()


def _wake(scheduler) -> None:
    setattr(scheduler, PENDING, None)
    scheduler._open_jobs.release()


def input_sizes_measured_once() -> bool:
    """Have Snakemake's scheduler measure the size of a waiting job's input once, not at every
    round.

    Before each choice JobScheduler.update_input_sizes stats every input of every job waiting to
    start (the schedulers rank jobs by their inputs' sizes after their priorities), as one
    asyncio task per file. At 200 job folders of 50 trials, each ingest job waiting with its two
    inputs, that was 45,000 measurements in 225 rounds: 1.5 s of the 1.8 s Snakemake's process
    spent choosing jobs. A job waits only once all its inputs are written, and nothing writes
    them again before it has run, so a size measured once holds while it waits; a path not found
    (no size) is measured again. A size is kept for its path for the rest of the run: a file
    made again later in the same run (a temp() output after a checkpoint, which this workflow
    has not) keeps its first size, which only orders jobs of equal priority. Returns whether it
    applied (not where the scheduler has changed shape)."""
    from snakemake.scheduling.job_scheduler import JobScheduler

    measure = JobScheduler.__dict__.get("update_input_sizes")
    if not inspect.iscoroutinefunction(measure):
        return False
    JobScheduler.update_input_sizes = _measure_new_inputs
    return True


# Snakemake's bound on the sizes it keeps: above it, those of paths no waiting job reads go.
KEPT_SIZES = 10000


async def _measure_new_inputs(scheduler, jobs) -> None:
    """update_input_sizes, measuring only the paths it has no size for."""
    sizes = scheduler._input_sizes
    paths = {path for job in jobs for path in job.input}
    unknown = [path for path in paths if sizes.get(path) is None]
    if unknown:
        sizes.update(await asyncio.gather(*(_size(path) for path in unknown)))
    if len(sizes) > KEPT_SIZES:
        for path in [path for path in sizes if path not in paths]:
            del sizes[path]


async def _size(path):
    return path, await path.size() if await path.exists() else None


def cancel_rescheduling_timers() -> int:
    """Cancel the scheduler's pending re-evaluation timers; returns how many. Called from
    onsuccess/onerror, when the scheduler has returned and has nothing left to re-evaluate."""
    cancelled = 0
    for thread in threading.enumerate():
        if isinstance(thread, threading.Timer) and (
            thread.function is _wake or getattr(thread.function, "__qualname__", "").startswith(RESCHEDULING)
        ):
            thread.cancel()
            cancelled += 1
    return cancelled


def keep_parsed_objects() -> None:
    """Move every object alive now (Snakemake's modules, the parsed rules and config, ours) into
    the collector's permanent generation, as the gc documentation advises before fork().

    They live as long as the run. Otherwise each full collection walks them again: in every
    process the stat pass forks (touching them copies their pages, 0.4 s at 100 x 1,000) and
    while Snakemake builds and updates the DAG.
    """
    gc.freeze()


def compare_params_without_pandas() -> bool:
    """Have Snakemake compare the params of a job whose outputs exist without importing pandas.

    To tell whether such a job must run again, Snakemake serialises its params, and where pandas
    is installed (a dependency of this package, for benchreport.load) it imports pandas first, to
    hash a DataFrame param (persistence.PersistenceBase._serialize_param_pandas): 0.3-0.45 s of
    the 1.1-1.9 s a run with nothing to do took at 1,000 and 10,000 trials. A DataFrame param
    means pandas is imported already (a workflow that uses this one as a module may have one), so
    that serialiser is kept while pandas is in sys.modules; otherwise no param is a pandas object,
    and for any other value it returns what _serialize_param_builtin does: the same jobs run.
    Returns whether it applied (not where Snakemake's persistence has changed shape)."""
    from snakemake.persistence import PersistenceBase

    chosen = PersistenceBase.__dict__.get("_serialize_param")
    if not isinstance(chosen, property) or not hasattr(PersistenceBase, "_serialize_param_builtin"):
        return False
    PersistenceBase._serialize_param = property(
        lambda persistence: (
            persistence._serialize_param_pandas if "pandas" in sys.modules else persistence._serialize_param_builtin
        )
    )
    return True


def end_of_run() -> None:
    """onsuccess/onerror: cancel the scheduler's timer and freeze the heap, so that the
    interpreter's last collection does not walk the DAG on the way out (0.3 s at 100 folders);
    nothing it could free matters once the process exits."""
    cancel_rescheduling_timers()
    gc.freeze()


def end_with_where_results_are(outputs: list[str]) -> None:
    """onsuccess: have the run's last lines say where its results are, each output that exists
    relative to the folder the run was started in (Snakemake's --directory is left by then).
    Printed at exit: after Snakemake's log hint and elapsed time, which follow onsuccess, and
    after the fork server's note, which its end prints (it is ended first, and waited for)."""
    written = [os.path.abspath(path) for path in outputs if os.path.exists(path)]
    atexit.register(_print_where_results_are, written)


def _print_where_results_are(paths: list[str]) -> None:
    forkserver.cancel()
    if paths:
        print(
            "\n".join(["benchreport: the results are in", *(f"  {os.path.relpath(path)}" for path in paths)]),
            file=sys.stderr,
        )
