"""The bundle: archive, verify, re-run to the same bytes, with no secret inside."""

from __future__ import annotations

import gzip
import hashlib
import importlib.metadata
import io
import json
import os
import random
import shutil
import subprocess
import sys
import tarfile
import zlib

import pytest
import yaml
from benchflow_synth import write_matrix
from benchreport.pipeline.lineage import ingest_file, ingested_batches
from conftest import REPO, copy_workflow, scan_and_spool

KEY = "sk-ant-api03-PLANTEDplantedPLANTED0123456789abcdef"
SETTING = {
    "agent": "claude-agent-acp",
    "model": "anthropic/claude-sonnet-4-5",
    "served_model": "claude-sonnet-4-5-20250929",
    "usage_source": "provider_response",
    "price_source": "litellm",
}


def verify(path, cwd, *flags, env=None):
    env = dict(os.environ, PYTHONPATH=str(REPO / "workflow" / "scripts")) | (env or {})
    return subprocess.run(
        [sys.executable, "-m", "benchreport", "verify", str(path), *flags],
        cwd=cwd,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )


def make_jobs(workflow, plant=False, real=("",)):
    """The real BenchFlow folders (the parts of them named in `real`) and a synthetic matrix of 3
    tries; with `plant`, a key in a trajectory, an error and another trial's agent_env."""
    for part in real:
        shutil.copytree(REPO / "resources/example/benchflow-real-jobs" / part, workflow.path / "jobs" / "real" / part)
    tries = [[{"task": t, "attempts": [{"kind": k}]} for t, k in (("alpha", "passed"), ("beta", "failed"))]] * 3
    write_matrix(
        workflow.path / "jobs" / "agent",
        alias="sonnet",
        setting=SETTING,
        tries=tries,
        seed=9,
        start="2026-11-30 10:00:00",
    )
    if plant:
        trajectory = next((workflow.path / "jobs" / "agent").rglob("llm_trajectory.jsonl"))
        lines = trajectory.read_text().splitlines()
        first = json.loads(lines[0])
        first["request"]["body"]["messages"][0]["content"] = f"use the key {KEY} please"
        trajectory.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
        result = next((workflow.path / "jobs" / "agent").rglob("result.json"))
        data = json.loads(result.read_text())
        data["error"] = f"provider said: invalid x-api-key {KEY}"
        result.write_text(json.dumps(data, indent=2))
        # the same key as an agent_env value (a known secret) of another trial's config.json
        config = sorted((workflow.path / "jobs" / "agent").rglob("config.json"))[-1]
        data = json.loads(config.read_text())
        data["agent_env"] = {"ANTHROPIC_API_KEY": KEY, "MY_DB_PASSWORD": "hunter2-hunter2"}
        config.write_text(json.dumps(data, indent=2))
        return trajectory, result


@pytest.fixture(scope="module")
def bundled(tmp_path_factory):
    """One workflow run with its bundle, over job folders with a planted key, shared by the tests
    that only read the bundle or its outputs (those that re-make it work in a copy)."""
    workflow = copy_workflow(tmp_path_factory.mktemp("bundled") / "wf")
    make_jobs(workflow, plant=True, real=("script-run/oracle-x3", "script-run/nop-x3"))
    workflow.run("bundle", roots=["jobs"])
    return workflow


@pytest.fixture(scope="module")
def verified(bundled):
    """`benchreport verify` of that bundle, as it stands (read by several tests)."""
    return verify(bundled.results / "bundle" / "benchreport.tar.gz", bundled.path)


def workflow_copy(workflow, tmp_path):
    """A copy of a workflow folder and its results (mtimes kept, so nothing re-runs unasked)."""
    shutil.copytree(workflow.path, tmp_path / "wf", symlinks=True)
    return type(workflow)(tmp_path / "wf")


def bundle_bytes(path) -> bytes:
    return gzip.decompress(path.read_bytes())


