// Settings: model providers (keys stay in environment variables: only their names are shown,
// with whether the host sees them set), the default provider with the offline runtime as the
// fallback, capture defaults, the tool permissions remembered from approvals (revocable), and
// the host's data directory, version and diagnostics; on top, the "Change a setting" box.

import { fill, h } from "../dom.js";
import { concerns } from "../ui_prefs.js";
import { SettingsBox } from "./settings_box.js";

const KINDS = ["openai_compatible", "ollama", "openai", "anthropic", "openrouter", "ollama_cloud"];

export function mountSettings(app, root) {
  const view = new SettingsView(app, root);
  app.on("connected", () => view.refresh());
  app.on("tool-rules", () => view.loadRules());
  app.on("config.changed", (data) => view.configChanged(data?.paths));
  return view;
}

class SettingsView {
  constructor(app, root) {
    this.app = app;
    this.providers = h("ul", { class: "provider-list", id: "provider-list", "aria-label": "Providers" });
    this.providerNote = h("p", { class: "muted", id: "providers-status", role: "status" });
    this.defaultSelect = h("select", { id: "default-provider", onchange: () => this.setDefault() });
    this.rules = h("ul", { class: "rule-list", id: "tool-rules", "aria-label": "Remembered tool decisions" });
    this.rulesNote = h("p", { class: "muted", id: "tool-rules-status", role: "status" });
    this.about = h("dl", { class: "about", id: "about" });
    this.diagnostics = h("pre", { class: "diagnostics", id: "diagnostics", hidden: true, tabindex: "0" });
    this.box = new SettingsBox(app);
    fill(
      root,
      h("h2", { id: "settings-ask-title" }, "Change a setting"),
      this.box.element,
      h("h2", {}, "Model providers"),
      this.providerNote,
      this.providers,
      h("label", { for: "default-provider" }, "Answer with"),
      this.defaultSelect,
      this.addForm(),
      h("h2", {}, "Capture defaults"),
      this.captureForm(),
      h("h2", { id: "tool-permissions" }, "Tool permissions"),
      this.rulesNote,
      this.rules,
      h("h2", {}, "Host"),
      this.about,
      h(
        "div",
        { class: "actions" },
        h("button", { type: "button", id: "diagnose", onclick: () => this.diagnose() }, "Run diagnostics"),
      ),
      this.diagnostics,
    );
  }

  refresh() {
    this.loadProviders();
    this.loadRules();
    this.loadAbout();
  }

  /** Re-read what this view shows from the registry when a change touched it. */
  configChanged(paths) {
    if (this.app.host.state.status !== "connected") return;
    if (concerns(paths, ["providers"])) this.loadProviders();
    if (concerns(paths, ["policy"])) this.loadRules();
  }

  async loadRules() {
    if (!this.app.has("tools.rules")) {
      this.rulesNote.textContent =
        "This Laika host keeps no tool permissions yet: update it (pip install -U laika-host); `laika approvals rules` works meanwhile.";
      fill(this.rules);
      return;
    }
    try {
      const { rules } = await this.app.request("tools.rules");
      fill(this.rules, rules.map((rule) => this.ruleRow(rule)));
      this.rulesNote.textContent = rules.length
        ? "What you chose to remember when approving or denying a tool. Revoke one to be asked again."
        : "No remembered decisions: every tool that needs your approval asks each time.";
    } catch (error) {
      this.rulesNote.textContent = `Could not list the tool permissions: ${error.message}`;
    }
  }

  ruleRow(rule) {
    const scope = rule.scope === "always" ? "always" : "this session";
    const when = rule.created_at ? ` · since ${String(rule.created_at).slice(0, 16).replace("T", " ")}` : "";
    return h(
      "li",
      { class: "rule", dataset: { id: rule.id } },
      h(
        "div",
        { class: "provider-head" },
        h("code", {}, rule.tool),
        h("span", { class: `pill ${rule.decision === "allow" ? "status-captured" : "status-failed"}` }, rule.decision),
      ),
      h("div", { class: "meta" }, `${scope}${when}`),
      h(
        "div",
        { class: "row-actions" },
        h(
          "button",
          { type: "button", class: "small danger", "aria-label": `Revoke ${rule.decision} ${rule.tool}`, onclick: () => this.revoke(rule) },
          "Revoke",
        ),
      ),
    );
  }

