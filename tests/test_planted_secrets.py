"""A planted set: secrets of every shape the scanner must know by what it is, planted in a generated
job folder (verifier stdout, error strings, agent_env, streamed trajectory deltas, a folder name)
and in the workflow's config, then the workflow and its bundle run for real. No planted secret,
nor its base64, hex, percent- or JSON-escaped form, reaches results/ or the archive; REDACTIONS.json
names the file of each, `benchreport review` lists the random string left below the redaction bar
and nothing else, and the redacted bundle verifies."""

from __future__ import annotations

import base64
import gzip
import json
import os
import subprocess
import sys
import urllib.parse

import pytest
from benchflow_synth import write_matrix
from conftest import REPO, copy_workflow

SETTING = {
    "agent": "claude-agent-acp",
    "model": "anthropic/claude-sonnet-4-5",
    "served_model": "claude-sonnet-4-5-20250929",
    "usage_source": "provider_response",
    "price_source": "litellm",
}
PGP_BODY = "lQOYBGVxZmoBCADMq3b7Fh2pWvN8sK4tQ9yJr1LcX6eUo0aZgHdVbTnS5iMkR7Pw"
PEM_BODY = "MIIEowIBAAKCAQEAx9Lm3QpZ7vT2kW8nR4sY1bHcJ6fU0eGaVoXiPq5tNrKd"
ANTHROPIC = "sk-ant-api03-Wq7Lm2Xc9Vb4Nz8Kp3Rt6Yh1Gd5Fs0JaUeIoPlMkNjBh2Cx"
SPLIT_AT = 16  # the first delta ends here, before the shape's 20 characters after "sk-ant-"
GITHUB = "ghp_R8tY2uI5oP9aS3dF6gH1jK4lZ7xC0vB2nM5q"
GLUED_AWS = "AKIAJ7QW2ER4TY6UI8OP"
DIGITALOCEAN = "dop_v1_" + "3f9a1c7e5b2d8f4a6c0e9b1d7f3a5c8e2b4d6f0a9c1e3b5d7f9a2c4e6b8d0f1a"
AZURE = "Zk3Jq8Lm2Xc9Vb4Nz8Kp3Rt6Yh1Gd5Fs0JaUeIoPlMkNjBh2CxWq7Lm2Xc9Vb4Nz8Kp3Rt6Yh1Gd5Fs0JaUeIoPlMk=="
ZERO_WIDTH_KEY = "xai-Hq4Wn8Rk2Tz6Lp9Vd3Fs7Bm1Xc5Jg0Ny"
UNKNOWN_SHAPE = "zq_8Hf3Kd9Lm2Qw7Xv4Bn6Tr1Ys5Pc0Ga3Je8Wk"  # no provider's prefix: found by its entropy
BELOW_THE_BAR = "k3v9q2x7m4p8w1z6r5t0"  # lower-case and digits, 20 long: listed by review, not redacted
SECRETS = {  # name -> the secret value planted (what must never reach results/ or the bundle)
    "pgp private key": PGP_BODY,
    "pem cut before its end": PEM_BODY,
    "netrc": "n3trc-Passw0rd-x7",
    "pgpass": "Pg9assW0rdLine77",
    "secret word with more name": "9f8e7d6c5b4a39281706f5e4d3c2b1a0deadbeef1234",
    "authorization token scheme": "tok7Hq2Wn8Rk4Tz6Lp9Vd3Fs",
    "azure account key": AZURE,
    "cookie": "s3ss10nV4lueQx9Zk2Lm",
    "digitalocean": DIGITALOCEAN,
    "mysql -p": "Mysq1Pw0rdX",
    "wrapped base64": ANTHROPIC,
    "double base64": GITHUB,
    "hex": "xai-Tz6Lp9Vd3Fs7Bm1Xc5Jg0NyHq4Wn8Rk2",
    "after an ansi code": "ghp_Y5uI8oP2aS6dF9gH3jK7lZ1xC4vB8nM2qR0t",
    "glued to letters": GLUED_AWS,
    "zero-width space inside": ZERO_WIDTH_KEY,
    "agent_env without a secret word": "Vq7Rt2Yp9Lm4Xc8Nz3Kb6Wd1Hs5Gf0Ja",
    "split over two deltas": ANTHROPIC[:SPLIT_AT],
    "folder name": "glpat-Ab3Cd5Ef7Gh9Ij1Kl3Mn5",
    "config docker_host": "D0ckerHostPassw0rd",
    "unknown shape": UNKNOWN_SHAPE,
    "discord": "MTk4NjIyNDgzNDcxOTI1MjQ4Mz.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
}


