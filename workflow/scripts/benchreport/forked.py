"""One function over shares of work, each share in a process forked from this one."""

from __future__ import annotations

import multiprocessing
import sys
import threading
from concurrent.futures import ProcessPoolExecutor

# (function, arguments) per share while forked_map runs. A fork inherits it, so no argument (a
# callable, a closure) has to be pickled; only the results travel back.
_SHARES: list = []


def can_fork() -> bool:
    """Whether forked_map forks: on Linux, and only while this process has one thread (as
    Snakemake's has when it parses, and a rule job's): a fork copies no other thread, so one
    holding a lock could leave it held in the child."""
    return sys.platform == "linux" and threading.active_count() == 1


def _run_share(position: int):
    function, arguments = _SHARES[position]
    return function(*arguments)


def forked_map(function, shares: list[tuple]) -> list:
    """[function(*share) for share in shares], the results in the order of the shares: each share
    in its own forked process where can_fork(), else one after the other in this process."""
    if len(shares) < 2 or not can_fork():
        return [function(*share) for share in shares]
    _SHARES[:] = [(function, share) for share in shares]
    # what this process has buffered would otherwise be written again by each child as it exits
    sys.stdout.flush()
    sys.stderr.flush()
    try:
        # not multiprocessing.Pool, whose map waits for ever when a child is killed (the
        # out-of-memory killer) or returns an exception that cannot be rebuilt: here either
        # raises BrokenProcessPool. With "fork" the executor forks every child at the first
        # submit, before it starts its own thread.
        context = multiprocessing.get_context("fork")
        with ProcessPoolExecutor(max_workers=len(shares), mp_context=context) as executor:
            return list(executor.map(_run_share, range(len(shares))))
    finally:
        _SHARES.clear()
