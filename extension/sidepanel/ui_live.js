// The registry's `ui.*` settings applied to the panel, live: read once when the host connects,
// again on each `config.changed` host event that touches `ui`, and the system's colour scheme
// followed while the theme is "system". CSS reads <html data-theme data-citations>.

import { concerns, uiAttributes } from "./ui_prefs.js";

const CACHE_KEY = "laikaUi"; // the last ui seen: the next panel opens in its theme at once

export function mountUi(app, root = document.documentElement) {
  const media = globalThis.matchMedia?.("(prefers-color-scheme: dark)") ?? null;
  let ui = cached();
  let version = -1;
  const apply = () => {
    const attributes = uiAttributes(ui, !!media?.matches);
    root.dataset.theme = attributes.theme;
    root.dataset.citations = attributes.citations;
  };
  const load = async () => {
    if (!app.has("config.get")) return;
    try {
      const read = await app.request("config.get", { path: "ui" });
      if (read.version < version) return; // an older read answered last: keep the newer one
      version = read.version;
      ui = read.value;
      remember(ui);
      apply();
    } catch (error) {
      app.toast(`Could not read the panel's settings: ${error.message}`, "error");
    }
  };
  apply();
  media?.addEventListener?.("change", apply);
  app.on("connected", load);
  app.on("config.changed", (data) => {
    if (concerns(data?.paths, ["ui"])) load();
  });
  return { load, current: () => ({ ...ui }) };
}

function cached() {
  try {
    return JSON.parse(globalThis.localStorage?.getItem(CACHE_KEY) ?? "null");
  } catch {
    return null; // storage off or a damaged entry: the defaults apply until the host answers
  }
}

function remember(ui) {
  try {
    globalThis.localStorage?.setItem(CACHE_KEY, JSON.stringify(ui));
  } catch {
    // storage off: the next panel reads the host again, just a moment later
  }
}
