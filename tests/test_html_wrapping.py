"""Long identifiers in results/report.html (image references, digests, job folders, files) wrap
only where a reader expects it, after `__`, `-`, `/`, `:` or `@`, or at a space: never inside a
word, however narrow the window. Checked in a real headless Chromium (tests/test_browser.py's)."""

from __future__ import annotations

from test_browser import browser  # noqa: F401 (the fixture)

# Every character of the cells of a table with the top of the line it is drawn on, in order
# (a character drawn nowhere, a collapsed space, is left out).
DRAWN = """
const found = [];
for (const cell of document.querySelectorAll(arguments[0] + " td")) {
  const walker = document.createTreeWalker(cell, NodeFilter.SHOW_TEXT);
  const characters = [];
  for (let node = walker.nextNode(); node; node = walker.nextNode()) {
    for (let i = 0; i < node.data.length; i++) {
      const range = document.createRange();
      range.setStart(node, i);
      range.setEnd(node, i + 1);
      const rects = range.getClientRects();
      if (rects.length) characters.push([node.data[i], rects[0].top]);
    }
  }
  found.push(characters);
}
return found;
"""
BREAK_AFTER = set("_-/:@ ,;")


def line_ends(characters: list) -> list[str]:
    """The text of each line of a cell but the last, as drawn."""
    ends, line = [], ""
    for (character, top), (_, next_top) in zip(characters, characters[1:]):
        line += character
        if next_top > top + 1:
            ends.append(line)
            line = ""
    return ends


def test_identifiers_wrap_only_at_their_separators(real_run, browser):  # noqa: F811
    browser.set_window_size(520, 2000)
    browser.get((real_run.results / "report.html").resolve().as_uri())
    wrapped = 0
    for table in ("#environment-table", "#ledger-table"):
        for characters in browser.execute_script(DRAWN, table):
            for line in line_ends(characters):
                assert line[-1] in BREAK_AFTER, f"{table}: a line ends inside a word: {line!r}"
                wrapped += line[-1] in "_-/:@"
    assert wrapped, "nothing wrapped at a separator: the window is not narrow enough to test"
