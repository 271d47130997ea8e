/**
 * The plugin's launchers for a bin folder a user puts on PATH (`petset dev` writes them into
 * `.petset/bin`): `kubectl-petset`, which kubectl runs for `kubectl petset ...`, and
 * `kubectl_complete-petset`, which kubectl's own shell completion runs for
 * `kubectl petset <TAB>`. Small shell scripts that run the built plugin with this Node.js,
 * so neither the plugin file's mode nor `node` on PATH matters.
 */
import { chmodSync, mkdirSync, writeFileSync } from "node:fs";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { COMPLETE_COMMAND } from "./plugin/completion.js";

export const PLUGIN_LAUNCHER = "kubectl-petset";
export const COMPLETION_LAUNCHER = "kubectl_complete-petset";

/** The built plugin next to this file (dist/src/cli/kubectl-petset.js). */
export function pluginScript(): string {
  return resolve(dirname(fileURLToPath(import.meta.url)), "kubectl-petset.js");
}

/** Single-quoted for sh: safe for any path. */
function shQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

/** Writes both launchers (mode 0755) into `binDir`, creating it; returns their paths. */
export function writePluginLaunchers(
  binDir: string,
  plugin = pluginScript(),
  node = process.execPath,
): string[] {
  mkdirSync(binDir, { recursive: true });
  const run = `exec ${shQuote(node)} ${shQuote(plugin)}`;
  const files: Array<[string, string]> = [
    [PLUGIN_LAUNCHER, `${run} "$@"`],
    [COMPLETION_LAUNCHER, `${run} ${COMPLETE_COMMAND} "$@"`],
  ];
  return files.map(([name, command]) => {
    const path = join(binDir, name);
    writeFileSync(
      path,
      `#!/bin/sh\n# Written by petset dev: runs the kubectl petset plugin built in this checkout.\n${command}\n`,
    );
    chmodSync(path, 0o755);
    return path;
  });
}