@pytest.mark.slow
def test_bundle_then_verify_in_a_fresh_copy(bundled, tmp_path):
    workflow = workflow_copy(bundled, tmp_path)
    archive = workflow.results / "bundle" / "benchreport.tar.gz"
    first = archive.read_bytes()
    workflow.run("--forcerun", "bundle", "bundle", roots=["jobs"])
    assert archive.read_bytes() == first  # deterministic archive
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    shutil.copy(archive, elsewhere / "b.tar.gz")
    done = verify(elsewhere / "b.tar.gz", elsewhere)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "byte-identical" in done.stdout and " 0 of" not in done.stdout
    with tarfile.open(archive) as tar:
        names = tar.getnames()
        info = json.loads(tar.extractfile("benchreport/BUNDLE.json").read())
        assert all(m.mtime == 0 and m.uid == 0 for m in tar.getmembers())
    for expected in (
        "benchreport/MANIFEST.sha256",
        "benchreport/ro-crate-metadata.json",
        "benchreport/config.yaml",
        "benchreport/environment/requirements.lock",
        "benchreport/workflow-code/Snakefile",
        "benchreport/results/index.md",
        "benchreport/results/lineage/index.md.json",
    ):
        assert expected in names
    assert any(n.endswith("/verifier/reward.txt") for n in names)
    # bundled under jobs/<root label>/<path in the root>: here the root is "jobs"
    assert any(n.startswith("benchreport/jobs/jobs/real/script-run/oracle-x3/") for n in names)
    assert info["workflow"]["git"] == {"commit": None, "dirty": None, "note": "not a git checkout"}  # a tmp copy
    # verify says what it re-ran with, what it proved and what it cannot
    assert "with the installed benchreport code" in done.stdout and "not the code in the archive" in done.stdout
    assert "not proved: origin" in done.stdout


def test_bundle_holds_every_output_and_the_whole_environment(bundled):
    workflow = bundled
    written = {p.relative_to(workflow.path).as_posix() for p in workflow.results.rglob("*") if p.is_file()}
    # the bundle itself and the records of the bundle are written after it
    written = {n for n in written if not n.startswith(("results/bundle/", "results/lineage/bundle/"))}
    with tarfile.open(workflow.results / "bundle" / "benchreport.tar.gz") as tar:
        names = {m.name.removeprefix("benchreport/") for m in tar.getmembers() if m.isfile()}
        lock = tar.extractfile("benchreport/environment/requirements.lock").read().decode()
    assert written - names == set()
    assert {n for n in names if n.startswith("results/")} == written
    for expected in (
        "results/paper/settings.tex",
        "results/paper/settings.md",
        "results/paper/comparisons.csv",
        "results/comparisons/comparisons.csv",
        "results/paper/forest.png",
    ):
        assert expected in names, expected
    assert any(n.startswith("results/ingest/") and n.endswith("/index.json") for n in names)
    assert any(n.startswith("results/ingest/") and n.endswith("/tasks.json") for n in names)
    pinned = {line.split("==")[0].lower() for line in lock.splitlines() if "==" in line}
    installed = {d.metadata["Name"].lower() for d in importlib.metadata.distributions() if d.metadata["Name"]}
    assert {"jsonschema", "pillow", "snakemake"} <= pinned
    assert len(pinned) == len({n.replace("_", "-").replace(".", "-") for n in installed})


def rebuild(archive, target, changes, manifest=True):
    """Copy a bundle, changing members (name -> function of the bytes, None to drop), and with
    `manifest` the manifest recomputed, as a forger would."""
    files = {}
    with tarfile.open(archive) as source:
        members = source.getmembers()
        for member in members:
            if member.isfile():
                files[member.name] = source.extractfile(member).read()
    prefix = members[0].name.split("/")[0]
    for name, change in changes.items():
        full = f"{prefix}/{name}"
        files[full] = change(files.get(full)) if change else None
    files = {n: d for n, d in files.items() if d is not None}
    if manifest:
        files[f"{prefix}/MANIFEST.sha256"] = "".join(
            f"{hashlib.sha256(d).hexdigest()}  {n[len(prefix) + 1 :]}\n"
            for n, d in sorted(files.items())
            if n != f"{prefix}/MANIFEST.sha256"
        ).encode()
    with tarfile.open(target, "w:gz") as out:
        for member in members:
            if member.isdir():
                out.addfile(member)
        for name, data in sorted(files.items()):
            info = tarfile.TarInfo(name)
            info.size = len(data)
            out.addfile(info, io.BytesIO(data))
    return target


def forge(archive, target, code_marker, command_marker):
    """The bundle with a line appended to its Snakefile and a command enabled in its config,
    its manifest recomputed: a consistent forgery."""

    def evil_config(data):
        config = yaml.safe_load(data)
        config["controls"]["run"].update(enabled=True, command=["sh", "-c", f"touch {command_marker}"])
        config["environment"]["docker"] = "/bin/false"
        return yaml.safe_dump(config).encode()

    return rebuild(
        archive,
        target,
        {
            "workflow-code/Snakefile": lambda data: data + f"\nopen({str(code_marker)!r}, 'w').write('ran')\n".encode(),
            "config.yaml": evil_config,
        },
    )


