"""One process per run that imports the package once, then forks a copy of itself for each rule
job handed to it (forkclient.py): a job's imports cost 45-650 ms here (numpy, scipy, matplotlib,
jinja2 and the package), and a small run is mostly such jobs (1,000 trials: 31 jobs, about half
of their time importing).

The copy runs the job as rulejob.py would in a process of its own: the job's standard streams,
working folder, umask, arguments and environment are the client's; its exit status is the
client's. A request this process cannot run as a fresh one would (another Python or copy of the
workflow, other limits, CPUs or priority, another environment: servable) is run by a fresh runner, started from
the copy. The client passes on the signals that end a job, the server ends a job whose client
is gone, and itself when the Snakemake process that started it ends.
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
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

if __name__ == "__main__":  # started as a file (start, with -P): the package beside it, as rulejob.py
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
from benchreport import forkclient, rulejob  # noqa: E402
from benchreport.forked import end_with_parent  # noqa: E402

PACKAGE_DIR = Path(__file__).resolve().parent
SOCKET_VARIABLE = forkclient.SOCKET_VARIABLE
# Set by Snakemake for each job to its threads; the numerical libraries read them as they load,
# so the server loads them with one thread and takes only the jobs that have them at one (a job
# of one thread, or of a rule that runs its numerical libraries on one: run_script).
THREAD_VARIABLES = rulejob.THREAD_VARIABLES
# Not imported ahead: the command line, and what patches Snakemake in Snakemake's own process.
NOT_PRELOADED = {"__main__", "scheduling"}
# Imported before the server serves: what the run's first jobs (rule ingest, one per batch)
# import, ~35 ms. The rest (numpy, scipy, matplotlib, jinja2 and the modules that use them:
# 0.4 s) is imported a module at a time whenever no request waits, so the first jobs start
# at once instead of waiting for all of it or importing it for themselves beside it.
FIRST = ("rulejob", "ingest", "lineage")
# Above this many attempt folders a run's jobs are long, their imports a few per cent of them,
# and the server's ~80 MB (counted again in each job forked from it) would sit beside the
# largest jobs of the run: the jobs start as they did without it.
MAX_ATTEMPTS = 30_000
REQUEST_SECONDS = 30  # for a client to send its whole request once connected (it sends it at once)
# What may differ between a job's environment and the server's without the copy behaving
# otherwise than a fresh runner: the runner's own two, what the shell running the job's command
# sets or drops (a non-interactive bash drops the PS1 an activated venv exports), and the
# temporary folder's, which tempfile reads when first asked (in the job, where the server never
# asked: servable checks).
UNREAD_VARIABLES = frozenset({"BENCHREPORT_RUNNER", SOCKET_VARIABLE, "PWD", "OLDPWD", "SHLVL", "_", "PS1", "PS2"})
TEMPORARY_VARIABLES = frozenset({"TMPDIR", "TEMP", "TMP", "TEMPDIR"})
STARTED = "benchreport: the jobs start as copies of a fork server"
RAN = "benchreport: the fork server ran"
BINDING = ".binding"  # the socket's name until it listens (then renamed to its path)
# While this run holds a server: its process, the pipe whose closing ends it, its socket's path
# and the environment it was launched in.
_SERVER = []


def usable(attempts: int | None = None) -> bool:
    """Whether a run of `attempts` attempt folders (None: not counted yet) has its jobs started
    through a server: not a large run, a platform without fork, a temporary folder whose path is
    too long for a socket's, or BENCHREPORT_FORKSERVER=off."""
    return (
        os.environ.get(SOCKET_VARIABLE) != "off"
        and (attempts is None or attempts <= MAX_ATTEMPTS)
        and sys.platform == "linux"
        and len(tempfile.gettempdir()) <= 80
    )


def launch() -> None:
    """Start the run's server process (once) while Snakemake parses the workflow, so that its
    imports overlap the parse and the DAG. The jobs start through it once start() hands them its
    socket; cancel() ends it where they will not."""
    if _SERVER or not usable():
        return
    path = os.path.join(tempfile.mkdtemp(prefix="benchreport-"), "jobs")  # sun_path: 108 bytes
    alive, ended = os.pipe()  # the server ends when this process, holding `ended`, does
    launched = dict(os.environ)
    try:
        server = subprocess.Popen(
            [sys.executable, "-P", str(PACKAGE_DIR / "forkserver.py"), path],
            stdin=alive,
            env=launched | {name: "1" for name in THREAD_VARIABLES},
        )
    except OSError as error:  # no process to be had: the jobs start as they would without one
        print(f"benchreport: no fork server ({error})", file=sys.stderr)
        os.close(ended)
        remove(path)
        return
    finally:
        os.close(alive)
    _SERVER.extend([server, ended, path, launched])
    atexit.register(stop)


