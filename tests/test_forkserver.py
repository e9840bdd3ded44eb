"""The run's fork server (forkserver, forkclient): a job handed to it runs in a copy of the server,
with the client's streams, folder, arguments and environment, and ends with the status a job
of its own would have; what it cannot run as a fresh process would, a fresh runner runs; a
client with no server runs the job itself. Real processes throughout: a server started as the
workflow starts it, clients started as Snakemake's shell starts them."""

import atexit
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from benchreport import forkclient, forkserver, rulejob

PROBE = """
import atexit, json, os, signal, sys, tempfile, threading, time
from benchreport import rulejob

rulejob.start(snakemake)
action = snakemake.params.action
mask = os.umask(0)
os.umask(mask)
report = {
    "pid": os.getpid(), "ppid": os.getppid(), "cwd": os.getcwd(), "marker": os.environ.get("PROBE_MARKER"),
    "preloaded": "benchreport.ingest" in sys.modules, "argv": sys.argv[1:], "threads": snakemake.threads,
    "package": sorted(name for name in sys.modules if name.startswith("benchreport.")),
    "tmpdir": tempfile.gettempdir(), "umask": mask,
}
with open("report.part", "w") as handle:
    json.dump(report, handle)
os.replace("report.part", snakemake.output.report)


def later(text):
    time.sleep(0.2)
    with open("extra.txt", "w") as handle:
        handle.write(text)


print("printed by the probe", flush=True)
if action == "exit":
    sys.exit(3)
if action == "raise":
    raise RuntimeError("the probe failed on purpose")
if action == "interrupt":
    raise KeyboardInterrupt
if action == "kill":
    os.kill(os.getpid(), signal.SIGKILL)
if action == "thread":  # a thread that outlives the script, as a fresh Python waits for it
    threading.Thread(target=later, args=("from a thread",)).start()
    sys.exit(0)
if action == "atexit":
    atexit.register(later, "from an exit handler")
    sys.exit(0)
if action == "wait":
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(7))
    time.sleep(600)
rulejob.finish()
"""
ONE_THREAD = {name: "1" for name in rulejob.THREAD_VARIABLES}


def wait_for(condition, what: str, limit: float = 120.0):
    """Wait until condition() holds (a process to start or end), failing after `limit` seconds."""
    deadline = time.monotonic() + limit
    while not condition():
        if time.monotonic() > deadline:
            raise AssertionError(f"gave up waiting for {what}")
        time.sleep(0.05)


def start_server(root: Path, extra_modules: dict[str, str] | None = None, stderr=None) -> dict:
    """A copy of the package (with `extra_modules`, name -> text, added to it) and a probe rule
    script under `root`, and its fork server listening."""
    scripts = root / "scripts"
    shutil.copytree(
        rulejob.SCRIPTS_DIR / "benchreport", scripts / "benchreport", ignore=shutil.ignore_patterns("__pycache__")
    )
    for name, text in (extra_modules or {}).items():
        (scripts / "benchreport" / f"{name}.py").write_text(text)
    (scripts / "probe.py").write_text(PROBE)
    path = root / "socket" / "jobs"
    path.parent.mkdir()
    env = os.environ | ONE_THREAD | {"PS1": "(.venv) "}  # as a Snakemake in an activated venv starts it
    process = subprocess.Popen(
        [sys.executable, "-P", str(scripts / "benchreport" / "forkserver.py"), str(path)],
        stdin=subprocess.PIPE,
        stderr=stderr,
        env=env,
    )
    try:
        wait_for(path.exists, "the server's socket")
    except AssertionError:
        process.kill()
        process.wait()
        raise
    return {"scripts": scripts, "socket": path, "process": process, "env": env}


def end_server(server: dict) -> int:
    server["process"].stdin.close()
    return server["process"].wait(timeout=60)


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    """A copy of the package with a probe rule script, and its fork server listening."""
    started = start_server(tmp_path_factory.mktemp("forkserver"))
    yield started
    end_server(started)