def test_verify_runs_no_code_and_no_command_from_the_archive_unless_asked(bundled, tmp_path):
    code_marker, command_marker = tmp_path / "snakefile-ran", tmp_path / "command-ran"
    forged = forge(
        bundled.results / "bundle" / "benchreport.tar.gz", tmp_path / "forged.tar.gz", code_marker, command_marker
    )
    done = verify(forged, tmp_path)
    assert done.returncode == 0, done.stdout + done.stderr  # a consistent forgery verifies ...
    assert "not proved: origin" in done.stdout  # ... and verify says that is all it shows
    assert not code_marker.exists() and not command_marker.exists()
    assert "controls.run" in done.stdout and "switched off, nothing run" in done.stdout
    assert "differs from the bundled workflow-code/ in 1 of" in done.stdout and "Snakefile" in done.stdout
    helped = subprocess.run(
        [sys.executable, "-m", "benchreport", "verify", "--help"],
        capture_output=True,
        text=True,
        env=dict(os.environ, PYTHONPATH=str(REPO / "workflow" / "scripts")),
    )
    assert "--run-bundled-code" in helped.stdout and "EXECUTES code from the archive" in helped.stdout


@pytest.mark.slow
def test_the_flag_runs_the_archive_code_but_never_its_commands(bundled, tmp_path):
    code_marker, command_marker = tmp_path / "snakefile-ran", tmp_path / "command-ran"
    forged = forge(
        bundled.results / "bundle" / "benchreport.tar.gz", tmp_path / "forged.tar.gz", code_marker, command_marker
    )
    done = verify(forged, tmp_path, "--run-bundled-code")
    assert code_marker.exists(), done.stdout + done.stderr
    assert not command_marker.exists()
    assert "code from the archive executes" in done.stdout


def rewrite_member(archive, target, name, change):
    """Copy a bundle, changing one member's bytes but not the manifest."""
    with tarfile.open(archive) as source, tarfile.open(target, "w:gz") as out:
        for member in source.getmembers():
            data = source.extractfile(member).read() if member.isfile() else None
            if member.name == name:
                data = change(data)
                member.size = len(data)
            out.addfile(member, io.BytesIO(data) if data is not None else None)


def test_tampered_file_fails_verify_and_is_named(bundled, tmp_path):
    workflow = bundled
    archive = workflow.results / "bundle" / "benchreport.tar.gz"
    tampered = tmp_path / "tampered.tar.gz"
    rewrite_member(archive, tampered, "benchreport/results/index.md", lambda data: data + b"one more line\n")
    done = verify(tampered, tmp_path)
    assert done.returncode == 1
    assert "changed (sha256 differs from the manifest): results/index.md" in done.stdout


def test_planted_key_never_reaches_the_bundle(bundled):
    archive = bundled.results / "bundle" / "benchreport.tar.gz"
    assert KEY.encode() not in bundle_bytes(archive)
    hits = json.loads((bundled.results / "bundle" / "benchreport.redactions.json").read_text())
    assert any(h["file"].endswith("/result.json") and h["kind"] == "anthropic api key" for h in hits)
    assert all(KEY not in json.dumps(h) for h in hits)
    for path in bundled.results.rglob("*"):
        if path.is_file() and not path.name.endswith(".tar.gz"):
            assert KEY not in path.read_text(errors="replace"), path
    # one label for the key wherever it is
    assert {h["kind"] for h in hits if h["file"].endswith(("/result.json", "/config.json"))} == {
        "anthropic api key",
        "secret",
    }
    assert b"hunter2-hunter2" not in bundle_bytes(archive)


def test_a_redacted_bundle_verifies_byte_for_byte(bundled, verified):
    """Ingest redacted the key in the job folder, the bundle writer in the bundle's copy of it:
    the re-run from the redacted copy writes every output to the same bytes, ledger included."""
    assert verified.returncode == 0, verified.stdout + verified.stderr
    (line,) = [
        line
        for line in verified.stdout.splitlines()
        if line.startswith("re-run: ") and "of" in line and "byte-identical" in line
    ]
    same, total = line.removeprefix("re-run: ").split(" outputs")[0].split(" of ")
    assert same == total and int(total) > 50, line
    assert not [line for line in verified.stdout.splitlines() if line.startswith(("differs: ", "not made again: "))]
    ledger = json.loads(next((bundled.results / "ingest" / "jobs" / "agent").rglob("ledger.json")).read_text())
    assert ledger["jobs"]  # the planted job's rows are there in both runs, not absent from both
    rows = [
        row
        for batch in ingested_batches(bundled.path)
        for job in json.loads((bundled.path / ingest_file(batch, "ledger")).read_text())["jobs"].values()
        for row in job["ledger"]
    ]
    assert any(row["reason"] == "a secret (anthropic api key) in error was redacted" for row in rows), rows


