"""Headless Chromium for the browser tests: where it is, and the marks that skip a test
module cleanly when it is not installed."""

from __future__ import annotations

import shutil

import pytest

BROWSER = shutil.which("chromium") or shutil.which("chromium-browser")

#: `pytestmark = BROWSER_MARKS` in a module whose tests all need the browser.
BROWSER_MARKS = [
    pytest.mark.browser,
    pytest.mark.skipif(
        BROWSER is None,
        reason="headless Chromium is not installed (`make test` installs the Debian package "
        "`chromium` when it can)",
    ),
]