def client(server, work: Path, action: str, *, env=None, at=None, wait=True, setup=None):
    """forkclient.py started as a rule job's command starts the runner (-S -P): rule, log and threads as
    arguments, the namespace on standard input; in the environment a job of Snakemake's has, its
    own temporary folder (Snakemake's tmpdir resource): the server's, as Snakemake's jobs have
    the environment of the process that started the server."""
    (work / "tmp").mkdir(parents=True, exist_ok=True)
    namespace = {"input": [], "output": [["report", "report.json"]], "params": {"action": action}, "wildcards": {}}
    runner = [
        sys.executable,
        "-S",
        "-P",
        str(server["scripts"] / "benchreport" / "forkclient.py"),
        "probe",
        "probe.log",
        "1",
    ]
    # through bash, as Snakemake runs a job's command: it sets PWD, SHLVL and _, and drops PS1
    command = ["bash", "-c", 'exec "$0" "$@"', *runner]
    environment = server["env"] | {"TMPDIR": str(work / "tmp")}
    environment |= {forkserver.SOCKET_VARIABLE: str(at or server["socket"])} | (env or {})
    process = subprocess.Popen(
        command,
        cwd=work,
        env=environment,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=setup,
    )
    process.stdin.write(json.dumps(namespace) + "\n")
    process.stdin.close()
    if wait:
        process.wait(timeout=300)
    return process


def report(work: Path) -> dict:
    return json.loads((work / "report.json").read_text())


def test_a_job_runs_in_a_copy_of_the_server_with_the_clients_streams_folder_and_environment(server, tmp_path):
    process = client(server, tmp_path, "ok", setup=lambda: os.umask(0o027))
    assert process.returncode == 0, process.stderr.read()
    seen = report(tmp_path)
    assert seen["ppid"] == server["process"].pid and seen["pid"] != process.pid
    assert seen["preloaded"] is True  # the server's imports, not a fresh Python's
    assert seen["cwd"] == str(tmp_path) and seen["tmpdir"] == str(tmp_path / "tmp") and seen["umask"] == 0o027
    assert seen["argv"] == ["probe", "probe.log", "1"] and seen["threads"] == 1
    assert process.stdout.read() == "printed by the probe\n"


def served_package(server, work: Path) -> set[str]:
    """The package's modules a job served now finds imported (its copy's, not its own: the
    probe imports rulejob alone)."""
    shutil.rmtree(work, ignore_errors=True)
    assert client(server, work, "ok").returncode == 0
    seen = report(work)
    assert seen["ppid"] == server["process"].pid
    return set(seen["package"])


def test_the_server_listens_once_the_first_jobs_modules_are_in_and_imports_the_rest_between_jobs(tmp_path):
    """It listens while the rest of the package is still to come: here a module of it whose
    import waits for a file that is made only once the socket is there. Every job it serves
    finds the modules of forkserver.FIRST imported; the rest comes while no job waits, so that
    jobs served later find all of it."""
    gate = tmp_path / "gate"
    waits = (
        "import pathlib, time\n"
        "deadline = time.monotonic() + 300  # a server that never listens is ended by start_server\n"
        f"while not pathlib.Path({str(gate)!r}).exists() and time.monotonic() < deadline:\n"
        "    time.sleep(0.01)\n"
    )
    gated = start_server(tmp_path / "copy", {"zz_gated": waits})  # returns once the socket is there
    try:
        gate.touch()
        package = set(forkserver.package_modules()) | {"benchreport.zz_gated"}
        assert {f"benchreport.{name}" for name in forkserver.FIRST} <= served_package(gated, tmp_path / "first")
        wait_for(lambda: package <= served_package(gated, tmp_path / "later"), "the whole package in the server")
    finally:
        assert end_server(gated) == 0


def test_a_module_the_server_cannot_import_is_left_to_the_jobs_and_the_server_serves_on(tmp_path):
    """Modules of the package that fail as they are imported (an exception; sys.exit): the server
    says which and why, serves jobs as before (they would fail on it themselves, in their own
    logs), and ends as usual."""
    log = tmp_path / "server.log"
    broken_modules = {"zz_broken": "raise ImportError('broken on purpose')\n", "zz_exits": "raise SystemExit(3)\n"}
    with open(log, "w") as stderr:
        broken = start_server(tmp_path / "copy", broken_modules, stderr)
        try:
            wait_for(lambda: "zz_exits" in log.read_text(), "the server to try the broken modules")
            assert len(served_package(broken, tmp_path / "job")) > len(forkserver.FIRST)
        finally:
            assert end_server(broken) == 0
    text = log.read_text()
    assert "could not import benchreport.zz_broken: ImportError('broken on purpose')" in text
    assert "could not import benchreport.zz_exits: SystemExit(3)" in text
    assert f"{forkserver.RAN} 1 jobs as copies of itself" in text


