import { Annotations } from "../../../api/index.js";
import { type CommandContext, objectRef } from "../context.js";

/** `kubectl petset pause NAME` / `resume NAME`: merge-patch `spec.paused`; a no-op says so. */
export async function setPausedCommand(ctx: CommandContext, name: string, paused: boolean): Promise<number> {
  const { api, io } = ctx;
  const petSet = await api.getPetSet(name);
  const verb = paused ? "paused" : "resumed";
  if (petSet.spec.paused === paused) {
    io.stdout.write(`${objectRef(name)} ${paused ? "already paused" : "not paused (nothing to resume)"}\n`);
    return 0;
  }
  await api.patchPetSet(name, { spec: { paused } });
  io.stdout.write(`${objectRef(name)} ${verb}\n`);
  return 0;
}

/**
 * `kubectl petset restart NAME`: sets the template annotation `petset.dev/restartedAt` to
 * now (RFC 3339), a template change that rolls every pet, as `kubectl rollout restart`.
 */
export async function restartCommand(ctx: CommandContext, name: string): Promise<number> {
  const { api, io } = ctx;
  const at = new Date(ctx.clock.now()).toISOString().replace(/\.[0-9]{3}Z$/, "Z");
  const petSet = await api.patchPetSet(name, {
    spec: { template: { metadata: { annotations: { [Annotations.restartedAt]: at } } } },
  });
  io.stdout.write(`${objectRef(name)} restarted\n`);
  if (petSet.spec.paused)
    io.stderr.write(
      `note: petset "${name}" is paused: pods restart once it is resumed (kubectl petset resume ${name})\n`,
    );
  return 0;
}
