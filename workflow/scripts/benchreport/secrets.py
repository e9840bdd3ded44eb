"""Find and redact secrets in text that is about to leave the machine (results/, a bundle).

What counts as a secret: the shapes of the common providers' keys (OpenAI, Anthropic, AWS, GitHub,
GitLab, Hugging Face, Google, Slack, Stripe, xAI, Groq, ...), JWTs anywhere, Bearer and Basic
authorization headers, private-key blocks, passwords in URLs, values assigned to a secret-named
key in any case (`"password": ...`, `OPENAI_API_KEY=...`, `x-api-key: ...`), base64 that wraps
any of these, any of these written with JSON escapes or percent-encoding, and values the caller
already knows are secret.

A hit is replaced by "[REDACTED:<label>]", which keeps JSON valid. Redaction is idempotent:
nothing inside such a mark is ever found again, and a mark is no known secret value, so text
redacted once (a bundle's inputs) redacts to itself. The label depends only on the
secret's own value (`label`), never on where it was found, so the same value gets the same text in
every file and every stage: an output computed from a redacted input equals the redacted output,
which is what lets a redacted bundle verify. The caller learns the label, never the value.
"""

from __future__ import annotations

import base64
import binascii
import functools
import re
import urllib.parse

try:
    import ahocorasick_rs
except ImportError:  # not in the conda env (workflow/envs/make_env.py): Literals searches by str.find
    ahocorasick_rs = None