@pytest.mark.parametrize("action", ["ok", "exit", "raise", "interrupt", "kill", "thread", "atexit"])
def test_a_served_job_ends_as_the_same_job_in_a_fresh_runner(server, tmp_path, action):
    """Its status (sys.exit's code; 1 for an exception; a signal for KeyboardInterrupt and for a
    job killed, by which the client then ends too), what it printed, the last line of its log,
    and what a thread or an exit handler writes after the script's end."""
    ends = []
    for where, at in (("served", None), ("fresh", tmp_path / "no-server")):
        work = tmp_path / where
        process = client(server, work, action, at=at)
        seen = report(work)
        assert (seen["ppid"] == server["process"].pid) is (where == "served")
        assert seen["preloaded"] is (where == "served")
        log = (work / "probe.log").read_text().strip().splitlines()
        extra = (work / "extra.txt").read_text() if (work / "extra.txt").exists() else None
        ends.append((process.returncode, process.stdout.read(), log[-1:], extra))
    assert ends[0] == ends[1]
    assert ends[0][0] == {"exit": 3, "raise": 1, "interrupt": -signal.SIGINT, "kill": -signal.SIGKILL}.get(action, 0)


@pytest.mark.parametrize("differs", ["threads", "environment", "limits", "priority"])
def test_a_job_the_server_cannot_run_as_a_fresh_process_would_runs_in_a_fresh_runner(server, tmp_path, differs):
    """Two threads (the numerical libraries the server loaded read one from the environment),
    another variable in the environment, a lower limit or priority (a shell prefix's ulimit or
    nice): the job runs in a Python of its own, started from the server's copy, in the job's
    environment."""
    env = {"PROBE_MARKER": "marker"} if differs == "environment" else None
    if differs == "threads":
        env = {name: "2" for name in rulejob.THREAD_VARIABLES}
    setup = None
    if differs == "limits":
        import resource

        def setup():
            resource.setrlimit(resource.RLIMIT_NOFILE, (256, resource.getrlimit(resource.RLIMIT_NOFILE)[1]))

    if differs == "priority":

        def setup():
            os.nice(5)

    process = client(server, tmp_path, "ok", env=env, setup=setup)
    assert process.returncode == 0
    seen = report(tmp_path)
    assert seen["ppid"] == server["process"].pid and seen["preloaded"] is False
    assert seen["marker"] == (env or {}).get("PROBE_MARKER") and seen["tmpdir"] == str(tmp_path / "tmp")


def test_with_no_server_the_client_runs_the_job_itself(server, tmp_path):
    process = client(server, tmp_path, "ok", at=tmp_path / "no-server")
    assert process.returncode == 0
    seen = report(tmp_path)
    assert seen["pid"] == process.pid and seen["preloaded"] is False and seen["tmpdir"] == str(tmp_path / "tmp")
    assert process.stdout.read() == "printed by the probe\n"


@pytest.mark.parametrize("how", ["told", "killed"])
def test_a_job_ends_when_its_client_is_told_to_end_or_killed(server, tmp_path, how):
    """A client told to end (SIGTERM) passes the signal on: the job's handler ends it with status
    7, and the client with it. A client killed outright (SIGKILL, which it cannot pass on) leaves
    the server to end the job."""
    process = client(server, tmp_path, "wait", wait=False)
    wait_for((tmp_path / "report.json").exists, "the job to start")
    job = report(tmp_path)["pid"]
    process.send_signal(signal.SIGTERM if how == "told" else signal.SIGKILL)
    process.wait(timeout=60)
    assert process.returncode == (7 if how == "told" else -signal.SIGKILL)
    wait_for(lambda: not Path(f"/proc/{job}").exists(), "the job to end")


def test_a_client_that_sends_its_request_slowly_holds_up_no_other(server, tmp_path):
    """A client that connects, says a request of 1 MiB comes and sends it a byte at a time (more
    often than any one read would wait for) while another job comes and goes: that job is
    served at once, not after the slow one."""
    stop = threading.Event()

    def trickle():
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as slow:
            slow.connect(str(server["socket"]))
            slow.send(forkclient.SIZE.pack(1 << 20))  # a request of 1 MiB to come
            for _ in range(600):
                if stop.wait(0.1):
                    return
                slow.send(b"\0")

    slow = threading.Thread(target=trickle)
    slow.start()
    try:
        process = client(server, tmp_path, "ok", wait=False)
        process.wait(timeout=25)  # the slow client sends for 60 s; the server drops it after 30
        assert process.returncode == 0 and report(tmp_path)["preloaded"] is True
    finally:
        stop.set()
        slow.join()