def test_whole_trajectories_are_redacted(bundled, tmp_path):
    """bundle.trajectories: true plans the whole files, and the key in a message is redacted
    there (in process, over the planted job folders; the slow test below runs the rule)."""
    from benchreport.archive import bundle
    from benchreport.read import discover

    plan = {}
    for job in discover.find_job_folders([str(bundled.path / "jobs")]):
        files = bundle.job_files(
            {"relpath": job.relpath, "id": job.job_id}, job.root, trajectories=True, max_requests=20
        )[0]
        plan.update({f"jobs/{job.job_id}/{relpath}": source for relpath, source in files.items()})
    assert {source[0] for name, source in plan.items() if name.endswith("llm_trajectory.jsonl")} == {"file"}
    entries, _, hits = scan_and_spool(plan, set(), tmp_path)
    assert not [name for name in entries if KEY.encode() in entries[name]]
    assert any(h["file"].endswith("llm_trajectory.jsonl") and h["kind"] == "anthropic api key" for h in hits)


@pytest.mark.slow
def test_whole_trajectories_are_redacted_and_a_hit_can_fail_the_bundle(bundled, tmp_path):
    workflow = workflow_copy(bundled, tmp_path)
    archive = workflow.results / "bundle" / "benchreport.tar.gz"
    whole = workflow.path / "whole.yaml"
    whole.write_text(json.dumps({"bundle": {"trajectories": True}}))
    workflow.run("bundle", "--configfile", str(whole), roots=["jobs"])
    assert KEY.encode() not in bundle_bytes(archive)
    hits = json.loads((workflow.results / "bundle" / "benchreport.redactions.json").read_text())
    assert any(h["file"].endswith("llm_trajectory.jsonl") for h in hits)

    # and config can make a hit fail the bundle instead
    strict = workflow.path / "strict.yaml"
    strict.write_text(json.dumps({"bundle": {"on_secret": "fail"}}))
    failed = workflow.run("bundle", "--forcerun", "bundle", "--configfile", str(strict), roots=["jobs"], check=False)
    assert failed.returncode != 0
    log = (workflow.path / "logs" / "bundle" / "bundle.log").read_text()
    assert "bundle refused: secrets found in" in log and "(anthropic api key)" in log and KEY not in log


def tiny_archive(path, members, manifest=True):
    """A .tar.gz of members (name, bytes, header fields) under b/, with a manifest of its regular
    files unless `manifest` is False or bytes of its own."""
    files = [(name, data) for name, data, fields in members if not fields]
    if manifest is True:
        manifest = "".join(f"{hashlib.sha256(d).hexdigest()}  {n}\n" for n, d in files).encode()
    head = [("MANIFEST.sha256", manifest, {})] if manifest is not False else []
    with tarfile.open(path, "w:gz") as tar:
        for name, data, fields in head + members:
            info = tarfile.TarInfo(name if name.startswith("/") else f"b/{name}")
            for key, value in fields.items():
                setattr(info, key, value)
            info.size = len(data) if info.isreg() else 0
            tar.addfile(info, io.BytesIO(data) if info.isreg() else None)
    return path


