"""The secret scanner: every shape and context it must catch, one label per value, and nothing
caught in ordinary content (the real BenchFlow folders)."""

from __future__ import annotations

import base64
import contextlib
import json

import pytest
from benchreport.read import secrets
from conftest import EXAMPLE, REPO, scan_and_spool
from hypothesis import given, settings
from hypothesis import strategies as st

ANTHROPIC = "sk-ant-api03-PLANTEDplantedPLANTED0123456789abcdef"
JWT = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dBjftJeZ4CVPmB92K27uhbUJU1p1r_wW1gFWFOEjXk"

PLANTED = [  # (text, the secret in it, its label)
    (f'{{"error": "invalid x-api-key {ANTHROPIC}"}}', ANTHROPIC, "anthropic api key"),
    (
        "OPENAI_API_KEY=sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789",
        "sk-proj-Abcdefghijklmnopqrstuvwxyz0123456789",
        "openai api key",
    ),
    ("key sk_live_51Habcdefghijklmnop0123", "sk_live_51Habcdefghijklmnop0123", "stripe secret key"),
    ("key rk_live_51Habcdefghijklmnop0123", "rk_live_51Habcdefghijklmnop0123", "stripe secret key"),
    ("aws AKIAIOSFODNN7EXAMPLE", "AKIAIOSFODNN7EXAMPLE", "aws access key id"),
    ("gh ghp_abcdefghijklmnopqrstuvwxyz0123456789", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github token"),
    ("gl glpat-abcdefghijklmnopqrst", "glpat-abcdefghijklmnopqrst", "gitlab token"),
    (
        '"temperature": "0.7 hf_abcdefghijklmnopqrstuvwxyz123456"',
        "hf_abcdefghijklmnopqrstuvwxyz123456",
        "hugging face token",
    ),
    ("g AIzaSyA-abcdefghijklmnopqrstuvwxyz12345", "AIzaSyA-abcdefghijklmnopqrstuvwxyz12345", "google api key"),
    ("s xoxb-1234567890-abcdefghij", "xoxb-1234567890-abcdefghij", "slack token"),
    ("x xai-abcdefghijklmnopqrstuvwx", "xai-abcdefghijklmnopqrstuvwx", "xai api key"),
    ("q gsk_abcdefghijklmnopqrstuvwx", "gsk_abcdefghijklmnopqrstuvwx", "groq api key"),
    (f"a token not after Bearer: {JWT} in a log", JWT, "jwt"),
    ('{"PassWord": "hunter22"}', "hunter22", "secret"),
    ('{"password":"correct horse"}', "correct horse", "secret"),
    ("postgres://alice:s3cr3t-pw@db.internal:5432/x", "s3cr3t-pw", "secret"),
    ("https://user:pa55word@example.org/repo.git", "pa55word", "secret"),
    (
        "Authorization: Basic " + base64.b64encode(b"bob:pw12345").decode(),
        base64.b64encode(b"bob:pw12345").decode(),
        "secret",
    ),
    ("authorization: bearer abcdefghijklmnop1234", "abcdefghijklmnop1234", "secret"),
    (
        "blob " + base64.b64encode(ANTHROPIC.encode()).decode(),
        base64.b64encode(ANTHROPIC.encode()).decode(),
        "base64 anthropic api key",
    ),
    (
        "cfg " + base64.b64encode(b'{"token": "hf_abcdefghijklmnopqrstuvwxyz123456"}').decode(),
        base64.b64encode(b'{"token": "hf_abcdefghijklmnopqrstuvwxyz123456"}').decode(),
        "base64 hugging face token",
    ),
    ("api_key=supersecretvalue&page=2", "supersecretvalue", "secret"),
    ("MY_SERVICE_KEY='abc def ghi'", "abc def ghi", "secret"),
    # split by JSON string escapes: the raw bytes hold no "sk-ant-"; ingest parses the JSON and
    # sees the key itself, so the label is the key's
    (
        '{"error": "bad key \\u0073k\\u002dant-api03-PLANTEDplantedPLANTED0123456789abcdef"}',
        "\\u0073k\\u002dant-api03-PLANTEDplantedPLANTED0123456789abcdef",
        "anthropic api key",
    ),
    (
        "https://x.org/cb?key=ghp%5Fabcdefghijklmnopqrstuvwxyz0123456789&page=2",
        "ghp%5Fabcdefghijklmnopqrstuvwxyz0123456789",
        "url-encoded github token",
    ),
    (
        "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
        "-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----",
        "private key",
    ),
    # found by what they are: shapes detect-secrets knows, keys by their entropy, blocks cut short
    (
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBGVxZmoBCADMq3b7\n=Xq9z\n"
        "-----END PGP PRIVATE KEY BLOCK-----\ndone",
        "-----BEGIN PGP PRIVATE KEY BLOCK-----\nVersion: GnuPG v2\n\nlQOYBGVxZmoBCADMq3b7\n=Xq9z\n"
        "-----END PGP PRIVATE KEY BLOCK-----",
        "private key",
    ),
    (
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\nAAAAEbm9uZQ\nFAILED test_x",
        "-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAABG5vbmU\nAAAAEbm9uZQ",
        "private key",
    ),
    ("machine api.example.org login bot password n3trc-Pw-x7", "n3trc-Pw-x7", "secret"),
    ("db.internal:5432:bench:runner:Pg9assW0rd", "Pg9assW0rd", "secret"),
    ("SECRET_KEY_BASE=deadbeef1234cafe", "deadbeef1234cafe", "secret"),
    ("PGPASSWORD=hunter22 psql", "hunter22", "secret"),
    ("Authorization: token t0k3nValue99", "t0k3nValue99", "secret"),
    ("Cookie: session=s3ss10nValue; theme=dark", "s3ss10nValue", "secret"),
    ("$ mysql -u root -pMysq1Pw bench", "Mysq1Pw", "secret"),
    ("DO dop_v1_" + "3f9a1c7e" * 8, "dop_v1_" + "3f9a1c7e" * 8, "digitalocean token"),
    ("aws idAKIAJ7QW2ER4TY6UI8OP used", "idAKIAJ7QW2ER4TY6UI8OP", "high-entropy string"),
    (
        "x \x1b[31mghp_Y5uI8oP2aS6dF9gH3jK7lZ1xC4vB8nM2qR0t\x1b[0m",
        "ghp_Y5uI8oP2aS6dF9gH3jK7lZ1xC4vB8nM2qR0t",
        "github token",
    ),
    ("key xai-Hq4Wn8Rk\u200b2Tz6Lp9Vd3Fs7Bm1Xc5Jg0Ny;", "xai-Hq4Wn8Rk\u200b2Tz6Lp9Vd3Fs7Bm1Xc5Jg0Ny", "xai api key"),
    (
        "new token zq_8Hf3Kd9Lm2Qw7Xv4Bn6Tr1Ys5Pc0Ga3Je8Wk issued",
        "8Hf3Kd9Lm2Qw7Xv4Bn6Tr1Ys5Pc0Ga3Je8Wk",
        "high-entropy string",
    ),
    (
        "bot MTk4NjIyNDgzNDcxOTI1MjQ4Mz.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
        "MTk4NjIyNDgzNDcxOTI1MjQ4Mz.Cl2FMQ.ZnCjm1XVW7vRze4b7Cq4se7kKWs",
        "discord bot token",
    ),
    ("dump " + b"xai-Tz6Lp9Vd3Fs7Bm1Xc5Jg0Ny".hex(), b"xai-Tz6Lp9Vd3Fs7Bm1Xc5Jg0Ny".hex(), "hex xai api key"),
    (
        "blob " + base64.b64encode(base64.b64encode(ANTHROPIC.encode())).decode(),
        base64.b64encode(base64.b64encode(ANTHROPIC.encode())).decode(),
        "base64 base64 anthropic api key",
    ),
]


@pytest.mark.parametrize("text,secret,kind", PLANTED, ids=[kind + str(i) for i, (_, _, kind) in enumerate(PLANTED)])
def test_each_planted_secret_is_found_and_labelled_by_its_value(text, secret, kind):
    clean, kinds = secrets.redact_text(text)
    assert secret not in clean and f"[REDACTED:{kind}]" in clean, clean
    assert kinds == [kind]
    data, hits = secrets.redact_hits(text.encode())
    assert data == clean.encode() and [kind for kind, _ in hits] == kinds
    # the signature ingest uses: spans in order, never overlapping
    spans = secrets.find(text)
    assert [text[start:end] for start, end, _ in spans] == [secret]


@pytest.mark.parametrize(
    "text",
    [
        "sha256 e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855",
        "run 123e4567-e89b-12d3-a456-426614174000",
        '"max_tokens": 4096, "n_input_tokens": 12, "tokenizer": "cl100k_base", "eos_token": "<|endoftext|>"',
        "task desk-organizer-with-many-long-words and sk-learn-compatible-estimator-task",
        "the basic arithmetic problem; Cost per token: $0.0001",
        '"password": "${DB_PASSWORD}", "api_key": "<your key>", "token": null, "secret": "[REDACTED:secret]"',
        "data " + base64.b64encode(b"a perfectly ordinary sentence, base64 encoded for transport").decode(),
        "git+ssh://git@github.com/org/repo.git and https://example.org/a:b",
        "caf\\u00e9 at 100% and a%20b and https://example.org/search?q=sk%20learn",
    ],
)
def test_ordinary_content_is_left_alone(text):
    assert secrets.find(text) == []


@pytest.mark.parametrize(
    "text",
    [t for t, _, _ in PLANTED] + ['{"key": "[REDACTED:anthropic api key]", "ANTHROPIC_API_KEY": "[REDACTED:secret]"}'],
)
def test_redaction_is_idempotent(text):
    """Text redacted once (a bundle's inputs) redacts to itself, even when its marks are handed
    back as known values (an agent_env value that is a mark)."""
    once = secrets.redact_text(text)[0]
    marks = secrets.REDACTED_MARK.findall(once)
    assert secrets.redact_text(once, [f"[REDACTED:{kind}]" for kind in marks])[0] == once


def test_a_key_split_over_streamed_deltas_is_found_where_they_are_joined():
    pieces = [ANTHROPIC[:16], ANTHROPIC[16:]]
    text = "\n".join(
        json.dumps({"type": "content_block_delta", "delta": {"type": "text_delta", "text": piece}}) for piece in pieces
    )
    clean, kinds = secrets.redact_text(text)
    assert not any(piece in clean for piece in pieces) and len(kinds) == 2
    assert [rule for *_, rule in secrets.find_rules(text)] == [secrets.RULE_DELTAS, secrets.RULE_DELTAS]


def test_an_agent_env_value_is_secret_by_its_name_or_by_looking_random():
    env = {"MY_SERVICE_CREDS": "plain-words", "SVC": "Vq7Rt2Yp9Lm4Xc8Nz3Kb6Wd1Hs5Gf0Ja", "LOG_LEVEL": "info", "N": "1"}
    assert secrets.secret_env_values(env) == ["plain-words", "Vq7Rt2Yp9Lm4Xc8Nz3Kb6Wd1Hs5Gf0Ja"]


def test_the_review_lists_random_strings_the_redaction_left_and_nothing_of_the_example():
    below = "run id k3v9q2x7m4p8w1z6r5t0 and model claude-sonnet-4-5-20250929 at /srv/jobs/x__0123abcd"
    assert [(below[start:end], rule) for start, end, rule in secrets.review_findings(below)] == [
        ("k3v9q2x7m4p8w1z6r5t0", secrets.RULE_REVIEW)
    ]
    assert secrets.find(below) == []
    found = []
    for path in sorted(p for p in EXAMPLE.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8", errors="surrogateescape")
        found += [text[max(0, start - 15) : start] for start, _, _ in secrets.review_findings(text)]
    assert found and all(before.endswith("OPENAI_API_KEY=") for before in found), found


def test_the_workflow_code_a_bundle_publishes_holds_nothing_that_looks_like_a_secret():
    for path in sorted(p for p in (REPO / "workflow").rglob("*") if p.is_file() and "__pycache__" not in p.parts):
        text = path.read_bytes().decode("utf-8", errors="surrogateescape")
        assert secrets.review_findings(text) == [], path


def test_the_real_benchflow_folders_hold_no_secret_but_their_dummy_keys():
    """Every file of the real BenchFlow folders (contents and names): the only hits are the
    OPENAI_API_KEY=... values BenchFlow's own nop-agent command lines carry."""
    found = []
    for path in sorted(p for p in EXAMPLE.rglob("*") if p.is_file()):
        text = path.read_bytes().decode("utf-8", errors="surrogateescape")
        found += [(path.name, text[max(0, start - 15) : start]) for start, _, _ in secrets.find(text)]
        assert secrets.find(path.relative_to(EXAMPLE).as_posix()) == []
    assert found and all(before.endswith("OPENAI_API_KEY=") for _, before in found), found


def test_a_known_value_is_found_in_any_case_with_the_label_of_its_value():
    text = "served anthropic/sk-ant-api03-plantedplantedplanted0123456789abcdef; again SK-ANT-API03-PLANTEDPLANTEDPLANTED0123456789ABCDEF"
    clean, kinds = secrets.redact_text(text, [ANTHROPIC])
    assert kinds == ["anthropic api key", "anthropic api key"] and "planted" not in clean.lower()
    known, hits = secrets.redact_known_hits(text.encode(), [ANTHROPIC])
    assert (known, [kind for kind, _ in hits]) == (clean.encode(), kinds)
    assert secrets.redact_known_hits(b"nothing here", [ANTHROPIC]) == (b"nothing here", [])


def test_a_secret_seen_once_is_redacted_everywhere_in_the_bundle_with_one_label(tmp_path):
    """Found by its context in one file, the value is redacted in every other file and in file
    and folder names, with the same label; short values only where found."""
    sources = {
        "jobs/a/t__1/config.json": json.dumps(
            {"agent_env": {"MY_DB_PASSWORD": "hunter2-hunter2"}, "note": {"password": "pw1"}}
        ).encode(),
        "jobs/a/t__1/result.json": b'{"error": "login failed for hunter2-hunter2 (pw1 is fine here)"}',
        "jobs/a/t__1/agent/hunter2-hunter2.log": b"plain",
        f"jobs/a/{ANTHROPIC}__0123abcd/result.json": b'{"ok": true}',
        "results/reports/x/report.md": f"model {ANTHROPIC.lower()}".encode(),
        "results/index.md": b"nothing secret at all",
    }
    plan = {name: ("bytes", data) for name, data in sources.items()}
    entries, directories, hits = scan_and_spool(plan, {"jobs/a", f"jobs/a/{ANTHROPIC}__0123abcd"}, tmp_path)
    names = set(entries)
    assert "jobs/a/t__1/agent/[REDACTED:secret].log" in names
    assert "jobs/a/[REDACTED:anthropic api key]__0123abcd/result.json" in names
    assert "jobs/a/[REDACTED:anthropic api key]__0123abcd" in directories
    for name in names:
        data = entries[name]
        assert b"hunter2-hunter2" not in data and ANTHROPIC.lower().encode() not in data.lower(), name
        assert entries.hashes[name] == __import__("hashlib").sha256(data).hexdigest()
    assert entries["jobs/a/t__1/result.json"] == b'{"error": "login failed for [REDACTED:secret] (pw1 is fine here)"}'
    assert entries["results/reports/x/report.md"] == b"model [REDACTED:anthropic api key]"
    assert entries["results/index.md"] == b"nothing secret at all"
    assert {(hit["file"], hit["kind"]) for hit in hits} >= {
        ("jobs/a/t__1/result.json", "secret"),
        ("results/reports/x/report.md", "anthropic api key"),
        ("jobs/a/t__1/agent/[REDACTED:secret].log", "secret"),
    }
    assert all("hunter2" not in json.dumps(hit) for hit in hits)
    entries.spool.close()


def test_labels_never_depend_on_where_a_value_stands():
    """The same value found by its shape, by a key name, after Bearer: one label, so an output
    made from a redacted input equals the redacted output."""
    texts = [f"{ANTHROPIC}", f'"api_key": "{ANTHROPIC}"', f"Bearer {ANTHROPIC}", f"x-api-key: {ANTHROPIC}"]
    assert {tuple(secrets.redact_text(t)[1]) for t in texts} == {("anthropic api key",)}
    once, _ = secrets.redact_text(f"error: {ANTHROPIC}")
    assert secrets.redact_text(once) == (once, [])  # redacting again changes nothing


def test_only_a_mark_redaction_writes_is_left_as_redacted():
    """A mark is what `label` can write; a bracket that only looks like one keeps nothing from
    being found, alone or when it opens in one string of a joined search and closes in the next."""
    key = "sk-ant-" + "abcdefghij" * 3
    for text in (f"[REDACTED: see {key}]", f"a [REDACTED:note\nb {key} done]"):
        assert key not in secrets.redact_text(text)[0]
    for kind in ("secret", "anthropic api key", "base64 jwt", "url-encoded openai api key"):
        assert secrets.REDACTED_MARK.fullmatch(f"[REDACTED:{kind}]")


def test_names_searched_at_once_show_as_each_searched_alone():
    """ingest.shown_names searches the ASCII names joined: every name comes out as
    redact_text(printable(name)) gives it, whatever the names beside it."""
    key = "sk-ant-" + "abcdefghij" * 3
    names = [
        "result.json",
        f"{key}__0123abcd",  # a key as a task name: "__<8 hex>" kept
        "a -----BEGIN RSA PRIVATE KEY-----",
        f"b {key}",
        "c -----END RSA PRIVATE KEY-----",
        "x [REDACTED:note",
        f"y {key} done]",
        "[REDACTED:anthropic api key]__0123abcd",
        "password=hunter22",
        "Bearer",
        "abcdefghijklmnopqrstuvwx",
        "to\u212aen=abcdefgh12",  # KELVIN SIGN: lower-cases to an ASCII k
        "\u0130 token=abcdefgh12",  # lower-cases to two characters
        "caf\u00e9 sk%2Dant%2D" + "abcdefghij" * 3,
        "api_key",
        "=abcdefgh12",
        "odd\udcff-name",
        "plain-task__89abcdef",
    ]
    from benchreport.read import ingest
    from benchreport.read.discover import redact_text
    from benchreport.read.files import printable

    alone = {name: redact_text(printable(name))[0] for name in names}
    assert ingest.shown_names(names) == alone
    assert all(key not in shown for shown in alone.values())


# Texts rich in what the scanner looks for: the stems and words, the characters around them, and
# characters outside ASCII (one that lower-cases to an ASCII letter, one to two characters, an
# escaped byte), in pieces a key is made of.
SCANNED_PIECES = [
    *secrets.BY_STEM,
    *secrets.SECRET_WORDS,
    *secrets.SCHEMES,
    *secrets.ENV_SUFFIXES,
    "://",
    "u:pw@h",
    "sk-ant-",
    "ghp_",
    "-----END RSA PRIVATE KEY-----",
    "\\u0073",
    "%2D",
    "[REDACTED:secret]",
    "__0123abcd",
    "high",
    "task",
    "Bearer ",
    "OPENAI",
    "c2stYW50LWFwaTAzLWFiY2RlZmdoaWprbG1ub3BxcnN0",  # base64 of an Anthropic key
    "0123456789abcdef" * 2,
    *(f"YWJjZGVmZ2hpamtsbW5vcHFyc3R1dnd4eXo{'=' * padding}" for padding in range(4)),  # base64 of a-z
    *"=:'\"\n\t ?/+_-.\0\u00e9\u0130\u212a\u0663\udcff\ud800",
]
scanned_texts = st.lists(
    st.one_of(st.sampled_from(SCANNED_PIECES), st.text(alphabet="abcXYZ019+/=_-.", max_size=30), st.text(max_size=3)),
    max_size=40,
).map("".join)


@contextlib.contextmanager
def without_the_automaton():
    """Every Literals searching by str.find, as where ahocorasick_rs is not installed (and label's
    cache emptied, so that no label found with the automaton is reused)."""
    every = [value for value in vars(secrets).values() if isinstance(value, secrets.Literals)]
    saved = [places._automaton for places in every]
    for places in every:
        places._automaton = None
    secrets.label.cache_clear()
    try:
        yield
    finally:
        for places, automaton in zip(every, saved):
            places._automaton = automaton
        secrets.label.cache_clear()


@settings(max_examples=400, deadline=None)
@given(scanned_texts)
def test_the_automaton_finds_each_literal_where_str_find_does(text):
    """Literals.places: every place str.find finds, overlapping ones too, at the text's own
    offsets whatever characters outside ASCII stand before; with `before`, those after a
    character that is not a word's (the start of the text too). The same with and without the
    automaton."""
    stems = secrets.STEM_PLACES
    with_the_automaton = [places.places(text) for places in (stems, secrets.KEY_PLACES, secrets.ENV_PLACES)]
    with without_the_automaton():
        assert with_the_automaton == [places.places(text) for places in (stems, secrets.KEY_PLACES, secrets.ENV_PLACES)]
    every = sorted(
        (index, start)
        for index, stem in enumerate(stems.literals)
        for start in range(len(text))
        if text.startswith(stem, start)
    )
    assert with_the_automaton[0] == [
        (index, start) for index, start in every if not (start and text[start - 1] in secrets.WORD_CHARS)
    ]


@settings(max_examples=300, deadline=None)
@given(scanned_texts)
def test_the_scan_finds_the_same_without_the_automaton(text):
    """Where ahocorasick_rs is not installed (the conda env), str.find loops give every place and
    the scanner's own checks drop the rest: the same spans, labels and redacted text."""
    found = secrets.find(text, ("Mixed-Case-Known",))
    redacted = secrets.redact_text(text)
    with without_the_automaton():
        assert secrets.find(text, ("Mixed-Case-Known",)) == found
        assert secrets.redact_text(text) == redacted


@pytest.mark.parametrize("label", secrets.LABELS)
def test_a_name_made_from_a_redaction_mark_is_no_secret(label):
    """A folder's id made from a redacted name (its slug and a hash) and an image name made from a
    redacted task name, in Docker's message: nothing found, whatever the hash; a key or a
    secret-named key beside such a name still is."""
    from benchreport.read.discover import safe_part
    from benchreport.read.environment import sanitise_image_name

    mark = f"[REDACTED:{label}]"
    for number in range(40):
        folder_id = safe_part(f"run{number}-{mark}")[0]
        image = sanitise_image_name(f"bf__fix{number}-{mark}")
        text = f"{folder_id}/trials.json: Error parsing reference: {image}: invalid reference format"
        assert secrets.find_rules(text) == [], text
    key = "Zx81Kq0Lm2Nv4Bc6Xa9Wd7Yb5"
    beside = f"{safe_part(f'run-{mark}')[0]}-{key} password=hunter22"
    found = [beside[start:end] for start, end, _, _ in secrets.find_rules(beside)]
    assert len(found) == 2 and key in found[0] and found[1] == "hunter22", found
