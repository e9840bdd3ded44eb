"""Find and redact secrets in text that is about to leave the machine (results/, a bundle).

Secrets are found by what they are, not by a list of places:
- by shape: the rule set of detect-secrets 1.5.0 (Yelp, Apache License 2.0; see _SHAPES_SOURCES for what was
  ported and how), with the providers it does not list (Anthropic, Hugging Face, xAI, Groq, ...;
  DigitalOcean after gitleaks' rules, MIT);
- by what stands before them: a secret-named key in any case and with more name after it
  (detect-secrets' keyword list; also upper-case env names and camelCase), an Authorization header
  whatever its scheme, a Cookie header, a URL's password, a .netrc or .pgpass line, the password
  a command line gives mysql, sshpass or curl;
- by what they look like: a private-key block with or without its END line; a key-like run
  (long, of upper- and lower-case letters and digits, high in Shannon entropy as detect-secrets'
  high-entropy plugins measure it, and switching character class as random text does), glued to
  letters or not; base64, hex or percent-encoding that decodes to any of these (up to three
  layers, a base64 run wrapped over lines joined first); a key split over the streamed deltas of a
  trajectory, found in the deltas joined;
- by value: values the caller already knows are secret (an agent_env value with a secret name, or
  a key-like one under any name), matched in any case wherever they stand.

The text is normalised before it is searched: ANSI escape codes and zero-width characters are
dropped and JSON string escapes undone, so a key coloured by a terminal, cut by a zero-width space
or written `\\u0073k-ant-...` is the key. What is found maps back onto the text as it is, escapes
and codes included.

A hit is replaced by "[REDACTED:<label>]", which keeps JSON valid. Redaction is idempotent:
nothing inside such a mark is ever found again, and a mark is no known secret value, so text
redacted once (a bundle's inputs) redacts to itself, and so does a name made from a mark (a
folder's id or an image name made from a redacted name: "REDACTED-gitlab-token-1a2b3c4d"). The
label depends only on the secret's own value (`label`), never on where it was found, so the same
value gets the same text in every file and every stage: an output computed from a redacted input equals the redacted output, which is
what lets a redacted bundle verify. The caller learns the label (and with `find_rules` the rule
that found it), never the value.

`review_findings` is the looser look a researcher reads before sharing: the strings still left
that look random (key-like by a lower bar, two character classes suffice), never redacted by it.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import math
import re
import string
import urllib.parse
from collections import Counter

try:
    import ahocorasick_rs
except ImportError:  # not in the conda env (workflow/envs/make_env.py): Literals searches by str.find
    ahocorasick_rs = None  # type: ignore[assignment]  # mypy types an optional import as always there

# The provider rules: (label, literal prefixes, pattern matched where a prefix stands); the whole
# match is the secret. Ported from detect-secrets 1.5.0 (https://github.com/Yelp/detect-secrets,
# Apache License 2.0, Copyright Yelp, Inc.), detect_secrets/plugins/<name>.py: aws (key ids),
# artifactory, github_token, gitlab_token, jwt, npm, openai, pypi_token, sendgrid, slack,
# square_oauth and stripe, each found at its literal prefix here (an Aho-Corasick pass, Literals)
# rather than by a regex over every line, and widened where a provider issues longer or more forms
# than the plugin knows. Its plugins without a literal prefix (discord, mailchimp, telegram_token,
# twilio) are PREFIXLESS below, tried on each key-like run; azure_storage_key, aws (secret keys),
# ibm_cloud_iam, ibm_cos_hmac, cloudant and softlayer are keyword assignments (SECRET_WORDS, AWS_SECRET);
# private_key is PRIVATE_KEY_HEADER; basic_auth is URL_CREDENTIALS; its high-entropy plugins are
# `key_like`. Its ip_public plugin is left out: an address is not a credential.
GITLAB_KINDS = ("pat", "dt", "ft", "rt", "ptt", "cbt", "imt", "soat", "ffct", "agent", "oas")
_SHAPES_SOURCES = [
    ("anthropic api key", ("sk-ant-",), r"sk-ant-[A-Za-z0-9_-]{20,}"),
    ("openai api key", ("sk-",), r"sk-(?:proj-|svcacct-|admin-|or-v1-)?(?=[A-Za-z_-]*[0-9])[A-Za-z0-9_-]{32,}"),
    ("stripe secret key", ("sk_live_", "rk_live_", "sk_test_", "rk_test_"), r"[sr]k_(?:live|test)_[A-Za-z0-9]{16,}"),
    (
        "github token",
        ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"),
        r"(?:gh[pousr]_[A-Za-z0-9_]{36,}|github_pat_[A-Za-z0-9_]{40,})",
    ),
    (
        "gitlab token",
        (*(f"gl{kind}-" for kind in GITLAB_KINDS), "GR1348941"),
        rf"(?:gl(?:{'|'.join(GITLAB_KINDS)})-|GR1348941)[A-Za-z0-9_-]{{20,}}",
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
    ("square oauth secret", ("sq0csp-",), r"sq0csp-[0-9A-Za-z_-]{43}"),
    ("artifactory token", ("AKC",), r"AKC[a-zA-Z0-9]{10,}(?![A-Za-z0-9])"),
    # gitleaks' digitalocean-pat, -access-token and -refresh-token rules
    ("digitalocean token", ("dop_v1_", "doo_v1_", "dor_v1_"), r"do[por]_v1_[a-f0-9]{64}"),
    ("jwt", ("eyJ",), r"eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]*"),
]
# Found wherever they stand, glued to the letters before them too (`idAKIA...`): detect-secrets'
# AWS key id prefixes (and the other IAM id kinds), which ordinary words do not hold.
AWS_KEY_ID_PREFIXES = ("AKIA", "ASIA", "ABIA", "ACCA", "AGPA", "AIDA", "AROA", "A3T")
AWS_KEY_ID = re.compile(r"(?:A3T[A-Z0-9]|ABIA|ACCA|AKIA|ASIA|AGPA|AIDA|AROA)[0-9A-Z]{16}")
# detect-secrets' rules with no literal prefix, tried where a key-like run starts (a match may
# begin up to `before` characters ahead of the run: the digits and colon of a Telegram token).
# With each, a cheap look whether it can match at a run (text, start, end) before its pattern is tried.
_PREFIXLESS_SOURCES = [
    (
        "discord bot token",
        0,
        r"[MNO][a-zA-Z\d_-]{23,25}\.[a-zA-Z\d_-]{6}\.[a-zA-Z\d_-]{27}",
        lambda text, start, end: text[start] in "MNO" and text.startswith(".", end),
    ),
    (
        "telegram bot token",
        11,
        r"(?<![0-9])[0-9]{8,10}:[0-9A-Za-z_-]{35}(?![0-9A-Za-z_-])",
        lambda text, start, end: text.startswith(":", start - 1),
    ),
    (
        "twilio key",
        0,
        r"(?:AC|SK)[a-z0-9]{32}(?![A-Za-z0-9])",
        lambda text, start, end: text.startswith(("AC", "SK"), start),
    ),
    ("mailchimp api key", 0, r"[0-9a-z]{32}-us[0-9]{1,2}(?![0-9])", lambda text, start, end: "-us" in text[start:end]),
]
SHAPES = [(kind, prefixes, re.compile(pattern, re.S)) for kind, prefixes, pattern in _SHAPES_SOURCES]
PREFIXLESS = [
    (kind, before, re.compile(pattern), can_match) for kind, before, pattern, can_match in _PREFIXLESS_SOURCES
]
# detect-secrets' private_key plugin's headers, as one pattern (OpenSSH, PGP's "... KEY BLOCK",
# SSH2's "ENCRYPTED ...", PKCS#8's "ENCRYPTED PRIVATE KEY"), and PuTTY's key files
PRIVATE_KEY_HEADER = re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----|PuTTY-User-Key-File-[0-9]+: [^\n]*")
PRIVATE_KEY_END = re.compile(r"-----END [A-Z0-9 ]*PRIVATE KEY(?: BLOCK)?-----")
# the header lines of PEM (RFC 1421), OpenPGP armor (RFC 4880) and PuTTY key files
ARMOR_HEADER = re.compile(
    r"(?:Proc-Type|DEK-Info|Version|Comment|Hash|Charset|MessageID|Encryption|Public-Lines|Private-Lines"
    r"|Private-MAC|Private-Hash|Key-Derivation|Argon2-[A-Za-z]+): [^\n\"]*"
)
ARMOR_LINE = re.compile(r"[A-Za-z0-9+/=]+")
ATTEMPT_SUFFIX = re.compile(r"__[0-9a-f]{8}$")  # BenchFlow's attempt folders are <task>__<8 hex>
# a shape starts here, not inside a word ("__" before it is a file name's; "desk-" is not "sk-")
WORD_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789")
# detect-secrets' keyword plugin's denylist (each `_?` written out both ways), then words it lacks
KEY_OWNERS = ("api", "auth", "service", "account", "db", "database", "priv", "private", "client")
SECRET_WORDS = (
    *(f"{owner}{sep}key" for owner in KEY_OWNERS for sep in ("_", "")),
    *(f"{owner}{sep}pass" for owner in ("db", "database", "key") for sep in ("_", "")),
    "password",
    "passwd",
    "pwd",
    "secret",
    "contraseña",
    "contrasena",
    "api-key",
    "access_key",
    "access-key",
    "secret-key",
    "private-key",
    "sharedaccesskey",
    "passphrase",
    "token",
    "authtoken",
    "credential",
    "credentials",
    "creds",
    "authorization",
)
NAME_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.-")
ENV_SUFFIXES = ("_KEY", "_PASS", "_PAT")  # upper-case env names (TOKEN, SECRET, PASSWORD: any case above)
# more name after a secret word: a separator first, or a capital (camelCase): "SECRET_KEY_BASE",
# "passwordHash"; "tokenizer" is another word
MORE_NAME = re.compile(r"(?:[_.-][A-Za-z0-9_.-]*|[A-Z][A-Za-z0-9_.-]*)?")
# after a secret-named key: an optional closing quote, = or : (or := or =>), an optional opening
# quote, the value
ASSIGNED = re.compile(
    r"""(["']?)[ \t]*(?::=|=>|[=:])(?:\s*"((?:[^"\\]|\\.){4,})"|[ \t]*'([^'\n]{4,})'|"""
    r"""[ \t]*([^\s'"`#,;&<>\\()\[\]{}]{4,})(?=[\s'"`#,;&<>\\]|$))"""
)
# a command-line flag's value after a space, its name starting with "--"
FLAG_VALUE = re.compile(r"""[ \t]+(?:"([^"\n]{4,})"|'([^'\n]{4,})'|([^\s'"`<-][^\s'"`]{3,}))""")
BASE64_CLASS = "A-Za-z0-9+/"  # the base64 characters, as the inside of a pattern's [...]
SCHEMES = {
    "bearer": re.compile(r"\s+([A-Za-z0-9._~+/=-]{16,})"),
    "basic": re.compile(rf"\s+([{BASE64_CLASS}]{{8,}}={{0,2}})(?![{BASE64_CLASS}=])"),
}
# an Authorization header's value: an optional scheme (Bearer, Basic, token, Bot, SSWS, ...), then
# the credential
AUTHORIZATION = re.compile(
    r"""["']?[ \t]*[:=][ \t]*["']?(?:([A-Za-z][A-Za-z0-9_-]*)[ \t]+(?=[^\s"',;`()\[\]{}]{8}))?"""
    r"""([^\s"',;`()\[\]{}]{4,})(?=[\s"',;`]|$)"""
)
SCHEME_THEN = re.compile(r"[ \t]+[^\s\"',;]")
COOKIE = re.compile(r"""["']?[ \t]*:[ \t]*["']?""")
COOKIE_PAIR = re.compile(r"""[ \t]*([A-Za-z0-9_.!#$%&'*+^`|~-]+)=([^;\s"]*);?""")
COOKIE_VALUE_MIN = 8  # a session's value is long; "theme=dark" is a setting
COOKIE_ATTRIBUTES = frozenset(("path", "domain", "expires", "max-age", "samesite", "secure", "httponly", "priority"))
URL_CREDENTIALS = re.compile(r"[^\s:/?#@\"'<>\\]+:([^\s/?#@\"'<>\\]+)@")
# .netrc: machine, then host, login and user, then the password word and the value (on one line
# or several); or "default" in place of the machine
NETRC = re.compile(
    r"(?:\bmachine\s+\S+|\bdefault)(?:\s+(?:login|account|port)\s+\S+)*\s+password\s+([^\s`<]\S*)"
    r"|\blogin\s+\S+\s+password\s+([^\s`<]\S*)"
)
NETRC_REACH = 400  # how far before "password" a .netrc entry's start is looked for
# .pgpass: hostname:port:database:username:password; found from its ":<port>:"
PGPASS_PORT = re.compile(r":(?:[0-9]{1,5}|\*):")
PGPASS_HOST = re.compile(r"(?:[A-Za-z0-9_.*-]*[A-Za-z*][A-Za-z0-9_.*-]*|[0-9]{1,3}(?:\.[0-9]{1,3}){3})\Z")
PGPASS_REST = re.compile(r"([^\s:]+):([^\s:]+):([^\s:\"']{3,})(?![^\s\"'])")
# a command's password given in its arguments
PASSWORD_FLAGS = re.compile(
    r"(?:mysql(?:dump|admin|sh|import)?|mariadb(?:-dump|-admin)?)\b[^\n|;&`]*?[ \t]-p([^\s'\"`<-][^\s'\"`]*)"
    r"|sshpass\b[^\n|;&`]*?[ \t]-p[ \t]*([^\s'\"`<-][^\s'\"`]*)"
    r"|curl\b[^\n|;&`]*?[ \t](?:-u|--user)[ \t=]*['\"]?[^\s:'\"`]+:([^\s'\"`]+)"
)
# detect-secrets' aws plugin's secret access key: 40 base64 characters quoted near "aws" and a key word
AWS_SECRET = re.compile(r"""aws.{0,20}?(?:key|pwd|pw|password|pass|token).{0,20}?['"]([0-9a-zA-Z/+]{40})['"]""", re.I)
# a value found by its context that is one of these is a placeholder, a number, a reference or a path
NOT_A_SECRET = re.compile(
    r"(?i)^(?:\[REDACTED[^\]]*\]?|\$\{?[A-Za-z_][A-Za-z0-9_]*\}?|<[^>]*>|\[[A-Z_]+\]|\*+|x+|\{\{.*\}\}|%\(.*\)s|"
    r"true|false|null|none|nil|undefined|required|optional|redact|redacted|hidden|bearer|basic|digest|\.\.\..*|"
    r"[$~]?[-+]?[0-9][0-9.,:eE+-]*[%a-z]{0,3}|[0-9a-f]{64}|(?:~|\.{1,2})?/[^\s]*)$"
)
ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
HEX = re.compile(r"[0-9a-f]+")
# a value this long, once found, is redacted wherever it appears (shorter ones only where found)
PROPAGATE_MIN = 8
# a hex value at least this long is a key's, not a piece of a digest (see `propagates`)
HEX_PROPAGATE_MIN = 32
HIGH_ENTROPY = "high-entropy string"
# What is written before a label when the secret was found inside an encoding (up to three layers).
ENCODINGS = ("base64", "hex", "url-encoded")
MAX_LAYERS = 3
LABELS = sorted(
    {kind for rules in (SHAPES, PREFIXLESS) for kind, *_ in rules}
    | {"aws access key id", "private key", "aws secret access key", HIGH_ENTROPY, "secret"},
    key=lambda kind: (-len(kind), kind),
)
# what redaction writes, and only that (a label `label` can give): found in text already redacted
# (a bundle's inputs), never redacted again. Any text between "[REDACTED:" and "]" would let a
# key inside brackets, or a string that opens one ("[REDACTED: see sk-ant-...]"), stand.
REDACTED_MARK = re.compile(
    r"\[REDACTED:((?:(?:" + "|".join(ENCODINGS) + r") ){0,3}(?:" + "|".join(map(re.escape, LABELS)) + r"))\]"
)
# a name made from a mark, its words joined as a file name or an image name joins them
# ("REDACTED-gitlab-token", "bf__fix--redacted-gitlab-token-"): no key and no secret's name
MARK_WORDS = sorted(
    {word for kind in (*LABELS, *ENCODINGS) for word in re.split(r"[ -]", kind)}, key=lambda w: (-len(w), w)
)
MARK_NAME = re.compile(r"redacted(?:[^a-z0-9]{1,3}(?:" + "|".join(MARK_WORDS) + r")(?![a-z]))+", re.I)
SECRET_ENV_NAME = re.compile(
    "^(?:[A-Za-z0-9_.-]*[_.-])?(?:" + "|".join(map(re.escape, SECRET_WORDS)) + ")$"
    r"|^[A-Z][A-Z0-9_]*(?:_KEY|_PASS|_PAT|_CREDS?|_AUTH)$",
    re.I,
)

# Rules, as find_rules and REDACTIONS.json name them.
RULE_SHAPE = "provider shape"
RULE_KEY_BLOCK = "private-key block"
RULE_KEYWORD = "secret-named key"
RULE_AUTH_HEADER = "authorization header"
RULE_COOKIE = "cookie"
RULE_URL = "url password"
RULE_NETRC = "netrc line"
RULE_PGPASS = "pgpass line"
RULE_FLAG = "password flag"
RULE_ENTROPY = "high entropy"
RULE_DECODED = "encoded secret"
RULE_DELTAS = "joined deltas"
RULE_KNOWN = "known value"
RULE_REVIEW = "high entropy, below the redaction bar"
TIE_ORDER = {RULE_ENTROPY: 1, RULE_KNOWN: 2}


@functools.lru_cache(maxsize=4096)
def _secret_env_name(name: str) -> bool:
    """Whether an agent_env name says its value is secret. Cached: every attempt of a run names
    the same few variables, and the pattern backtracks over each separator of a long name."""
    return SECRET_ENV_NAME.match(name) is not None


def secret_env_values(agent_env) -> list[str]:
    """Values of agent_env entries that are secret, by name (BenchFlow drops most itself) or by
    being key-like under any name."""
    if not isinstance(agent_env, dict):
        return []
    return [
        value
        for name, value in agent_env.items()
        if isinstance(value, str)
        and len(value) >= 4
        and not NOT_A_SECRET.match(value)
        and (_secret_env_name(str(name)) or env_value_key_like(value))
    ]


def env_value_key_like(value: str) -> bool:
    """A variable's value that is a key whatever its name: key-like by the review's bar, or a long
    hex string (a digest is no setting an agent is given)."""
    return key_like(value, strict=False) or (
        len(value) >= HEX_PROPAGATE_MIN and HEX.fullmatch(value.lower()) is not None
    )


class Literals:
    """Where literals stand in a text: one pass of an Aho-Corasick automaton (ahocorasick_rs, Rust)
    finds them all, where a str.find loop reads the text once per literal.

    The automaton reads the text encoded as ASCII with each other character as "?", so that its
    offsets are the text's, after a "\0" that stands for the text's start. Given `before`, it finds
    a literal only after one of those characters ("\0": at the start; "?": after any character
    outside ASCII), which is how _shapes skips the "gh" of every "high" without a Python check.
    Without the package, str.find loops give the same places, slower."""

    def __init__(self, literals, before: str = ""):
        self.literals = tuple(literals)
        if any("?" in literal or "\0" in literal or not literal.isascii() for literal in self.literals):
            raise ValueError(
                "a literal with a '?', a '\\0' or a character outside ASCII would match where another stands"
            )
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
STEMS = ("sk", "gh", "gl", "xox", "do")
BY_STEM: dict[str, list] = {}
for _kind, _prefixes, _pattern in SHAPES:
    for _prefix in _prefixes:
        BY_STEM.setdefault(next((s for s in STEMS if _prefix.startswith(s)), _prefix), []).append(
            (_prefix, _kind, _pattern)
        )
STEM_PLACES = Literals(BY_STEM, before=NOT_WORD)
SHAPES_BY_STEM = list(BY_STEM.values())
AWS_KEY_ID_PLACES = Literals(AWS_KEY_ID_PREFIXES)


def _shapes(text: str) -> list[tuple[int, int, str, str]]:
    found = []
    for index, start in STEM_PLACES.places(text):  # each after a non-word character: "desk-" is not "sk-"
        for prefix, kind, pattern in SHAPES_BY_STEM[index]:
            match = pattern.match(text, start) if text.startswith(prefix, start) else None
            if match:
                end = match.end()
                if ATTEMPT_SUFFIX.match(text, end - 10, end):  # a key as a task name: keep "__<8 hex>"
                    end -= 10
                found.append((start, end, kind, RULE_SHAPE))
                break
    for _, start in AWS_KEY_ID_PLACES.places(text):
        if match := AWS_KEY_ID.match(text, start):
            found.append((start, match.end(), "aws access key id", RULE_SHAPE))
    return found


def _private_keys(text: str) -> list[tuple[int, int, str, str]]:
    """Private-key blocks: from the BEGIN line over the armor's header lines and base64 lines to
    the END line, or to the last base64 line where a block was cut before its END (a JSON string's
    closing quote ends it too)."""
    found = []
    start = text.find("-----BEGIN ")
    putty = text.find("PuTTY-User-Key-File-")
    while start >= 0 or putty >= 0:
        at = min(place for place in (start, putty) if place >= 0)
        header = PRIVATE_KEY_HEADER.match(text, at)
        if header:
            end = _armor_end(text, header.end())
            found.append((at, end, "private key", RULE_KEY_BLOCK))
        else:
            end = at + 1
        start = text.find("-----BEGIN ", end)
        putty = text.find("PuTTY-User-Key-File-", end)
    return found


def _armor_end(text: str, position: int) -> int:
    """Where a private-key block that starts its body at `position` ends."""
    end = position
    blank = 0
    while position < len(text):
        line_end = text.find("\n", position)
        line_end = len(text) if line_end < 0 else line_end
        line = text[position:line_end]
        quote = line.find('"')
        if quote >= 0:
            line, line_end = line[:quote], position + quote
        stripped = line.strip()
        indent = position + len(line) - len(line.lstrip())
        closing = PRIVATE_KEY_END.search(line)
        if closing:
            return position + closing.end()
        if not stripped:
            blank += 1
            if blank > 1:
                break
        elif ARMOR_LINE.fullmatch(stripped) or ARMOR_HEADER.fullmatch(stripped):
            blank = 0
            end = indent + len(stripped)
        elif all(ARMOR_LINE.fullmatch(part) for part in stripped.split()) and min(map(len, stripped.split())) >= 16:
            end = indent + len(stripped)  # a block written on one line, its lines joined by spaces
        else:
            break
        if quote >= 0:
            break
        position = line_end + 1
    return end


def _assigned(text: str, at: int, found: list, one_word: bool = False) -> bool:
    """The value assigned at `at` (just after a secret-named key), if it is one; `one_word`: only a
    value without spaces (after a key with more name, whose value may be a sentence:
    "token_note")."""
    match = ASSIGNED.match(text, at)
    if match:
        group = next(g for g in (2, 3, 4) if match.group(g) is not None)
        if not (one_word and any(char.isspace() for char in match.group(group))):
            _add_value(match, (group,), RULE_KEYWORD, found)
        return True
    return False


def _add_value(match: re.Match, groups, rule: str, found: list) -> None:
    """Adds the first of `groups` that matched to `found`, unless it is a placeholder (NOT_A_SECRET)."""
    group = next(g for g in groups if match.group(g) is not None)
    if not NOT_A_SECRET.match(match.group(group)):
        found.append((match.start(group), match.end(group), "secret", rule))


# found in the lower-cased text: the secret-named keys, the schemes, then the words other rules
# start from; in the text as it is: the env suffixes and "://"
CONTEXT_WORDS = ("cookie", "machine", "default", "mysql", "mariadb", "sshpass", "curl", "aws")
KEY_PLACES = Literals((*(word for word in SECRET_WORDS if word.isascii()), *SCHEMES, *CONTEXT_WORDS))
NON_ASCII_WORDS = tuple(word for word in SECRET_WORDS if not word.isascii())  # found by str.find
ENV_PLACES = Literals((*ENV_SUFFIXES, "://"))


def _name_start(text: str, lower: str, start: int) -> bool:
    """Whether a secret word found at `start` begins a name, or continues one as env names and
    camelCase do (`PGPASSWORD`, `dbPassword`), rather than standing inside a longer word."""
    before = lower[start - 1] if start else ""
    if before not in NAME_CHARS or before in "_.-":
        return True
    if text[start].isupper():
        if text[start - 1].islower():
            return True  # camelCase
        name_start = start
        while name_start and text[name_start - 1] in NAME_CHARS and text[name_start - 1] not in ".-":
            name_start -= 1
        return not any(char.islower() for char in text[name_start:start])  # an upper-case env name
    return False


def _contexts(text: str) -> list[tuple[int, int, str, str]]:
    """Secrets found by where they stand: after a secret-named key (in any case, with more name
    after it), after an Authorization header or a scheme, in a Cookie header, as the password of a
    URL, a .netrc or .pgpass line, a command's password flag."""
    found: list[tuple[int, int, str, str]] = []
    lower = text.lower()
    if len(lower) != len(text):  # a few non-ASCII letters lower-case to two characters
        lower = text.translate(ASCII_LOWER)
    for literal, start in _key_places(text, lower):
        if literal in SCHEMES:
            match = (
                None if start and lower[start - 1] in NAME_CHARS else SCHEMES[literal].match(text, start + len(literal))
            )
            if match and (literal == "bearer" or _basic_auth(match.group(1))):
                _add_value(match, (1,), RULE_AUTH_HEADER, found)
            continue
        if literal in CONTEXT_WORDS:
            _from_context_word(text, lower, literal, start, found)
            continue
        if not _name_start(text, lower, start):
            continue
        after = _run_end(MORE_NAME, text, start + len(literal))
        if literal == "authorization":
            match = AUTHORIZATION.match(text, after)
            # a scheme word alone (what follows it is short, or a mark) is no credential
            scheme_alone = match and match.group(1) is None and SCHEME_THEN.match(text, match.end(2))
            if match and not scheme_alone:
                _add_value(match, (2,), RULE_AUTH_HEADER, found)
            continue
        if _assigned(text, after, found, one_word=after > start + len(literal)):
            continue
        name_start = start
        while name_start and text[name_start - 1] in NAME_CHARS:
            name_start -= 1
        if text.startswith("--", name_start):
            if flag := FLAG_VALUE.match(text, after):
                _add_value(flag, (1, 2, 3), RULE_FLAG, found)
        elif literal in ("password", "passwd"):
            _netrc(text, start, found)
    _env_and_url(text, found)
    _pgpass(text, found)
    return found


def _key_places(text: str, lower: str) -> list[tuple[str, int]]:
    """(literal, start) of every secret-naming word, header and scheme, outside a marked name."""
    # the words' and the schemes' checks of the character before stay in _contexts, not in a
    # `before` (as the stems' do): they are rare in text, and the automaton of the bare literals
    # skips to them faster than one of every (character, literal) pair reads each byte
    literals = KEY_PLACES.literals
    places = [(literals[index], start) for index, start in KEY_PLACES.places(lower)]
    for word in NON_ASCII_WORDS:
        places += [(word, match.start()) for match in re.finditer(word, lower)]
    names = mark_names(text) if places else []
    return [(word, start) for word, start in places if not any(a <= start < b for a, b in names)]


def _env_and_url(text: str, found: list) -> None:
    """Adds the values assigned to an upper-case name ending in a secret suffix (API_KEY=…) and
    the password in the user part of a URL to `found`."""
    for index, start in ENV_PLACES.places(text):
        if index < len(ENV_SUFFIXES):
            if start and (text[start - 1].isupper() or text[start - 1].isdigit()):
                _assigned(text, start + len(ENV_SUFFIXES[index]), found)
            continue
        match = URL_CREDENTIALS.match(text, start + 3)
        if match:
            _add_value(match, (1,), RULE_URL, found)


def _from_context_word(text: str, lower: str, word: str, start: int, found: list) -> None:
    if start and lower[start - 1] in WORD_CHARS:  # inside a longer word
        return
    if word == "cookie":
        head = COOKIE.match(text, start + len(word))
        if head:
            _cookie_values(text, head.end(), found)
    elif word in ("machine", "default"):
        match = NETRC.match(text, start)
        if match:
            _add_value(match, (1, 2), RULE_NETRC, found)
    elif word == "aws":
        match = AWS_SECRET.match(text, start)
        if match:
            found.append((match.start(1), match.end(1), "aws secret access key", RULE_KEYWORD))
    else:
        match = PASSWORD_FLAGS.match(text, start)
        if match:
            _add_value(match, (1, 2, 3), RULE_FLAG, found)


def _cookie_values(text: str, at: int, found: list) -> None:
    """Each value of a Cookie or Set-Cookie header (its attributes aside)."""
    while True:
        match = COOKIE_PAIR.match(text, at)
        if not match or match.end() == at:
            return
        if match.group(1).lower() not in COOKIE_ATTRIBUTES and len(match.group(2)) >= COOKIE_VALUE_MIN:
            _add_value(match, (2,), RULE_COOKIE, found)
        at = match.end()
        if not text.startswith(" ", at) and not text.startswith(";", at - 1):
            return


def _netrc(text: str, start: int, found: list) -> None:
    """The password of a .netrc entry whose "password" stands at `start`."""
    window = max(0, start - NETRC_REACH)
    for match in NETRC.finditer(text, window, start + NETRC_REACH):
        group = 1 if match.group(1) is not None else 2
        if match.start(group) > start and match.start(group) - start <= len("password") + 8:
            _add_value(match, (group,), RULE_NETRC, found)
            return


def _pgpass(text: str, found: list) -> None:
    """The password of each .pgpass line (hostname:port:database:username:password)."""
    for port in PGPASS_PORT.finditer(text):
        host_start = port.start()
        while host_start and text[host_start - 1] not in " \t\n\"'=,;([{":
            host_start -= 1
        if host_start == port.start() or not PGPASS_HOST.match(text, host_start, port.start()):
            continue
        rest = PGPASS_REST.match(text, port.end())
        if rest:
            _add_value(rest, (3,), RULE_PGPASS, found)


def _basic_auth(value: str) -> bool:
    """A Basic header's value is base64 of "user:password"; a word after "basic" is not."""
    try:
        return b":" in base64.b64decode(value + "=" * (-len(value) % 4), validate=True)
    except (binascii.Error, ValueError):
        return False


# Key-like runs. A key is a run of base64 or base64url characters: KEY_RUN_MIN to KEY_RUN_MAX long
# (longer runs are data: images, signatures, encrypted reasoning; they are still decoded), with
# upper- and lower-case letters and digits, Shannon entropy at least ENTROPY_SHARE of the most its
# length allows (log2 of the length, up to 64 symbols), as in detect-secrets' high-entropy
# plugins, and a change of character class at least every 1 / CLASS_SWITCHES characters (random
# base62 of 20 characters: 0.1% below 0.26; identifiers and words: 0.1-0.2). Hex runs are
# digests, commit and object ids: found only by what they decode to. The review bar is lower:
# two classes with digits, from REVIEW_RUN_MIN characters, within each piece between separators.
KEY_RUN_CLASS = "A-Za-z0-9+/_-"  # and up to two "=" of padding after a run
KEY_RUN_MIN = 20
KEY_RUN_MAX = 256
REVIEW_RUN_MIN = 16
TWO_CLASS_RUN_MIN = 32  # from this long, letters of one case and digits suffice (no separators)
ENTROPY_SHARE = 0.75
CLASS_SWITCHES = 0.25  # the review's bar too
DECODE_MAX = 1 << 20  # a run longer than this is not decoded
DIGIT = re.compile(r"[0-9]")
LINE_BREAKS = str.maketrans("", "", "\n\r\t")
KEY_RUN_MARKS = bytes(re.fullmatch(f"[{KEY_RUN_CLASS}]", chr(code)) is not None for code in range(256))
KEY_RUN_FLOOR = b"\x01" * KEY_RUN_MIN
REVIEW_RUN_FLOOR = b"\x01" * REVIEW_RUN_MIN
PIECES = re.compile(r"[^-_/.+=]+")
REVIEW_SEPARATORS = re.compile(r"[-_.=/]+")  # a base64 key's "+" stays inside its piece
CLASS_OF = str.maketrans(
    string.ascii_lowercase + string.ascii_uppercase + string.digits, "l" * 26 + "u" * 26 + "d" * 10
)


def _runs(text: str, floor: bytes = KEY_RUN_FLOOR) -> list[tuple[int, int]]:
    """(start, end) of each run of at least len(floor) key characters (KEY_RUN_MARKS), leftmost
    first, each found by bytes.find in the text's translation to the marks (a pattern would try a
    start at each character of every shorter word). The text is encoded with each other character
    as one "?", which is not marked, so that the offsets are the text's."""
    marks = text.encode("ascii", "replace").translate(KEY_RUN_MARKS)
    runs, start = [], marks.find(floor)
    while start >= 0:
        end = marks.find(b"\0", start + len(floor))
        end = len(marks) if end < 0 else end
        padded = end
        while padded < end + 2 and text.startswith("=", padded):  # ={0,2}
            padded += 1
        runs.append((start, padded))
        start = marks.find(floor, padded)
    return runs


def key_like(value: str, strict: bool = True) -> bool:
    """Whether a run of key characters looks random: see KEY_RUN_MIN. With strict=False, the
    review's bar: two character classes (one of them digits) in a piece between separators."""
    body = value.rstrip("=")
    if strict:
        pieces = [body]
    else:
        pieces = [piece for piece in REVIEW_SEPARATORS.split(body) if len(piece) >= REVIEW_RUN_MIN]
    for piece in pieces:
        size = len(piece)
        if size < (KEY_RUN_MIN if strict else REVIEW_RUN_MIN) or size > KEY_RUN_MAX:
            continue
        if HEX.fullmatch(piece) or HEX.fullmatch(piece.lower()) and piece.upper() == piece:
            continue
        classes = piece.translate(CLASS_OF)
        kinds = set(classes) & {"l", "u", "d"}
        if "d" not in kinds or len(kinds) < 2:
            continue
        if strict and len(kinds) == 2 and (size < TWO_CLASS_RUN_MIN or not piece.isalnum()):
            continue  # two classes: a long run of letters and digits alone, not a path or a name
        letters = [kind for kind in classes if kind in "lud"]
        switches = sum(a != b for a, b in zip(letters, letters[1:])) / max(1, len(letters) - 1)
        if switches < CLASS_SWITCHES:
            continue
        # Shannon entropy in bits a character, as detect-secrets' calculate_shannon_entropy
        entropy = -sum(count / size * math.log2(count / size) for count in Counter(piece).values())
        if entropy >= ENTROPY_SHARE * math.log2(min(size, 64)):
            return True
    return False


def _decoded(run: str) -> list[tuple[str, str]]:
    """(encoding, text) of what a run decodes to as hex or base64 (standard or URL-safe), when that
    is text: the bytes mostly printable."""
    body = run.rstrip("=")
    url_safe, standard = "-" in body or "_" in body, "+" in body or "/" in body
    try:
        if len(body) >= 2 * 8 and len(body) % 2 == 0 and HEX.fullmatch(body.lower()):
            encoding, data = "hex", binascii.unhexlify(body)
        elif len(body) >= 12 and not (url_safe and standard):  # one alphabet or the other
            padded = body + "=" * (-len(body) % 4)
            encoding, data = "base64", base64.b64decode(padded, altchars=b"-_" if url_safe else None, validate=True)
        else:
            return []
        text = data.decode("utf-8")
    except ValueError:  # not base64 (binascii.Error), or not UTF-8 (UnicodeDecodeError)
        return []
    return [(encoding, text)] if text and text.translate(LINE_BREAKS).isprintable() else []


def _encoded_label(encoding: str, inner: list[tuple[int, int, str, str]]) -> str:
    """The label of an encoded run: its encoding, then the label of the first thing found inside
    (of those that start first, the most specific: the first _detected gives)."""
    first = min(range(len(inner)), key=lambda index: (inner[index][0], index))
    return f"{encoding} {inner[first][2]}"


def mark_names(text: str) -> list[tuple[int, int]]:
    """(start, end) of each name made from a redaction mark (MARK_NAME) in the text."""
    if "redacted" not in text and "REDACTED" not in text:
        return []
    return [match.span() for match in MARK_NAME.finditer(text)]


def _beside_mark_names(runs: list[tuple[int, int]], names: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The runs with the names made from redaction marks (`mark_names`) cut out, each part left
    long enough to be a key: a folder named after a redacted one ("REDACTED-secret-6b86b273") is
    no key, but a key beside such a name still is."""
    if not names:
        return runs
    parts = []
    for start, end in runs:
        inside = [(a, b) for a, b in names if start <= a and b <= end]
        bounds = [start, *(offset for name in inside for offset in name), end]
        parts += [(a, b) for a, b in zip(bounds[::2], bounds[1::2]) if b - a >= KEY_RUN_MIN]
    return parts


def _key_runs(text: str, layers: int) -> list[tuple[int, int, str, str]]:
    """Key-like runs, runs that decode to text holding a secret, and base64 wrapped over lines
    (each line the same width, the last no wider) taken as one run; then detect-secrets' rules
    that have no literal prefix, tried where a run starts."""
    found = []
    runs = _beside_mark_names(_runs(text), mark_names(text))
    groups = []  # runs joined over line wraps: [(start, end, joined)]
    index = 0
    while index < len(runs):
        start, end = runs[index]
        width, last = end - start, index
        while (
            last + 1 < len(runs)
            and (runs[last][1] - runs[last][0]) == width
            and width >= 2 * REVIEW_RUN_MIN
            and text[runs[last][1] : runs[last + 1][0]].strip(" \t\r") == "\n"
            and runs[last + 1][1] - runs[last + 1][0] <= width
        ):
            last += 1
        if last > index:
            groups.append((start, runs[last][1], "".join(text[a:b] for a, b in runs[index : last + 1])))
        index += 1 if last == index else last + 1
    wrapped = {run for start, end, _ in groups for run in runs if start <= run[0] < end}
    data = _data_regions(text)
    for start, end in runs:
        run = text[start:end]
        if run.isdigit() or not DIGIT.search(run) and (run.islower() or run.isupper()):
            continue  # a number, or letters of one case (and separators): a name, no key, no encoding
        shape = next(
            (
                (match.start(), match.end(), kind, RULE_SHAPE)
                for kind, before, pattern, can_match in PREFIXLESS
                if can_match(text, start, end)
                for at in range(start, max(-1, start - before - 1), -1)
                if (match := pattern.match(text, at))
            ),
            None,
        )
        if shape:
            found.append(shape)
            continue
        decoded = _decoded(run) if end - start <= DECODE_MAX else []
        if (start, end) in wrapped or run.startswith(FILE_MAGIC) or any(a <= start < b for a, b in data):
            continue  # data: a line of base64 wrapped over lines, a file's base64, a data: URI
        hit = _run_hit(run, layers, decoded)
        if hit:
            found.append((start + hit[0], start + hit[1], *hit[2:]))
            continue
        for piece in PIECES.finditer(run) if end - start > KEY_RUN_MIN and not decoded else ():
            if (
                piece.end() - piece.start() >= KEY_RUN_MIN
                and piece.end() - piece.start() < end - start
                and key_like(piece.group())
            ):
                found.append((start + piece.start(), start + piece.end(), HIGH_ENTROPY, RULE_ENTROPY))
    for start, end, joined in groups:
        hit = _run_hit(joined, layers, _decoded(joined) if len(joined) <= DECODE_MAX else [])
        if hit and hit[3] == RULE_DECODED:
            found.append((start, end, *hit[2:]))
    return found


def _run_hit(run: str, layers: int, decoded: list[tuple[str, str]]) -> tuple[int, int, str, str] | None:
    """(start, end, label, rule) in the run of a secret it is by itself: the run decoding
    (`decoded`, _decoded's) to a secret, or its key, key-like and not the encoding of plain text."""
    for encoding, text in decoded if layers else ():
        inner = _detected(text, layers - 1)
        if inner:
            return 0, len(run), _encoded_label(encoding, inner), RULE_DECODED
    if decoded:
        return None
    segments = [(0, len(run))]  # base64 with slashes is one key; a path's segments are looked at alone
    if "/" in run and PATH_SEGMENT.search(run.replace("/", "\n")):
        segments = [match.span() for match in SEGMENTS.finditer(run)]
    for segment_start, segment_end in segments:
        start, end = _key_bounds(run[segment_start:segment_end])
        if key_like(run[segment_start + start : segment_start + end]):
            return segment_start + start, segment_start + end, HIGH_ENTROPY, RULE_ENTROPY
    return None


# base64 of files, by their first bytes: PNG, JPEG, GIF, PDF, gzip, zip
FILE_MAGIC = ("iVBORw0KGgo", "/9j/", "R0lGOD", "JVBERi0", "H4sI", "UEsDB")
DATA_URI = re.compile(r";base64,[A-Za-z0-9+/=\s]*")


def _data_regions(text: str) -> list[tuple[int, int]]:
    """Where the base64 of data: URIs stands (an image embedded in an SVG or HTML report)."""
    return [match.span() for match in DATA_URI.finditer(text)] if ";base64," in text else []


# a path's segment: lower-case letters (a word of three or more), digits and - _ .
PATH_SEGMENT = re.compile(r"^[a-z0-9_.-]*[a-z]{3}[a-z0-9_.-]*$", re.M)
SEGMENTS = re.compile(r"[^/]+")


# words before a key in its run ("fix-", "live_"), and an attempt folder's "__<8 hex>" after it
WORD_PREFIX = re.compile(r"(?:[a-z]{1,12}[-_])+")


def _key_bounds(run: str) -> tuple[int, int]:
    """Where the key of a run starts and ends: after lower-case words joined to it by - or _, and
    before an attempt folder's suffix."""
    prefix = WORD_PREFIX.match(run)
    start = prefix.end() if prefix and prefix.end() < len(run) else 0
    end = len(run) - 10 if ATTEMPT_SUFFIX.search(run) and len(run) - 10 > start else len(run)
    return start, end


# a run of a key's characters in which some are percent-encoded (sk%2Dant%2D...): the raw bytes of
# a file hold the key in that form. Each escape is found first, then its run grown to the right by
# a regex and to the left over plain characters (the leftmost escape of a run has only those
# before it): linear, where one regex for the whole run backtracks quadratically over long words.
KEY_CHARS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.~-")
PERCENT = re.compile(r"%[0-9A-Fa-f]{2}")
PERCENT_RUN = re.compile(r"(?:[A-Za-z0-9_.~-]|%[0-9A-Fa-f]{2})*")


def _run_end(pattern: re.Pattern[str], text: str, at: int) -> int:
    """Where the run of `pattern`, which matches the empty string too, that starts at `at` ends."""
    match = pattern.match(text, at)
    assert match is not None  # an empty run is a match
    return match.end()


def _percent_encoded(text: str, layers: int) -> list[tuple[int, int, str, str]]:
    """Runs holding a secret once their percent-encoding is undone."""
    found: list[tuple[int, int, str, str]] = []
    if "%" not in text or not layers:
        return found
    covered = 0
    for match in PERCENT.finditer(text):
        if match.start() < covered:
            continue
        start = match.start()
        while start > covered and text[start - 1] in KEY_CHARS:
            start -= 1
        covered = _run_end(PERCENT_RUN, text, match.start())
        inner = [
            hit for hit in _detected(urllib.parse.unquote(text[start:covered]), layers - 1) if hit[3] != RULE_ENTROPY
        ]
        if inner:
            found.append((start, covered, _encoded_label("url-encoded", inner), RULE_DECODED))
    return found


def _detected(text: str, layers: int = MAX_LAYERS) -> list[tuple[int, int, str, str]]:
    """Every (start, end, label, rule) found in normalised text, overlapping, most specific first
    (the order `label` reads them in)."""
    return (
        _shapes(text) + _private_keys(text) + _key_runs(text, layers) + _percent_encoded(text, layers) + _contexts(text)
    )


# Normalisation: ANSI escape codes (as bytes, or written as JSON's \u001b, echo's \e, \x1b or
# \033) and zero-width characters (as they are or JSON-escaped) are dropped; JSON string escapes
# are undone. The scan reads the normalised text and maps what it finds back (Normalised).
ZERO_WIDTH = (
    "\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2060\u2061\u2062\u2063\u2064\ufeff"
)
ZERO_WIDTH_CHARS = re.compile(f"[{ZERO_WIDTH}]")
JSON_ESCAPES = {"n": "\n", "r": "\r", "t": "\t", "b": "\b", "f": "\f", '"': '"', "\\": "\\", "/": "/"}
NORMALISED = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b\n]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]"
    r"|\\(?:u001[bB]|x1[bB]|033|e)\[[0-?]*[ -/]*[@-~]"
    r"|\\u[0-9A-Fa-f]{4}|\\[nrtbf\"\\/]"
    rf"|[{ZERO_WIDTH}]"
)


def _replacement(escape: str) -> str:
    if escape[0] != "\\" or escape[1] in "ex03" or escape.startswith(("\\u001b[", "\\u001B[")):
        return ""  # an ANSI code or a zero-width character
    if escape[1] == "u":
        char = chr(int(escape[2:], 16))
        return "" if char in ZERO_WIDTH else char
    return JSON_ESCAPES[escape[1]]


class Normalised:
    """A text normalised, with the way back: `raw_start` and `raw_end` give the raw offsets of a
    span of the normalised text. A plain character after replacement i (made at `_after[i]` less
    its length there, 0 or 1) is shifted by `_raw_ends[i] - _after[i]`."""

    def __init__(self, text: str):
        self.raw = text
        self._after: list[int] = []  # where the normalised text goes on after each replacement
        self._raw_ends: list[int] = []
        self._replaced: list[int] = []  # the places of the replacements one character long
        self._replaced_raw: list[tuple[int, int]] = []
        if "\\" not in text and "\x1b" not in text and (text.isascii() or not ZERO_WIDTH_CHARS.search(text)):
            self.text = text
            return
        pieces, last, size = [], 0, 0
        for match in NORMALISED.finditer(text):
            start, end = match.span()
            replaced = _replacement(match.group())
            pieces += [text[last:start], replaced]
            size += start - last
            if replaced:
                self._replaced.append(size)
                self._replaced_raw.append((start, end))
            size += len(replaced)
            self._after.append(size)
            self._raw_ends.append(end)
            last = end
        pieces.append(text[last:])
        self.text = "".join(pieces)

    def raw_start(self, position: int) -> int:
        at = bisect.bisect_left(self._replaced, position)
        if at < len(self._replaced) and self._replaced[at] == position:
            return self._replaced_raw[at][0]
        before = bisect.bisect_right(self._after, position) - 1
        if before < 0:
            return position
        return self._raw_ends[before] + position - self._after[before]

    def raw_end(self, position: int) -> int:
        if position == 0:
            return position
        last = position - 1
        at = bisect.bisect_left(self._replaced, last)
        if at < len(self._replaced) and self._replaced[at] == last:
            return self._replaced_raw[at][1]
        return self.raw_start(last) + 1


# Streamed deltas: the text pieces of a response streamed in chunks (Anthropic's content_block_delta,
# OpenAI's choices[].delta and Responses' *.delta events, ACP's agent_message chunks), joined in
# order, so that a key cut between two chunks is whole.
DELTA_PIECES = re.compile(
    r'"delta"\s*:\s*\{[^{}]*?"(?:text|partial_json|thinking|content|arguments)"\s*:\s*"((?:[^"\\\n]|\\.)*)"'
    r'|"delta"\s*:\s*"((?:[^"\\\n]|\\.)*)"'
    r'|"type"\s*:\s*"agent_(?:message|thought)(?:_chunk)?"\s*,\s*"text"\s*:\s*"((?:[^"\\\n]|\\.)*)"'
    r'|"text"\s*:\s*"((?:[^"\\\n]|\\.)*)"\s*,\s*"type"\s*:\s*"agent_(?:message|thought)(?:_chunk)?"'
)


def _joined_deltas(text: str, layers: int) -> list[tuple[int, int, None, str]]:
    """Secrets that lie across two or more delta pieces of the text, as a span in each piece."""
    if '"delta"' not in text and '"agent_' not in text:
        return []
    pieces = []
    for match in DELTA_PIECES.finditer(text):
        group = next(g for g in range(1, 5) if match.group(g) is not None)
        if match.end(group) > match.start(group):
            pieces.append((match.start(group), match.end(group)))
    if len(pieces) < 2:
        return []
    offsets, at = [], 0
    for start, end in pieces:
        offsets.append(at)
        at += end - start
    joined = "".join(text[start:end] for start, end in pieces)
    found = []
    for start, end, _, _ in _detected(joined, layers):
        first = bisect.bisect_right(offsets, start) - 1
        last = bisect.bisect_right(offsets, end - 1) - 1
        for piece in range(first, last + 1) if last > first else ():
            piece_start, piece_end = pieces[piece]
            low = piece_start + max(0, start - offsets[piece])
            high = piece_start + min(piece_end - piece_start, end - offsets[piece])
            if high > low:
                found.append((low, high, None, RULE_DELTAS))
    return found


@functools.lru_cache(maxsize=4096)
def label(value: str) -> str:
    """The label of a secret value, from the value alone (its normal form): the most specific
    thing it is whole, else "secret"."""
    text = Normalised(value).text.strip()
    for start, end, kind, _ in _detected(text):
        if start == 0 and end == len(text) and kind is not None:
            return kind
    return "secret"


@functools.lru_cache(maxsize=8)
def _known_pattern(values: tuple[str, ...]) -> tuple[re.Pattern | None, dict[str, str]]:
    wanted = sorted({v for v in values if v and not REDACTED_MARK.search(v)}, key=lambda v: (-len(v), v))
    if not wanted:
        return None, {}
    return re.compile("|".join(map(re.escape, wanted)), re.I), {v.lower(): v for v in reversed(wanted)}


def find_rules(text: str, known_values=()) -> list[tuple[int, int, str, str]]:
    """Spans (start, end, label, rule) of secrets in text, without overlaps, in order. Known values
    are matched in any case (a key pasted as a model name lands lower-cased in file names) and keep
    the label of the value as it was found. Where spans overlap, one span covers them all, named
    by the rule of the first."""
    normal = Normalised(text)
    norm = normal.text
    known, canonical = _known_pattern(tuple(known_values))
    spans = []
    if known:
        spans += [(m.start(), m.end(), canonical.get(m.group().lower()), RULE_KNOWN) for m in known.finditer(norm)]
    spans += [(start, end, None, rule) for start, end, _, rule in _detected(norm) + _joined_deltas(norm, MAX_LAYERS)]
    marks = [match.span() for match in REDACTED_MARK.finditer(norm)] if "[REDACTED:" in norm else []
    if marks:  # idempotent: what lies inside a mark was redacted before
        spans = [span for span in spans if not any(start <= span[0] and span[1] <= end for start, end in marks)]
    spans = [(normal.raw_start(start), normal.raw_end(end), value, rule) for start, end, value, rule in spans]
    # of spans alike, the one a rule found by what it is names the hit: a rule of context before
    # high entropy, and both before a value known from elsewhere
    spans.sort(key=lambda span: (span[0], -span[1], TIE_ORDER.get(span[3], 0)))
    merged: list[list] = []
    for start, end, value, rule in spans:
        if merged and start < merged[-1][1]:  # overlapping: one span over both
            if end > merged[-1][1]:
                merged[-1][1:3] = [end, None]
        else:
            merged.append([start, end, value, rule])
    return [(start, end, label(value or text[start:end]), rule) for start, end, value, rule in merged]


def find(text: str, known_values=()) -> list[tuple[int, int, str]]:
    """Spans (start, end, label) of secrets in text, without overlaps, in order (find_rules')."""
    return [(start, end, kind) for start, end, kind, _ in find_rules(text, known_values)]


def propagates(value: str) -> bool:
    """Whether a value found as a secret is redacted wherever else it appears: long enough, and
    not short hex (which would also match inside sha256 digests and corrupt them)."""
    return len(value) >= PROPAGATE_MIN and (len(value) >= HEX_PROPAGATE_MIN or not HEX.fullmatch(value.lower()))


def replace_spans(text: str, spans) -> str:
    """The text with each span (find's or find_rules') replaced by its label."""
    pieces, last = [], 0
    for start, end, kind, *_ in spans:
        pieces += [text[last:start], f"[REDACTED:{kind}]"]
        last = end
    pieces.append(text[last:])
    return "".join(pieces)


def redact_text(text: str, known_values=()) -> tuple[str, list[str]]:
    """The text with every secret replaced, and the labels of the hits (one per hit)."""
    spans = find(text, known_values)
    return (replace_spans(text, spans) if spans else text), [kind for _, _, kind in spans]


def redact_hits(data: bytes, known_values=()) -> tuple[bytes, list[tuple[str, str]]]:
    """The bytes with every secret replaced, and (label, rule) of each hit."""
    text = data.decode("utf-8", errors="surrogateescape")
    return _replaced(data, text, find_rules(text, known_values))


def _replaced(data: bytes, text: str, spans: list) -> tuple[bytes, list[tuple[str, str]]]:
    """`data` (decoded as `text`) with find_rules' spans replaced, and (label, rule) of each."""
    if not spans:
        return data, []
    return replace_spans(text, spans).encode("utf-8", errors="surrogateescape"), [
        (kind, rule) for _, _, kind, rule in spans
    ]


def redact_known_hits(data: bytes, known_values) -> tuple[bytes, list[tuple[str, str]]]:
    """Only the known values replaced: what redact_hits() gives for bytes in which find() alone
    finds nothing, at the cost of a literal search."""
    pattern, canonical = _known_pattern(tuple(known_values))
    if pattern is None:
        return data, []
    text = data.decode("utf-8", errors="surrogateescape")
    normal = Normalised(text)
    spans = [
        (normal.raw_start(m.start()), normal.raw_end(m.end()), label(canonical[m.group().lower()]), RULE_KNOWN)
        for m in pattern.finditer(normal.text)
    ]
    return _replaced(data, text, spans)


def review_findings(text: str) -> list[tuple[int, int, str]]:
    """What a researcher should read before sharing text that was redacted: every secret the scan
    still finds (start, end, its rule), then each remaining run that is key-like by the review's
    lower bar (see key_like), outside the marks."""
    found = [(start, end, rule) for start, end, _, rule in find_rules(text)]
    taken = [(start, end) for start, end, _ in found]
    taken += [match.span() for match in REDACTED_MARK.finditer(text)] if "[REDACTED:" in text else []
    normal = Normalised(text)
    data = _data_regions(normal.text)
    for start, end in _runs(normal.text, floor=REVIEW_RUN_FLOOR):
        raw_start, raw_end = normal.raw_start(start), normal.raw_end(end)
        if any(a < raw_end and raw_start < b for a, b in taken) or any(a <= start < b for a, b in data):
            continue
        run = normal.text[start:end]
        if run.startswith(FILE_MAGIC):
            continue
        if key_like(run, strict=False) and not _decoded(run):
            found.append((raw_start, raw_end, RULE_REVIEW))
    return sorted(found)