def start(attempts: int) -> str | None:
    """Start the run's server (once), for a run of `attempts` attempt folders, and hand it to
    the jobs; return the runner they start (forkclient.py), or None where they start rulejob.py
    as before (not usable, or no server listens). A server launch() started in an environment
    other than this one (a Snakefile that includes the workflow and sets a variable after it)
    would serve no job (servable): it is ended, and one started now."""
    if not usable(attempts):
        cancel()
        if os.environ.get(SOCKET_VARIABLE) != "off":
            os.environ.pop(SOCKET_VARIABLE, None)  # the server of a run that started this one
        return None
    if _SERVER and significant(_SERVER[3]) != significant(os.environ):
        cancel()
    launch()
    if not _SERVER or not listening():
        cancel()
        return None
    print(f"{STARTED} ({attempts:,} attempt folders)", file=sys.stderr)
    os.environ[SOCKET_VARIABLE] = _SERVER[2]
    return str(PACKAGE_DIR / "forkclient.py")


def listening(limit: float = 10.0) -> bool:
    """Whether the server listens, once it does (the first thing it does, ~30 ms after it starts:
    its socket has its path only then) or has ended, waiting at most `limit` seconds: a job that
    found no socket would start a Python of its own instead of waiting for the server."""
    server, _, path, _ = _SERVER
    deadline = time.monotonic() + limit
    while not os.path.exists(path) and server.poll() is None and time.monotonic() < deadline:
        time.sleep(0.002)
    return os.path.exists(path) and server.poll() is None


def cancel() -> None:
    """End a launched server that no job will use (the run needs none, or not this one)."""
    if _SERVER:
        atexit.unregister(stop)
        stop()
        _SERVER.clear()


def stop() -> None:
    """End the server as this process ends, and wait for it: the time its jobs took is then this
    process's children's, as it is when each job is a child of its own (getrusage). One never
    handed to the jobs (a dry run, --lint, a target no ingest leads to) has run none: it is
    killed, not waited for."""
    server, ended, path, _ = _SERVER
    if os.environ.get(SOCKET_VARIABLE) != path:  # never handed to the jobs (start): none can wait
        server.kill()
    os.close(ended)
    try:
        server.wait(timeout=60)
    except subprocess.TimeoutExpired:
        server.kill()
        server.wait()
    remove(path)


def remove(path: str) -> None:
    """The socket (under either of its names), and the private folder launch made for it."""
    for remover, target in ((os.unlink, path), (os.unlink, path + BINDING), (os.rmdir, os.path.dirname(path))):
        try:
            remover(target)
        except OSError:
            pass


def package_modules() -> list[str]:
    """Every module of the package a rule script may use."""
    import benchreport

    names = {module.name for module in pkgutil.iter_modules(benchreport.__path__)} - NOT_PRELOADED
    return [f"benchreport.{name}" for name in sorted(names)]


def import_module(name: str) -> None:
    """Import one module for the copies to come. One that fails (an exception, sys.exit) is left
    to the jobs that need it, which fail on it with its traceback in their logs: the server
    serves on, and the jobs it runs meanwhile with it. (One that crashes the process ends them.)"""
    try:
        importlib.import_module(name)
    except (Exception, SystemExit) as error:
        if _ENDING:  # told to end (_end) while importing
            raise
        print(f"benchreport: the fork server could not import {name}: {error!r}", file=sys.stderr)
    gc.collect()
    gc.freeze()  # the copies' collections leave the imported objects (shared pages) alone


def significant(env, unread: frozenset = UNREAD_VARIABLES) -> dict:
    """An environment less the variables in which a job's may differ from the server's."""
    return {name: value for name, value in env.items() if name not in unread}


def servable(request: dict) -> bool:
    """Whether a copy of this process runs the job as a fresh runner would: the same Python, copy
    of the workflow, limits and environment (the numerical libraries read their thread counts
    from it as they load)."""
    unread = UNREAD_VARIABLES | (TEMPORARY_VARIABLES if tempfile.tempdir is None else frozenset())
    return (
        request["python"] == sys.executable
        and request["runner"] == forkclient.RULEJOB  # the runner beside this copy of the package
        and request["limits"] == forkclient.limits()
        and significant(request["env"], unread) == significant(os.environ, unread)
    )


