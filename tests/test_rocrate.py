"""The bundle's RO-Crate, checked by roc-validator against the profiles it declares, offline.

roc-validator ships the profiles; what it fetches is the RO-Crate 1.1 JSON-LD context and, since
the crate says where the workflow's code is published (bundle.code_iri), the main workflow at that
address (it checks a web-based entity is there and its size matches). The test answers every
HTTP request from stored copies (the published context under tests/data/rocrate/, CC0; the bundled
workflow file for its published address), refuses any other address and blocks every socket, so
a missing file fails the test instead of reaching the network.
"""

from __future__ import annotations

import hashlib
import io
import json
import socket
import tarfile
from pathlib import Path

import pytest
from conftest import REPO, copy_workflow
from test_bundle import make_jobs

CONTEXT = "https://w3id.org/ro/crate/1.1/context"
STORED_CONTEXT = REPO / "tests" / "data" / "rocrate" / "ro-crate-1.1-context.jsonld"
WORKFLOW = "workflow-code/Snakefile"
# where the test says the workflow's code is published (example.org: a name reserved for examples);
# the crate's main workflow is then a web-based data entity at CODE_IRI/Snakefile, which the test
# serves from the bundled copy: what a reader fetches once the code is published there
CODE_IRI = "https://code.example.org/benchreport/0.1.0"
MAIN_WORKFLOW = f"{CODE_IRI}/Snakefile"