  async revoke(rule) {
    try {
      await this.app.request("tools.forget", { rule_id: rule.id });
      this.app.toast(`Revoked: ${rule.tool} asks again.`);
      this.loadRules();
    } catch (error) {
      this.app.fail(error);
    }
  }

  async loadProviders() {
    if (!this.app.has("models.list")) {
      this.providerNote.textContent =
        "This Laika host cannot list providers yet: update it (pip install -U laika-host); `laika models` works meanwhile.";
      this.fillDefault([], null);
      return;
    }
    this.providerNote.textContent = "Loading…";
    try {
      const listed = await this.app.request("models.list");
      fill(this.providers, listed.providers.map((provider) => this.providerRow(provider)));
      this.providerNote.textContent = listed.providers.length
        ? "Keys are never stored by Laika: each provider reads its key from the environment variable named."
        : "No providers yet: answers come from the offline runtime. Add one below.";
      this.fillDefault(listed.providers, listed.default);
    } catch (error) {
      this.providerNote.textContent = `Could not list the providers: ${error.message}`;
    }
  }

  fillDefault(providers, hostDefault) {
    const current = this.app.has("models.set_default") ? (hostDefault ?? "offline") : this.app.settings.provider || "";
    const options = [
      this.app.has("models.set_default") ? null : h("option", { value: "" }, "the host's default"),
      h("option", { value: "offline" }, "offline runtime (no model, extractive)"),
      ...providers.map((p) => h("option", { value: p.id }, `${p.id} (${p.model})`)),
    ];
    fill(this.defaultSelect, options);
    this.defaultSelect.value = current;
  }

  providerRow(provider) {
    const key = provider.key_env
      ? h(
          "span",
          { class: `pill ${provider.key_set ? "status-captured" : "warn"}` },
          `${provider.key_env} ${provider.key_set ? "is set" : "is NOT set for the host"}`,
        )
      : h("span", { class: "pill" }, "no key needed");
    const result = h("span", { class: "test-result", role: "status" });
    return h(
      "li",
      { class: "provider", dataset: { id: provider.id } },
      h(
        "div",
        { class: "provider-head" },
        h("strong", {}, provider.id),
        provider.default ? h("span", { class: "pill status-captured" }, "default") : null,
      ),
      h("div", { class: "meta" }, `${provider.kind} · ${provider.model}${provider.base_url ? ` · ${provider.base_url}` : ""}`),
      h("div", { class: "meta" }, key),
      h(
        "div",
        { class: "row-actions" },
        h("button", { type: "button", class: "small", onclick: () => this.test(provider, result) }, "Test"),
        h("button", { type: "button", class: "small danger", onclick: () => this.remove(provider) }, "Remove"),
        result,
      ),
    );
  }

  addForm() {
    const field = (id, label, input) => [h("label", { for: id }, label), input];
    const id = h("input", { id: "provider-id", required: true, pattern: "[A-Za-z0-9_.\\-]+", maxlength: "64" });
    const kind = h("select", { id: "provider-kind" }, KINDS.map((k) => h("option", { value: k }, k)));
    const model = h("input", { id: "provider-model", required: true });
    const baseUrl = h("input", { id: "provider-base-url", type: "url", placeholder: "http://127.0.0.1:11434/v1" });
    const keyEnv = h("input", { id: "provider-key-env", placeholder: "OPENAI_API_KEY", pattern: "[A-Za-z_][A-Za-z0-9_]*" });
    return h(
      "form",
      {
        class: "card form",
        id: "provider-form",
        onsubmit: async (event) => {
          event.preventDefault();
          const payload = { id: id.value.trim(), kind: kind.value, model: model.value.trim() };
          if (baseUrl.value.trim()) payload.base_url = baseUrl.value.trim();
          if (keyEnv.value.trim()) payload.key_env = keyEnv.value.trim();
          try {
            await this.app.request("models.add", payload);
            event.target.reset();
            this.app.toast(`Added provider ${payload.id}. Press Test to check it answers.`);
            this.loadProviders();
          } catch (error) {
            this.app.fail(error);
          }
        },
      },
      h("h3", {}, "Add a provider"),
      field("provider-id", "Name", id),
      field("provider-kind", "Kind", kind),
      field("provider-model", "Model", model),
      field("provider-base-url", "Base URL (optional)", baseUrl),
      field("provider-key-env", "Key environment variable (the key itself stays in your shell)", keyEnv),
      h("div", { class: "actions" }, h("button", { type: "submit", class: "primary", id: "provider-add" }, "Add provider")),
    );
  }

