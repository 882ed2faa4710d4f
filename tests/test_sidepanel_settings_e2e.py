"""The settings registry in the side panel (issue #17), in real headless Chromium with the real
extension and the real installed host: a `laika config set` from a CLI subprocess (same
LAIKA_HOME) reaches the open panel as a `config.changed` host event, through the background's
relay, and the panel applies `ui.theme` / `ui.show_citations` and re-lists the providers without
a reload. One browser serves the module; each test sets the state it checks."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from panel_browser import Page, PanelBrowser, connected_panel, shoot

from support import run_laika

pytestmark = pytest.mark.browser  # every test here starts Chromium

DARK_BG = "rgb(22, 25, 29)"  # panel.css --bg under data-theme="dark"
LIGHT_BG = "rgb(255, 255, 255)"
MARK = "window.__laikaSamePage"  # set once: gone if the panel reloaded


@pytest.fixture(scope="module")
def browser(tmp_path_factory: pytest.TempPathFactory) -> Iterator[PanelBrowser]:
    # the host checks the registry 5x a second instead of once: the tests wait less
    started = PanelBrowser(
        tmp_path_factory.mktemp("settings"), env={"LAIKA_CONFIG_POLL_SECONDS": "0.2"}
    )
    yield started
    started.close()


@pytest.fixture(scope="module")
def panel(browser: PanelBrowser) -> Page:
    page = connected_panel(browser)
    page.eval(f"{MARK} = true")
    return page


def cli(browser: PanelBrowser, *args: str) -> None:
    done = run_laika(*args, env=browser.env)
    assert done.returncode == 0, done.stderr


def set_ui(browser: PanelBrowser, path: str, value: str) -> None:
    cli(browser, "config", "set", path, value)


def shows(panel: Page, theme: str, background: str) -> None:
    panel.wait(
        f"document.documentElement.dataset.theme === '{theme}' &&"
        f" getComputedStyle(document.body).backgroundColor === '{background}'",
        seconds=15,
        what=f"the panel in its {theme} theme",
    )


def test_a_cli_theme_change_reaches_the_open_panel_without_a_reload(
    browser: PanelBrowser, panel: Page
) -> None:
    set_ui(browser, "ui.theme", "light")
    shows(panel, "light", LIGHT_BG)
    set_ui(browser, "ui.theme", "dark")
    shows(panel, "dark", DARK_BG)
    assert panel.eval("getComputedStyle(document.documentElement).colorScheme") == "dark"
    set_ui(browser, "ui.theme", "light")
    shows(panel, "light", LIGHT_BG)
    assert panel.eval(MARK) is True, "the panel was not reloaded"
    assert panel.problems() == []


def test_system_follows_the_browsers_scheme_and_a_setting_overrides_it(
    browser: PanelBrowser, panel: Page
) -> None:
    set_ui(browser, "ui.theme", "system")
    panel.wait("document.documentElement.dataset.theme", what="a theme")
    for scheme, background in (("dark", DARK_BG), ("light", LIGHT_BG)):
        panel.call(
            "Emulation.setEmulatedMedia",
            features=[{"name": "prefers-color-scheme", "value": scheme}],
        )
        shows(panel, scheme, background)
    set_ui(browser, "ui.theme", "dark")  # the system says light: the setting wins
    shows(panel, "dark", DARK_BG)
    panel.call("Emulation.setEmulatedMedia", features=[])
    set_ui(browser, "ui.theme", "system")
    assert panel.problems() == []


def test_before_the_theme_is_known_the_panel_follows_the_system(
    browser: PanelBrowser, panel: Page
) -> None:
    """The first paint, before ui_live.js sets data-theme, already has the system's colours:
    a dark system sees no light flash."""
    background = "getComputedStyle(document.body).backgroundColor"
    theme = panel.eval("document.documentElement.dataset.theme")
    panel.eval("delete document.documentElement.dataset.theme, true")
    try:
        for scheme, expected in (("dark", DARK_BG), ("light", LIGHT_BG)):
            panel.call(
                "Emulation.setEmulatedMedia",
                features=[{"name": "prefers-color-scheme", "value": scheme}],
            )
            panel.wait(f"{background} === '{expected}'", what=f"the {scheme} system colours")
    finally:
        panel.call("Emulation.setEmulatedMedia", features=[])
        panel.eval(f"document.documentElement.dataset.theme = {json.dumps(theme)}, true")


def test_show_citations_hides_and_shows_the_chips_and_markers_live(
    browser: PanelBrowser, panel: Page
) -> None:
    panel.eval(
        """(() => { const list = document.createElement('ul'); list.className = 'chips';
        list.id = 'probe-chips'; list.append(document.createElement('li'));
        const answer = document.createElement('p'); answer.id = 'probe-answer';
        answer.innerHTML = 'Tides turn twice a day <a class="citation" href="#">[1]</a>.';
        document.querySelector('#panel-chat').append(list, answer); })(), true"""
    )
    panel.click("#tab-chat")
    shown = (
        "[getComputedStyle(document.querySelector('#probe-chips')).display,"
        " getComputedStyle(document.querySelector('#probe-answer a.citation')).display]"
        ".filter((display) => display !== 'none').length"
    )
    set_ui(browser, "ui.show_citations", "false")
    panel.wait(f"{shown} === 0", seconds=15, what="the chips and [n] markers hidden")
    assert panel.eval("document.documentElement.dataset.citations") == "hidden"
    set_ui(browser, "ui.show_citations", "true")
    panel.wait(f"{shown} === 2", seconds=15, what="the chips and markers shown again")
    panel.eval(
        "['#probe-chips', '#probe-answer'].forEach((s) => document.querySelector(s).remove()), true"
    )
    assert panel.problems() == []


def test_a_provider_added_from_the_cli_shows_in_settings(
    browser: PanelBrowser, panel: Page
) -> None:
    name = "cli-added"
    if name in _provider_ids(browser):
        cli(browser, "models", "remove", name)
    panel.click("#tab-settings")
    listed = f"!!document.querySelector('#provider-list [data-id=\"{name}\"]')"
    panel.wait(f"!{listed}", what="no such provider yet")
    cli(browser, "models", "add", name, "--kind", "ollama", "--model", "llama3.2")
    panel.wait(listed, seconds=15, what=f"{name} in the provider list")
    cli(browser, "models", "remove", name)
    panel.wait(f"!{listed}", seconds=15, what=f"{name} gone from the list")
    assert panel.problems() == []


def _provider_ids(browser: PanelBrowser) -> list[str]:
    done = run_laika("config", "get", "providers.items", env=browser.env)
    assert done.returncode == 0, done.stderr
    return [item["id"] for item in json.loads(done.stdout)]


# --- the "Change a setting" box: settings.ask with the offline intent matcher --------------------

BOX = "#settings-ask-form"
CARD = "#settings-ask-calls .tool-call"


def need_settings_ask(panel: Page) -> None:
    assert panel.eval("laikaPanel.has('settings.ask')"), "the host offers no settings.ask"


def ask(panel: Page, text: str) -> None:
    """Type `text` into the box and press Enter (a real key event: the form's own submit)."""
    panel.click("#tab-settings")
    panel.wait(f"!document.querySelector('{BOX} input').disabled", what="the box to be free")
    panel.type("#settings-ask-text", text)
    panel.call("Page.bringToFront")
    for kind in ("keyDown", "keyUp"):
        key = {"key": "Enter", "code": "Enter", "windowsVirtualKeyCode": 13}
        panel.call(
            "Input.dispatchKeyEvent",
            type=kind,
            **key,
            **({"text": "\r"} if kind == "keyDown" else {}),
        )


def outcome(panel: Page, status: str) -> str:
    panel.wait(
        f"document.querySelector('#settings-ask-outcome').dataset.status === '{status}'",
        seconds=30,
        what=f"a {status} outcome",
    )
    return str(panel.eval("document.querySelector('#settings-ask-outcome').textContent"))


def shoot_top(panel: Page, name: str) -> None:
    panel.eval("window.scrollTo(0, 0), true")  # the box heads the Settings view
    shoot(panel, name)


def commits(browser: PanelBrowser) -> int:
    done = run_laika("config", "history", "--json", env=browser.env)
    assert done.returncode == 0, done.stderr
    return len(json.loads(done.stdout)["commits"])


def test_use_dark_theme_waits_for_approve_then_the_panel_turns_dark(
    browser: PanelBrowser, panel: Page
) -> None:
    need_settings_ask(panel)
    set_ui(browser, "ui.theme", "system")  # the screenshots follow the emulated scheme
    shows(panel, "light", LIGHT_BG)
    ask(panel, "use dark theme")
    panel.wait(
        f"document.querySelector('{CARD}[data-status=pending] .tool-approve')", what="the proposal"
    )
    shown = panel.eval(
        f"""(() => {{ const card = document.querySelector('{CARD}');
        return {{tool: card.querySelector('code').textContent,
          said: card.querySelector('.tool-head .tool-summary').textContent,
          args: [...card.querySelectorAll('dt')].map(dt => [dt.textContent, dt.nextElementSibling.textContent]),
          focused: document.activeElement.classList.contains('tool-approve'),
          busy: document.querySelector('#settings-ask-text').disabled}}; }})()"""
    )
    assert shown == {
        "tool": "settings.set_theme",
        "said": "Switch the theme to dark",
        "args": [["theme", "dark"]],
        "focused": True,
        "busy": True,
    }, shown
    assert "proposes: Switch the theme to dark." in panel.eval(
        "document.querySelector('#settings-ask-status').textContent"
    )
    shoot_top(panel, "settings-proposal")
    shows(panel, "light", LIGHT_BG)  # the emulated scheme is gone and nothing is approved yet
    panel.click(f"{CARD}[data-status=pending] .tool-approve")
    assert outcome(panel, "applied") == "Done: the theme is dark."
    shows(panel, "dark", DARK_BG)  # through config.changed: the registry changed, the host said so
    assert panel.eval("document.activeElement.id") == "settings-ask-text"
    set_ui(browser, "ui.theme", "light")
    shows(panel, "light", LIGHT_BG)
    set_ui(browser, "ui.theme", "system")
    assert panel.problems() == []


def test_disable_the_policy_gate_is_declined_with_what_can_be_changed(
    browser: PanelBrowser, panel: Page
) -> None:
    need_settings_ask(panel)
    before = commits(browser)
    ask(panel, "disable the policy gate")
    said = outcome(panel, "declined")
    assert said.startswith("Laika's settings can't do that: they never send data anywhere"), said
    assert "I can change " in said, said
    assert "settings." not in said, "no tool ids"
    assert "policy." not in said, "no tool ids"
    assert panel.eval("document.querySelector('#settings-can-change')") is None
    assert panel.eval(f"document.querySelector('{CARD}')") is None, "nothing was proposed"
    assert panel.eval("document.querySelector('#settings-ask-text').value") == (
        "disable the policy gate"
    )
    assert commits(browser) == before, "nothing changed"
    shoot_top(panel, "settings-decline")
    assert panel.problems() == []
