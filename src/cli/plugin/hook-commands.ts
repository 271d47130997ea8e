/** The plugin's hook commands: hook list|ack|fail|retry, observe (docs/hooks.md). */
import type { Command } from "commander";
import {
  type HookListFormat,
  hookAnswerCommand,
  hookListCommand,
  hookRetryCommand,
} from "./commands/hook.js";
import { observeCommand } from "./commands/observe.js";
import { parseDuration } from "./duration.js";
import type { ConnectionFlags } from "./kubeconfig.js";
import type { Run } from "./program.js";
import { connectionOptions, examples, outputOption } from "./program-options.js";

export function addHookCommands(
  program: Command,
  run: (flags: ConnectionFlags, body: Run) => Promise<void>,
): void {
  const hook = program
    .command("hook")
    .description("See and answer a PetSet's lifecycle hooks: list, ack, fail, retry")
    .addHelpText(
      "after",
      examples([
        "kubectl petset hook list web",
        "kubectl petset hook ack web                      # the only pending external hook",
        "kubectl petset hook fail web ID --message 'replica lag too high'",
        "kubectl petset hook retry web                    # run the failed hook again",
      ]),
    );
  connectionOptions(hook.command("list"))
    .description("Hook runs recorded on the PetSet's versions, newest first, and pending handshakes")
    .argument("<name>", "PetSet name")
    .addOption(outputOption(["table", "json"], "table"))
    .action(async (name: string, o: ConnectionFlags & { output: HookListFormat }) =>
      run(o, (ctx) => hookListCommand(ctx, name, o.output)),
    );
  connectionOptions(hook.command("ack"))
    .description("Answer a pending external hook: succeeded")
    .argument("<name>", "PetSet name")
    .argument("[id]", "hook id (default: the only pending one)")
    .option("--message <text>", "a note recorded with the hook")
    .action(async (name: string, id: string | undefined, o: ConnectionFlags & { message?: string }) =>
      run(o, (ctx) => hookAnswerCommand(ctx, name, id, "Succeeded", o.message)),
    );
  connectionOptions(hook.command("fail"))
    .description("Answer a pending external hook: failed (its failurePolicy applies)")
    .argument("<name>", "PetSet name")
    .argument("[id]", "hook id (default: the only pending one)")
    .option("--message <text>", "why it failed, recorded with the hook")
    .action(async (name: string, id: string | undefined, o: ConnectionFlags & { message?: string }) =>
      run(o, (ctx) => hookAnswerCommand(ctx, name, id, "Failed", o.message)),
    );
  connectionOptions(hook.command("retry"))
    .description("Run a hook that failed for good again (failurePolicy Pause or Rollback without a target)")
    .argument("<name>", "PetSet name")
    .argument("[id]", "hook id (default: the only failed one)")
    .action(async (name: string, id: string | undefined, o: ConnectionFlags) =>
      run(o, (ctx) => hookRetryCommand(ctx, name, id)),
    );

  connectionOptions(program.command("observe"))
    .description("Run a script for each external hook of a PetSet and answer from its exit code")
    .addHelpText(
      "after",
      examples([
        "kubectl petset observe db -- ./hooks/babysit.sh     # $PETSET_HOOK, $PETSET_POD, $PETSET_ORDINAL, ...",
        "kubectl petset observe db --once -- sh -c 'echo $PETSET_HOOK $PETSET_POD'",
      ]),
    )
    .argument("<name>", "PetSet name")
    .argument("<command...>", "the command to run (after --)")
    .option("--interval <duration>", "how often to look for new requests", "1s")
    .option("--once", "answer the requests pending now, then exit (1 if a script failed)", false)
    .action(
      async (name: string, command: string[], o: ConnectionFlags & { interval: string; once: boolean }) =>
        run(o, (ctx) => {
          const abort = new AbortController();
          const stop = () => abort.abort();
          process.once("SIGINT", stop);
          process.once("SIGTERM", stop);
          return observeCommand(ctx, name, {
            command,
            intervalMs: parseDuration(o.interval, "--interval"),
            once: o.once,
            signal: abort.signal,
          }).finally(() => {
            process.off("SIGINT", stop);
            process.off("SIGTERM", stop);
          });
        }),
    );
}