  async test(provider, result) {
    result.textContent = "Testing…";
    try {
      const tested = await this.app.request("models.test", { id: provider.id });
      result.textContent = tested.answers
        ? `answers (${Math.round(tested.latency_ms)} ms)`
        : `does not answer: ${tested.detail}`;
      result.dataset.ok = String(!!tested.answers);
    } catch (error) {
      result.textContent = `failed: ${error.message}`;
      result.dataset.ok = "false";
    }
  }

  async remove(provider) {
    const sure = await this.app.dialog({
      title: `Remove provider ${provider.id}?`,
      text: "Its settings are removed; the key in your environment is not touched.",
      ok: "Remove",
      danger: true,
    });
    if (!sure) return;
    try {
      await this.app.request("models.remove", { id: provider.id });
      this.loadProviders();
    } catch (error) {
      this.app.fail(error);
    }
  }

  async setDefault() {
    const value = this.defaultSelect.value;
    if (!this.app.has("models.set_default")) {
      this.app.settings.provider = value;
      this.app.saveSettings?.();
      return this.app.toast(value ? `Answers now come from ${value}.` : "Answers use the host's default.");
    }
    try {
      await this.app.request("models.set_default", { id: value });
      this.app.settings.provider = "";
      this.app.saveSettings?.();
      this.app.toast(`Answers now come from ${value}.`);
      this.loadProviders();
    } catch (error) {
      this.app.fail(error);
    }
  }

  captureForm() {
    const capture = this.app.settings.capture;
    const mode = h(
      "select",
      { id: "capture-mode" },
      [
        ["auto", "auto (the article when there is one)"],
        ["article", "article only"],
        ["full", "the full page"],
      ].map(([value, label]) => h("option", { value, selected: capture.mode === value }, label)),
    );
    const maxChars = h("input", {
      id: "capture-max-chars",
      type: "number",
      min: "10000",
      max: "8000000",
      step: "10000",
      value: String(capture.maxChars ?? 8000000),
    });
    const save = () => {
      this.app.settings.capture = { mode: mode.value, maxChars: Number(maxChars.value) || 8000000 };
      this.app.saveSettings?.();
      this.app.toast("Capture defaults saved.");
    };
    return h(
      "form",
      { class: "card form", id: "capture-form", onchange: save, onsubmit: (event) => (event.preventDefault(), save()) },
      h("label", { for: "capture-mode" }, "What Save page keeps"),
      mode,
      h("label", { for: "capture-max-chars" }, "Most characters of page HTML sent to the host"),
      maxChars,
    );
  }

  async loadAbout() {
    const manifest = this.app.api.runtime.getManifest();
    const rows = [
      ["Extension", `${manifest.version} (${this.app.api.runtime.id})`],
      ["Host", `v${this.app.host.state.hostVersion ?? "?"}`],
    ];
    try {
      const info = await this.app.request("host.info");
      rows.push(["Data directory", info.data_dir], ["Log file", info.log_file], ["Python", info.python]);
    } catch (error) {
      rows.push(["Host info", `unavailable: ${error.message}`]);
    }
    fill(this.about, rows.map(([term, value]) => [h("dt", {}, term), h("dd", {}, value)]));
  }

  async diagnose() {
    this.diagnostics.hidden = false;
    this.diagnostics.textContent = "Running…";
    const lines = [`status: ${this.app.host.state.status}`, `last error: ${this.app.host.state.lastError ?? "none"}`];
    try {
      const started = performance.now();
      await this.app.request("host.ping");
      lines.push(`ping (panel → background → host → back): ${(performance.now() - started).toFixed(1)} ms`);
      const info = await this.app.request("host.info");
      const { types, ...rest } = info;
      lines.push(`host.info: ${JSON.stringify(rest, null, 2)}`, `message types: ${types.length}`);
    } catch (error) {
      lines.push(`failed: ${error.message}`);
    }
    this.diagnostics.textContent = lines.join("\n");
  }
}
