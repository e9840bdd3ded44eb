"""How numbers and data are written in every output: the one formatting layer.

Every renderer (report.md, writeup.md, report.html, paper/, comparisons/, index.md) formats through
these functions and the sentences in `sentences`; none formats a rate, a level or a cost itself, so
the same quantity reads the same everywhere. A leaf module: it imports nothing of the package.
"""

from __future__ import annotations

import re
import textwrap

NOT_RECORDED = "not recorded"
# The widest line of prose an output wraps to (BenchFlow's own write-up sample keeps to 119).
LINE_WIDTH = 120


def shortened(text: str, limit: int) -> str:
    """The text cut to `limit` characters, an ellipsis marking the cut."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def pct(value, digits: int = 0) -> str:
    return "n/a" if value is None else f"{value * 100:.{digits}f}%"


def level(confidence: float | None) -> str:
    """The confidence level as printed: 0.95 -> '95%', 0.9 -> '90%', 0.975 -> '97.5%'."""
    return "n/a" if confidence is None else f"{confidence * 100:g}%"


def count(number: int, noun: str, plural: str | None = None) -> str:
    """'1 trial', '9 trials' ('1 try', '2 tries' with plural='tries')."""
    return f"{number:,} {noun}" if number == 1 else f"{number:,} {plural or noun + 's'}"


def of_total(part: int, whole: int, noun: str, plural: str | None = None) -> str:
    """Some of a whole, as the subject of a sentence: 'the only task', 'both tasks', 'all 5 tasks',
    '1 of 10 tasks', '3 of 10 tasks' (the verb agrees with `part`: singular when it is 1)."""
    many = plural or noun + "s"
    if part == whole == 1:
        return f"the only {noun}"
    if part == whole == 2:
        return f"both {many}"
    if part == whole:
        return f"all {whole:,} {many}"
    return f"{part:,} of {whole:,} {noun if whole == 1 else many}"


def num(value) -> str:
    if value is None:
        return NOT_RECORDED
    return f"{value:,}" if isinstance(value, int) else f"{value:,.3g}"


def usd(value) -> str:
    return "n/a" if value is None else f"${value:,.4f}" if value < 1 else f"${value:,.2f}"


def seconds(value) -> str:
    if value is None:
        return "—"
    return f"{value:,.0f}" if value >= 100 else f"{value:.1f}"


def reward(value) -> str:
    return "—" if value is None else f"{value:g}"


def pass_rule(solve_threshold: float) -> str:
    """'pass = reward ≥ 1.0': which trials pass, at a solve threshold (a rubric review's own verdict,
    where one was given, decides instead)."""
    return f"pass = reward ≥ {float(solve_threshold)}"


def interval_text(low, high, formatter=pct) -> str:
    if low is None or high is None:
        return "not defined"
    return f"{formatter(low)} to {formatter(high)}"


def method(name) -> str:
    """An interval method's name, or what stands for it where no method gives an interval."""
    return name or "none defined"


def signed_pp(value) -> str:
    """A difference of rates in percentage points, ASCII signs: '+2 pp', '-18 pp'."""
    if value is None:
        return "n/a"
    points = round(value * 100)
    return f"{points:+d} pp" if points else "0 pp"


def points(value) -> str:
    """A size of a difference of rates, either way, in percentage points: '±18 pp'."""
    return "n/a" if value is None else f"±{value * 100:.0f} pp"


def p_text(value) -> str:
    return "n/a" if value is None else f"{value:.3g}"


def bar(rate, width: int = 10) -> str:
    filled = round((rate or 0) * width)
    return "█" * filled + "░" * (width - filled)


# Markdown characters that would turn data into markup: links and images ([...](...), ![...]),
# emphasis (an underscore only where it can open or close it: not inside a word, CommonMark's
# flanking rule), code spans, raw HTML and autolinks (<...>), strikethrough, table pipes, and a
# heading mark at the start. Each is backslash-escaped (CommonMark: any ASCII punctuation may be).
_MARKDOWN_SPECIAL = re.compile(r"[\\`*\[\]<>|~]|(?<![A-Za-z0-9_])_+|_+(?![A-Za-z0-9_])|^#")


def cell(value) -> str:
    """Data as inert Markdown text (a table cell or a sentence): no markup, no links, no raw HTML,
    no pipes, no newlines. HTML-significant characters become entities as well, so the text stays
    inert in renderers that pass HTML through."""
    text = "—" if value is None or value == "" else str(value)
    text = text.replace("&", "&amp;").replace("\r", " ").replace("\n", " ")
    text = _MARKDOWN_SPECIAL.sub(lambda match: "".join("\\" + char for char in match.group()), text)
    return text.replace("\\<", "&lt;").replace("\\>", "&gt;")


# What opens a Markdown block at the start of a line (a list item, a heading, a quote, a setext
# underline), as opposed to continuing a paragraph.
_BLOCK_START = re.compile(r"^(?:[-+=#]|\d+[.)](?=\s|$))")


def wrap(text: str, width: int = LINE_WIDTH) -> list[str]:
    """A paragraph of inert Markdown text (`cell`'s) as lines of at most `width` characters (a
    longer word stands alone); a line that would open a list, heading or quote has that character
    escaped, so the lines stay one paragraph (one column is kept for the backslash)."""
    lines = textwrap.wrap(text, width - 1, break_long_words=False, break_on_hyphens=False) or [""]
    return [_BLOCK_START.sub(_escaped_start, line) for line in lines]


def _escaped_start(match: re.Match) -> str:
    marker = match.group()
    return marker[:-1] + "\\" + marker[-1] if marker[0].isdigit() else "\\" + marker


def code(value) -> str:
    """Data inside a Markdown code span: backticks cannot be escaped there, so they are replaced."""
    text = "" if value is None else str(value)
    return "`" + text.replace("`", "'").replace("\r", " ").replace("\n", " ").replace("|", "\\|") + "`"


FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def spreadsheet_cell(value):
    """A CSV/TSV cell that a spreadsheet will not run as a formula: a text starting with = + - @,
    a tab or a carriage return gets a leading apostrophe (the OWASP rule). Numbers are written as
    numbers, so negative values stay negative."""
    if value is None:
        return ""
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return value
    return formula_safe(str(value))


def formula_safe(text: str) -> str:
    """Text with a leading apostrophe where a spreadsheet would run it as a formula."""
    return "'" + text if text.startswith(FORMULA_START) else text