CONFIG = b"job_roots: []\n"
ALIAS_BOMB = (
    CONFIG
    + b"a: &a [x, x, x, x, x, x, x, x, x, x]\n"
    + b"".join(f"{chr(98 + i)}: &{chr(98 + i)} [{', '.join([f'*{chr(97 + i)}'] * 10)}]\n".encode() for i in range(8))
)
# kind -> (members, words of the one-line refusal)
HOSTILE = {
    "traversal": ([("../../escaped.txt", b"x", {})], "'..'"),
    "absolute": ([("/tmp/absolute.txt", b"x", {})], "absolute"),
    "symlink": ([("link", b"", {"type": tarfile.SYMTYPE, "linkname": "../../../../etc/passwd"})], "link refused"),
    "hardlink": ([("hard", b"", {"type": tarfile.LNKTYPE, "linkname": "/etc/passwd"})], "link refused"),
    "hardlink-inside": ([("a", b"x", {}), ("hard", b"", {"type": tarfile.LNKTYPE, "linkname": "b/a"})], "link refused"),
    "fifo": ([("jobs/x/fifo", b"", {"type": tarfile.FIFOTYPE})], "special file refused"),
    "char-device": (
        [("jobs/x/zero", b"", {"type": tarfile.CHRTYPE, "devmajor": 1, "devminor": 5})],
        "special file refused",
    ),
    "block-device": ([("jobs/x/sda", b"", {"type": tarfile.BLKTYPE, "devmajor": 8})], "special file refused"),
    "member-twice": ([("config.yaml", CONFIG, {}), ("config.yaml", CONFIG, {})], "member twice"),
    "control-characters": (
        [("jobs/x/a\nREFUSED: fake\u202e", b"", {"type": tarfile.SYMTYPE, "linkname": "/"})],
        "a\\nREFUSED: fake\\u202e",
    ),
    "undecodable-name": ([("jobs/x/\udcff", b"", {"type": tarfile.SYMTYPE, "linkname": "/"})], "\\udcff"),
    "manifest-traversal": ([("config.yaml", CONFIG, {})], "MANIFEST.sha256 line 1"),
    "manifest-twice": ([("config.yaml", CONFIG, {})], "lists config.yaml twice"),
    "manifest-not-utf8": ([("config.yaml", CONFIG, {})], "not UTF-8"),
    "no-config": ([("jobs/x/result.json", b"{}", {})], "no config.yaml"),
    "config-not-yaml": ([("config.yaml", b"job_roots: [\n", {})], "does not parse"),
    "config-a-list": ([("config.yaml", b"- 1\n", {})], "not a mapping"),
    "config-controls-a-list": ([("config.yaml", CONFIG + b"controls: [run]\n", {})], "controls is list"),
    "config-run-a-string": ([("config.yaml", CONFIG + b"controls: {run: 'sh -c id'}\n", {})], "controls.run is str"),
    "config-environment-a-number": ([("config.yaml", CONFIG + b"environment: 7\n", {})], "environment is int"),
    "config-roots-outside": ([("config.yaml", b"job_roots: [/etc]\n", {})], "job_roots must be folders"),
    "config-alias-bomb": ([("config.yaml", ALIAS_BOMB, {})], "expands past"),
    "config-cycle": ([("config.yaml", CONFIG + b"a: &a [*a]\n", {})], "expands past"),
    "config-deep": ([("config.yaml", CONFIG + b"a: " + b"[" * 100_000 + b"]" * 100_000 + b"\n", {})], "config.yaml"),
}
MANIFESTS = {
    "manifest-traversal": f"{hashlib.sha256(b'root:x:0:0').hexdigest()}  ../../etc/passwd\n".encode(),
    "manifest-twice": f"{hashlib.sha256(CONFIG).hexdigest()}  config.yaml\n".encode() * 2,
    "manifest-not-utf8": b"\xff\xfe\n",
}


def hostile(tmp_path, kind):
    return tiny_archive(tmp_path / f"{kind}.tar.gz", HOSTILE[kind][0], MANIFESTS.get(kind, True))


@pytest.mark.parametrize("kind", sorted(HOSTILE))
def test_hostile_archives_are_refused(tmp_path, kind):
    """Refused in one printable line naming the member and the reason, before anything is
    re-run (so in process: no snakemake is started)."""
    from benchreport.archive import verify as verifier

    out = io.StringIO()
    assert verifier.verify(str(hostile(tmp_path, kind)), out=out, err=io.StringIO()) == 2, out.getvalue()
    assert out.getvalue().startswith("REFUSED") and len(out.getvalue().splitlines()) == 1, out.getvalue()
    assert out.getvalue()[:-1].isprintable(), out.getvalue()
    assert HOSTILE[kind][1] in out.getvalue(), out.getvalue()
    assert not (tmp_path.parent / "escaped.txt").exists()


def test_a_file_that_cannot_be_made_fails_verify_rather_than_refusing_the_archive(tmp_path):
    """A member that is a file where a later one needs a folder (jobs/x, then jobs/x/result.json):
    the archive is sound, but the re-run's files cannot be made: "verify FAILED", exit 1, naming
    the place, in one line, whatever comes after it."""
    from benchreport.archive import verify as verifier

    big = random.Random(3).randbytes(4 << 20)
    members = [("config.yaml", CONFIG, {}), ("jobs/x", b"a file", {}), ("jobs/x/result.json", b"{}", {})]
    members.append(("jobs/y/trajectory/llm_trajectory.jsonl", big, {}))
    out = io.StringIO()
    assert verifier.verify(str(tiny_archive(tmp_path / "clash.tar.gz", members)), out=out, err=io.StringIO()) == 1
    assert out.getvalue().startswith("verify FAILED: the re-run's files cannot be written"), out.getvalue()
    assert "/jobs/x" in out.getvalue() and len(out.getvalue().splitlines()) == 1, out.getvalue()