def test_start_serves_small_runs_once_and_ends_with_the_process_that_started_it(monkeypatch):
    """start() from a Snakemake process: one server for the run, its socket in the environment
    the jobs inherit; none for a large run (and no server of an enclosing run is left to its jobs),
    none when switched off; and the server ends, its socket gone, once the pipe from the starting
    process closes."""
    monkeypatch.setattr(forkserver, "_SERVER", [])
    monkeypatch.setenv(forkserver.SOCKET_VARIABLE, "/an/enclosing/run/jobs")
    assert forkserver.start(forkserver.MAX_ATTEMPTS + 1) is None
    assert forkserver.SOCKET_VARIABLE not in os.environ
    monkeypatch.setenv(forkserver.SOCKET_VARIABLE, "off")
    assert forkserver.start(10) is None and os.environ[forkserver.SOCKET_VARIABLE] == "off"
    monkeypatch.delenv(forkserver.SOCKET_VARIABLE)
    runner = forkserver.start(10)
    try:
        assert runner == str(forkserver.PACKAGE_DIR / "forkclient.py")
        socket_path = Path(os.environ[forkserver.SOCKET_VARIABLE])
        assert forkserver.start(10) == runner and len(forkserver._SERVER) == 4  # one server per run
        wait_for(socket_path.exists, "the server's socket")
    finally:
        forkserver.stop()
        atexit.unregister(forkserver.stop)
    assert forkserver._SERVER[0].returncode == 0
    assert not socket_path.exists() and not socket_path.parent.exists()


def test_a_server_launched_at_parse_time_serves_the_run_once_started_and_is_killed_if_never_handed_to_jobs(
    monkeypatch,
):
    """launch() starts the process without handing its socket to the jobs; start() then hands
    them that same server; one never handed over (a dry run, nothing to do) is killed at the end
    or by cancel(), its socket's folder removed, instead of waited for; and a run too large for a
    server ends the one launched for it."""
    monkeypatch.delenv(forkserver.SOCKET_VARIABLE, raising=False)
    for end in ("stop", "cancel", "too large"):
        monkeypatch.setattr(forkserver, "_SERVER", [])
        forkserver.launch()
        process, _, path, _ = forkserver._SERVER
        forkserver.launch()
        assert forkserver._SERVER[0] is process and forkserver.SOCKET_VARIABLE not in os.environ
        wait_for(Path(path).exists, "the server's socket")
        if end == "too large":
            assert forkserver.start(forkserver.MAX_ATTEMPTS + 1) is None and forkserver._SERVER == []
        elif end == "cancel":
            forkserver.cancel()
            assert forkserver._SERVER == []
        else:
            atexit.unregister(forkserver.stop)
            forkserver.stop()
        assert process.returncode == -signal.SIGKILL
        assert not Path(path).parent.exists()
    monkeypatch.setattr(forkserver, "_SERVER", [])
    forkserver.launch()
    process = forkserver._SERVER[0]
    try:
        assert forkserver.start(10) == str(forkserver.PACKAGE_DIR / "forkclient.py")
        assert forkserver._SERVER[0] is process and os.environ[forkserver.SOCKET_VARIABLE] == forkserver._SERVER[2]
    finally:
        forkserver.stop()
        atexit.unregister(forkserver.stop)
    assert process.returncode == 0  # handed to the jobs: ended by its pipe, as it ends after a run


def test_start_ends_a_server_launched_in_another_environment_or_gone_and_starts_anew(monkeypatch, tmp_path):
    """A variable set after launch() (a Snakefile that includes the workflow and sets one after
    it) would make every job unservable by the launched server: start() ends it and starts one
    in the environment the jobs have. Where no server comes to listen (here its file is not
    there), start() hands none to the jobs."""
    monkeypatch.delenv(forkserver.SOCKET_VARIABLE, raising=False)
    monkeypatch.setattr(forkserver, "_SERVER", [])
    forkserver.launch()
    launched = forkserver._SERVER[0]
    monkeypatch.setenv("SET_AFTER_THE_WORKFLOW", "1")
    try:
        assert forkserver.start(10) == str(forkserver.PACKAGE_DIR / "forkclient.py")
        assert forkserver._SERVER[0] is not launched and launched.returncode == -signal.SIGKILL
        assert forkserver._SERVER[3]["SET_AFTER_THE_WORKFLOW"] == "1"
    finally:
        forkserver.cancel()
    monkeypatch.delenv(forkserver.SOCKET_VARIABLE, raising=False)
    monkeypatch.setattr(forkserver, "PACKAGE_DIR", tmp_path)  # no forkserver.py: it ends at once
    assert forkserver.start(10) is None and forkserver._SERVER == []
    assert forkserver.SOCKET_VARIABLE not in os.environ
