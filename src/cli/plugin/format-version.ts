import type { HookRecord, JsonPatchOp, PetSet, PetSetVersion } from "../../api/index.js";
import { age } from "./format-age.js";
import { versionRole } from "./format-history.js";
import { toYaml } from "./format-object.js";

/**
 * `kubectl petset history NAME --version N`: one version described like `kubectl
 * describe`, aligned `Key: value` lines, then the delta as readable operations and the
 * versioned content as YAML.
 */
export function describeVersion(petSet: PetSet, version: PetSetVersion, pods: number, now: number): string {
  const { metadata, spec } = version;
  const created = metadata.creationTimestamp;
  const createdText =
    created === undefined
      ? "<unknown>"
      : `${created instanceof Date ? created.toISOString() : created} (${age(created, now)} ago)`;
  const fields: [string, string][] = [
    ["Name", metadata.name ?? ""],
    ["Namespace", metadata.namespace ?? ""],
    ["PetSet", spec.petSet],
    ["Version", String(spec.version)],
    ["Role", versionRole(petSet, spec.version) || "<none>"],
    ["Generation", String(spec.generation)],
    ["Hash", spec.hash],
    ["Created", createdText],
    ["Changed-By", spec.changedBy ?? "<none>"],
    ["Change-Cause", spec.changeCause ?? "<none>"],
    ["Rollback-Of", spec.rollbackOf === undefined ? "<none>" : String(spec.rollbackOf)],
    ["Pods", String(pods)],
  ];
  const width = Math.max(...fields.map(([k]) => k.length)) + 2;
  const lines = fields.map(([k, v]) => `${`${k}:`.padEnd(width)}${v}`);
  lines.push("Delta:");
  lines.push(...(spec.delta.length === 0 ? ["  <none>"] : spec.delta.map((op) => `  ${describeOp(op)}`)));
  lines.push("Hooks:");
  const hooks = version.status?.hooks ?? [];
  lines.push(...(hooks.length === 0 ? ["  <none>"] : hooks.map((r) => `  ${describeHook(r)}`)));
  lines.push("Template:", indent(toYaml(spec.template)));
  lines.push(
    "Volume Claim Templates:",
    spec.volumeClaimTemplates.length === 0 ? "  <none>" : indent(toYaml(spec.volumeClaimTemplates)),
  );
  return `${lines.join("\n")}\n`;
}

/** One hook run on a line: `preUpdate web-2: Succeeded after 1 attempt (exit code 0)`. */
export function describeHook(r: HookRecord): string {
  const on = r.pod !== undefined ? ` ${r.pod}` : "";
  const phase = r.outcome !== undefined ? `${r.phase} (${r.outcome})` : r.phase;
  const msg = r.message !== undefined ? ` (${r.message.replace(/\s+/g, " ").slice(0, 120)})` : "";
  return `${r.hook}${on}: ${phase} after ${r.attempts} attempt(s), started ${r.startedAt}${msg}`;
}

/** One JSON Patch operation on a line: `replace /template/spec/containers/0/image = "nginx:1.27"`. */
export function describeOp(op: JsonPatchOp): string {
  switch (op.op) {
    case "remove":
      return `remove  ${op.path}`;
    case "move":
    case "copy":
      return `${op.op.padEnd(7)} ${op.path} from ${op.from ?? "?"}`;
    default:
      return `${op.op.padEnd(7)} ${op.path} = ${compact(op.value)}`;
  }
}

/** A value on one line, cut so a replaced container spec does not flood the terminal. */
function compact(value: unknown): string {
  const text = JSON.stringify(value) ?? "null";
  return text.length <= 120 ? text : `${text.slice(0, 117)}...`;
}

function indent(text: string): string {
  return text
    .replace(/\n$/, "")
    .split("\n")
    .map((line) => `  ${line}`)
    .join("\n");
}
