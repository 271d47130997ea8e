/** The plugin's commands that act on chosen pets: replace, scale --remove (docs/cli.md). */
import type { Command } from "commander";
import { replaceCommand } from "./commands/replace.js";
import { scaleCommand } from "./commands/scale-remove.js";
import type { ConnectionFlags } from "./kubeconfig.js";
import type { Run } from "./program.js";
import { connectionOptions, examples } from "./program-options.js";

export function addPetCommands(
  program: Command,
  run: (flags: ConnectionFlags, body: Run) => Promise<void>,
): void {
  connectionOptions(program.command("replace"))
    .addHelpText(
      "after",
      examples([
        'kubectl petset replace web-2 --reason "disk errors"      # recreate the pod, keep its claims',
        "kubectl petset replace web-2 --claims recreate --yes      # also rebuild its storage (data lost)",
      ]),
    )
    .description(
      "Ask the controller to replace one pet (pod name) through its hooks, within maxUnavailable, at its own version",
    )
    .argument("<pod>", "the pet's pod, e.g. web-2")
    .option("--reason <text>", "why, shown in the Events")
    .option("--claims <mode>", "keep or recreate the pet's claims", "keep")
    .option("--yes", "confirm --claims recreate (the pet's data is lost)", false)
    .action(async (pod: string, o: ConnectionFlags & { reason?: string; claims: string; yes: boolean }) =>
      run(o, (ctx) => replaceCommand(ctx, pod, o)),
    );

  connectionOptions(program.command("scale"))
    .addHelpText(
      "after",
      examples([
        "kubectl petset scale web --replicas 5",
        "kubectl petset scale web --replicas 2 --remove web-1   # remove web-1, not the highest pet",
      ]),
    )
    .description(
      "Set replicas; --remove POD removes that pet instead of the highest (writes spec.reserveOrdinals)",
    )
    .argument("<name>", "PetSet name")
    .option("--replicas <n>", "desired pets (default with --remove: one fewer per removed pet)")
    .option(
      "--remove <pod>",
      "remove this pet (repeatable)",
      (value: string, previous: string[]) => [...previous, value],
      [] as string[],
    )
    .action(async (name: string, o: ConnectionFlags & { replicas?: string; remove: string[] }) =>
      run(o, (ctx) =>
        scaleCommand(ctx, name, {
          remove: o.remove,
          ...(o.replicas !== undefined ? { replicas: o.replicas } : {}),
        }),
      ),
    );
}
