/** The plugin's commands for step-wise rollouts: promote, abort (docs/cli.md, docs/rollouts.md "Steps"). */
import { type Command, Option } from "commander";
import { abortCommand, promoteCommand } from "./commands/promote.js";
import { parseDuration } from "./duration.js";
import type { ConnectionFlags } from "./kubeconfig.js";
import type { Run } from "./program.js";
import { connectionOptions, examples } from "./program-options.js";

export function addStepCommands(
  program: Command,
  run: (flags: ConnectionFlags, body: Run) => Promise<void>,
  parseBool: (value: string) => boolean,
  defaultWait: string,
): void {
  connectionOptions(program.command("promote"))
    .addHelpText(
      "after",
      examples([
        "kubectl petset promote web          # pass the step the rollout waits at (kubectl petset status web)",
        "kubectl petset promote web --full   # skip every remaining step",
      ]),
    )
    .description(
      "Continue a step-wise rollout (rollingUpdate.steps): pass the current step, or all with --full",
    )
    .argument("<name>", "PetSet name")
    .option("--full", "pass every remaining step", false)
    .action(async (name: string, o: ConnectionFlags & { full: boolean }) =>
      run(o, (ctx) => promoteCommand(ctx, name, o.full)),
    );

  connectionOptions(program.command("abort"))
    .addHelpText(
      "after",
      examples([
        "kubectl petset abort web            # roll back to the current version; canaries are replaced",
        "kubectl petset abort web --wait=false",
      ]),
    )
    .description(
      "Give up the rollout in flight: roll back to the current version (a rollback skips the steps)",
    )
    .argument("<name>", "PetSet name")
    .addOption(
      new Option("--wait [bool]", "wait for the controller to record the rollback version")
        .argParser(parseBool)
        .default(true),
    )
    .option("--timeout <duration>", "how long --wait waits", defaultWait)
    .action(async (name: string, o: ConnectionFlags & { wait: boolean; timeout: string }) =>
      run(o, (ctx) =>
        abortCommand(ctx, name, { wait: o.wait, timeoutMs: parseDuration(o.timeout, "--timeout") }),
      ),
    );
}
