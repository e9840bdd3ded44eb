"""The bundle's RO-Crate, checked by roc-validator against the profiles it declares, offline.

roc-validator ships the profiles; the one thing it fetches is the RO-Crate 1.1 JSON-LD context,
through its HTTP cache (requests_cache). The test puts the copy stored under tests/data/rocrate/
(the published context, CC0) into a fresh cache, runs the validator in offline mode (cache
only) and blocks every socket, so a missing file fails the test instead of reaching the network.
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

STORED = {"https://w3id.org/ro/crate/1.1/context": REPO / "tests" / "data" / "rocrate" / "ro-crate-1.1-context.jsonld"}
# The one RECOMMENDED check a crate that carries its own workflow cannot pass, validated from a
# folder: roc-validator's shape for it (process-run-crate should/0_software-application.ttl,
# ProcRCSoftwareApplicationID) wants every SoftwareApplication, SoftwareSourceCode and
# ComputationalWorkflow IRI to start with http, while Workflow RO-Crate 1.0 REQUIRES the main
# workflow to be a File, and roc-validator REQUIRES that file found in the crate: a relative @id
# is then file://, an absolute http one is looked up over the network (crs4/rocrate-validator
# issue 51, open), and an @base in the context makes every file a web-based entity (a
# RECOMMENDED sdDatePublished on each). The Process Run Crate 0.5 text allows it: the @id
# "SHOULD be an absolute URI, but MAY be a relative URI to a data entity in the crate". The test
# allows exactly that check on exactly the main workflow; the engine and every rule's code
# (bundle.code_iri set) pass it.
UNREACHABLE = "process-run-crate-0.5_5.1"
WORKFLOW = "workflow-code/Snakefile"
# where the test says the workflow's code is published (example.org: a name reserved for examples)
CODE_IRI = "https://code.example.org/benchreport/0.1.0"
pytestmark = pytest.mark.slow  # a bundle run (~70 s here) and a validation (~25 s)


@pytest.fixture(scope="module")
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


def stored_cache(path: Path) -> Path:
    """An HTTP cache holding the stored copies, as roc-validator's offline mode reads it."""
    import requests
    import requests_cache
    import urllib3

    class Stored(requests.adapters.HTTPAdapter):
        def send(self, request, **kwargs):
            body = io.BytesIO(STORED[request.url].read_bytes())
            raw = urllib3.HTTPResponse(
                body=body,
                headers={"Content-Type": "application/ld+json"},
                status=200,
                preload_content=False,
                request_url=request.url,
            )
            return self.build_response(request, raw)

    session = requests_cache.CachedSession(str(path), backend="sqlite", expire_after=-1)
    session.mount("https://", Stored())
    for url in STORED:
        assert session.get(url).status_code == 200
    session.close()
    return path


def test_the_crate_passes_its_profiles_offline(crate_dir, tmp_path, monkeypatch):
    services = pytest.importorskip("rocrate_validator.services", reason="pip install -r requirements-test.txt")
    from rocrate_validator import models

    cache = stored_cache(tmp_path / "http-cache")

    def no_network(self, address, *args):
        raise OSError(f"the test is offline: {address}")

    monkeypatch.setattr(socket.socket, "connect", no_network)
    metadata = json.loads((crate_dir / "ro-crate-metadata.json").read_text())
    declared = {entry["@id"] for entry in next(e for e in metadata["@graph"] if e["@id"] == "./")["conformsTo"]}
    assert "https://w3id.org/ro/wfrun/provenance/0.5" in declared  # the profile that inherits the others
    settings = services.ValidationSettings(
        rocrate_uri=str(crate_dir),
        profile_identifier="provenance-run-crate",
        requirement_severity=models.Severity.RECOMMENDED,
        offline=True,
        cache_path=cache,
    )
    result = services.validate(settings)
    issues = [
        (issue.severity.name, issue.check.identifier, issue.message, issue.violatingPropertyValue)
        for issue in result.get_issues()
    ]
    assert not [issue for issue in issues if issue[0] == "REQUIRED"], issues
    # every issue is the one check, on the main workflow's IRI alone (once per type it has)
    others = [
        issue for issue in issues if issue[1] != UNREACHABLE or str(issue[3]) != f"{crate_dir.as_uri()}/{WORKFLOW}"
    ]
    assert not others, sorted(set(others))
    assert issues, "the main workflow's file:// IRI is no longer flagged: make this test strict"
    # the tools the actions' instruments name have absolute http IRIs: Snakemake, each rule's code
    graph = {entity["@id"]: entity for entity in metadata["@graph"]}
    tools = {
        entity["instrument"]["@id"]
        for entity in metadata["@graph"]
        if entity["@type"] in ("CreateAction", "OrganizeAction")
    }
    assert tools - {WORKFLOW} and all(tool.startswith(("https://", "http://")) for tool in tools - {WORKFLOW}), tools
    code = {key for key, entity in graph.items() if "SoftwareSourceCode" in entity["@type"]} - {WORKFLOW}
    assert code and all(key.startswith(f"{CODE_IRI}#rule-") for key in code), code


def test_one_action_per_rule_job_with_times_agent_and_checksums(crate_dir):
    metadata = json.loads((crate_dir / "ro-crate-metadata.json").read_text())
    assert metadata["@context"][1] == {"sha256": "http://schema.org/sha256"}  # a defined term
    graph = {entity["@id"]: entity for entity in metadata["@graph"]}
    root = graph["./"]
    ids = lambda value: [item["@id"] for item in (value if isinstance(value, list) else [value])]  # noqa: E731
    # every file but the metadata itself and the manifest (made last, over both), README included
    files = {p.relative_to(crate_dir).as_posix() for p in crate_dir.rglob("*") if p.is_file()}
    assert set(ids(root["hasPart"])) == files - {"ro-crate-metadata.json", "MANIFEST.sha256"}
    assert graph["README.md"]["about"] == {"@id": "./"} and graph["README.md"]["encodingFormat"] == "text/markdown"
    for name in ids(root["hasPart"]):
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
    # each report is linked to the stats it came from, and an ingest to the job files it read
    made = {result: action for action in actions for result in ids(action["result"])}
    report = next(name for name in made if name.endswith("/report.md"))
    assert any(name.startswith("results/settings/") for name in ids(made[report]["object"]))
    ingest = next(name for name in made if name.startswith("results/ingest/") and name.endswith("trials.json"))
    assert any(name.startswith("jobs/") and name.endswith("/result.json") for name in ids(made[ingest]["object"]))
    # the ledger comes from the same job as the trials it was read with
    assert made[ingest.replace("/trials.json", "/ledger.json")] is made[ingest]
