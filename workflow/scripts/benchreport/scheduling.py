"""What the workflow asks of Snakemake's scheduler at the end of a run."""

from __future__ import annotations

import threading

# Snakemake's JobScheduler._schedule_reevalutation starts a threading.Timer (not a daemon) after
# every scheduling round when a job rate limit is set, and --max-jobs-per-timespan defaults to
# 100/1s: the interpreter then waits up to a second after the last job before it can exit.
RESCHEDULING = "JobScheduler._schedule_reevalutation."


def cancel_rescheduling_timers() -> int:
    """Cancel the scheduler's pending re-evaluation timers; returns how many. Called from
    onsuccess/onerror, when the scheduler has returned and has nothing left to re-evaluate."""
    cancelled = 0
    for thread in threading.enumerate():
        if isinstance(thread, threading.Timer) and getattr(thread.function, "__qualname__", "").startswith(RESCHEDULING):
            thread.cancel()
            cancelled += 1
    return cancelled
