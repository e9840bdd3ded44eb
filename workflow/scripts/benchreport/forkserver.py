"""One process per run that imports the package once, then forks a copy of itself for each rule
job handed to it (forkclient.py): a job's imports cost 45-650 ms here (numpy, scipy, matplotlib,
jinja2 and the package), and a small run is mostly such jobs (1,000 trials: 31 jobs, about half
of their time importing).

The copy runs the job as rulejob.py would in a process of its own: the job's standard streams,
working folder, arguments and environment are the client's; its exit status is the client's.
A request this process cannot run as a fresh one would (another Python, another copy of the
workflow, other thread settings for the numerical libraries it loaded) is run by a fresh
runner, started from the copy. The client ends the job when it is told to end, and the server
ends a job whose client is gone, and itself when the Snakemake process that started it ends.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import os
import pkgutil
import selectors
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import traceback
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent
SOCKET_VARIABLE = "BENCHREPORT_FORKSERVER"
# Set by Snakemake for each job to its threads; the numerical libraries read them as they load,
# so the server loads them with one thread and takes only the jobs that ask for one.
THREAD_VARIABLES = (
    "OMP_NUM_THREADS",
    "GOTO_NUM_THREADS",
    "OPENBLAS_NUM_THREADS",
    "MKL_NUM_THREADS",
    "VECLIB_MAXIMUM_THREADS",
    "NUMEXPR_NUM_THREADS",
)
# Not imported ahead: the command line, and what patches Snakemake in Snakemake's own process.
NOT_PRELOADED = {"__main__", "scheduling"}
# Above this many attempt folders a run's jobs are long, their imports a few per cent of them,
# and the server's ~80 MB (counted again in each job forked from it) would sit beside the
# largest jobs of the run: the jobs start as they did without it.
MAX_ATTEMPTS = 30_000
REQUEST_SECONDS = 30  # for a client to send its request once connected (it sends it at once)
STARTED = "benchreport: the jobs start as copies of a fork server"
RAN = "benchreport: the fork server ran"
_SERVER = []  # the server process and the pipe whose closing ends it, while this run holds them


def start(attempts: int) -> str | None:
    """Start the run's server (once), for a run of `attempts` attempt folders; return the runner
    the jobs start (forkclient.py), or None where the jobs start rulejob.py as before: a large
    run, a platform without fork, a temporary folder whose path is too long for a socket's, or
    BENCHREPORT_FORKSERVER=off."""
    if os.environ.get(SOCKET_VARIABLE) == "off":
        return None
    if attempts > MAX_ATTEMPTS or sys.platform != "linux" or len(tempfile.gettempdir()) > 80:
        os.environ.pop(SOCKET_VARIABLE, None)  # the server of a run that started this one
        return None
    if not _SERVER:
        path = os.path.join(tempfile.mkdtemp(prefix="benchreport-"), "jobs")  # sun_path: 108 bytes
        alive, ended = os.pipe()  # the server ends when this process, holding `ended`, does
        env = dict(os.environ, **{name: "1" for name in THREAD_VARIABLES})
        server = subprocess.Popen(
            [sys.executable, "-P", str(PACKAGE_DIR / "forkserver.py"), path], stdin=alive, env=env
        )
        os.close(alive)
        _SERVER.extend([server, ended, path])
        atexit.register(stop)
        print(f"{STARTED} ({attempts:,} attempt folders)", file=sys.stderr)
    os.environ[SOCKET_VARIABLE] = _SERVER[2]
    return str(PACKAGE_DIR / "forkclient.py")


def stop() -> None:
    """End the server as this process ends, and wait for it: the time its jobs took is then this
    process's children's, as it is when each job is a child of its own (getrusage)."""
    server, ended, _ = _SERVER
    os.close(ended)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()


def preload() -> None:
    """Import every module of the package a rule script may use."""
    import benchreport

    for module in pkgutil.iter_modules(benchreport.__path__):
        if module.name not in NOT_PRELOADED:
            importlib.import_module(f"benchreport.{module.name}")


def read_request(connection) -> tuple[dict, list[int]]:
    """The client's request (forkclient.request) and its standard streams."""
    header, fds, _, _ = socket.recv_fds(connection, 8, 3)
    while len(header) < 8:
        more = connection.recv(8 - len(header))
        if not more:
            raise OSError("the client closed its request")
        header += more
    (size,) = struct.unpack("!Q", header)
    data = bytearray()
    while len(data) < size:
        more = connection.recv(min(1 << 20, size - len(data)))
        if not more:
            raise OSError("the client closed its request")
        data += more
    fields = bytes(data).decode("utf-8", "surrogateescape").split("\0")[:-1]
    python, runner, cwd, count = fields[:4]
    argv = fields[4 : 4 + int(count)]
    env = dict(field.split("=", 1) for field in fields[4 + int(count) :])
    if len(fds) != 3:
        raise OSError("the client sent no standard streams")
    return {"python": python, "runner": runner, "cwd": cwd, "argv": argv, "env": env}, fds


