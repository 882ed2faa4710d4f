// What the "host missing" screen tells the user to run. Pure (no DOM, no browser API), so
// node tests it; tests/test_host_fix.py checks that `laika doctor` prints the same commands
// (host/laika_host/native/install/commands.py builds them the same way).
//
// The commands name `laika` by its absolute path when the panel knows it: the host reports
// the `laika` that installed it (`host.info` `cli`) and the profile folder the browser runs
// with (`caller.user_data_dir`), and the background remembers both. Before the host ever
// answered, the panel cannot know either, so it says where the README's Quick start put
// `laika` (`.venv/bin/laika` in the folder the user cloned) and how to add the profile folder
// of a browser started with `--user-data-dir`.

/** The ids `laika install` allows without being told (the bundled extension's). */
export const BUNDLED_IDS = Object.freeze({
  chromium: "hjakcefdlchhianfooejnlonihdbobdc",
  firefox: "laika@laika-host.dev",
});

/** Where the README's Quick start installs `laika`, relative to the cloned folder. */
export const QUICK_START_LAIKA = Object.freeze({ posix: ".venv/bin/laika", windows: ".venv\\Scripts\\laika" });

const POSIX_UNSAFE = /[^A-Za-z0-9_@%+=:,./-]/; // Python's shlex.quote

/** `text` as one word of a command line: POSIX as Python's `shlex.quote`; on Windows in
 * double quotes when it holds a space (a Windows path cannot hold a double quote). */
export function shellWord(text, windows = false) {
  const value = String(text);
  if (windows) {
    if (value && !/[ \t]/.test(value)) return value;
    const trailing = value.length - value.replace(/\\+$/, "").length;
    return `"${value}${"\\".repeat(trailing)}"`;
  }
  if (value && !POSIX_UNSAFE.test(value)) return value;
  return `'${value.replaceAll("'", `'"'"'`)}'`;
}

/** The words of a command `shellWord` quoted (a quoted word keeps its spaces). */
export function commandWords(text) {
  return String(text).match(/(?:'[^']*'|"[^"]*"|[^\s'"]+)+/g) ?? [];
}

/** `<laika> install|doctor --browser B [--user-data-dir DIR] [--extension-id ID]`, as
 * `commands.fix_command` writes it. `cli`: the word for laika, already a command word. */
function command(verb, { cli, browser, userDataDir, extensionId, windows }) {
  const firefox = browser === "firefox";
  const words = [cli, verb, "--browser", browser];
  if (userDataDir && !firefox) words.push("--user-data-dir", shellWord(userDataDir, windows));
  const bundled = firefox ? BUNDLED_IDS.firefox : BUNDLED_IDS.chromium;
  if (extensionId && extensionId !== bundled) words.push(firefox ? "--gecko-id" : "--extension-id", shellWord(extensionId, windows));
  return words.join(" ");
}

/**
 * @param {{browser: string, extensionId?: string, install?: {cli?: string|null, userDataDir?: string|null, platform?: string|null}|null, windows?: boolean}} facts
 *   browser: the `laika install --browser` value; install: what the host said when it last ran
 *   in this browser (null: it never did); windows: this browser runs on Windows.
 * @returns {{known: boolean, intro: string, commands: string[], notes: string[], profile: {text: string, command: string}|null}}
 */
export function hostFix({ browser, extensionId = null, install = null, windows = false }) {
  const cli = typeof install?.cli === "string" && install.cli ? install.cli : null;
  const onWindows = typeof install?.platform === "string" ? install.platform.startsWith("Windows") : windows;
  const userDataDir = typeof install?.userDataDir === "string" && install.userDataDir ? install.userDataDir : null;
  const firefox = browser === "firefox";
  const laika = cli ? shellWord(cli, onWindows) : onWindows ? QUICK_START_LAIKA.windows : QUICK_START_LAIKA.posix;
  const facts = { cli: laika, browser, userDataDir, extensionId, windows: onWindows };
  const commands = [command("install", facts), command("doctor", facts)];
  const notes = [];
  let intro;
  if (cli) {
    intro = "Fix: run these two commands in a terminal, then press Retry.";
    notes.push(`${cli} is the laika that installed the host when it last answered here.`);
  } else {
    intro =
      "Fix: in a terminal, go to the folder where you cloned Laika (the one holding the extension folder you loaded), run these two commands, then press Retry.";
    notes.push(`Installed Laika another way (pipx, pip)? Use the laika command it installed in place of ${laika}.`);
  }
  let profile = null;
  if (!firefox && !userDataDir) {
    profile = {
      text: "Started this browser with --user-data-dir (a profile folder of its own)? It reads the host's manifest only from that folder: add --user-data-dir and the folder to both commands, as in",
      command: command("install", { ...facts, userDataDir: onWindows ? "C:\\path\\to\\profile" : "/path/to/profile" }),
    };
  } else if (userDataDir) {
    notes.push(`This browser runs with the profile folder ${userDataDir} (--user-data-dir): the host's manifest goes there.`);
  }
  return { known: Boolean(cli), intro, commands, notes, profile };
}
