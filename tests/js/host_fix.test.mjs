// The "host missing" screen's fix (extension/sidepanel/host_fix.js): a command that works for
// the way the host was installed. `laika` after the README's Quick start is in the clone's
// .venv/bin, not on PATH; a browser started with --user-data-dir reads the manifest only from
// that folder. tests/test_host_fix.py checks that `laika doctor` prints the same commands.

import assert from "node:assert/strict";
import { test } from "node:test";

import { BUNDLED_IDS, commandWords, hostFix, shellWord } from "../../extension/sidepanel/host_fix.js";

const CHROMIUM = BUNDLED_IDS.chromium;

test("shellWord quotes as Python's shlex.quote, and as a Windows command line", () => {
  assert.equal(shellWord("/home/ana/laika-host/.venv/bin/laika"), "/home/ana/laika-host/.venv/bin/laika");
  assert.equal(shellWord("/home/ana/My Code/.venv/bin/laika"), "'/home/ana/My Code/.venv/bin/laika'");
  assert.equal(shellWord("/tmp/it's"), `'/tmp/it'"'"'s'`);
  assert.equal(shellWord(""), "''");
  assert.equal(shellWord("/tmp/$HOME"), "'/tmp/$HOME'"); // nothing expands
  assert.equal(shellWord("C:\\Users\\Ana\\laika.exe", true), "C:\\Users\\Ana\\laika.exe");
  assert.equal(shellWord("C:\\Users\\Ana Lu\\laika.exe", true), '"C:\\Users\\Ana Lu\\laika.exe"');
  assert.equal(shellWord("C:\\My Profile\\", true), '"C:\\My Profile\\\\"'); // the quote stays a quote
});

test("before the host ever answered: the Quick start's .venv/bin/laika, from the cloned folder", () => {
  const fix = hostFix({ browser: "chromium", extensionId: CHROMIUM });
  assert.equal(fix.known, false);
  assert.deepEqual(fix.commands, [
    ".venv/bin/laika install --browser chromium",
    ".venv/bin/laika doctor --browser chromium",
  ]);
  assert.match(fix.intro, /the folder where you cloned Laika/);
  assert.match(fix.notes.join(" "), /pipx, pip/);
  // a profile folder of its own: how to install there, with a command to copy and edit
  assert.match(fix.profile.text, /--user-data-dir/);
  assert.equal(fix.profile.command, ".venv/bin/laika install --browser chromium --user-data-dir /path/to/profile");
});

test("the laika that installed the host, by its absolute path, and the browser's profile folder", () => {
  const fix = hostFix({
    browser: "chromium",
    extensionId: CHROMIUM,
    install: { cli: "/home/ana/laika-host/.venv/bin/laika", userDataDir: "/tmp/test profile", platform: "Linux-6.1" },
  });
  assert.equal(fix.known, true);
  assert.deepEqual(fix.commands, [
    "/home/ana/laika-host/.venv/bin/laika install --browser chromium --user-data-dir '/tmp/test profile'",
    "/home/ana/laika-host/.venv/bin/laika doctor --browser chromium --user-data-dir '/tmp/test profile'",
  ]);
  assert.equal(fix.intro, "Fix: run these two commands in a terminal, then press Retry.");
  assert.equal(fix.profile, null); // the folder is already in the commands
  assert.match(fix.notes.join(" "), /profile folder \/tmp\/test profile/);
});

test("a remembered laika without a profile folder still offers the profile variant", () => {
  const fix = hostFix({ browser: "brave", extensionId: CHROMIUM, install: { cli: "/opt/laika/bin/laika", userDataDir: null } });
  assert.equal(fix.commands[0], "/opt/laika/bin/laika install --browser brave");
  assert.equal(fix.profile.command, "/opt/laika/bin/laika install --browser brave --user-data-dir /path/to/profile");
});

test("another extension id is named; the bundled one is what install allows anyway", () => {
  const other = "abcdefghijklmnopabcdefghijklmnop";
  assert.equal(hostFix({ browser: "chrome", extensionId: other }).commands[0], `.venv/bin/laika install --browser chrome --extension-id ${other}`);
  assert.equal(hostFix({ browser: "chrome", extensionId: CHROMIUM }).commands[0], ".venv/bin/laika install --browser chrome");
});

test("Firefox: the gecko id only when it is not the bundled one, and no profile folder", () => {
  const bundled = hostFix({ browser: "firefox", extensionId: BUNDLED_IDS.firefox });
  assert.deepEqual(bundled.commands, [".venv/bin/laika install --browser firefox", ".venv/bin/laika doctor --browser firefox"]);
  assert.equal(bundled.profile, null); // Firefox reads ~/.mozilla/native-messaging-hosts for every profile
  const other = hostFix({ browser: "firefox", extensionId: "me@example.org", install: { cli: "/x/laika", userDataDir: "/p" } });
  assert.equal(other.commands[0], "/x/laika install --browser firefox --gecko-id me@example.org");
});

test("Windows: the Quick start's .venv\\Scripts\\laika, and Windows quoting", () => {
  const fresh = hostFix({ browser: "edge", extensionId: CHROMIUM, windows: true });
  assert.equal(fresh.commands[0], ".venv\\Scripts\\laika install --browser edge");
  const known = hostFix({
    browser: "edge",
    extensionId: CHROMIUM,
    install: { cli: "C:\\Users\\Ana Lu\\laika\\.venv\\Scripts\\laika.exe", userDataDir: null, platform: "Windows-11" },
  });
  assert.equal(known.commands[0], '"C:\\Users\\Ana Lu\\laika\\.venv\\Scripts\\laika.exe" install --browser edge');
});

test("anything odd in what was remembered falls back to the README's command", () => {
  for (const install of [null, {}, { cli: "" }, { cli: 42 }, { cli: null, userDataDir: 7 }]) {
    const fix = hostFix({ browser: "chromium", extensionId: CHROMIUM, install });
    assert.equal(fix.commands[0], ".venv/bin/laika install --browser chromium");
  }
});

test("commandWords splits a command where the shell would", () => {
  assert.deepEqual(commandWords("/a/laika install --user-data-dir '/tmp/my profile'"), [
    "/a/laika",
    "install",
    "--user-data-dir",
    "'/tmp/my profile'",
  ]);
  assert.deepEqual(commandWords(`'/tmp/it'"'"'s' doctor`), [`'/tmp/it'"'"'s'`, "doctor"]);
  assert.deepEqual(commandWords('"C:\\A B\\laika.exe" install'), ['"C:\\A B\\laika.exe"', "install"]);
});
