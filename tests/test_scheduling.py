"""The end-of-run hook finds the installed Snakemake's re-evaluation timer and cancels it."""

import threading
from types import SimpleNamespace

from snakemake.scheduling.job_scheduler import JobScheduler

from benchreport.scheduling import cancel_rescheduling_timers


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