class Pending:
    """A request being read from a client, a piece whenever the selector says one came: a client
    that sends slowly, or not at all, holds up no other."""

    def __init__(self):
        self.data, self.fds, self.deadline = b"", [], time.monotonic() + REQUEST_SECONDS

    def read(self, connection) -> dict | None:
        """The request once whole; None while more is to come; OSError when the client closed
        or sent something else."""
        try:
            data, fds, _, _ = socket.recv_fds(connection, 1 << 16, 3)
        except BlockingIOError:  # woken with nothing to read after all
            return None
        self.fds += fds
        if not data or len(self.fds) > 3:
            raise OSError("the client closed its request, or sent it wrong")
        self.data += data
        size = forkclient.SIZE.size
        if len(self.data) < size or len(self.data) < size + forkclient.SIZE.unpack(self.data[:size])[0]:
            return None
        if len(self.fds) != 3:
            raise OSError("the client sent no standard streams")
        return forkclient.read_request(self.data[size:])

    def close(self) -> None:
        for fd in self.fds:
            os.close(fd)
        self.fds = []


class Server:
    """The loop: accept and read requests, fork a copy per job, send each job's pid and, once it
    has ended, its status."""

    def __init__(self, listener: socket.socket, later: list[str]):
        self.listener = listener
        self.later = later  # modules to import while no request waits
        self.wake_read, self.wake_write = os.pipe()
        for fd in (self.wake_read, self.wake_write):
            os.set_blocking(fd, False)
        signal.set_wakeup_fd(self.wake_write)
        signal.signal(signal.SIGCHLD, lambda number, frame: None)
        # a job's end interrupts no system call of a module importing meanwhile (serve)
        signal.siginterrupt(signal.SIGCHLD, False)
        self.selector = selectors.DefaultSelector()
        self.selector.register(self.listener, selectors.EVENT_READ, "accept")
        self.selector.register(self.wake_read, selectors.EVENT_READ, "reap")
        self.selector.register(sys.stdin.fileno(), selectors.EVENT_READ, "end")
        self.pending = {}  # connection -> Pending
        self.jobs = {}  # pid -> the client's connection
        self.clients = {}  # connection -> pid
        self.ran = {False: 0, True: 0}  # jobs run as copies of this process, and in a fresh Python

    def serve(self) -> tuple | None:
        """Run until standard input (the starting process's pipe) closes: None. In a job's copy,
        the job to run: (request, its streams, whether to start a fresh runner)."""
        while True:
            deadline = min((pending.deadline for pending in self.pending.values()), default=None)
            timeout = None if deadline is None else max(0.0, deadline - time.monotonic())
            events = self.selector.select(0 if self.later else timeout)
            if not events and self.later:
                import_module(self.later.pop(0))
            for key, _ in events:
                if key.data == "end":
                    print(
                        f"{RAN} {self.ran[False]} jobs as copies of itself, {self.ran[True]} in a fresh Python",
                        file=sys.stderr,
                    )
                    return None
                if key.data == "reap":
                    self.drain()
                elif key.data == "accept":
                    self.accept()
                elif key.data == "request":
                    job = self.read(key.fileobj)
                    if job is not None:
                        return job
                else:  # a client gone (killed) before its job: end the job
                    pid = self.clients.get(key.fileobj)
                    if pid is not None:
                        os.kill(pid, signal.SIGTERM)
                    self.selector.unregister(key.fileobj)
            now = time.monotonic()
            for connection in [c for c, pending in self.pending.items() if pending.deadline <= now]:
                self.drop(connection)
            self.reap()

    def drain(self) -> None:
        try:
            while os.read(self.wake_read, 4096):
                pass
        except BlockingIOError:
            pass

    def accept(self) -> None:
        try:
            connection, _ = self.listener.accept()
        except OSError:
            return
        connection.setblocking(False)
        self.pending[connection] = Pending()
        self.selector.register(connection, selectors.EVENT_READ, "request")

    def drop(self, connection) -> None:
        """Forget a client whose request could not be read; it runs its job itself."""
        self.selector.unregister(connection)
        self.pending.pop(connection).close()
        connection.close()

    def read(self, connection) -> tuple | None:
        try:
            request = self.pending[connection].read(connection)
        except (OSError, ValueError):
            self.drop(connection)
            return None
        if request is None:
            return None
        self.selector.unregister(connection)
        pending = self.pending.pop(connection)
        fresh = not servable(request)
        try:
            pid = os.fork()
        except OSError:  # no process to be had: the client runs its job itself
            pending.close()
            connection.close()
            return None
        if pid == 0:
            self.leave(connection)
            return request, pending.fds, fresh
        self.ran[fresh] += 1
        pending.close()
        try:
            connection.sendall(forkclient.SIZE.pack(pid))
        except OSError:  # the client is gone: the selector sees it, and the job is ended
            pass
        self.jobs[pid], self.clients[connection] = connection, pid
        self.selector.register(connection, selectors.EVENT_READ, "client")
        return None

    def leave(self, connection) -> None:
        """In a job's copy: close what belongs to the server, and take back the signals it
        changed, so that nothing of it is left in the job."""
        self.selector.close()
        self.listener.close()
        for other in [connection, *self.clients, *self.pending]:
            other.close()
        for pending in self.pending.values():
            pending.close()
        signal.set_wakeup_fd(-1)
        os.close(self.wake_read)
        os.close(self.wake_write)
        for number, handler in DEFAULT_HANDLERS.items():
            signal.signal(number, handler)

    def reap(self) -> None:
        """Send each ended job's exit status (negative: the signal that ended it) to its client."""
        while self.jobs:
            try:
                pid, status = os.waitpid(-1, os.WNOHANG)
            except ChildProcessError:
                return
            if pid == 0:
                return
            connection = self.jobs.pop(pid, None)
            if connection is None:
                continue
            del self.clients[connection]
            try:
                self.selector.unregister(connection)
            except KeyError:  # unregistered already: its client was gone
                pass
            try:
                connection.setblocking(True)
                connection.sendall(forkclient.SIZE.pack(os.waitstatus_to_exitcode(status)))
            except OSError:
                pass
            connection.close()


