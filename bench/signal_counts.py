"""How many capture-dev pages get each page signal, and how many of those the labelled sample
says are false.

    .venv/bin/python bench/signal_counts.py [--corpus DIR] [--browser] [--save FILE]
        [--compare FILE]

Every page of the corpus (`--corpus`, default `../shared/corpora/capture-dev`) is captured as
the host captures a fetched page (`capture_html` on its bytes). Printed: pages flagged per
signal; then, on the pages of `tests/data/signal_labels.json` (read by hand; each entry says
why), per labelled signal: pages flagged, flagged and labelled false, labelled true and kept.
`--save` writes each page's signals as JSON; `--compare` reads such a file (an earlier run)
and prints the counts of both side by side, with the pages whose signals changed.

`--browser` captures what the extension sends instead: each page whose source is a web
address is opened in headless Chromium (a 1280x800 window, its scripts running) at that
address through the loopback proxy of the real-page tests (`tests/realpages.py`), and
`serializePage` (extension/lib/capture.js) runs on it as the extension injects it. The proxy
has only the pages: their external stylesheets and scripts answer 404, so a dialog that only
a stylesheet keeps closed renders in the page's flow. About 1.3 s a page.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "host"))

from laika_host.capture import capture_html  # noqa: E402
from laika_host.capture.signals import SIGNALS  # noqa: E402

LABELS = REPO / "tests" / "data" / "signal_labels.json"
LABELLED = ("overlay_blocking", "paywall_or_login", "script_required")
"""The signals the labels file judges (a key of that name in every entry)."""


def signals_of(corpus: Path) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in sorted((corpus / "html").iterdir()):
        found[path.name] = capture_html(path.read_bytes()).signals
    return found


def browser_signals_of(corpus: Path) -> dict[str, list[str]]:
    """Each page as the extension serializes it in Chromium (see the module docstring)."""
    import os
    import shutil
    import subprocess
    import tempfile
    from urllib.parse import urlsplit

    sys.path.insert(0, str(REPO / "tests"))
    from realpages import RealPage, as_browser_sends, serve_proxy

    from cdp_pipe import HEADLESS_FLAGS, DevTools

    node = shutil.which("node") or "node"
    serialize = subprocess.run(
        [
            node,
            "-e",
            "import(require('url').pathToFileURL(process.argv[1]))"
            ".then((m) => process.stdout.write(m.serializePage.toString()))",
            str(REPO / "extension" / "lib" / "capture.js"),
        ],
        capture_output=True,
        text=True,
        check=True,
    ).stdout
    expectations = json.loads((corpus / "expectations.json").read_text(encoding="utf-8"))
    pages: dict[str, RealPage] = {}
    for name in sorted(expectations):
        parts = urlsplit(str(expectations[name].get("source_key") or ""))
        if parts.scheme not in ("http", "https") or parts.netloc in ("", "web.archive.org"):
            continue  # not a web address, or one host for many sites
        url = as_browser_sends(parts._replace(scheme="http", fragment="").geturl())
        body = (corpus / "html" / name).read_bytes()
        pages.setdefault(url, RealPage(name, body, url, []))
    found: dict[str, list[str]] = {}
    with serve_proxy(list(pages.values())) as proxy, tempfile.TemporaryDirectory() as profile:
        flags = [*HEADLESS_FLAGS, f"--user-data-dir={profile}"]
        flags += [f"--proxy-server=http://{proxy.address}", "about:blank"]
        devtools = DevTools("/usr/lib/chromium/chromium", flags, dict(os.environ), timeout=60)
        try:
            for page in pages.values():
                html = _serialized(devtools, serialize, page.url)
                if html is not None:
                    found[page.name] = capture_html(html, page.url).signals
        finally:
            devtools.close()
    return found


def _serialized(devtools: Any, serialize: str, url: str) -> str | None:
    """The page at `url` serialized in a new tab of a 1280x800 window (None: it failed)."""
    target = devtools.call("Target.createTarget", url="about:blank")["targetId"]
    try:
        session = devtools.call("Target.attachToTarget", targetId=target, flatten=True)
        session_id = str(session["sessionId"])
        devtools.call(
            "Emulation.setDeviceMetricsOverride",
            session_id,
            width=1280,
            height=800,
            deviceScaleFactor=1,
            mobile=False,
        )
        devtools.call("Page.navigate", session_id, url=url)
        deadline = time.monotonic() + 15
        while (
            time.monotonic() < deadline
            and _evaluate(devtools, session_id, "document.readyState") != "complete"
        ):
            time.sleep(0.1)
        time.sleep(0.3)  # scripts run on load
        frame = devtools.call("Page.getFrameTree", session_id)["frameTree"]["frame"]["id"]
        world = devtools.call("Page.createIsolatedWorld", session_id, frameId=frame)
        page = _evaluate(
            devtools,
            session_id,
            f"({serialize})({{mode: 'auto'}})",
            int(world["executionContextId"]),
        )
        return str(page["html"]) if isinstance(page, dict) else None
    except Exception as error:  # a page that will not load is reported, not fatal
        print(f"{url}: {error}", file=sys.stderr)
        return None
    finally:
        devtools.call("Target.closeTarget", targetId=target)


def _evaluate(devtools: Any, session_id: str, expression: str, context: int | None = None) -> Any:
    params: dict[str, object] = {"expression": expression, "returnByValue": True}
    if context is not None:
        params["contextId"] = context
    reply = devtools.call("Runtime.evaluate", session_id, **params)
    if "exceptionDetails" in reply:
        raise RuntimeError(json.dumps(reply["exceptionDetails"])[:500])
    return reply["result"].get("value")


def flagged(found: dict[str, list[str]]) -> Counter[str]:
    return Counter(signal for signals in found.values() for signal in signals)


def labelled_counts(found: dict[str, list[str]], signal: str) -> tuple[int, int, int, int]:
    """(pages flagged, flagged but labelled false, labelled true, labelled true and flagged)."""
    labels = json.loads(LABELS.read_text(encoding="utf-8"))
    fired = {name for name in labels if signal in found.get(name, [])}
    true = {name for name, entry in labels.items() if entry[signal]}
    return len(fired), len(fired - true), len(true), len(fired & true)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", type=Path, default=REPO.parent / "shared/corpora/capture-dev")
    parser.add_argument("--browser", action="store_true", help="what the extension sends")
    parser.add_argument("--save", type=Path)
    parser.add_argument("--compare", type=Path)
    args = parser.parse_args()
    started = time.perf_counter()
    found = browser_signals_of(args.corpus) if args.browser else signals_of(args.corpus)
    took = time.perf_counter() - started
    if args.save:
        args.save.write_text(json.dumps(found, indent=0, ensure_ascii=False), encoding="utf-8")
    earlier = json.loads(args.compare.read_text(encoding="utf-8")) if args.compare else None
    now = flagged(found)
    then = flagged(earlier) if earlier else None
    print(f"{len(found)} pages of {args.corpus} in {took:.0f} s")
    print(f"{'signal':<18} {'before':>7} {'now':>5}" if then else f"{'signal':<18} {'pages':>5}")
    for signal in SIGNALS:
        before = f" {then[signal]:>7}" if then else ""
        print(f"{signal:<18}{before} {now[signal]:>5}")
    print(f"\nlabelled sample ({LABELS.relative_to(REPO)}): flagged / of them false / true kept")
    for signal in LABELLED:
        for title, pages in (("before", earlier), ("now", found)):
            if pages is None:
                continue
            fired, false, true, kept = labelled_counts(pages, signal)
            print(
                f"  {signal:<18} {title:<6} flagged {fired:>3}, false {false:>3},"
                f" true kept {kept}/{true}"
            )
    if earlier:
        changed = [name for name in found if set(found[name]) != set(earlier.get(name, []))]
        print(f"\n{len(changed)} pages changed:")
        for name in changed:
            gone = sorted(set(earlier.get(name, [])) - set(found[name]))
            new = sorted(set(found[name]) - set(earlier.get(name, [])))
            print(f"  {name}: -{gone} +{new}")


if __name__ == "__main__":
    main()