def wrapped(text: str, width: int) -> str:
    return "\n".join(text[at : at + width] for at in range(0, len(text), width))


def encodings(value: str) -> list[bytes]:
    """The value and its obvious encodings, as bytes that must not stand anywhere."""
    raw = value.encode()
    forms = [raw, base64.b64encode(raw), base64.urlsafe_b64encode(raw), raw.hex().encode()]
    forms += [urllib.parse.quote(value, safe="").encode(), json.dumps(value)[1:-1].encode()]
    return [form.rstrip(b"=") for form in forms]


VERIFIER_STDOUT = f"""\
== setup ==
-----BEGIN PGP PRIVATE KEY BLOCK-----
Version: GnuPG v2

{PGP_BODY}
=Xq9z
-----END PGP PRIVATE KEY BLOCK-----
machine api.example.org login ci-bot password {SECRETS["netrc"]}
db.internal:5432:bench:runner:{SECRETS["pgpass"]}
SECRET_KEY_BASE={SECRETS["secret word with more name"]}
export AZURE_STORAGE=DefaultEndpointsProtocol=https;AccountName=bench;AccountKey={AZURE};EndpointSuffix=core.windows.net
DO token: {DIGITALOCEAN}
$ mysql -u root -p{SECRETS["mysql -p"]} bench < schema.sql
key (base64):
{wrapped(base64.b64encode(f"ANTHROPIC_API_KEY={ANTHROPIC}".encode()).decode(), 76)}
dump {SECRETS["hex"].encode().hex()}
\x1b[31m{SECRETS["after an ansi code"]}\x1b[0m
aws idAKIA{GLUED_AWS[4:]} used
new service token {UNKNOWN_SHAPE} issued
bot {SECRETS["discord"]}
run id {BELOW_THE_BAR}
== 3 passed ==
"""
ERROR = (
    f"deploy failed: -----BEGIN RSA PRIVATE KEY-----\n{PEM_BODY}\n"
    f"Authorization: token {SECRETS['authorization token scheme']}; "
    f"Cookie: session={SECRETS['cookie']}; theme=dark; "
    f"config blob {base64.b64encode(base64.b64encode(GITHUB.encode())).decode()}; "
    f"key {ZERO_WIDTH_KEY[:12]}\u200b{ZERO_WIDTH_KEY[12:]}; "
    f"\x1b[1;33m{SECRETS['after an ansi code']}\x1b[0m"
)


def plant(workflow) -> None:
    """The generated job folders, each secret planted where the module says."""
    jobs = workflow.path / "jobs" / "agent"
    tries = [
        [
            {"task": task, "attempts": [{"kind": kind}]}
            for task, kind in (("alpha", "passed"), (f"fix-{SECRETS['folder name']}", "failed"))
        ]
    ] * 2
    write_matrix(jobs, alias="sonnet", setting=SETTING, tries=tries, seed=5, start="2026-11-30 10:00:00")
    attempt = sorted(path.parent for path in jobs.rglob("result.json") if "alpha" in path.parent.name)[0]
    (attempt / "verifier").mkdir(exist_ok=True)
    (attempt / "verifier" / "test-stdout.txt").write_text(VERIFIER_STDOUT, encoding="utf-8")
    result = json.loads((attempt / "result.json").read_text())
    result["error"] = ERROR
    (attempt / "result.json").write_text(json.dumps(result, indent=2))
    config = json.loads((attempt / "config.json").read_text())
    config["agent_env"] = {"MY_SERVICE_CREDS": SECRETS["agent_env without a secret word"], "LOG_LEVEL": "info"}
    (attempt / "config.json").write_text(json.dumps(config, indent=2))
    trajectory = attempt / "trajectory" / "llm_trajectory.jsonl"
    lines = trajectory.read_text().splitlines()
    first = json.loads(lines[0])
    first["response"]["body"]["stream"] = [
        {"type": "content_block_delta", "delta": {"type": "text_delta", "text": f"use {ANTHROPIC[:SPLIT_AT]}"}},
        {"type": "content_block_delta", "delta": {"type": "text_delta", "text": f"{ANTHROPIC[SPLIT_AT:]} now"}},
    ]
    trajectory.write_text("\n".join([json.dumps(first), *lines[1:]]) + "\n")
    settings = {
        "bundle": {"trajectories": True},
        "environment": {"docker_host": f"tcp://builder:{SECRETS['config docker_host']}@127.0.0.1:9"},
    }
    (workflow.path / "planted.yaml").write_text(json.dumps(settings))


