"""The runner a rule job starts while the run's fork server listens (forkserver.start): it hands
the job to the server, which runs it in a copy of itself whose imports are done, and ends as that
copy ends. Where no server answers, it becomes the plain runner (rulejob.py) at once.

Started as a file (`python -P forkclient.py <rule> <log> <threads>`, the namespace on standard
input) in place of rulejob.py. It imports only what it needs to talk to the server: the job's
time is what it saves, ~15 ms a start against 45-650 ms of imports a job.
"""

import os
import socket
import struct
import sys

RULEJOB = os.path.join(os.path.dirname(os.path.realpath(__file__)), "rulejob.py")
FORWARDED = ("SIGINT", "SIGTERM", "SIGHUP")  # what Snakemake or a terminal sends a job to end it


def run_here():
    """Become the plain runner, standard input and all, as if the server had never been asked."""
    os.execv(sys.executable, [sys.executable, "-P", RULEJOB, *sys.argv[1:]])


def request() -> bytes:
    """Python, runner, working folder, arguments and environment, each NUL-ended (none can hold a
    NUL): what the server needs to run the job as this process would."""
    fields = [sys.executable, RULEJOB, os.getcwd(), str(len(sys.argv) - 1), *sys.argv[1:]]
    fields += [f"{name}={value}" for name, value in os.environ.items()]
    return "".join(field + "\0" for field in fields).encode("utf-8", "surrogateescape")


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
        connection = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        connection.connect(os.environ["BENCHREPORT_FORKSERVER"])
        payload = request()
        socket.send_fds(connection, [struct.pack("!Q", len(payload))], [0, 1, 2])
        connection.sendall(payload)
        started = receive(connection, 8)
    except (KeyError, OSError):
        started = None
    if started is None:  # no server, or it could not start the job: nothing has run yet
        run_here()
    (pid,) = struct.unpack("!q", started)
    import signal

    def forward(number, frame):
        os.kill(pid, number)

    for name in FORWARDED:
        signal.signal(getattr(signal, name), forward)
    ended = receive(connection, 8)
    if ended is None:
        sys.stderr.write(f"benchreport: the fork server ended before the job's process ({pid}) did\n")
        sys.exit(1)
    (code,) = struct.unpack("!q", ended)
    if code < 0:  # ended by a signal: end by the same one, as a process run here would have
        try:
            signal.signal(-code, signal.SIG_DFL)  # Python's own handling (SIGINT, SIGPIPE) aside
        except (OSError, ValueError):  # SIGKILL and SIGSTOP take no handler
            pass
        os.kill(os.getpid(), -code)
        code = 128 - code  # a signal that does not end a process: the status a shell reports
    sys.exit(code)


if __name__ == "__main__":
    main()
