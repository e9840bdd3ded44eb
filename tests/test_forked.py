"""forked.forked_map: the shares' results in order, and a share that fails (an exception, or a
child the out-of-memory killer ends) fails the call instead of leaving it waiting for ever."""

import os
import signal
import subprocess
import sys
import textwrap
import time
from pathlib import Path

from benchreport.pipeline import forked


def _square_and_pid(value):
    return value * value, os.getpid()


def test_results_come_back_in_the_order_of_the_shares_from_other_processes():
    """The first share in this process, each other in a process of its own."""
    assert forked.can_fork()
    found = forked.forked_map(_square_and_pid, [(value,) for value in range(5)])
    assert [square for square, _ in found] == [0, 1, 4, 9, 16]
    pids = [pid for _, pid in found]
    assert pids[0] == os.getpid() and os.getpid() not in pids[1:]


def test_an_exception_in_a_forked_share_comes_back():
    """The second share runs in a forked process: its ValueError is raised here."""
    try:
        forked.forked_map(int, [("1",), ("not a number",)])
    except ValueError as error:
        assert "not a number" in str(error)
    else:
        raise AssertionError("the ValueError of the forked share was lost")


def _run(script: str) -> subprocess.CompletedProcess:
    """A script in its own interpreter, so that a forked_map that waits for ever fails the test
    at the timeout instead of hanging the suite."""
    return subprocess.run([sys.executable, "-c", textwrap.dedent(script)], capture_output=True, text=True, timeout=120)


def test_an_exception_of_a_share_reaches_the_caller_whole():
    done = _run(
        """
        from benchreport.pipeline import forked
        from benchreport.read.files import BadFile

        def share(value):
            if value == 1:
                raise BadFile("jobs/a/t__1/result.json", "is not JSON")
            return value

        try:
            forked.forked_map(share, [(0,), (1,)])
        except BadFile as error:
            print(repr((error.path, error.reason)))
        """
    )
    assert done.stdout.strip() == repr(("jobs/a/t__1/result.json", "is not JSON")), done.stderr


def test_a_killed_child_fails_the_call_and_does_not_hang():
    done = _run(
        f"""
        import os
        from benchreport.pipeline import forked

        def share(value):
            if value == 1:
                os.kill(os.getpid(), {int(signal.SIGKILL)})
            return value

        forked.forked_map(share, [(0,), (1,)])
        """
    )
    assert done.returncode != 0
    assert "BrokenProcessPool" in done.stderr


def test_a_forked_process_ends_with_the_process_that_forked_it(tmp_path):
    """The caller killed (Ctrl-C on snakemake, the out-of-memory killer) while a forked share
    still runs: that process ends too, instead of finishing and waiting for work for ever."""
    pid_file = tmp_path / "child.pid"
    done = _run(
        f"""
        import os, signal, time
        from benchreport.pipeline import forked

        def share(value):
            if value == 1:
                # whole or not at all: the other share waits for the name, then kills the parent
                open({str(pid_file)!r} + ".part", "w").write(str(os.getpid()))
                os.rename({str(pid_file)!r} + ".part", {str(pid_file)!r})
                time.sleep(60)
            else:
                while not os.path.exists({str(pid_file)!r}):
                    time.sleep(0.01)
                os.kill(os.getpid(), signal.SIGKILL)

        forked.forked_map(share, [(0,), (1,)])
        """
    )
    assert done.returncode == -signal.SIGKILL
    child = int(pid_file.read_text())
    for _ in range(200):  # the child gets SIGTERM as its parent dies; waited for up to 20 s
        if not _alive(child):
            break
        time.sleep(0.1)
    else:
        os.kill(child, signal.SIGKILL)
        raise AssertionError("the forked process outlived the one that forked it")


def _alive(pid: int) -> bool:
    """Running: neither gone nor a zombie (a process ended and not yet reaped)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"