# What a fresh Python starts with, for the signals the server handles otherwise.
DEFAULT_HANDLERS = {
    signal.SIGCHLD: signal.SIG_DFL,
    signal.SIGTERM: signal.SIG_DFL,
    signal.SIGHUP: signal.SIG_DFL,
    signal.SIGINT: signal.default_int_handler,
}


def become_job(request: dict, fds: list[int], fresh: bool, server: int) -> None:
    """In a job's copy, outside every frame of the server: take the client's streams, folder,
    umask and environment, end with the server, and run the job as rulejob.py's main does. An
    exception, a KeyboardInterrupt, a SystemExit, threads and exit handlers end it as they end a
    fresh runner."""
    for target, fd in enumerate(fds):
        os.dup2(fd, target)
        os.close(fd)
    os.chdir(request["cwd"])
    os.umask(request["umask"])
    os.environ.clear()
    os.environ.update(request["env"])
    end_with_parent(server)  # a job whose server is gone has no one to report to
    if fresh:
        os.execv(request["python"], [request["python"], "-P", request["runner"], *request["argv"]])
    from benchreport import rulejob

    sys.argv = [request["runner"], *request["argv"]]
    try:
        rulejob.main(request["argv"], sys.stdin.read())
        code = 0
    except SystemExit as stop:
        code = exit_status(stop)
    # The end of a fresh runner (threads joined, exit handlers run, streams flushed) less its
    # teardown, as rulejob.finish skips it: here each object the server imported would be freed
    # and so its page copied, ~80 MB a job (the example's run took 20 s instead of 11).
    threading._shutdown()
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        code = 120  # what Python exits with when it cannot flush its standard streams at the end
    os._exit(code)


def exit_status(stop: SystemExit) -> int:
    """The status a Python ends with on an uncaught SystemExit."""
    if stop.code is None:
        return 0
    if isinstance(stop.code, int):
        return stop.code & 0xFF
    print(stop.code, file=sys.stderr)
    return 1


_ENDING = []  # the signal that told the server to end, once one has


def _end(number, frame):
    _ENDING.append(number)
    sys.exit(0)


if __name__ == "__main__":
    socket_path, server_pid = sys.argv[1], os.getpid()
    # Ctrl-C reaches the jobs themselves (the same process group); the server ends with its pipe,
    # or on SIGTERM and SIGHUP with its socket removed
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, _end)
    signal.signal(signal.SIGHUP, _end)
    try:
        # listening at once: a job that comes while the first modules are imported waits for
        # them (a client blocks until its job starts) rather than starting a Python of its own.
        # The socket gets its path once it listens, so a client that finds it can connect.
        listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        listener.bind(socket_path + BINDING)
        listener.listen(64)
        listener.setblocking(False)
        os.rename(socket_path + BINDING, socket_path)
        first = [f"benchreport.{name}" for name in FIRST]
        for name in first:
            import_module(name)
        job = Server(listener, [name for name in package_modules() if name not in first]).serve()
    finally:
        if os.getpid() == server_pid:
            remove(socket_path)
    if job is not None:
        become_job(*job, server_pid)
