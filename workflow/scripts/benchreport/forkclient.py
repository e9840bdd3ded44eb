"""The runner a rule job starts while the run's fork server listens (forkserver.start): it hands
the job to the server, which runs it in a copy of itself whose imports are done, and ends as that
copy ends. Where no server answers, it becomes the plain runner (rulejob.py) at once.

Started as a file (`python -P forkclient.py <rule> <log> <threads>`, the namespace on standard
input) in place of rulejob.py. It imports only what it needs to talk to the server: the job's
time is what it saves, ~12 ms of CPU a start against 45-650 ms of imports a job. The request's format
is written and read here (request, read_request), the server imports them.

It talks through _socket and _signal, the C modules under socket and signal: those two import
enum to name their constants, which took this process from 12.0 to 21.7 ms of CPU a start (least
of 3 x 30 starts), about as much again as the Python itself.
"""

import _signal
import _socket
import os
import resource
import struct
import sys

SOCKET_VARIABLE = "BENCHREPORT_FORKSERVER"
RULEJOB = os.path.join(os.path.dirname(os.path.realpath(__file__)), "rulejob.py")
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP")  # what a terminal or a process manager sends a job
# The resource limits a shell prefix may set for a job (ulimit), beside its CPUs and priority.
LIMITS = ("RLIMIT_AS", "RLIMIT_CPU", "RLIMIT_DATA", "RLIMIT_FSIZE", "RLIMIT_NOFILE", "RLIMIT_STACK")
LIMIT_FIELDS = len(LIMITS) + 2
SIZE = struct.Struct("!q")  # the request's length; the job's pid; its exit status


def limits() -> list[str]:
    """What a shell prefix may set for a job (ulimit, taskset, nice): a job runs in a copy of the
    server only where they are the server's."""
    found = [",".join(map(str, resource.getrlimit(getattr(resource, name)))) for name in LIMITS]
    return [*found, ",".join(map(str, sorted(os.sched_getaffinity(0)))), str(os.getpriority(os.PRIO_PROCESS, 0))]


def request() -> bytes:
    """Python, runner, working folder, umask, limits, arguments and environment, each NUL-ended
    (none can hold a NUL): what the server needs to run the job as this process would."""
    mask = os.umask(0)
    os.umask(mask)
    fields = [sys.executable, RULEJOB, os.getcwd(), str(mask), *limits(), str(len(sys.argv) - 1), *sys.argv[1:]]
    fields += [f"{name}={value}" for name, value in os.environ.items()]
    return "".join(field + "\0" for field in fields).encode("utf-8", "surrogateescape")


def read_request(data: bytes) -> dict:
    """A request() as the server reads it."""
    fields = data.decode("utf-8", "surrogateescape").split("\0")[:-1]
    python, runner, cwd, mask = fields[:4]
    after_limits = 4 + LIMIT_FIELDS
    count = int(fields[after_limits])
    argv = fields[after_limits + 1 : after_limits + 1 + count]
    env = dict(field.split("=", 1) for field in fields[after_limits + 1 + count :])
    return {
        "python": python,
        "runner": runner,
        "cwd": cwd,
        "umask": int(mask),
        "limits": fields[4:after_limits],
        "argv": argv,
        "env": env,
    }


def run_here():
    """Become the plain runner, standard input and all, as if the server had never been asked."""
    os.execv(sys.executable, [sys.executable, "-P", RULEJOB, *sys.argv[1:]])


def receive(connection, size: int) -> bytes | None:
    """`size` bytes from the server, or None when it closed first."""
    data = b""
    while len(data) < size:
        part = connection.recv(size - len(data))
        if not part:
            return None
        data += part
    return data


def main() -> None:
    try:
        connection = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
        connection.connect(os.environ[SOCKET_VARIABLE])
        payload = request()
        streams = (_socket.SOL_SOCKET, _socket.SCM_RIGHTS, struct.pack("3i", 0, 1, 2))  # as socket.send_fds
        connection.sendmsg([SIZE.pack(len(payload))], [streams])
        connection.sendall(payload)
        started = receive(connection, SIZE.size)
    except (KeyError, OSError):
        started = None
    if started is None:  # no server, or it could not start the job: nothing has run yet
        run_here()
    (pid,) = SIZE.unpack(started)

    def forward(number, frame):
        try:
            os.kill(pid, number)
        except ProcessLookupError:  # the job has just ended: its status is on its way
            pass

    for name in FORWARDED:
        _signal.signal(getattr(_signal, name), forward)
    ended = receive(connection, SIZE.size)
    if ended is None:
        sys.stderr.write(f"benchreport: the fork server ended before the job's process ({pid}) did\n")
        sys.exit(1)
    (code,) = SIZE.unpack(ended)
    if code < 0:  # ended by a signal: end by the same one, as a process run here would have
        try:
            _signal.signal(-code, _signal.SIG_DFL)  # Python's own handling (SIGINT, SIGPIPE) aside
        except (OSError, ValueError):  # SIGKILL and SIGSTOP take no handler
            pass
        os.kill(os.getpid(), -code)
        code = 128 - code  # a signal that does not end a process: the status a shell reports
    sys.exit(code)


if __name__ == "__main__":
    main()
