/** The plugin's migration commands: adopt, release, convert (docs/migration.md). */
import { type Command, Option } from "commander";
import { ADOPT_STEPS, type AdoptStep, adoptCommand } from "./commands/adopt.js";
import { type ConvertFormat, convertCommand } from "./commands/convert.js";
import { releaseCommand } from "./commands/release.js";
import type { PluginDeps } from "./context.js";
import { parseDuration } from "./duration.js";
import type { ConnectionFlags } from "./kubeconfig.js";
import type { Run } from "./program.js";
import { connectionOptions, examples, outputOption } from "./program-options.js";

/** How long `adopt` waits for the garbage collector and the controller by default. */
export const DEFAULT_ADOPT_WAIT = "5m";

export function addMigrationCommands(
  program: Command,
  run: (flags: ConnectionFlags, body: Run) => Promise<void>,
  deps: PluginDeps,
): void {
  connectionOptions(program.command("adopt"))
    .addHelpText(
      "after",
      examples([
        "kubectl petset adopt statefulset/web --dry-run   # print the plan, change nothing",
        "kubectl petset adopt statefulset/web             # run again to resume an interrupted adoption",
      ]),
    )
    .description("Hand a StatefulSet's pods to a new PetSet of the same name, restarting none")
    .argument("<statefulset/NAME>", "the StatefulSet to adopt")
    .option("--dry-run", "print the plan (versions to import, pods to relabel) and change nothing", false)
    .option(
      "--timeout <duration>",
      "how long to wait for the garbage collector and the controller",
      DEFAULT_ADOPT_WAIT,
    )
    .addOption(new Option("--stop-after <step>", "stop after a step (tests)").choices(ADOPT_STEPS).hideHelp())
    .action(
      async (
        target: string,
        o: ConnectionFlags & { dryRun: boolean; timeout: string; stopAfter?: AdoptStep },
      ) =>
        run(o, (ctx) =>
          adoptCommand(ctx, target, {
            dryRun: o.dryRun,
            timeoutMs: parseDuration(o.timeout, "--timeout"),
            ...(o.stopAfter !== undefined ? { stopAfter: o.stopAfter } : {}),
          }),
        ),
    );

  connectionOptions(program.command("release"))
    .addHelpText("after", examples(["kubectl petset release web   # run again to resume"]))
    .description("Hand a PetSet's pods back to an equivalent StatefulSet, restarting none")
    .argument("<name>", "PetSet name")
    .option("--timeout <duration>", "how long to wait for the StatefulSet controller", DEFAULT_ADOPT_WAIT)
    .action(async (name: string, o: ConnectionFlags & { timeout: string }) =>
      run(o, (ctx) => releaseCommand(ctx, name, { timeoutMs: parseDuration(o.timeout, "--timeout") })),
    );

  program
    .command("convert")
    .addHelpText(
      "after",
      examples([
        "kubectl petset convert -f sts.yaml > petset.yaml",
        "kubectl get sts web -o yaml | kubectl petset convert -f -",
      ]),
    )
    .description("Print the PetSet manifest of a StatefulSet manifest (for Git); needs no cluster")
    .requiredOption("-f, --filename <file>", "StatefulSet manifest, YAML or JSON; - for stdin")
    .addOption(outputOption(["yaml", "json"], "yaml"))
    .action(async (o: { filename: string; output: ConvertFormat }) => {
      await convertCommand(deps.io, o.filename, { output: o.output });
    });
}
