"""Config errors in a few lines: the key, what is wrong with it and what is allowed there.

jsonschema's own message, which Snakemake prints, quotes the whole schema and the whole config
after the one line that matters.
"""

from __future__ import annotations

import difflib

import jsonschema

LONGEST = 120  # characters of a value quoted back


def clip(text: str) -> str:
    return text if len(text) <= LONGEST else text[: LONGEST - 3] + "..."


def short(value) -> str:
    return clip(repr(value))


def describe(error: jsonschema.ValidationError) -> list[str]:
    """The lines that say what one schema error is about."""
    where = ".".join(str(part) for part in error.absolute_path)
    schema = error.schema
    if error.validator == "additionalProperties":
        allowed = sorted(schema.get("properties", {}))
        lines = []
        for key in sorted(set(error.instance) - set(allowed)):
            guess = difflib.get_close_matches(key, allowed, n=1)
            hint = f" (did you mean {guess[0]!r}?)" if guess else ""
            lines.append(f"config: unknown key {'.'.join(filter(None, [where, key]))!r}{hint}")
        return [*lines, f"  keys allowed {'under ' + where if where else 'at the top'}: {', '.join(allowed)}"]
    if error.validator == "enum":
        lines = [
            f"config: {where}: {short(error.instance)} is not allowed",
            f"  allowed values: {', '.join(short(value) for value in error.validator_value)}",
        ]
    elif error.validator == "type":
        lines = [f"config: {where}: {short(error.instance)} is not of type {error.validator_value}"]
    else:
        lines = [f"config: {where or '(top level)'}: {clip(error.message)}"]
    if "description" in schema:
        lines.append(f"  ({where}: {' '.join(schema['description'].split())})")
    return lines


def problems(config: dict, schema: dict) -> list[str]:
    """Every way `config` breaks `schema`, a few lines each; empty when it is valid."""
    validator = jsonschema.Draft202012Validator(schema)
    errors = sorted(validator.iter_errors(config), key=lambda error: [str(part) for part in error.absolute_path])
    return [line for error in errors for line in describe(error)]
