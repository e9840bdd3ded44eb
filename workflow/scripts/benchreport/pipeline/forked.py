"""One function over shares of work, each share in a process forked from this one: the parse's
stat pass over many job folders (stamps.refresh_folders)."""

from __future__ import annotations

import os
import signal
import sys
import threading

# (function, arguments) per share while forked_map runs. A fork inherits it, so no argument (a
# callable, a closure) has to be pickled; only the results travel back.
_SHARES: list = []
PR_SET_PDEATHSIG = 1  # prctl(2): the signal a process gets when its parent ends


def can_fork() -> bool:
    """Whether forked_map forks: on Linux, and only while this process has one
    thread (as Snakemake's has when it parses, and a rule job's): a fork copies no other thread,
    so one holding a lock could leave it held in the child."""
    return sys.platform == "linux" and threading.active_count() == 1


def _run_share(position: int):
    function, arguments = _SHARES[position]
    return function(*arguments)


def end_with_parent(parent: int) -> None:
    """A forked process is ended when the process that forked it ends (killed, say, with Ctrl-C
    on snakemake): else it would finish its share and wait for more work for ever."""
    import ctypes

    ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGTERM))
    if os.getppid() != parent:  # the parent ended before the line above
        os._exit(1)


def forked_map(function, shares: list[tuple]) -> list:
    """[function(*share) for share in shares], the results in the order of the shares: the first
    share in this process while each other runs in a process forked from it, where can_fork();
    else one after the other in this process. This process works rather than waits: the tree
    holds one copy fewer of the pages a fork starts with (each forked process's RSS begins at
    this one's)."""
    if len(shares) < 2 or not can_fork():
        return [function(*share) for share in shares]
    return _in_forks(function, shares[1:], shares[0])


def _in_forks(function, shares: list[tuple], here: tuple) -> list:
    """function(*share) for each share in its own forked process, and for `here` (first in the
    results) in this one meanwhile. An exception in any is raised once all have finished."""
    # imported here, not by the module: most jobs fork nothing, and the import costs ~20 ms
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

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
        with ProcessPoolExecutor(
            max_workers=len(shares), mp_context=context, initializer=end_with_parent, initargs=(os.getpid(),)
        ) as executor:
            forked = [executor.submit(_run_share, position) for position in range(len(shares))]
            first = function(*here)
            return [first] + [future.result() for future in forked]
    finally:
        _SHARES.clear()
