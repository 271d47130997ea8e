import { z } from "zod";
import type { PetSet } from "../../../api/index.js";
import { type ContainerRef, envOf, selectContainers, testName } from "../container-patch.js";
import type { CommandContext } from "../context.js";
import { UsageError } from "../errors.js";
import type { JsonPatchOp } from "../petset-api.js";
import { type ContainerEdit, type SetOptions, writeContainerEdit } from "./set-write.js";

/** `KEY=VALUE` sets (VALUE may be empty or contain `=`), `KEY-` removes. */
const EnvArgSchema = z.union([
  z
    .string()
    .regex(/^[^=\s]+=/)
    .transform((arg) => {
      const at = arg.indexOf("=");
      return { kind: "set" as const, key: arg.slice(0, at), value: arg.slice(at + 1) };
    }),
  z
    .string()
    .regex(/^[^=\s]+-$/)
    .transform((arg) => ({ kind: "remove" as const, key: arg.slice(0, -1) })),
]);
export type EnvArg = z.output<typeof EnvArgSchema>;

export function parseEnvArgs(args: readonly string[], name: string): EnvArg[] {
  if (args.length === 0)
    throw new UsageError(
      `set env needs at least one KEY=VALUE or KEY-, e.g. kubectl petset set env ${name} LOG_LEVEL=debug`,
    );
  const parsed = args.map((arg) => {
    const result = EnvArgSchema.safeParse(arg);
    if (!result.success)
      throw new UsageError(`set env: "${arg}" is neither KEY=VALUE nor KEY- (e.g. LOG_LEVEL=debug, DEBUG-)`);
    return result.data;
  });
  const seen = new Set<string>();
  for (const { key } of parsed) {
    if (seen.has(key)) throw new UsageError(`set env: ${key} is given more than once`);
    seen.add(key);
  }
  return parsed;
}

/**
 * Ops for one container: `test`s of the container's name and of each env entry's name it
 * touches (by index), then replacements, then removals from the highest index down (so
 * earlier indices stay valid), then additions at the end.
 */
function planContainerEnv(
  ref: ContainerRef,
  args: readonly EnvArg[],
): { ops: JsonPatchOp[]; change?: string } {
  const env = envOf(ref);
  const tests: JsonPatchOp[] = [testName(ref)];
  const replaces: JsonPatchOp[] = [];
  const removes: Array<{ index: number; op: JsonPatchOp }> = [];
  const added: Array<{ name: string; value: string }> = [];
  const set: string[] = [];
  const removed: string[] = [];
  for (const arg of args) {
    const index = env.findIndex((e) => e.name === arg.key);
    const entry = env[index];
    const at = `${ref.path}/env/${index}`;
    if (arg.kind === "remove") {
      if (entry === undefined) continue;
      tests.push({ op: "test", path: `${at}/name`, value: arg.key });
      removes.push({ index, op: { op: "remove", path: at } });
      removed.push(arg.key);
    } else if (entry === undefined) {
      added.push({ name: arg.key, value: arg.value });
      set.push(arg.key);
    } else if (entry.value !== arg.value || Object.keys(entry).some((k) => k !== "name" && k !== "value")) {
      tests.push({ op: "test", path: `${at}/name`, value: arg.key });
      replaces.push({ op: "replace", path: at, value: { name: arg.key, value: arg.value } });
      set.push(arg.key);
    }
  }
  if (set.length === 0 && removed.length === 0) return { ops: [] };
  const adds: JsonPatchOp[] =
    ref.container.env === undefined
      ? [{ op: "add", path: `${ref.path}/env`, value: added }]
      : added.map((value) => ({ op: "add", path: `${ref.path}/env/-`, value }));
  const ops = [
    ...tests,
    ...replaces,
    ...removes.sort((a, b) => b.index - a.index).map((r) => r.op),
    ...(added.length > 0 ? adds : []),
  ];
  const parts = [
    ...(set.length > 0 ? [`set ${set.join(", ")}`] : []),
    ...(removed.length > 0 ? [`removed ${removed.join(", ")}`] : []),
  ];
  return { ops, change: `${ref.name}: ${parts.join(", ")}` };
}

/** The env changes for the containers `selector` names (`*`: every container and init container). */
export function planSetEnv(petSet: PetSet, selector: string, args: readonly EnvArg[]): ContainerEdit {
  const planned = selectContainers(petSet, selector).map((ref) => planContainerEnv(ref, args));
  return {
    ops: planned.flatMap((p) => p.ops),
    changes: planned.flatMap((p) => (p.change !== undefined ? [p.change] : [])),
  };
}

/**
 * `kubectl petset set env NAME [-c CONTAINER] KEY=VALUE... KEY-... [--cause TEXT]`: a JSON
 * patch of exactly those env entries. Without `-c` every container and init container, as
 * `kubectl set env` does.
 */
export async function setEnvCommand(
  ctx: CommandContext,
  name: string,
  args: readonly string[],
  options: SetOptions & { readonly container: string },
): Promise<number> {
  const parsed = parseEnvArgs(args, name);
  return writeContainerEdit(
    ctx,
    name,
    "env",
    (petSet) => planSetEnv(petSet, options.container, parsed),
    options,
  );
}