def test_the_command_line_refuses_in_one_line(tmp_path):
    done = verify(hostile(tmp_path, "symlink"), tmp_path)
    assert done.returncode == 2 and done.stdout.startswith("REFUSED: link refused"), done.stdout
    assert len(done.stdout.splitlines()) == 1 and "Traceback" not in done.stderr


def test_verify_needs_no_tarfile_extraction_filter(tmp_path, monkeypatch, bundled):
    """Debian's Python 3.11.2 has no tarfile.data_filter (nor extract's filter=): verify never
    uses tarfile's extraction, only its member headers, and writes files itself after its own
    checks. With the filters and the extraction gone it refuses the same members and reads a
    real bundle to the same inputs."""
    from benchreport.archive import verify as verifier

    for name in ("data_filter", "tar_filter", "fully_trusted_filter"):
        monkeypatch.delattr(tarfile, name, raising=False)
    for name in ("extract", "extractall", "_extract_member"):
        monkeypatch.setattr(tarfile.TarFile, name, lambda *a, **k: pytest.fail("tarfile extraction used"))
    for kind in ("traversal", "absolute", "symlink", "hardlink", "fifo", "char-device", "member-twice"):
        out = io.StringIO()
        assert verifier.verify(str(hostile(tmp_path, kind)), out=out, err=io.StringIO()) == 2
        assert HOSTILE[kind][1] in out.getvalue()
    archive = bundled.results / "bundle" / "benchreport.tar.gz"
    target = tmp_path / "inputs"
    _, hashes, small = verifier.read_archive(
        archive,
        target,
        keep_code=False,
        progress=lambda line: None,
        limits=verifier.Limits(archive.stat().st_size, 1 << 40, 1000),
    )
    listed = dict(verifier.manifest_lines(small["MANIFEST.sha256"]))
    assert verifier.check_listing(listed.items(), dict(hashes), lambda name: False)[0] == []
    written = {p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()}
    inputs = {n for n in listed if n.startswith(verifier.RERUN_INPUTS)}
    unread = {n for n in inputs if verifier.not_read(n)}
    # the real folders' verifier files are bundled and hashed, not written; their attempt folders are
    assert unread and all("/verifier/" in n for n in unread) and not unread & written
    assert not any(p.name == verifier.VERIFIER_FOLDER for p in target.rglob("*"))
    assert written == inputs - unread
    assert all((target / n).parent.parent.is_dir() for n in unread)
    for name in written:
        assert hashlib.sha256((target / name).read_bytes()).hexdigest() == listed[name]


@pytest.mark.parametrize(
    "name, unread",
    [
        ("jobs/real/a/task__0123abcd/verifier/reward.txt", True),
        ("jobs/real/a/task__0123abcd/verifier/test-stdout.txt", True),
        ("jobs/real/a/task__0123abcd/result.json", False),
        ("jobs/real/a/task__0123abcd/trajectory/llm_trajectory.jsonl", False),
        # under reviews/ or scoring/ every file is read (a review's own verifier)
        ("jobs/real/a/task__0123abcd/reviews/r1/verifier/reward.txt", False),
        ("jobs/real/a/task__0123abcd/scoring/verifier/reward.txt", False),
        ("jobs/real/a/task__0123abcd/verifier/other.txt", False),
        ("jobs/real/a/task__0123abcd/verifier", True),  # the folder itself
        ("jobs/real/a/task__0123abcd", False),
        ("workflow-code/verifier/reward.txt", False),  # not a job folder's
    ],
)
def test_verify_writes_every_job_file_the_rerun_reads(name, unread):
    from benchreport.archive import verify as verifier

    assert verifier.not_read(name) is unread


