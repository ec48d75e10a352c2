"""Headless Chromium on the board's page (tests, the load benchmark, screenshots); needs
selenium and Debian's chromium and chromium-driver."""

from __future__ import annotations

import shutil
from typing import Any


def chromium_driver() -> str | None:
    return shutil.which("chromedriver")


def open_browser(width: int = 1920, height: int = 1080) -> Any:
    """A headless Chromium (selenium WebDriver) of that window size."""
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    for arg in ("--headless=new", "--no-sandbox", "--disable-dev-shm-usage", "--disable-gpu",
                f"--window-size={width},{height}", "--lang=en-US"):  # fmt: skip
        options.add_argument(arg)
    if shutil.which("chromium"):
        options.binary_location = shutil.which("chromium")
    return webdriver.Chrome(service=Service(chromium_driver()), options=options)
