/**
 * `kubectl petset hook list|ack|fail|retry NAME [ID]`: the hooks of a PetSet by hand.
 *  - list: every run recorded on the versions (newest first) and the pending handshakes.
 *  - ack / fail: answer a pending `external` hook (the only one, or the one ID names).
 *  - retry: run a hook that failed for good again (annotation hooks.petset.dev/retry on the
 *    PetSet, naming the run; the controller starts one more attempt with its failures reset).
 */
import { HookAnnotations } from "../../../api/index.js";
import { type CommandContext, objectRef } from "../context.js";
import { age } from "../format-age.js";
import { formatTable } from "../format-table.js";
import { acknowledge, hookRecords, pendingRequests, pick } from "../hook-requests.js";
import { versionsOf } from "../version-select.js";

export type HookListFormat = "table" | "json";

export async function hookListCommand(
  ctx: CommandContext,
  name: string,
  output: HookListFormat,
): Promise<number> {
  const petSet = await ctx.api.getPetSet(name);
  const records = hookRecords(versionsOf(petSet, await ctx.api.listVersions(name)));
  const pending = (await pendingRequests(ctx.api, petSet)).filter((p) => !p.answered);
  if (output === "json") {
    ctx.io.stdout.write(`${JSON.stringify({ records, pending: pending.map((p) => p.context) }, null, 2)}\n`);
    return 0;
  }
  if (records.length === 0) {
    ctx.io.stdout.write(
      petSet.spec.lifecycle === undefined && petSet.spec.nodeFailure?.fence === undefined
        ? `${objectRef(name)} declares no hooks (spec.lifecycle, spec.nodeFailure.fence)\n`
        : `${objectRef(name)}: no hook has run yet\n`,
    );
    return 0;
  }
  const now = ctx.clock.now();
  const rows = records.map((r) => [
    r.hook,
    r.pod ?? "-",
    r.toVersion !== undefined ? `v${r.toVersion}` : r.fromVersion !== undefined ? `v${r.fromVersion}` : "-",
    r.outcome !== undefined ? `${r.phase} (${r.outcome})` : r.phase,
    String(r.attempts),
    age(r.startedAt, now),
    (r.message ?? "").replace(/\s+/g, " ").slice(0, 60),
    r.id,
  ]);
  ctx.io.stdout.write(
    formatTable(["HOOK", "POD", "VERSION", "PHASE", "ATTEMPTS", "STARTED", "MESSAGE", "ID"], rows),
  );
  if (pending.length > 0) {
    ctx.io.stdout.write(
      `\n${pending.length} waiting for an answer (external): kubectl petset hook ack ${name} ID, or fail ${name} ID --message ...\n`,
    );
  }
  return 0;
}

export async function hookAnswerCommand(
  ctx: CommandContext,
  name: string,
  id: string | undefined,
  result: "Succeeded" | "Failed",
  message: string | undefined,
): Promise<number> {
  const petSet = await ctx.api.getPetSet(name);
  const pending = (await pendingRequests(ctx.api, petSet)).filter((p) => !p.answered);
  const request = pick(pending, id, (p) => p.context.id, "pending external hook");
  await acknowledge(ctx.api, request, result, message);
  const on = request.pod !== undefined ? ` on ${request.pod.name}` : "";
  ctx.io.stdout.write(
    `${objectRef(name)} hook ${request.context.hook}${on} ${result === "Succeeded" ? "acknowledged" : "failed"} (${request.context.id})\n`,
  );
  return 0;
}

export async function hookRetryCommand(
  ctx: CommandContext,
  name: string,
  id: string | undefined,
): Promise<number> {
  const petSet = await ctx.api.getPetSet(name);
  const failed = (petSet.status?.hooks ?? []).filter((r) => r.phase === "Failed");
  const record = pick(failed, id, (r) => r.id, "failed hook waiting for a retry");
  await ctx.api.patchPetSet(name, {
    metadata: { annotations: { [HookAnnotations.retry]: `${record.id}#${record.attempts}` } },
  });
  const on = record.pod !== undefined ? ` on ${record.pod}` : "";
  ctx.io.stdout.write(
    `${objectRef(name)} hook ${record.hook}${on} will run again (attempt ${record.attempts + 1})\n`,
  );
  return 0;
}