def servable(request: dict) -> bool:
    """Whether a copy of this process runs the job as a fresh runner would."""
    return (
        request["python"] == sys.executable
        and request["runner"] == str(PACKAGE_DIR / "rulejob.py")
        and all(request["env"].get(name) == os.environ.get(name) for name in THREAD_VARIABLES)
    )


def run_job(request: dict, fds: list[int], fresh: bool) -> None:
    """In the forked copy: become the job's process, run it (`fresh`: start a fresh runner to),
    and end with its exit status."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.environ.clear()
    os.environ.update(request["env"])
    if fresh:
        os.execv(request["python"], [request["python"], "-P", request["runner"], *request["argv"]])
    from benchreport import rulejob

    sys.argv = [request["runner"], *request["argv"]]
    try:
        rulejob.main(request["argv"], sys.stdin.read())
        code = 0
    except SystemExit as stop:
        code = stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 1)
        if not isinstance(stop.code, (int, type(None))):
            print(stop.code, file=sys.stderr)
    except BaseException:  # as the interpreter would: the traceback, and status 1
        traceback.print_exc()
        code = 1
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)


def serve(path: str) -> None:
    """Accept jobs on `path` until standard input (the starting process's pipe) closes."""
    preload()
    gc.collect()
    gc.freeze()  # the copies' collections leave the imported objects (shared pages) alone
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(path)
    listener.listen(64)
    wake_read, wake_write = os.pipe()
    os.set_blocking(wake_write, False)
    signal.set_wakeup_fd(wake_write)
    signal.signal(signal.SIGCHLD, lambda number, frame: None)
    selector = selectors.DefaultSelector()
    selector.register(listener, selectors.EVENT_READ, "accept")
    selector.register(wake_read, selectors.EVENT_READ, "reap")
    selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "end")
    jobs = {}  # pid -> the client's connection
    clients = {}  # connection -> pid
    ran = {False: 0, True: 0}  # jobs run as copies of this process, and in a fresh Python
    while True:
        for key, _ in selector.select():
            if key.data == "end":
                print(f"{RAN} {ran[False]} jobs as copies of itself, {ran[True]} in a fresh Python", file=sys.stderr)
                return
            if key.data == "reap":
                os.read(wake_read, 4096)
                reap(jobs, clients, selector)
            elif key.data == "accept":
                connection, _ = listener.accept()
                connection.settimeout(REQUEST_SECONDS)  # a client that stalls holds up no other
                try:
                    request, fds = read_request(connection)
                except (OSError, ValueError):
                    connection.close()
                    continue
                connection.settimeout(None)
                fresh = not servable(request)
                ran[fresh] += 1
                pid = os.fork()
                if pid == 0:
                    selector.close()
                    listener.close()
                    connection.close()
                    for other in clients:
                        other.close()
                    signal.set_wakeup_fd(-1)
                    signal.signal(signal.SIGCHLD, signal.SIG_DFL)
                    run_job(request, fds, fresh)
                for fd in fds:
                    os.close(fd)
                try:
                    connection.sendall(struct.pack("!q", pid))
                except OSError:  # the client is gone: the selector sees it, and the job is ended
                    pass
                jobs[pid], clients[connection] = connection, pid
                selector.register(connection, selectors.EVENT_READ, "client")
            else:  # a client that ended (killed) before its job: end the job
                try:
                    os.kill(clients[key.fileobj], signal.SIGTERM)
                except ProcessLookupError:
                    pass
                selector.unregister(key.fileobj)
        reap(jobs, clients, selector)


def reap(jobs: dict, clients: dict, selector) -> None:
    """Send each ended job's exit status (negative: the signal that ended it) to its client."""
    while jobs:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        connection = jobs.pop(pid, None)
        if connection is None:
            continue
        del clients[connection]
        try:
            selector.unregister(connection)
        except KeyError:
            pass
        try:
            connection.sendall(struct.pack("!q", os.waitstatus_to_exitcode(status)))
        except OSError:
            pass
        connection.close()


if __name__ == "__main__":
    sys.path.insert(0, str(PACKAGE_DIR.parent))  # -P: the package from here, as rulejob.py finds it
    socket_path = sys.argv[1]
    try:
        serve(socket_path)
    except KeyboardInterrupt:
        pass
    finally:
        try:
            os.unlink(socket_path)
            os.rmdir(os.path.dirname(socket_path))
        except OSError:
            pass
