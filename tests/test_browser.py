"""results/report.html in a real headless Chromium (Debian's chromium with its chromium-driver,
through Selenium 4): the headline table and the figures are rendered and visible in a screenshot,
a task named `<script>alert(1)</script>` shows as text and runs nothing, links lead to the trials,
and the console stays clean.

Skipped with a message when chromium, chromedriver or selenium is missing (conftest.require); under
BENCHREPORT_CI=1 that is a failure.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from conftest import require
from test_paper import XSS_TASK, built_workflow

CHROMIUM = os.environ.get("BENCHREPORT_CHROMIUM", "/usr/bin/chromium")
CHROMEDRIVER = os.environ.get("BENCHREPORT_CHROMEDRIVER", "/usr/bin/chromedriver")
# Quiet on a machine without network: no sync, component updates, background requests or QUIC.
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--hide-scrollbars",
    "--force-device-scale-factor=1",
    "--window-size=1400,3000",
]
ALERT_HOOK = """
window.__alerts = [];
for (const name of ["alert", "confirm", "prompt"]) {
  window[name] = function (message) { window.__alerts.push(name + ":" + String(message)); return null; };
}
"""


@pytest.fixture
def browser(tmp_path):
    for path, package in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (Path(path).is_file() and os.access(path, os.X_OK)):
            require(f"{path} not found: apt-get install {package}")
    try:
        from selenium import webdriver
        from selenium.webdriver.chrome.service import Service
    except ImportError:
        require("selenium is not installed: pip install -e '.[test]'")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    options.add_argument(f"--user-data-dir={tmp_path / 'chromium-profile'}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    options.unhandled_prompt_behavior = "ignore"
    service = Service(executable_path=CHROMEDRIVER, log_output=str(tmp_path / "chromedriver.log"))
    driver = webdriver.Chrome(service=service, options=options)
    try:
        driver.execute_cdp_cmd("Page.addScriptToEvaluateOnNewDocument", {"source": ALERT_HOOK})
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(tmp_path / "chromium-profile", ignore_errors=True)


def variance(image) -> float:
    from PIL import ImageStat

    return ImageStat.Stat(image.convert("L")).var[0]


def test_report_html_renders_in_chromium(tmp_path_factory, browser, tmp_path):
    from PIL import Image
    from selenium.common.exceptions import NoAlertPresentException
    from selenium.webdriver.common.by import By

    workflow = built_workflow(tmp_path_factory)
    page = workflow.results / "report.html"
    browser.get(page.resolve().as_uri())
    assert browser.execute_script("return document.readyState") == "complete"

    # the headline table: five settings, drawn with a size
    table = browser.find_element(By.ID, "headline-table")
    assert table.is_displayed() and table.size["width"] > 300 and table.size["height"] > 100
    rows = table.find_elements(By.CSS_SELECTOR, "tbody tr")
    assert len(rows) == 5
    assert "codex_acp on openai/gpt-5.1" in table.text

    # the figures: three inlined SVGs, decoded, with a size
    images = browser.find_elements(By.CSS_SELECTOR, "figure img")
    assert len(images) == 3
    for image in images:
        assert image.get_attribute("src").startswith("data:image/svg+xml;base64,")
        assert browser.execute_script("return arguments[0].complete && arguments[0].naturalWidth > 0", image)
        assert image.size["width"] > 200 and image.size["height"] > 100

    # the picture: not blank, and each figure's area has ink in it
    shot = tmp_path / "report.png"
    assert browser.save_screenshot(str(shot))
    picture = Image.open(shot)
    assert variance(picture) > 200, "the screenshot looks blank"
    for image in images:
        box = browser.execute_script(
            "const r = arguments[0].getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom];", image
        )
        left, top, right, bottom = (int(v) for v in box)
        if top >= picture.height:
            continue  # below the fold: checked through the DOM above
        crop = picture.crop((max(0, left), max(0, top), min(picture.width, right), min(picture.height, bottom)))
        assert variance(crop) > 100, f"a figure at {box} is blank in the screenshot"

    # the hostile task name is text, and nothing ran
    assert browser.execute_script("return window.__alerts") == []
    with pytest.raises(NoAlertPresentException):
        browser.switch_to.alert.text  # noqa: B018
    assert browser.execute_script("return document.scripts.length") == 0
    summaries = [s for s in browser.find_elements(By.CSS_SELECTOR, "table.per-task summary") if s.text == XSS_TASK]
    assert summaries, "the <script> task name is not shown as text"
    target = summaries[0]
    browser.execute_script("arguments[0].scrollIntoView()", target)
    assert target.is_displayed()
    target.click()  # a per-task row opens onto its trials
    trials = target.find_element(By.XPATH, "..").find_elements(By.CSS_SELECTOR, ":scope > table > tbody > tr")
    assert len(trials) == 2 and all(row.is_displayed() for row in trials)
    browser.save_screenshot(str(tmp_path / "task-opened.png"))

    # a headline number leads to its setting's section and trials
    browser.execute_script("window.scrollTo(0, 0)")
    link = table.find_element(By.CSS_SELECTOR, "tbody tr td:nth-child(2) a")
    section = link.get_attribute("href").split("#", 1)[1]
    link.click()
    assert browser.execute_script("return location.hash") == f"#{section}"
    assert browser.find_element(By.ID, section).is_displayed()
    browser.execute_script("window.scrollTo(0, 0)")
    trials_link = table.find_element(By.CSS_SELECTOR, "tbody tr td:nth-child(6) a")
    trials_id = trials_link.get_attribute("href").split("#", 1)[1]
    trials_note = browser.find_element(By.ID, trials_id)  # says where the trials are: under their task, below
    trials_link.click()
    assert browser.execute_script("return location.hash") == f"#{trials_id}" and trials_note.is_displayed()
    assert "listed once, under their task" in trials_note.text
    per_task = trials_note.find_element(By.XPATH, "following-sibling::table[1]")
    assert "per-task" in per_task.get_attribute("class").split()
    # every trial of the setting in its task's <details>, and each once (the small example lists them all)
    folders = [
        cell.get_attribute("textContent")
        for cell in per_task.find_elements(
            By.CSS_SELECTOR, ":scope > tbody > tr > td > details > table > tbody > tr > td.mono"
        )
    ]
    assert len(folders) == len(set(folders)) == int(trials_link.text)
    page = browser.page_source
    assert all(page.count(folder) == 1 for folder in folders)

    # no console output at all: no error, no blocked script, no alert
    logs = browser.get_log("browser")
    assert [entry for entry in logs if entry["level"] in ("SEVERE", "WARNING")] == [], logs
    assert not [entry for entry in logs if "alert" in entry["message"].lower()], logs
