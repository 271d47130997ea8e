import { versionName } from "../../../api/index.js";
import type { CommandContext } from "../context.js";
import { PluginError } from "../errors.js";
import { claimChanges } from "../format-claims.js";
import { type ColorMode, contentYaml, unifiedDiff, useColor } from "../format-diff.js";
import { findVersion, parseVersionRef, updateVersionNumber, versionsOf } from "../version-select.js";

export interface DiffOptions {
  readonly color: ColorMode;
}

/**
 * `kubectl petset diff NAME A [B]`: a unified diff of the versioned content (template and
 * volumeClaimTemplates as YAML) of versions A and B; B defaults to the update version.
 * Equal content prints nothing on stdout and a note on stderr.
 */
export async function diffCommand(
  ctx: CommandContext,
  name: string,
  from: string,
  to: string | undefined,
  options: DiffOptions,
): Promise<number> {
  const { api, io } = ctx;
  const petSet = await api.getPetSet(name);
  const versions = versionsOf(petSet, await api.listVersions(name));
  const a = findVersion(petSet, versions, parseVersionRef(from, name, "A"));
  const bNumber = to !== undefined ? parseVersionRef(to, name, "B") : updateVersionNumber(petSet, versions);
  if (bNumber === undefined)
    throw new PluginError(
      "VersionNotFound",
      `petset "${name}" has no update version yet: name version B explicitly`,
    );
  const b = findVersion(petSet, versions, bNumber);
  const color = useColor(options.color, io.stdout.isTTY, io.noColor);
  const text = unifiedDiff(contentYaml(a.spec), contentYaml(b.spec), {
    fromLabel: versionName(name, a.spec.version),
    toLabel: versionName(name, b.spec.version),
    color,
  });
  // What the change does to the pets' claims (docs/volumes.md), beside the diff: stdout stays a patch.
  const claims = claimChanges(
    a.spec.volumeClaimTemplates,
    b.spec.volumeClaimTemplates,
    petSet.spec.volumeClaimUpdatePolicy,
  );
  for (const line of claims) io.stderr.write(`${line}\n`);
  if (text === "")
    io.stderr.write(
      `versions ${a.spec.version} and ${b.spec.version} of petset "${name}" have the same content\n`,
    );
  else io.stdout.write(text);
  return 0;
}