def gzip_archive(path, header: tarfile.TarInfo, zeros: int = 0):
    """A .tar.gz of one member header followed by `zeros` MiB of zeros: each MiB is deflated once
    and its (fully flushed, so identical) block repeated, as a bomb is made cheaply."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    head = packer.compress(header.tobuf(tarfile.GNU_FORMAT)) + packer.flush(zlib.Z_FULL_FLUSH)
    block = packer.compress(bytes(1 << 20)) + packer.flush(zlib.Z_FULL_FLUSH)
    with open(path, "wb") as out:
        out.write(head)
        for _ in range(zeros):
            out.write(block)
        out.write(packer.compress(bytes(1024)) + packer.flush())
    return path


def test_a_compression_bomb_is_refused_from_its_header(tmp_path, monkeypatch):
    """A 2 GiB member of zeros in a 2 MiB archive: refused at its header, nothing of it read."""
    from benchreport.archive import verify as verifier

    header = tarfile.TarInfo("b/jobs/x/bomb.bin")
    header.size = 2 << 30
    archive = gzip_archive(tmp_path / "bomb.tar.gz", header, zeros=header.size >> 20)
    assert archive.stat().st_size < 4 << 20
    streamed = []
    real = verifier.stream_file
    monkeypatch.setattr(verifier, "stream_file", lambda source, n, sinks: streamed.append(n) or real(source, n, sinks))
    out = io.StringIO()
    assert verifier.verify(str(archive), out=out, err=io.StringIO()) == 2
    assert out.getvalue().startswith("REFUSED: b/jobs/x/bomb.bin takes the contents past"), out.getvalue()
    assert "compression bomb" in out.getvalue() and streamed == []


def test_sparse_truncated_and_incomplete_archives_get_one_line(bundled, tmp_path):
    # a GNU sparse member (its apparent size could be 8 GiB): refused by type
    sparse = tarfile.TarInfo("b/jobs/x/sparse.bin")
    sparse.type = tarfile.GNUTYPE_SPARSE
    gzip_archive(tmp_path / "sparse.tar.gz", sparse)
    workflow = bundled
    archive = (workflow.results / "bundle" / "benchreport.tar.gz").read_bytes()
    (tmp_path / "truncated.tar.gz").write_bytes(archive[: len(archive) // 2])
    (tmp_path / "not-gzip.tar.gz").write_bytes(b"this is not an archive\n" * 10)
    rebuild(
        workflow.results / "bundle" / "benchreport.tar.gz",
        tmp_path / "no-manifest.tar.gz",
        {"MANIFEST.sha256": None},
        manifest=False,
    )
    expected = {
        "sparse": "sparse member refused",
        "truncated": "truncated",
        "not-gzip": "cannot be read",
        "no-manifest": "no MANIFEST.sha256",
    }
    for kind, words in expected.items():
        done = verify(tmp_path / f"{kind}.tar.gz", tmp_path)
        assert done.returncode == 2, (kind, done.stdout, done.stderr)
        assert done.stdout.startswith("REFUSED") and len(done.stdout.splitlines()) == 1, (kind, done.stdout)
        assert words in done.stdout, (kind, done.stdout)
        assert "Traceback" not in done.stderr, (kind, done.stderr)


def test_a_value_the_first_pass_finds_anywhere_is_redacted_everywhere(tmp_path):
    """bundle.scan finds every secret value in the files and the names: one found late (an
    agent_env secret in the last config.json) is redacted in an earlier file and a file name, a
    folder's name is scanned, and the trajectory extracts are read back each for its own file."""
    from benchreport.archive import bundle

    secret, key = "hunter2-hunter2-hunter2", "sk-ant-api03-PLANTEDplantedPLANTED0123456789abcdef"
    trajectory = tmp_path / "llm_trajectory.jsonl"
    trajectory.write_text(
        json.dumps({"request": {"body": {"temperature": 0.5, "note": secret}}, "response": {"body": {"model": "m"}}})
        + "\n",
        encoding="utf-8",
    )
    other = tmp_path / "other.jsonl"  # another extract, so that one read back for the wrong file shows
    other.write_text(json.dumps({"request": {"body": {"top_p": 0.9}}}) + "\n", encoding="utf-8")
    plan = {
        "aa/t__1/result.json": ("bytes", json.dumps({"error": f"login failed for {secret}"}).encode()),
        "aa/t__1/trajectory/llm_trajectory.jsonl": ("trajectory", str(trajectory), 20),
        f"bb/{secret}.log": ("bytes", b"plain"),
        "results/index.md": ("bytes", b"nothing secret at all"),
        "results/report.md": ("bytes", f"served {key}".encode()),
        "zz/t__2/trajectory/llm_trajectory.jsonl": ("trajectory", str(other), 20),
        "zz/t__9/config.json": ("bytes", json.dumps({"agent_env": {"MY_DB_PASSWORD": secret}}).encode()),
    }
    token = "ghp_" + "Q7" * 18  # in the name of a folder that holds no file: found by the folder scan alone

    found = bundle.scan(plan, {"aa", "bb", "zz", f"qq/{token}"}, tmp_path)
    one = (
        found.values,
        found.dirty,
        found.renamed,
        found.name_hits,
        found.directories,
        list(bundle.redacted(plan, found)),
    )
    found.raw.close()
    assert one[0] == sorted([secret, key, token]) and one[1] == {
        "results/report.md",
        "zz/t__9/config.json",
    }  # the secret found in zz/ only
    assert set(one[2]) == {f"bb/{secret}.log", f"qq/{token}"} and "qq/[REDACTED:github token]" in one[4]
    assert all(data is None or (secret.encode() not in data and b"PLANTED" not in data) for _, data, _ in one[5])
    extracts = {name: data for name, data, _ in one[5] if name.endswith(".jsonl")}
    assert b"temperature" in extracts["aa/t__1/trajectory/llm_trajectory.jsonl"]
    assert b"top_p" in extracts["zz/t__2/trajectory/llm_trajectory.jsonl"]