def benchreport(*args, cwd):
    env = dict(os.environ, PYTHONPATH=str(REPO / "workflow" / "scripts"))
    return subprocess.run(
        [sys.executable, "-m", "benchreport", *args], cwd=cwd, capture_output=True, text=True, env=env, timeout=900
    )


@pytest.fixture(scope="module")
def planted(tmp_path_factory):
    workflow = copy_workflow(tmp_path_factory.mktemp("planted") / "wf")
    plant(workflow)
    workflow.run("bundle", "--configfile", str(workflow.path / "planted.yaml"), roots=["jobs"])
    return workflow


def archive_of(workflow):
    return workflow.results / "bundle" / "benchreport.tar.gz"


@pytest.mark.slow
def test_no_planted_secret_nor_its_encodings_reaches_results_or_the_bundle(planted):
    everything = [gzip.decompress(archive_of(planted).read_bytes())]
    for path in sorted(planted.results.rglob("*")):
        everything.append(str(path.relative_to(planted.results)).encode())
        if path.is_file() and path != archive_of(planted):
            everything.append(path.read_bytes())
    for what, value in SECRETS.items():
        for form in encodings(value):
            assert not any(form in data for data in everything), (what, form[:12])
    for line in wrapped(base64.b64encode(f"ANTHROPIC_API_KEY={ANTHROPIC}".encode()).decode(), 76).splitlines():
        assert not any(line.encode() in data for data in everything)


@pytest.mark.slow
def test_the_redaction_report_names_each_planted_file_and_rule(planted):
    hits = json.loads((planted.results / "bundle" / "benchreport.redactions.json").read_text())
    assert all(set(hit) >= {"file", "kind", "rule"} for hit in hits)
    rules = {(hit["file"].rsplit("/", 2)[-2:][-1], hit["rule"]) for hit in hits}
    expected = {
        ("test-stdout.txt", rule)
        for rule in (
            "private-key block",
            "netrc line",
            "pgpass line",
            "secret-named key",
            "provider shape",
            "password flag",
            "encoded secret",
            "high entropy",
        )
    }
    expected |= {("result.json", rule) for rule in ("private-key block", "authorization header", "cookie")}
    expected |= {("llm_trajectory.jsonl", "joined deltas")}
    assert expected <= rules, expected - rules
    assert any(hit.get("where") == "file name" and "gitlab token" in hit["kind"] for hit in hits)
    assert not any(value in json.dumps(hits) for value in SECRETS.values())


@pytest.mark.slow
def test_the_lineage_records_carry_no_config_secret(planted):
    record = json.loads((planted.results / "lineage" / "bundle" / "benchreport.tar.gz.json").read_text())
    assert SECRETS["config docker_host"] not in json.dumps(record)
    assert "tcp://builder:[REDACTED:secret]@127.0.0.1:9" in json.dumps(record)


@pytest.mark.slow
def test_review_lists_only_the_string_left_below_the_bar(planted):
    done = benchreport("review", str(archive_of(planted)), cwd=planted.path)
    lines = done.stdout.splitlines()
    assert done.returncode == 1, done.stdout + done.stderr
    findings = [line.split("\t") for line in lines[:-1]]
    assert [(file.rsplit("/", 1)[-1], rule) for file, rule, _ in findings] == [
        ("test-stdout.txt", "high entropy, below the redaction bar")
    ], lines
    assert BELOW_THE_BAR not in done.stdout and f"{BELOW_THE_BAR[:4]}…[20 chars]" in findings[0][2]


@pytest.mark.slow
def test_the_redacted_bundle_verifies(planted):
    done = benchreport("verify", str(archive_of(planted)), cwd=planted.path)
    assert done.returncode == 0, done.stdout + done.stderr


def test_review_of_a_file_that_is_no_bundle_names_it(tmp_path):
    broken = tmp_path / "broken.tar.gz"
    broken.write_bytes(b"not an archive")
    done = benchreport("review", str(broken), cwd=tmp_path)
    assert done.returncode == 2 and f"{broken}: not a readable .tar.gz bundle" in done.stderr
    assert "Traceback" not in done.stderr
