"""What a bundle would publish that still looks like a secret, for a researcher to read before
sharing (as BenchFlow's `bench traj upload` shows its redacted preview): every string of every
member that the scan still finds, or that looks random by the review's lower bar
(secrets.review_findings), with its member, its rule and a masked context. The archive is read as
a stream; nothing in it is extracted or run."""

from __future__ import annotations

import json
import tarfile
import zlib
from dataclasses import dataclass

from ..read import secrets

CONTEXT = 24  # characters shown on each side of a finding
SHOWN = 4  # characters of the finding itself shown


@dataclass(frozen=True)
class Finding:
    file: str  # the member's path inside the bundle (its top folder left out)
    rule: str
    context: str  # the characters around it, the finding masked, escaped as in a JSON string


def masked_context(text: str, start: int, end: int) -> str:
    """CONTEXT characters either side of text[start:end], which shows its first SHOWN characters
    and its length, on one line (newlines and controls escaped)."""
    shown = f"{text[start : start + SHOWN]}…[{end - start} chars]"
    around = text[max(0, start - CONTEXT) : start] + shown + text[end : end + CONTEXT]
    return json.dumps(around, ensure_ascii=False)[1:-1]


def review_text(name: str, text: str) -> list[Finding]:
    return [Finding(name, rule, masked_context(text, start, end)) for start, end, rule in secrets.review_findings(text)]


def review_archive(path: str) -> tuple[int, list[Finding]]:
    """(members read, findings) of a bundle; a file that is no readable .tar.gz is a ValueError
    naming it."""
    members, found = 0, []
    try:
        with tarfile.open(path, "r|gz") as archive:
            for member in archive:
                name = member.name.split("/", 1)[1] if "/" in member.name else member.name
                found += review_text(name, name)  # a file or folder name is published too
                if not member.isreg():
                    continue
                data_file = archive.extractfile(member)
                assert data_file is not None  # a regular file's member has data
                data = data_file.read()
                members += 1
                found += review_text(name, data.decode("utf-8", "surrogateescape"))
    except (tarfile.TarError, EOFError, zlib.error) as error:
        raise ValueError(f"{path}: not a readable .tar.gz bundle ({error})") from None
    return members, found
