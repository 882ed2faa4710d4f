"""Where each browser looks for native-messaging host manifests, per OS.

User-level locations only: installing needs no root. Chromium reads the user-level directory
relative to its `--user-data-dir` when one is given (measured, see DESIGN.md), so `laika install
--user-data-dir DIR` writes to `DIR/NativeMessagingHosts/`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path

from ...paths import data_dir

HOST_NAME = "com.laika.host"
GECKO_ID = "laika@laika-host.dev"
DEV_EXTENSION_ID = "hjakcefdlchhianfooejnlonihdbobdc"
"""The id the unpacked `extension/` gets from the public `key` in its manifest."""


@dataclass(frozen=True)
class Browser:
    key: str
    label: str
    family: str  # "chromium" or "firefox"
    linux: str  # relative to $HOME
    macos: str  # relative to $HOME
    windows_registry: str  # under HKEY_CURRENT_USER
    snap: str | None = None
    flatpak: str | None = None

    def manifest_dir(self, user_data_dir: Path | None = None, home: Path | None = None) -> Path:
        if user_data_dir is not None and self.family == "chromium":
            return user_data_dir / "NativeMessagingHosts"
        home = home or Path.home()
        if sys.platform == "darwin":
            return home / self.macos
        if sys.platform == "win32":  # our own file; the registry key points the browser to it
            return data_dir() / "NativeMessagingHosts" / self.key
        return home / self.linux

    def manifest_path(self, user_data_dir: Path | None = None, home: Path | None = None) -> Path:
        return self.manifest_dir(user_data_dir, home) / f"{HOST_NAME}.json"


BROWSERS: dict[str, Browser] = {
    b.key: b
    for b in (
        Browser(
            "chrome",
            "Google Chrome",
            "chromium",
            ".config/google-chrome/NativeMessagingHosts",
            "Library/Application Support/Google/Chrome/NativeMessagingHosts",
            r"Software\Google\Chrome\NativeMessagingHosts",
            flatpak="com.google.Chrome",
        ),
        Browser(
            "chromium",
            "Chromium",
            "chromium",
            ".config/chromium/NativeMessagingHosts",
            "Library/Application Support/Chromium/NativeMessagingHosts",
            r"Software\Chromium\NativeMessagingHosts",
            snap="chromium",
            flatpak="org.chromium.Chromium",
        ),
        Browser(
            "brave",
            "Brave",
            "chromium",
            ".config/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            "Library/Application Support/BraveSoftware/Brave-Browser/NativeMessagingHosts",
            r"Software\BraveSoftware\Brave-Browser\NativeMessagingHosts",
            snap="brave",
            flatpak="com.brave.Browser",
        ),
        Browser(
            "edge",
            "Microsoft Edge",
            "chromium",
            ".config/microsoft-edge/NativeMessagingHosts",
            "Library/Application Support/Microsoft Edge/NativeMessagingHosts",
            r"Software\Microsoft\Edge\NativeMessagingHosts",
            flatpak="com.microsoft.Edge",
        ),
        Browser(
            "vivaldi",
            "Vivaldi",
            "chromium",
            ".config/vivaldi/NativeMessagingHosts",
            "Library/Application Support/Vivaldi/NativeMessagingHosts",
            r"Software\Vivaldi\NativeMessagingHosts",
            flatpak="com.vivaldi.Vivaldi",
        ),
        Browser(
            "firefox",
            "Firefox",
            "firefox",
            ".mozilla/native-messaging-hosts",
            "Library/Application Support/Mozilla/NativeMessagingHosts",
            r"Software\Mozilla\NativeMessagingHosts",
            snap="firefox",
            flatpak="org.mozilla.firefox",
        ),
    )
}


def chrome_origin(extension_id: str) -> str:
    """`allowed_origins` entry; the trailing slash is required (without it: 'not found')."""
    return f"chrome-extension://{extension_id}/"


def select(names: tuple[str, ...], user_data_dir: Path | None = None) -> list[Browser]:
    """Browsers by key; `all` (or nothing) means every supported browser.

    A `--user-data-dir` is one Chrome-family profile: with no browser named, it means Chromium.
    """
    if user_data_dir is not None and not names:
        return [BROWSERS["chromium"]]
    if not names or "all" in names:
        return list(BROWSERS.values())
    return [BROWSERS[name] for name in dict.fromkeys(names)]
