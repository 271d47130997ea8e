import { stringify } from "yaml";
import { Labels } from "../../../api/index.js";
import type { CommandContext } from "../context.js";
import { PluginError } from "../errors.js";
import { claimChanges } from "../format-claims.js";
import { historyTable } from "../format-history.js";
import { formatObjects } from "../format-object.js";
import { timelineOf, timelineTable } from "../format-timeline.js";
import { describeVersion } from "../format-version.js";
import { findVersion, parseVersionRef, versionsOf } from "../version-select.js";

export type HistoryFormat = "table" | "wide" | "yaml" | "json";

export interface HistoryOptions {
  /** `--version`: describe this version instead of listing them all. */
  readonly version?: string;
  readonly output: HistoryFormat;
  /** `--timeline`: every recorded moment of every version instead of the list. */
  readonly timeline?: boolean;
}

/** `kubectl petset history NAME [--version N | --timeline] [-o table|wide|yaml|json]`. */
export async function historyCommand(
  ctx: CommandContext,
  name: string,
  options: HistoryOptions,
): Promise<number> {
  const { api, io } = ctx;
  const petSet = await api.getPetSet(name);
  const [allVersions, pods] = await Promise.all([api.listVersions(name), api.podsByVersion(name)]);
  const versions = versionsOf(petSet, allVersions);
  if (options.timeline) {
    if (options.version !== undefined)
      throw new PluginError("BadRequest", "--timeline and --version cannot be used together: pick one");
    const entries = timelineOf(versions);
    if (options.output === "yaml" || options.output === "json")
      io.stdout.write(
        options.output === "json" ? `${JSON.stringify(entries, null, 2)}\n` : stringify(entries),
      );
    else io.stdout.write(timelineTable(entries));
    return 0;
  }
  if (options.version !== undefined) {
    const version = findVersion(petSet, versions, parseVersionRef(options.version, name, "--version"));
    if (options.output === "yaml" || options.output === "json")
      io.stdout.write(formatObjects([version], options.output, false));
    else {
      io.stdout.write(describeVersion(petSet, version, pods.get(version.spec.version) ?? 0, ctx.clock.now()));
      // Claims follow versions (docs/volumes.md): what moving to it does to the pets' claims.
      const previous = versions.filter((v) => v.spec.version < version.spec.version).at(-1);
      if (previous !== undefined) {
        const policy = petSet.spec.volumeClaimUpdatePolicy;
        const changes = claimChanges(
          previous.spec.volumeClaimTemplates,
          version.spec.volumeClaimTemplates,
          policy,
        );
        io.stdout.write(`Claim Changes (from version ${previous.spec.version}):\n`);
        io.stdout.write(changes.length === 0 ? "  <none>\n" : changes.map((l) => `  ${l}\n`).join(""));
      }
    }
    return 0;
  }
  if (options.output === "yaml" || options.output === "json") {
    io.stdout.write(formatObjects(versions, options.output, true));
    return 0;
  }
  if (versions.length === 0) {
    io.stderr.write(
      `No versions found for petset "${name}" in namespace "${api.namespace}" (label ${Labels.petSet}=${name}).\n`,
    );
    return 0;
  }
  io.stdout.write(
    historyTable({ petSet, versions, podsByVersion: pods, now: ctx.clock.now() }, options.output === "wide"),
  );
  return 0;
}
