"""One function over shares of work, each share in a process forked from this one."""

from __future__ import annotations

import multiprocessing

# (function, arguments) per share while forked_map runs. A fork inherits it, so no argument (a
# callable, a closure) has to be pickled; only the results travel back.
_SHARES: list = []


def _run_share(position: int):
    function, arguments = _SHARES[position]
    return function(*arguments)


def forked_map(function, shares: list[tuple]) -> list:
    """[function(*share) for share in shares], each share in its own forked process (Linux:
    the callers check), the results in the order of the shares."""
    _SHARES[:] = [(function, share) for share in shares]
    try:
        with multiprocessing.get_context("fork").Pool(len(shares)) as pool:
            return pool.map(_run_share, range(len(shares)))
    finally:
        _SHARES.clear()
