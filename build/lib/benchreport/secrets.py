"""Find and redact secrets in text that is about to leave the machine (a bundle).

Shapes of the common providers' API keys, bearer tokens, private keys, `.env`-style and JSON
assignments to names ending in KEY, TOKEN or SECRET, and values the caller knows are secret (an
agent_env entry with a secret-looking name). A hit is replaced by "[REDACTED:<kind>]", which keeps
JSON valid; the caller learns the kind and the file, never the value.
"""

from __future__ import annotations

import re

SECRET_NAME = r"[A-Za-z0-9_]*(?:KEY|TOKEN|SECRET|PASSWORD|CREDENTIALS?)"
# (kind, pattern, group holding the secret: 0 for the whole match)
PATTERNS = [
    ("private key", re.compile(r"-----BEGIN [A-Z ]*PRIVATE KEY-----.*?-----END [A-Z ]*PRIVATE KEY-----", re.S), 0),
    ("anthropic api key", re.compile(r"\bsk-ant-[A-Za-z0-9_-]{20,}"), 0),
    ("openai api key", re.compile(r"\bsk-(?:proj-|svcacct-|admin-)?[A-Za-z0-9_-]{20,}"), 0),
    ("aws access key id", re.compile(r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b"), 0),
    ("github token", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})"), 0),
    ("google api key", re.compile(r"\bAIza[0-9A-Za-z_-]{35}"), 0),
    ("slack token", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}"), 0),
    ("hugging face token", re.compile(r"\bhf_[A-Za-z0-9]{30,}"), 0),
    ("bearer token", re.compile(r"\b[Bb]earer\s+([A-Za-z0-9._~+/=-]{16,})"), 1),
    ("secret assignment", re.compile(rf"\b{SECRET_NAME}\s*[=:]\s*['\"]?([^\s'\"#]{{8,}})"), 1),
    ("secret in JSON", re.compile(rf"\"{SECRET_NAME}\"\s*:\s*\"([^\"\\\\]{{8,}})\""), 1),
]
SECRET_ENV_NAME = re.compile(rf"^{SECRET_NAME}$", re.I)


def secret_env_values(agent_env) -> list[str]:
    """Values of agent_env entries whose names say they are secret (BenchFlow drops most itself)."""
    if not isinstance(agent_env, dict):
        return []
    return [str(value) for name, value in agent_env.items()
            if SECRET_ENV_NAME.match(str(name)) and isinstance(value, str) and len(value) >= 4]


def find(text: str, known_values=()) -> list[tuple[int, int, str]]:
    """Spans (start, end, kind) of secrets in text, without overlaps, in order."""
    spans = []
    for value in known_values:
        start = text.find(value)
        while start >= 0:
            spans.append((start, start + len(value), "agent_env value"))
            start = text.find(value, start + 1)
    for kind, pattern, group in PATTERNS:
        for match in pattern.finditer(text):
            if match.group(group) and not match.group(group).startswith("[REDACTED"):
                spans.append((match.start(group), match.end(group), kind))
    spans.sort(key=lambda span: (span[0], -span[1]))
    merged = []
    for span in spans:
        if merged and span[0] < merged[-1][1]:
            continue
        merged.append(span)
    return merged


def redact(data: bytes, known_values=()) -> tuple[bytes, list[str]]:
    """The bytes with every secret replaced, and the kinds found (one per hit)."""
    text = data.decode("utf-8", errors="surrogateescape")
    spans = find(text, known_values)
    if not spans:
        return data, []
    pieces, last = [], 0
    for start, end, kind in spans:
        pieces += [text[last:start], f"[REDACTED:{kind}]"]
        last = end
    pieces.append(text[last:])
    return "".join(pieces).encode("utf-8", errors="surrogateescape"), [kind for _, _, kind in spans]
