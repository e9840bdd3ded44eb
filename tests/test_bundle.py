"""The bundle: archive, verify, re-run to the same bytes, with no secret inside."""

from __future__ import annotations

import gzip
import io
import json
import os
import shutil
import subprocess
import sys
import tarfile

import pytest

from benchflow_synth import write_matrix
from conftest import REPO

KEY = "sk-ant-api03-PLANTEDplantedPLANTED0123456789abcdef"
SETTING = {"agent": "claude-agent-acp", "model": "anthropic/claude-sonnet-4-5",
           "served_model": "claude-sonnet-4-5-20250929", "usage_source": "provider_response",
           "price_source": "litellm"}


def verify(path, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO / "workflow" / "scripts"))
    return subprocess.run([sys.executable, "-m", "benchreport", "verify", str(path)], cwd=cwd,
                          capture_output=True, text=True, env=env, timeout=900)


def make_jobs(workflow, plant=False):
    shutil.copytree(REPO / "resources/example/benchflow-real-jobs", workflow.path / "jobs" / "real")
    tries = [[{"task": t, "attempts": [{"kind": k}]} for t, k in (("alpha", "passed"), ("beta", "failed"))]] * 3
    write_matrix(workflow.path / "jobs" / "agent", alias="sonnet", setting=SETTING, tries=tries, seed=9,
                 start="2026-11-30 10:00:00")
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
        return trajectory, result


def bundle_bytes(path) -> bytes:
    return gzip.decompress(path.read_bytes())


@pytest.mark.slow
def test_bundle_then_verify_in_a_fresh_copy(workflow, tmp_path):
    make_jobs(workflow)
    workflow.run("bundle", roots=["jobs"])
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
    for expected in ("benchreport/MANIFEST.sha256", "benchreport/ro-crate-metadata.json", "benchreport/config.yaml",
                     "benchreport/environment/requirements.lock", "benchreport/workflow-code/Snakefile",
                     "benchreport/results/index.md", "benchreport/results/lineage/index.md.json"):
        assert expected in names
    assert any(n.endswith("/verifier/reward.txt") for n in names)
    # bundled under jobs/<root label>/<path in the root>: here the root is "jobs"
    assert any(n.startswith("benchreport/jobs/jobs/real/script-run/oracle-x3/") for n in names)
    assert info["workflow"]["git"] == {"commit": None, "dirty": None, "note": "not a git checkout"}  # a tmp copy


def rewrite_member(archive, target, name, change):
    """Copy a bundle, changing one member's bytes but not the manifest."""
    with tarfile.open(archive) as source, tarfile.open(target, "w:gz") as out:
        for member in source.getmembers():
            data = source.extractfile(member).read() if member.isfile() else None
            if member.name == name:
                data = change(data)
                member.size = len(data)
            out.addfile(member, io.BytesIO(data) if data is not None else None)


def test_tampered_file_fails_verify_and_is_named(workflow, tmp_path):
    make_jobs(workflow)
    workflow.run("bundle", roots=["jobs"])
    archive = workflow.results / "bundle" / "benchreport.tar.gz"
    tampered = tmp_path / "tampered.tar.gz"
    rewrite_member(archive, tampered, "benchreport/results/index.md", lambda data: data + b"one more line\n")
    done = verify(tampered, tmp_path)
    assert done.returncode == 1
    assert "changed (sha256 differs from the manifest): results/index.md" in done.stdout


def test_planted_key_never_reaches_the_bundle(workflow):
    make_jobs(workflow, plant=True)
    workflow.run("bundle", roots=["jobs"])
    archive = workflow.results / "bundle" / "benchreport.tar.gz"
    assert KEY.encode() not in bundle_bytes(archive)
    hits = json.loads((workflow.results / "bundle" / "benchreport.redactions.json").read_text())
    assert any(h["file"].endswith("/result.json") and h["kind"] == "anthropic api key" for h in hits)
    assert all(KEY not in json.dumps(h) for h in hits)
    for path in workflow.results.rglob("*"):
        if path.is_file() and not path.name.endswith(".tar.gz"):
            assert KEY not in path.read_text(errors="replace"), path

    # with whole trajectories in, the planted key is redacted there too
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


def hostile(tmp_path, kind):
    path = tmp_path / f"{kind}.tar.gz"
    with tarfile.open(path, "w:gz") as tar:
        def add(name, data=b"x", **fields):
            info = tarfile.TarInfo(name)
            for key, value in fields.items():
                setattr(info, key, value)
            info.size = 0 if fields.get("type") in (tarfile.SYMTYPE, tarfile.LNKTYPE) else len(data)
            tar.addfile(info, io.BytesIO(data))
        add("b/MANIFEST.sha256", b"")
        if kind == "traversal":
            add("b/../../escaped.txt")
        elif kind == "absolute":
            add("/tmp/absolute.txt")
        elif kind == "symlink":
            add("b/link", type=tarfile.SYMTYPE, linkname="../../../../etc/passwd")
        elif kind == "hardlink":
            add("b/hard", type=tarfile.LNKTYPE, linkname="/etc/passwd")
    return path


@pytest.mark.parametrize("kind", ["traversal", "absolute", "symlink", "hardlink"])
def test_hostile_archives_are_refused(tmp_path, kind):
    done = verify(hostile(tmp_path, kind), tmp_path)
    assert done.returncode == 2, done.stdout
    assert "REFUSED" in done.stdout
    assert not (tmp_path.parent / "escaped.txt").exists()