# (label, literal prefixes, pattern matched where a prefix stands): the whole match is the secret
# and its shape names it. The prefixes are found by their stems (Literals), the patterns only tried there.
SHAPES = [
    ("private key", ("-----BEGIN ",), r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----"),
    ("anthropic api key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai api key", ("sk-",), r"sk-(?:proj-|svcacct-|admin-|or-v1-)?(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{32,}"),
    ("stripe secret key", ("sk_live_", "rk_live_", "sk_test_", "rk_test_"), r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    (
        "aws access key id",
        ("AKIA", "ASIA", "AGPA", "AIDA", "AROA"),
        r"A(?:KIA|SIA|GPA|IDA|ROA)[0-9A-Z]{16}(?![0-9A-Za-z])",
    ),
    (
        "github token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})",
    ),
    (
        "gitlab token",
        ("glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glsoat-", "glffct-", "glagent-", "gloas-"),
        r"gl(?:pat|dt|rt|ptt|cbt|soat|ffct|agent|oas)-[A-Za-z0-9_-]{20,}",
    ),
    ("hugging face token", ("hf_",), r"hf_[A-Za-z0-9]{30,}"),
    ("google api key", ("AIza",), r"AIza[0-9A-Za-z_-]{35}"),
    ("google oauth token", ("ya29.",), r"ya29\.[0-9A-Za-z_-]{20,}"),
    ("slack token", ("xoxa-", "xoxb-", "xoxp-", "xoxo-", "xoxs-", "xoxr-", "xoxe-"), r"xox[abposre]-[A-Za-z0-9-]{10,}"),
    ("slack webhook", ("https://hooks.slack.com/",), r"https://hooks\.slack\.com/services/[A-Za-z0-9/_-]{20,}"),
    ("xai api key", ("xai-",), r"xai-[A-Za-z0-9]{20,}"),
    ("groq api key", ("gsk_",), r"gsk_[A-Za-z0-9]{20,}"),
    ("replicate token", ("r8_",), r"r8_[A-Za-z0-9]{20,}"),
    ("perplexity api key", ("pplx-",), r"pplx-[A-Za-z0-9]{20,}"),
    ("npm token", ("npm_",), r"npm_[A-Za-z0-9]{36}"),
    ("pypi token", ("pypi-AgE",), r"pypi-AgE[A-Za-z0-9_-]{50,}"),
    ("sendgrid api key", ("SG.",), r"SG\.[A-Za-z0-9_-]{22}\.[A-Za-z0-9_-]{43}"),
    ("databricks token", ("dapi",), r"dapi[0-9a-f]{32}"),
    ("jwt", ("eyJ",), r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
]
SHAPES = [(kind, prefixes, re.compile(pattern, re.S)) for kind, prefixes, pattern in SHAPES]
ATTEMPT_SUFFIX = re.compile(r"__[0-9a-f]{8}$")  # BenchFlow's attempt folders are <task>__<8 hex>
# a shape starts here, not inside a word ("__" before it is a file name's; "desk-" is not "sk-")
WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
SECRET_WORDS = (
    "api_key",
    "api-key",
    "apikey",
    "access_key",
    "access-key",
    "secret_key",
    "secret-key",
    "private_key",
    "private-key",
    "secret",
    "password",
    "passwd",
    "passphrase",
    "token",
    "credential",
    "credentials",
    "authorization",
)
NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
ENV_SUFFIXES = ("_KEY", "_PASS", "_PAT")  # upper-case env names (TOKEN, SECRET, PASSWORD: any case above)
# after a secret-named key: an optional closing quote, = or :, an optional opening quote, the value
ASSIGNED = re.compile(
    r"""(["']?)[ \t]*[=:](?:\s*"((?:[^"\\]|\\.){4,})"|[ \t]*'([^'\n]{4,})'|"""
    r"""[ \t]*([^\s'"#,;&<>\\()\[\]{}]{4,})(?=[\s'"#,;&<>\\]|$))"""
)
BASE64_CLASS = "A-Za-z0-9+/"  # the base64 characters, as the inside of a pattern's [...]
BASE64_MIN_RUN = 24  # a run this long may be a key pasted base64-encoded; shorter ones are words
SCHEMES = {
    "bearer": re.compile(r"\s+([A-Za-z0-9._~+/=-]{16,})"),
    "basic": re.compile(rf"\s+([{BASE64_CLASS}]{{8,}}={{0,2}})(?![{BASE64_CLASS}=])"),
}
URL_CREDENTIALS = re.compile(r"[^\s:/?#@\"'<>\\]+:([^\s/?#@\"'<>\\]+)@")
# a value found by its context that is one of these is a placeholder, a number or a reference
NOT_A_SECRET = re.compile(
    r"(?i)^(?:\[REDACTED[^\]]*\]?|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\[[A-Z_]+\]|\*+|x+|"
    r"true|false|null|none|nil|undefined|required|optional|redact|redacted|hidden|bearer|basic|digest|\.\.\..*|"
    r"[$~]?[-+]?[0-9][0-9.,:eE+-]*[%a-z]{0,3}|[0-9a-f]{64})$"
)
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
HEX = re.compile(r"[0-9a-f]+")
# a value this long, once found, is redacted wherever it appears (shorter ones only where found)
PROPAGATE_MIN = 8
SECRET_NAME = "(?:[A-Za-z0-9_.-]*[_.-])?(?:" + "|".join(map(re.escape, SECRET_WORDS)) + ")"
# what redaction writes, and only that (a label `label` can give): found in text already redacted
# (a bundle's inputs), never redacted again. Any text between "[REDACTED:" and "]" would let a
# key inside brackets, or a string that opens one ("[REDACTED: see sk-ant-...]"), stand.
_LABELS = sorted({kind for kind, _, _ in SHAPES}, key=lambda kind: (-len(kind), kind))
REDACTED_MARK = re.compile(
    r"\[REDACTED:((?:(?:base64|url-encoded) )?(?:" + "|".join(map(re.escape, _LABELS)) + r")|secret)\]"
)
SECRET_ENV_NAME = re.compile(rf"^{SECRET_NAME}$|^[A-Z][A-Z0-9_]*(?:_KEY|_PASS|_PAT)$", re.I)


@functools.lru_cache(maxsize=4096)
def _secret_env_name(name: str) -> bool:
    """Whether an agent_env name says its value is secret. Cached: every attempt of a run names
    the same few variables, and the pattern backtracks over each separator of a long name
    (3 µs for CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: 1% of an ingest of plain attempts)."""
    return SECRET_ENV_NAME.match(name) is not None


def secret_env_values(agent_env) -> list[str]:
    """Values of agent_env entries whose names say they are secret (BenchFlow drops most itself)."""
    if not isinstance(agent_env, dict):
        return []
    return [
        str(value)
        for name, value in agent_env.items()
        if _secret_env_name(str(name)) and isinstance(value, str) and len(value) >= 4 and not NOT_A_SECRET.match(value)
    ]


class Literals:
    """Where literals stand in a text: one pass of an Aho-Corasick automaton (ahocorasick_rs, Rust)
    finds them all at ~1-3 ns a character, where a str.find loop per literal costs ~0.5 ns a
    character each: the bundle's first pass searches ~50 literals in ~1 GB.

    The automaton reads the text encoded as ASCII with each other character as "?", so that its
    offsets are the text's, after a "\0" that stands for the text's start. Given `before`, it finds
    a literal only after one of those characters ("\0": at the start; "?": after any character
    outside ASCII), which is how _shapes skips the "gh" of every "high" without a Python check.
    Without the package, str.find loops give the same places, slower."""

    def __init__(self, literals, before: str = ""):
        self.literals = tuple(literals)
        if any("?" in literal or "\0" in literal for literal in self.literals):
            raise ValueError("a literal with a '?' or a '\\0' would match where another character stands")
        self.before = "".join(sorted(set(before)))
        self._before = self.before.encode("ascii")
        patterns = [(char + literal).encode("ascii") for literal in self.literals for char in self.before or [""]]
        self._owners = [index for index in range(len(self.literals)) for _ in self.before or [""]]
        self._shift = 0 if before else -1  # from a match's start in "\0" + text to the literal's in text
        self._automaton = ahocorasick_rs.BytesAhoCorasick(patterns) if ahocorasick_rs else None

    def places(self, text: str) -> list[tuple[int, int]]:
        """(literal index, start), sorted: every place (after a `before` character, with one)."""
        if self._automaton is None:
            return self.searched(text)
        owners, shift = self._owners, self._shift
        found = self._automaton.find_matches_as_indexes(b"\0" + text.encode("ascii", "replace"), overlapping=True)
        return sorted([(owners[pattern], start + shift) for pattern, start, _ in found])

    def searched(self, text: str) -> list[tuple[int, int]]:
        """places, by str.find loops."""
        found = []
        for index, literal in enumerate(self.literals):
            start = text.find(literal)
            while start >= 0:
                char = text[start - 1] if start else "\0"
                if not self._before or char.encode("ascii", "replace") in self._before:
                    found.append((index, start))
                start = text.find(literal, start + 1)
        return found


NOT_WORD = "".join(char for char in map(chr, range(128)) if char not in WORD_CHARS)  # with "?" and "\0"


# each prefix is searched by its stem: one place of "sk" serves sk-ant-, sk-, sk_live_, sk_test_
STEMS = ("sk", "gh", "gl", "xox")
BY_STEM: dict[str, list] = {}
for _kind, _prefixes, _pattern in SHAPES:
    for _prefix in _prefixes:
        BY_STEM.setdefault(next((s for s in STEMS if _prefix.startswith(s)), _prefix), []).append(
            (_prefix, _kind, _pattern)
        )
STEM_PLACES = Literals(BY_STEM, before=NOT_WORD)
SHAPES_BY_STEM = list(BY_STEM.values())


def _shapes(text: str) -> list[tuple[int, int, str]]:
    found = []
    for index, start in STEM_PLACES.places(text):  # each after a non-word character: "desk-" is not "sk-"
        for prefix, kind, pattern in SHAPES_BY_STEM[index]:
            match = pattern.match(text, start) if text.startswith(prefix, start) else None
            if match:
                end = match.end()
                if ATTEMPT_SUFFIX.match(text, end - 10, end):  # a key as a task name: keep "__<8 hex>"
                    end -= 10
                found.append((start, end, kind))
                break
    return found


# the base64 characters as 1, every other byte as 0: a long run is BASE64_MIN_RUN ones in a row
BASE64_MARKS = bytes(re.fullmatch(f"[{BASE64_CLASS}]", chr(code)) is not None for code in range(256))
LONG_RUN = b"\x01" * BASE64_MIN_RUN


def _base64_runs(text: str) -> list[tuple[int, int]]:
    """(start, end) of each run of BASE64_MIN_RUN or more base64 characters and the up to two "="
    after it, leftmost first (the matches of [A-Za-z0-9+/]{24,}={0,2}), each found by bytes.find
    of LONG_RUN in the text's translation to BASE64_MARKS (~1 ns a character; that pattern tries a
    start at each character of every shorter word, ~12 ns). The text is encoded with each other
    character as one "?", which is no base64 character, so that the offsets are the text's."""
    marks = text.encode("ascii", "replace").translate(BASE64_MARKS)
    runs, start = [], marks.find(LONG_RUN)
    while start >= 0:
        end = marks.find(b"\0", start + len(LONG_RUN))
        end = len(marks) if end < 0 else end
        padded = end
        while padded < end + 2 and text.startswith("=", padded):  # ={0,2}
            padded += 1
        runs.append((start, padded))
        start = marks.find(LONG_RUN, padded)
    return runs


def _base64_wrapped(text: str) -> list[tuple[int, int, str]]:
    """Runs of base64 whose decoded text holds a secret shape (a key pasted base64-encoded).
    Hex runs (sha256 digests) are skipped undecoded."""
    found = []
    for start, end in _base64_runs(text):
        run = text[start:end].rstrip("=")
        if HEX.fullmatch(run):
            continue
        try:
            decoded = base64.b64decode(run + "=" * (-len(run) % 4), validate=True)
        except (binascii.Error, ValueError):
            continue
        inner = _shapes(decoded.decode("latin-1"))
        if inner:
            found.append((start, end, f"base64 {min(inner)[2]}"))
    return found


# a run of a key's characters in which some are written as JSON escapes (\u0073k-ant-...) or
# percent-encoded (sk%2Dant%2D...): the raw bytes of a file hold the key in that form. Each escape
# is found first, then its run grown to the right by a regex and to the left over plain characters
# (the leftmost escape of a run has only those before it): linear, where one regex for the whole
# run backtracks quadratically over long words.
KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.~-")
ENCODINGS = (
    (
        "",
        "\\u00",
        re.compile(r"\\u00[0-9A-Fa-f]{2}"),
        re.compile(r"(?:[A-Za-z0-9_.~-]|\\u00[0-9A-Fa-f]{2}|\\/)*"),
        lambda run: re.sub(
            r"\\u00([0-9A-Fa-f]{2})|\\/", lambda m: chr(int(m.group(1), 16)) if m.group(1) else "/", run
        ),
    ),
    (
        "url-encoded",
        "%",
        re.compile(r"%[0-9A-Fa-f]{2}"),
        re.compile(r"(?:[A-Za-z0-9_.~-]|%[0-9A-Fa-f]{2})*"),
        urllib.parse.unquote,
    ),
)


def _encoded(text: str) -> list[tuple[int, int, str]]:
    """Runs holding a secret shape once their JSON escapes or percent-encoding are undone: a key
    split by escapes is not found in the raw bytes otherwise. A JSON-escaped key gets the label of
    the key itself, which is what ingest sees once the JSON is parsed."""
    found = []
    for how, marker, escape, run, decode in ENCODINGS:
        if marker not in text:
            continue
        covered = 0
        for match in escape.finditer(text):
            if match.start() < covered:
                continue
            start = match.start()
            while start > covered and text[start - 1] in KEY_CHARS:
                start -= 1
            covered = run.match(text, match.start()).end()
            inner = _shapes(decode(text[start:covered]))
            if inner:
                found.append((start, covered, f"{how} {min(inner)[2]}".lstrip()))
    return found


def _assigned(text: str, at: int, found: list) -> None:
    """The value assigned at `at` (just after a secret-named key), if it is one."""
    match = ASSIGNED.match(text, at)
    if match:
        group = next(g for g in (2, 3, 4) if match.group(g) is not None)
        if not NOT_A_SECRET.match(match.group(group)):
            found.append((match.start(group), match.end(group), "secret"))


# found in the lower-cased text: the secret-named keys, then the schemes; in the text as it is
KEY_PLACES = Literals((*SECRET_WORDS, *SCHEMES))
ENV_PLACES = Literals((*ENV_SUFFIXES, "://"))


def _contexts(text: str) -> list[tuple[int, int, str]]:
    """Secrets found by where they stand: after a secret-named key (in any case), after Bearer or
    Basic, as the password of a URL."""
    found = []
    lower = text.lower()
    if len(lower) != len(text):  # a few non-ASCII letters lower-case to two characters
        lower = text.translate(ASCII_LOWER)
    # the words' and the schemes' checks of the character before stay here, not in a `before`
    # (as the stems' do): they are rare in text, and the automaton of the bare literals skips to
    # them faster than one of every (character, literal) pair reads each byte
    words = len(SECRET_WORDS)
    for index, start in KEY_PLACES.places(lower):
        if index < words:
            before = lower[start - 1] if start else ""
            if before not in NAME_CHARS or before in "_.-":  # else inside a longer word: "mytoken"
                _assigned(text, start + len(SECRET_WORDS[index]), found)
            continue
        scheme = KEY_PLACES.literals[index]
        match = None if start and lower[start - 1] in NAME_CHARS else SCHEMES[scheme].match(text, start + len(scheme))
        if match and not NOT_A_SECRET.match(match.group(1)) and (scheme == "bearer" or _basic_auth(match.group(1))):
            found.append((match.start(1), match.end(1), "secret"))
    for index, start in ENV_PLACES.places(text):
        if index < len(ENV_SUFFIXES):
            if start and (text[start - 1].isupper() or text[start - 1].isdigit()):
                _assigned(text, start + len(ENV_SUFFIXES[index]), found)
            continue
        match = URL_CREDENTIALS.match(text, start + 3)
        if match and not NOT_A_SECRET.match(match.group(1)):
            found.append((match.start(1), match.end(1), "secret"))
    return found


def _basic_auth(value: str) -> bool:
    """A Basic header's value is base64 of "user:password"; a word after "basic" is not."""
    try:
        return b":" in base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False


@functools.lru_cache(maxsize=4096)
def label(value: str) -> str:
    """The label of a secret value, from the value alone: its shape, else "secret"."""
    for start, end, kind in _shapes(value) + _base64_wrapped(value) + _encoded(value):  # most specific first
        if start == 0 and end == len(value):
            return kind
    return "secret"


@functools.lru_cache(maxsize=8)
def _known_pattern(values: tuple[str, ...]) -> tuple[re.Pattern | None, dict[str, str]]:
    wanted = sorted({v for v in values if v and not REDACTED_MARK.search(v)}, key=lambda v: (-len(v), v))
    if not wanted:
        return None, {}
    return re.compile("|".join(map(re.escape, wanted)), re.I), {v.lower(): v for v in reversed(wanted)}


def find(text: str, known_values=()) -> list[tuple[int, int, str]]:
    """Spans (start, end, label) of secrets in text, without overlaps, in order. Known values are
    matched in any case (a key pasted as a model name lands lower-cased in file names) and keep
    the label of the value as it was found."""
    known, canonical = _known_pattern(tuple(known_values))
    spans = [(m.start(), m.end(), canonical.get(m.group().lower())) for m in known.finditer(text)] if known else []
    spans += [
        (start, end, None) for start, end, _ in _shapes(text) + _base64_wrapped(text) + _encoded(text) + _contexts(text)
    ]
    marks = [match.span() for match in REDACTED_MARK.finditer(text)] if "[REDACTED:" in text else []
    if marks:  # idempotent: what lies inside a mark was redacted before
        spans = [span for span in spans if not any(start <= span[0] and span[1] <= end for start, end in marks)]
    spans.sort(key=lambda span: (span[0], -span[1]))
    merged: list[list] = []
    for start, end, value in spans:
        if merged and start < merged[-1][1]:  # overlapping: one span over both
            if end > merged[-1][1]:
                merged[-1][1:] = [end, None]
        else:
            merged.append([start, end, value])
    return [(start, end, label(value or text[start:end])) for start, end, value in merged]


def propagates(value: str) -> bool:
    """Whether a value found as a secret is redacted wherever else it appears: long enough, and
    not hex (a short hex secret would also match inside sha256 digests and corrupt them)."""
    return len(value) >= PROPAGATE_MIN and not HEX.fullmatch(value.lower())


def values(text: str, known_values=()) -> set[str]:
    """The secret values in text to redact wherever they appear (see `propagates`)."""
    return {text[start:end] for start, end, _ in find(text, known_values) if propagates(text[start:end])}


def replace_spans(text: str, spans: list[tuple[int, int, str]]) -> str:
    """The text with each span (find's) replaced by its label."""
    pieces, last = [], 0
    for start, end, kind in spans:
        pieces += [text[last:start], f"[REDACTED:{kind}]"]
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def redact_text(text: str, known_values=()) -> tuple[str, list[str]]:
    """The text with every secret replaced, and the labels of the hits (one per hit)."""
    spans = find(text, known_values)
    return (replace_spans(text, spans) if spans else text), [kind for _, _, kind in spans]


def redact(data: bytes, known_values=()) -> tuple[bytes, list[str]]:
    """The bytes with every secret replaced, and the labels of the hits (one per hit)."""
    text = data.decode("utf-8", errors="surrogateescape")
    clean, kinds = redact_text(text, known_values)
    if not kinds:
        return data, []
    return clean.encode("utf-8", errors="surrogateescape"), kinds


def redact_known(data: bytes, known_values) -> tuple[bytes, list[str]]:
    """Only the known values replaced: what redact() gives for bytes in which find() alone
    finds nothing, at the cost of a literal search."""
    pattern, canonical = _known_pattern(tuple(known_values))
    if pattern is None:
        return data, []
    text = data.decode("utf-8", errors="surrogateescape")
    spans = [(m.start(), m.end(), label(canonical[m.group().lower()])) for m in pattern.finditer(text)]
    if not spans:
        return data, []
    return replace_spans(text, spans).encode("utf-8", errors="surrogateescape"), [kind for _, _, kind in spans]
