import type { PetSet } from "../../../api/index.js";
import { changeCauseOps } from "../container-patch.js";
import { type CommandContext, objectRef } from "../context.js";
import { PluginError } from "../errors.js";
import type { JsonPatchOp } from "../petset-api.js";
import type { DryRun } from "./rollback.js";

/** What a `set` verb wants to write, planned from one read of the PetSet. */
export interface ContainerEdit {
  /** The JSON patch, `test`s first. Empty when there is nothing to change. */
  readonly ops: readonly JsonPatchOp[];
  /** One human line per change, e.g. `app: nginx:1.27 -> nginx:1.28`. */
  readonly changes: readonly string[];
}

export interface SetOptions {
  /** `kubernetes.io/change-cause` for the version this change creates. */
  readonly cause?: string;
  readonly dryRun: DryRun;
}

/** Re-reads after a rejected patch at most this many times: each attempt plans again. */
const MAX_ATTEMPTS = 5;

/**
 * Plans `edit` from a fresh read and sends it as one JSON patch. When the API server rejects
 * it (a `test` failed: the containers or env were reordered, or annotations appeared, since
 * the read) it reads again and, if the plan is now different, tries again; a rejection that
 * a new read does not explain is reported as the server worded it.
 */
export async function writeContainerEdit(
  ctx: CommandContext,
  name: string,
  noun: "image" | "env",
  plan: (petSet: PetSet) => ContainerEdit,
  options: SetOptions,
): Promise<number> {
  const { api, io } = ctx;
  let petSet = await api.getPetSet(name);
  for (let attempt = 1; ; attempt++) {
    const edit = plan(petSet);
    if (edit.changes.length === 0) {
      io.stdout.write(`${objectRef(name)} ${noun} unchanged\n`);
      return 0;
    }
    const ops = [...edit.ops, ...(options.cause !== undefined ? changeCauseOps(petSet, options.cause) : [])];
    const summary = `(${edit.changes.join("; ")})`;
    if (options.dryRun === "client") {
      io.stdout.write(`${objectRef(name)} ${noun} updated ${summary} (dry run)\n`);
      io.stdout.write(`${JSON.stringify(ops, null, 2)}\n`);
      return 0;
    }
    try {
      await api.jsonPatchPetSet(name, ops, { dryRun: options.dryRun === "server" });
    } catch (err) {
      if (!(err instanceof PluginError) || err.reason !== "Invalid" || attempt >= MAX_ATTEMPTS) throw err;
      const fresh = await api.getPetSet(name);
      const again = plan(fresh);
      const againOps = [
        ...again.ops,
        ...(options.cause !== undefined ? changeCauseOps(fresh, options.cause) : []),
      ];
      if (JSON.stringify(againOps) === JSON.stringify(ops)) throw err;
      petSet = fresh;
      continue;
    }
    const suffix = options.dryRun === "server" ? " (server dry run)" : "";
    io.stdout.write(`${objectRef(name)} ${noun} updated ${summary}${suffix}\n`);
    if (petSet.spec.paused && options.dryRun === "none")
      io.stderr.write(
        `note: petset "${name}" is paused: pods move to the new version once it is resumed (kubectl petset resume ${name})\n`,
      );
    return 0;
  }
}
