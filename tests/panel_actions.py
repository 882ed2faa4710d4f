"""What the end-to-end tests do in a side panel, whichever browser drives it: wait for a
condition, click, type. Chromium (DevTools, `panel_browser.Page`) and Firefox (Marionette,
`test_sidepanel_firefox_e2e.FirefoxPanel`) differ only in how an expression is evaluated."""

from __future__ import annotations

import json
import time
from typing import Any

import pytest


class PanelActions:
    """Actions built on `eval`, which each browser's driver provides."""

    def eval(self, expression: str) -> Any:
        raise NotImplementedError

    def wait(self, expression: str, seconds: float = 30, what: str = "") -> None:
        """Poll `expression` every 0.1 s; fail with what the panel shows when time runs out."""
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if self.eval(f"Boolean({expression})"):
                return
            time.sleep(0.1)
        shown = self.eval("document.body ? document.body.innerText.slice(0, 3000) : ''")
        pytest.fail(f"waited {seconds} s for {what or expression!r}; the page shows:\n{shown}")

    def click(self, selector: str) -> None:
        found = self.eval(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)});"
            " if (!el) return false; el.scrollIntoView({block: 'center'}); el.click(); return true; })()"
        )
        assert found, f"no element {selector!r} to click"

    def type(self, selector: str, text: str) -> None:
        """Set an input's value as a user would leave it: focused, with input and change fired."""
        found = self.eval(
            f"(() => {{ const el = document.querySelector({json.dumps(selector)}); if (!el) return false;"
            f" el.focus(); el.value = {json.dumps(text)};"
            " el.dispatchEvent(new Event('input', {bubbles: true}));"
            " el.dispatchEvent(new Event('change', {bubbles: true})); return true; })()"
        )
        assert found, f"no element {selector!r} to type into"