def test_the_job_folders_plan_reads_only_their_own_files(tmp_path):
    """bundle.collect on BenchFlow's own job folders with a link out of the root and a file in a
    folder's place added: every planned job-folder file is one of the root's, read where it lies,
    the link is left out with a row saying why, and each file lies in a planned folder."""
    from benchreport.archive import bundle
    from benchreport.read.discover import find_job_folders, root_labels

    root = tmp_path / "jobs"
    shutil.copytree(REPO / "resources" / "example" / "benchflow-real-jobs", root)
    attempts = sorted(path.parent for path in root.rglob("result.json"))
    (attempts[0] / "timing.json").unlink()
    (attempts[0] / "timing.json").symlink_to(tmp_path / "outside.json")  # out of the root: left out, said why
    (tmp_path / "outside.json").write_text("{}")
    shutil.rmtree(attempts[-1] / "verifier")
    (attempts[-1] / "verifier").write_text("a file where a folder was")
    jobs = find_job_folders([str(root)])
    labels = root_labels([str(root)])
    ingests = [{"job": {"id": job.name, "key": job.job_id, "label": job.label}} for job in jobs]
    assert len(ingests) >= 3

    plan, directories, extra = bundle.collect(
        name="b",
        results=[],
        ingests=ingests,
        roots={label: folder for folder, label in labels.items()},
        config={},
        workflow_dir=REPO / "workflow",
        trajectories=False,
        max_requests=20,
        git={},
    )
    assert any(row["file"].endswith("/timing.json") for row in extra["info"]["not_bundled"])
    read = {name: bundle.source_file(source, name) for name, source in plan.items() if name.startswith("jobs/")}
    assert read and all(os.path.realpath(path).startswith(str(root) + os.sep) for path in read.values())
    assert all(os.path.isfile(path) for path in read.values())
    assert not any(path.endswith(f"{attempts[0].name}/timing.json") for path in read.values())
    assert not any(f"{attempts[-1].name}/verifier/" in path for path in read.values())
    assert all(any(name.startswith(f"{folder}/") for folder in directories) for name in read)


def test_a_job_folder_is_found_by_its_key_whatever_secret_its_path_holds(tmp_path):
    """The label and relpath ingest records are redacted; the key leads to the folder on disk,
    for a secret in a root's, an alias's and a job folder's own name."""
    from benchreport.archive import bundle
    from benchreport.read.discover import find_job_folders, root_labels

    token = "glpat-Ab3Cd5Ef7Gh9Ij1Kl3Mn5"
    job = REPO / "resources" / "example" / "benchflow-samples" / "v0.7.12-real" / "oracle-run" / "2026-11-30__04-23-02"
    for relpath in ("agent/plain/trial-01/job", f"agent/sonnet-{token}/trial-01/job", f"agent/x/trial-02/job-{token}"):
        shutil.copytree(job, tmp_path / f"jobs-{token}" / relpath)
        shutil.copytree(job, tmp_path / "jobs" / relpath)
    roots = [str(tmp_path / f"jobs-{token}"), str(tmp_path / "jobs")]
    jobs = find_job_folders(roots)
    assert len(jobs) == 6 and not [found for found in jobs if token in found.job_id or token in found.name]
    labels = {label: root for root, label in root_labels(roots).items()}
    assert {bundle.job_location(found.job_id, labels) for found in jobs} == {
        (found.root, found.relpath) for found in jobs
    }