@pytest.fixture(scope="module")  # a bundle run (~20 s here); the validation ~8 s
def crate_dir(tmp_path_factory) -> Path:
    workflow = copy_workflow(tmp_path_factory.mktemp("crate") / "wf")
    make_jobs(workflow)
    (workflow.path / "agent.yaml").write_text(
        "bundle:\n  agent:\n    name: A. Researcher\n    id: https://orcid.org/0000-0002-1825-0097\n"
        "    affiliation: Example Lab\n    affiliation_url: https://lab.example.org\n"
        f"  code_iri: {CODE_IRI}\n"
    )
    workflow.run("bundle", "--configfile", "config/config.yaml", "agent.yaml", roots=["jobs"])
    target = workflow.path.parent / "unpacked"
    with tarfile.open(workflow.results / "bundle" / "benchreport.tar.gz") as tar:
        # the bundle this test just made; Python 3.11.2 (Debian 12) has no extraction filter
        tar.extractall(target, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    return target / "benchreport"


def serve(stored: dict[str, tuple[Path, str]], monkeypatch) -> None:
    """Answer every HTTP(S) request from `stored` (address -> file, media type), and any other
    address with a connection error: the validator's whole network is these files."""
    import requests
    import urllib3

    def send(adapter, request, **kwargs):
        if request.url not in stored:
            raise requests.ConnectionError(f"the test is offline: {request.url}")
        file, kind = stored[request.url]
        raw = urllib3.HTTPResponse(
            body=io.BytesIO(b"" if request.method == "HEAD" else file.read_bytes()),
            headers={"Content-Type": kind, "Content-Length": str(file.stat().st_size)},
            status=200,
            preload_content=False,
            request_url=request.url,
            enforce_content_length=request.method != "HEAD",  # a HEAD answer has no body
        )
        return adapter.build_response(request, raw)

    monkeypatch.setattr(requests.adapters.HTTPAdapter, "send", send)


def recommended_issues(crate: Path, cache: Path, monkeypatch) -> list[tuple]:
    """roc-validator's issues with the crate at RECOMMENDED level against the Provenance Run
    Crate profile (which inherits the others it declares), offline: the context and the crate's
    main workflow at its published address are served from stored copies."""
    services = pytest.importorskip("rocrate_validator.services", reason="pip install -r requirements-test.txt")
    from rocrate_validator import models

    serve(
        {CONTEXT: (STORED_CONTEXT, "application/ld+json"), MAIN_WORKFLOW: (crate / WORKFLOW, "text/plain")}, monkeypatch
    )

    def no_network(self, address, *args):
        raise OSError(f"the test is offline: {address}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    settings = services.ValidationSettings(
        rocrate_uri=str(crate),
        profile_identifier="provenance-run-crate",
        requirement_severity=models.Severity.RECOMMENDED,
        cache_path=cache,
    )
    return [
        (issue.severity.name, issue.check.identifier, issue.message, issue.violatingPropertyValue)
        for issue in services.validate(settings).get_issues()
    ]


@pytest.mark.slow
def test_the_crate_passes_its_profiles_offline(crate_dir, tmp_path, monkeypatch):
    metadata = json.loads((crate_dir / "ro-crate-metadata.json").read_text())
    declared = {entry["@id"] for entry in next(e for e in metadata["@graph"] if e["@id"] == "./")["conformsTo"]}
    assert "https://w3id.org/ro/wfrun/provenance/0.5" in declared  # the profile that inherits the others
    issues = recommended_issues(crate_dir, tmp_path / "http-cache", monkeypatch)
    assert not issues, sorted(set(issues))
    graph = {entity["@id"]: entity for entity in metadata["@graph"]}
    main = graph["./"]["mainEntity"]["@id"]
    assert main == MAIN_WORKFLOW and "ComputationalWorkflow" in graph[main]["@type"]
    assert (
        graph[main]["sha256"]
        == graph[WORKFLOW]["sha256"]
        == hashlib.sha256((crate_dir / WORKFLOW).read_bytes()).hexdigest()
    )
    # the tools the actions' instruments name have absolute http IRIs: Snakemake, each rule's code
    tools = {
        entity["instrument"]["@id"]
        for entity in metadata["@graph"]
        if entity["@type"] in ("CreateAction", "OrganizeAction")
    }
    assert MAIN_WORKFLOW in tools and all(tool.startswith(("https://", "http://")) for tool in tools), tools
    code = {key for key, entity in graph.items() if "SoftwareSourceCode" in entity["@type"]} - {MAIN_WORKFLOW}
    assert code and all(key.startswith(f"{CODE_IRI}#rule-") for key in code), code


@pytest.mark.slow
def test_one_action_per_rule_job_with_times_agent_and_checksums(crate_dir):
    metadata = json.loads((crate_dir / "ro-crate-metadata.json").read_text())
    assert metadata["@context"][1] == {"sha256": "http://schema.org/sha256"}  # a defined term
    graph = {entity["@id"]: entity for entity in metadata["@graph"]}
    root = graph["./"]
    ids = lambda value: [item["@id"] for item in (value if isinstance(value, list) else [value])]  # noqa: E731
    # every file but the metadata itself and the manifest (made last, over both), README included
    files = {p.relative_to(crate_dir).as_posix() for p in crate_dir.rglob("*") if p.is_file()}
    # and the main workflow where its code is published (bundle.code_iri), a copy of the bundled one
    assert set(ids(root["hasPart"])) == files - {"ro-crate-metadata.json", "MANIFEST.sha256"} | {MAIN_WORKFLOW}
    assert graph["README.md"]["about"] == {"@id": "./"} and graph["README.md"]["encodingFormat"] == "text/markdown"
    for name in set(ids(root["hasPart"])) - {MAIN_WORKFLOW}:
        assert graph[name]["sha256"] == hashlib.sha256((crate_dir / name).read_bytes()).hexdigest(), name
    assert graph["results/paper/forest.svg"]["encodingFormat"] == "image/svg+xml"
    # one CreateAction per rule job: the lineage records' (rule, wildcards)
    records = [json.loads(p.read_text()) for p in (crate_dir / "results" / "lineage").rglob("*.json")]
    jobs = {(r["rule"], json.dumps(r["wildcards"], sort_keys=True)) for r in records if r["rule"] != "bundle"}
    actions = [e for e in metadata["@graph"] if e["@type"] == "CreateAction" and e["@id"] != "#run"]
    assert len(actions) == len(jobs)
    mentioned = set(ids(root["mentions"]))
    for action in [*actions, graph["#run"], graph["#engine-run"]]:
        assert action["@id"] in mentioned
        assert action["startTime"] <= action["endTime"]
        assert graph[action["agent"]["@id"]]["@type"] == "Person"
        for reference in [*ids(action["instrument"]), *ids(action.get("object", [])), *ids(action["result"])]:
            assert reference in graph, reference
    controls = [e for e in metadata["@graph"] if e["@type"] == "ControlAction"]
    assert {c["object"]["@id"] for c in controls} == {a["@id"] for a in actions} and all(
        c["@id"] in mentioned for c in controls
    )
    # each setting's files come from one job, linked to the ingests and the coverage design it
    # read, and an ingest to the job files it read
    made = {result: action for action in actions for result in ids(action["result"])}
    report = next(name for name in made if name.endswith("/report.md"))
    assert made[report] is made[report.replace("/report.md", "/summary.json")]
    assert (
        made[report]
        is made[report.replace("results/reports/", "results/settings/").replace("/report.md", "/stats.json")]
    )
    read = ids(made[report]["object"])
    assert any(name.startswith("results/ingest/") for name in read) and any(
        name.startswith("results/coverage/") for name in read
    )
    ingest = next(name for name in made if name.startswith("results/ingest/") and name.endswith("trials.json"))
    assert any(name.startswith("jobs/") and name.endswith("/result.json") for name in ids(made[ingest]["object"]))
    # the ledger comes from the same job as the trials it was read with
    assert made[ingest.replace("/trials.json", "/ledger.json")] is made[ingest]


@pytest.mark.parametrize("code_iri", [None, CODE_IRI, CODE_IRI + "/"])
def test_the_main_workflow_is_the_published_code_when_its_address_is_given(code_iri):
    """bundle.code_iri set: the main workflow is the web-based entity <code_iri>/Snakefile, with the
    bundled file's size and checksum, and the bundled file a copy of it; unset: the bundled file."""
    from benchreport.archive import rocrate

    record = {
        "rule": "report",
        "wildcards": {},
        "recorded_at": "2026-12-01T10:00:00+00:00",
        "code": {"sha256": "ab" * 32},
    }
    files = {WORKFLOW: (5, hashlib.sha256(b"rules").digest()), "results/report.md": (2, hashlib.sha256(b"ok").digest())}
    out = io.StringIO()
    rocrate.build(
        out,
        files,
        {"results/report.md": record},
        lambda path: None,
        config=json.dumps({"bundle": {"code_iri": code_iri}}).encode(),
        name="example",
        date="2026-12-01",
        license_id="CC-BY-4.0",
        snakemake_version="9.27.1",
    )
    graph = {entity["@id"]: entity for entity in json.loads(out.getvalue())["@graph"]}
    main = graph["./"]["mainEntity"]["@id"]
    parts = {part["@id"] for part in graph["./"]["hasPart"]}
    assert graph["#run"]["instrument"] == {"@id": main} and "ComputationalWorkflow" in graph[main]["@type"]
    if code_iri is None:
        assert main == WORKFLOW and parts == set(files)
        return
    assert main == MAIN_WORKFLOW and parts == {*files, MAIN_WORKFLOW}
    assert graph[main]["sdDatePublished"] == "2026-12-01" and graph[main]["url"] == MAIN_WORKFLOW
    assert (graph[main]["contentSize"], graph[main]["sha256"]) == ("5", files[WORKFLOW][1].hex())
    assert graph[WORKFLOW]["@type"] == "File" and MAIN_WORKFLOW in graph[WORKFLOW]["description"]


def test_the_crate_written_piece_by_piece_is_json_dumps_of_itself():
    """build writes the graph as its entities are made: the text is what json.dumps(indent=2)
    gives for the crate it holds, with the actions' inputs listed once however many outputs of a
    job share them (`sources_as`)."""
    from benchreport.archive import rocrate

    # a lone surrogate stands for a file name's undecodable byte: written as it is
    sources = [{"path": f"/data/jobs/j1/t__{i:08x}\udce9/result.json"} for i in range(30)]
    records = {
        "results/ingest/j1/trials.json": {
            "rule": "ingest",
            "wildcards": {"job": "j1"},
            "recorded_at": "2026-12-01T10:00:00+00:00",
            "started_at": "2026-12-01T09:59:00+00:00",
            "code": {"sha256": "cd" * 32},
            "sources": sources,
        },
        "results/ingest/j1/index.json": {
            "rule": "ingest",
            "wildcards": {"job": "j1"},
            "recorded_at": "2026-12-01T10:00:00+00:00",
            "code": {"sha256": "cd" * 32},
            "sources_as": "results/ingest/j1/trials.json",
        },
        "results/report.md": {
            "rule": "report",
            "wildcards": {},
            "recorded_at": "2026-12-01T10:01:00+00:00",
            "code": {"sha256": "ab" * 32},
            "inputs": [{"path": "results/ingest/j1/trials.json"}],
        },
    }
    files = {f"jobs/j1/t__{i:08x}\udce9/result.json": (i, hashlib.sha256(b"%d" % i).digest()) for i in range(30)}
    files |= {name: (1, hashlib.sha256(name.encode()).digest()) for name in [WORKFLOW, "README.md", *records]}

    def source_of(path: str) -> str | None:
        return path.removeprefix("/data/") if path.startswith("/data/") else None

    out = io.StringIO()
    rocrate.build(
        out,
        files,
        records,
        source_of,
        config=b"bundle: {}\n",
        name="exämple \u2028",
        date="2026-12-01",
        license_id="CC-BY-4.0",
        snakemake_version="9.27.1",
    )
    text = out.getvalue()
    crate = json.loads(text)
    assert text == json.dumps(crate, indent=2, ensure_ascii=False) + "\n"
    graph = {entity["@id"]: entity for entity in crate["@graph"]}
    ingest = next(entity for entity in graph.values() if entity.get("name") == "rule ingest (job=j1)")
    inputs = [part["@id"] for part in ingest["object"]]
    assert inputs == sorted(source_of(source["path"]) for source in sources)
    assert len(graph) == len(crate["@graph"])  # each entity once


AGENT = {
    "name": "A. Researcher",
    "id": "https://orcid.org/0000-0002-1825-0097",
    "affiliation": "Example Lab",
    "affiliation_url": "https://lab.example.org",
}


def small_crate(folder: Path, agent: dict | None) -> dict:
    """A crate of one rule job's output, the workflow and the README, written into `folder` as
    bundle.py writes a bundle's: its files, then ro-crate-metadata.json. Returns its graph."""
    from benchreport.archive import rocrate

    script = "workflow/scripts/report.py"
    contents = {
        WORKFLOW: b"rule report:\n",
        f"workflow-code/{script}": b"print()\n",
        "results/report.md": b"# report\n",
    }
    code = {"sha256": "ab" * 32, "files": {script: hashlib.sha256(b"print()\n").hexdigest()}}
    record = {"rule": "report", "wildcards": {}, "recorded_at": "2026-12-01T10:00:00+00:00", "code": code}
    records = {"results/report.md": record}
    contents["README.md"] = rocrate.readme_for({}, records, "small")
    for name, data in contents.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(data)
    out = io.StringIO()
    rocrate.build(
        out,
        {name: (len(data), hashlib.sha256(data).digest()) for name, data in contents.items()},
        records,
        lambda path: None,
        config=json.dumps({"bundle": {"code_iri": CODE_IRI, "agent": agent}}).encode(),
        name="small",
        date="2026-12-01",
        license_id="CC-BY-4.0",
        snakemake_version="9.27.1",
    )
    (folder / "ro-crate-metadata.json").write_text(out.getvalue())
    return {entity["@id"]: entity for entity in json.loads(out.getvalue())["@graph"]}


@pytest.mark.parametrize(
    "agent",
    [None, {"name": None, "id": None, "affiliation": None, "affiliation_url": None}, {"affiliation": "Example Lab"}],
)
def test_an_unset_agent_is_left_out_not_written_as_a_placeholder(tmp_path, monkeypatch, agent):
    """No person or organization stands in for who ran the workflow when config bundle.agent does
    not say: the crate says it is not recorded, and at RECOMMENDED level the validator asks only
    for what is missing (an author, a publisher, each action's agent; a named organization's web
    address), never for parts of a stand-in."""
    graph = small_crate(tmp_path / "unset", agent)
    named = [entity for entity in graph.values() if entity["@type"] in ("Person", "Organization")]
    assert all("not recorded" not in json.dumps(entity) for entity in named), named
    issues = recommended_issues(tmp_path / "unset", tmp_path / "http-cache", monkeypatch)
    if not (agent or {}).get("affiliation"):
        assert named == [] and "author" not in graph["./"] and "publisher" not in graph["./"]
        assert "who ran the workflow is not recorded (config bundle.agent)" in graph["./"]["description"]
    asked = {"author", "publisher", "agent", "organization SHOULD have a URL"}
    assert issues and all(any(word in message for word in asked) for _, _, message, _ in issues), issues


def test_a_fully_set_agent_leaves_the_validator_nothing_to_ask(tmp_path, monkeypatch):
    """With every part of config bundle.agent set, each action names its agent and the validator
    has no issue at RECOMMENDED level."""
    assert small_crate(tmp_path / "set", AGENT)["#job-0"]["agent"] == {"@id": AGENT["id"]}
    assert recommended_issues(tmp_path / "set", tmp_path / "http-cache", monkeypatch) == []
