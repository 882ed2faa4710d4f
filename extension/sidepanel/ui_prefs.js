// The registry's `ui.*` settings as the panel applies them, and which `config.changed` paths
// concern what a view shows: pure functions (no DOM, no chrome.*) so node tests cover every
// value a hand-edited registry or a newer host could hold.

export const THEMES = ["system", "light", "dark"];
export const UI_DEFAULTS = Object.freeze({ theme: "system", show_citations: true });

/** The `ui` section as the panel uses it: unknown or ill-typed values fall back to the
 * defaults (the host validates the registry, but a panel must never break on a newer one). */
export function uiSettings(section) {
  const ui = section && typeof section === "object" && !Array.isArray(section) ? section : {};
  return {
    theme: THEMES.includes(ui.theme) ? ui.theme : UI_DEFAULTS.theme,
    show_citations: typeof ui.show_citations === "boolean" ? ui.show_citations : UI_DEFAULTS.show_citations,
  };
}

/** "light" or "dark": the setting, or the system's scheme when the setting is "system". */
export function effectiveTheme(theme, systemDark) {
  if (theme === "light" || theme === "dark") return theme;
  return systemDark ? "dark" : "light";
}

/** The document attributes that carry the `ui` settings (CSS reads them). */
export function uiAttributes(section, systemDark) {
  const ui = uiSettings(section);
  return { theme: effectiveTheme(ui.theme, systemDark), citations: ui.show_citations ? "shown" : "hidden" };
}

/** Whether a dotted path and a shown prefix overlap: one is the other or its ancestor
 * (`ui` changed touches `ui.theme`; `ui.theme` changed touches a view showing `ui`). */
export function overlaps(path, shown) {
  const a = String(path);
  const b = String(shown);
  if (a === b) return true;
  const [short, long] = a.length < b.length ? [a, b] : [b, a];
  return long.startsWith(short) && long[short.length] === ".";
}

/** Whether a `config.changed` event concerns any of `shown`; an event without a usable path
 * list (an older host, a revert of several paths) concerns everything. */
export function concerns(paths, shown) {
  if (!Array.isArray(paths) || paths.length === 0) return true;
  return paths.some((path) => shown.some((prefix) => overlaps(path, prefix)));
}
