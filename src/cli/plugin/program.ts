import { Argument, Command, CommanderError, InvalidArgumentError, Option } from "commander";
import { diffCommand } from "./commands/diff.js";
import { type HistoryFormat, historyCommand } from "./commands/history.js";
import { type DryRun, rollbackCommand } from "./commands/rollback.js";
import { setEnvCommand } from "./commands/set-env.js";
import { setImageCommand } from "./commands/set-image.js";
import type { SetOptions } from "./commands/set-write.js";
import { restartCommand, setPausedCommand } from "./commands/spec-patches.js";
import { statusCommand } from "./commands/status.js";
import { COMPLETE_COMMAND, type Completion, complete, formatCompletion } from "./completion.js";
import { completionScript, SHELLS, type Shell } from "./completion-scripts.js";
import type { CommandContext, PluginDeps } from "./context.js";
import { parseDuration } from "./duration.js";
import { PluginError } from "./errors.js";
import type { ColorMode } from "./format-diff.js";
import { addHookCommands } from "./hook-commands.js";
import type { ConnectionFlags } from "./kubeconfig.js";
import { addMigrationCommands } from "./migration-commands.js";
import { addPetCommands } from "./pet-commands.js";
import { connectionOptions, examples, outputOption } from "./program-options.js";
import { addStepCommands } from "./step-commands.js";

/** How long `rollback` waits for the controller to record the new version by default. */
export const DEFAULT_ROLLBACK_WAIT = "30s";

/**
 * Runs `kubectl petset ARGS...` and resolves to the exit code. User errors (PluginError,
 * bad flags) print one `error: ...` line on stderr and exit 1 (or the error's own code);
 * nothing here calls process.exit, so tests run it in-process.
 */
export async function runPlugin(args: readonly string[], deps: PluginDeps): Promise<number> {
  let exitCode = 0;
  const program = buildProgram(deps, (code) => {
    exitCode = code;
  });
  if (args[0] === COMPLETE_COMMAND) {
    deps.io.stdout.write(formatCompletion(await withPetSetNames(complete(program, args.slice(1)), deps)));
    return 0;
  }
  try {
    await program.parseAsync([...args], { from: "user" });
    return exitCode;
  } catch (err) {
    if (err instanceof CommanderError) return err.exitCode;
    const message = err instanceof Error ? err.message : String(err);
    deps.io.stderr.write(`error: ${message}\n`);
    return err instanceof PluginError ? err.exitCode : 1;
  }
}

/** How long a TAB may wait for the cluster's PetSet names before it offers none. */
const NAME_COMPLETION_TIMEOUT_MS = 3000;

/** Fills in the PetSet names a NAME slot asks for; any failure offers none, silently. */
async function withPetSetNames(completion: Completion, deps: PluginDeps): Promise<Completion> {
  const want = completion.petSetName;
  if (want === undefined) return completion;
  let timer: NodeJS.Timeout | undefined;
  try {
    const api = await deps.connect(want.flags);
    const names = await Promise.race([
      api.listPetSetNames(),
      new Promise<string[]>((resolve) => {
        timer = setTimeout(() => resolve([]), NAME_COMPLETION_TIMEOUT_MS);
      }),
    ]);
    const candidates = names
      .filter((n) => n.startsWith(want.prefix))
      .sort()
      .map((value) => ({ value, description: `petset in ${api.namespace}` }));
    return { ...completion, candidates };
  } catch {
    return completion;
  } finally {
    clearTimeout(timer);
  }
}

export type Run = (ctx: CommandContext) => Promise<number>;

function buildProgram(deps: PluginDeps, setExit: (code: number) => void): Command {
  const { io } = deps;
  const program = new Command("kubectl petset")
    .description(
      "Inspect and steer PetSet rollouts: history, diff, rollback, pause, resume, restart, status, promote, abort, set, completion; lifecycle hooks: hook, observe; move StatefulSets over and back: adopt, convert, release; chosen pets: replace, scale --remove.",
    )
    .usage("<command> NAME [flags]")
    .exitOverride()
    .showHelpAfterError("(add --help for usage)")
    .configureOutput({
      writeOut: (s) => io.stdout.write(s),
      writeErr: (s) => io.stderr.write(s),
    });
  const run = async ({ namespace, kubeconfig, context }: ConnectionFlags, body: Run): Promise<void> => {
    const flags = { namespace, kubeconfig, context };
    const ctx: CommandContext = { api: await deps.connect(flags), io, clock: deps.clock };
    setExit(await body(ctx));
  };

  connectionOptions(program.command("history"))
    .addHelpText(
      "after",
      examples([
        "kubectl petset history web",
        "kubectl petset history web -o wide",
        "kubectl petset history web --version 3",
        "kubectl petset history web --version 3 -o yaml",
        "kubectl petset history web --timeline          # who changed what, what happened to each version",
        "kubectl petset history web --timeline -o json",
      ]),
    )
    .description("List the versions of a PetSet, describe one with --version, or show the --timeline")
    .argument("<name>", "PetSet name")
    .option("--version <n>", "describe this version (3, v3 or web-v3)")
    .option("--timeline", "every recorded moment of every version, oldest first (from the versions' status)")
    .addOption(outputOption(["table", "wide", "yaml", "json"], "table"))
    .action(
      async (
        name: string,
        o: ConnectionFlags & { version?: string; timeline?: boolean; output: HistoryFormat },
      ) =>
        run(o, (ctx) =>
          historyCommand(ctx, name, {
            output: o.output,
            ...(o.version ? { version: o.version } : {}),
            ...(o.timeline ? { timeline: true } : {}),
          }),
        ),
    );

  connectionOptions(program.command("diff"))
    .addHelpText(
      "after",
      examples([
        "kubectl petset diff web 2            # version 2 against the update version",
        "kubectl petset diff web 2 5",
        "kubectl petset diff web v2 web-v5 --color=always | less -R",
      ]),
    )
    .description("Show what changed between two versions (the other version defaults to the update version)")
    .argument("<name>", "PetSet name")
    .argument("<version>", "the older version (3, v3 or web-v3)")
    .argument("[other-version]", "the newer version (default: the update version)")
    .addOption(
      new Option("--color <when>", "color the diff").choices(["auto", "always", "never"]).default("auto"),
    )
    .action(
      async (name: string, a: string, b: string | undefined, o: ConnectionFlags & { color: ColorMode }) =>
        run(o, (ctx) => diffCommand(ctx, name, a, b, { color: o.color })),
    );

  connectionOptions(program.command("rollback"))
    .addHelpText(
      "after",
      examples([
        "kubectl petset rollback web                 # to the previous distinct version",
        "kubectl petset rollback web --to-version 3",
        "kubectl petset rollback web --to-version 3 --dry-run",
        "kubectl petset rollback web --wait=false",
      ]),
    )
    .description("Roll a PetSet back to an earlier version (default: the previous distinct one)")
    .argument("<name>", "PetSet name")
    .option("--to-version <n>", "version to roll back to (3, v3 or web-v3)")
    .addOption(dryRunOption())
    .addOption(
      new Option("--wait [bool]", "wait for the controller to record the new version")
        .argParser(parseBool)
        .default(true),
    )
    .option("--timeout <duration>", "how long --wait waits", DEFAULT_ROLLBACK_WAIT)
    .action(
      async (
        name: string,
        o: ConnectionFlags & { toVersion?: string; dryRun: DryRun; wait: boolean; timeout: string },
      ) =>
        run(o, (ctx) =>
          rollbackCommand(ctx, name, {
            ...(o.toVersion ? { toVersion: o.toVersion } : {}),
            dryRun: o.dryRun,
            wait: o.wait,
            timeoutMs: parseDuration(o.timeout, "--timeout"),
          }),
        ),
    );

  connectionOptions(program.command("pause"))
    .addHelpText("after", examples(["kubectl petset pause web"]))
    .description("Stop moving pods between versions (scaling still works)")
    .argument("<name>", "PetSet name")
    .action(async (name: string, o: ConnectionFlags) => run(o, (ctx) => setPausedCommand(ctx, name, true)));

  connectionOptions(program.command("resume"))
    .addHelpText("after", examples(["kubectl petset resume web"]))
    .description("Continue a paused rollout")
    .argument("<name>", "PetSet name")
    .action(async (name: string, o: ConnectionFlags) => run(o, (ctx) => setPausedCommand(ctx, name, false)));

  connectionOptions(program.command("restart"))
    .addHelpText("after", examples(["kubectl petset restart web"]))
    .description("Restart every pet (sets the petset.dev/restartedAt template annotation)")
    .argument("<name>", "PetSet name")
    .action(async (name: string, o: ConnectionFlags) => run(o, (ctx) => restartCommand(ctx, name)));

  connectionOptions(program.command("status"))
    .addHelpText(
      "after",
      examples([
        "kubectl petset status web                   # once: exit 0 complete, 1 failed, 2 in progress",
        "kubectl petset status web --watch",
        "kubectl petset status web --watch --timeout 10m",
      ]),
    )
    .description("Show rollout progress; exit 0 complete, 1 failed, 2 not complete (in time)")
    .argument("<name>", "PetSet name")
    .option("-w, --watch", "follow the rollout until it completes or fails", false)
    .option("--timeout <duration>", "give up after this long (exit 2); implies waiting")
    .action(async (name: string, o: ConnectionFlags & { watch: boolean; timeout?: string }) =>
      run(o, (ctx) =>
        statusCommand(ctx, name, {
          watch: o.watch,
          ...(o.timeout !== undefined ? { timeoutMs: parseDuration(o.timeout, "--timeout") } : {}),
        }),
      ),
    );

  addStepCommands(program, run, parseBool, DEFAULT_ROLLBACK_WAIT);

  const set = program
    .command("set")
    .description("Change container images or env with a JSON patch of exactly those fields")
    .usage("image|env NAME ...");
  setOptions(connectionOptions(set.command("image")))
    .addHelpText(
      "after",
      examples([
        "kubectl petset set image web app=nginx:1.28",
        "kubectl petset set image web app=nginx:1.28 sidecar=envoy:1.31 --cause 'nginx 1.28 for CVE-2025-0001'",
        "kubectl petset set image web '*=registry.local/nginx:1.28'   # every container",
      ]),
    )
    .description("Set the image of containers by name (ports, mounts and other containers stay as they are)")
    .argument("<name>", "PetSet name")
    .argument("<container=image...>", "container name (or * for all) and its new image")
    .action(async (name: string, pairs: string[], o: ConnectionFlags & SetFlags) =>
      run(o, (ctx) => setImageCommand(ctx, name, pairs, setFlags(o))),
    );
  setOptions(connectionOptions(set.command("env")))
    .addHelpText(
      "after",
      examples([
        "kubectl petset set env web LOG_LEVEL=debug",
        "kubectl petset set env web -c app LOG_LEVEL=info DEBUG-     # set one, remove one",
      ]),
    )
    .description("Set (KEY=VALUE) or remove (KEY-) env vars of the containers (all, or -c CONTAINER)")
    .argument("<name>", "PetSet name")
    .argument("<env...>", "KEY=VALUE to set, KEY- to remove")
    .option(
      "-c, --container <name>",
      "only this container (default: every container and init container)",
      "*",
    )
    .action(async (name: string, env: string[], o: ConnectionFlags & SetFlags & { container: string }) =>
      run(o, (ctx) => setEnvCommand(ctx, name, env, { ...setFlags(o), container: o.container })),
    );

  program
    .command("completion")
    .addHelpText(
      "after",
      examples([
        "source <(kubectl petset completion bash)",
        "kubectl petset completion zsh > ~/.zfunc/_kubectl-petset   # a folder on $fpath",
      ]),
    )
    .description("Print a bash or zsh completion script for kubectl-petset")
    .addArgument(new Argument("<shell>", "bash or zsh").choices(SHELLS))
    .action((shell: Shell) => {
      io.stdout.write(completionScript(shell));
    });

  addMigrationCommands(program, run, deps);
  addHookCommands(program, run);
  addPetCommands(program, run);

  configureTree(program, program);
  return program;
}

/** Every subcommand reports errors through the program's output and never exits the process. */
function configureTree(program: Command, command: Command): void {
  for (const sub of command.commands) {
    sub
      .exitOverride()
      .configureOutput(program.configureOutput())
      .showHelpAfterError("(add --help for usage)");
    configureTree(program, sub);
  }
}

interface SetFlags {
  cause?: string;
  dryRun: DryRun;
}

function setOptions(command: Command): Command {
  return command
    .option("--cause <text>", "kubernetes.io/change-cause of the version this change creates")
    .addOption(dryRunOption());
}

function setFlags(o: SetFlags): SetOptions {
  return { dryRun: o.dryRun, ...(o.cause !== undefined ? { cause: o.cause } : {}) };
}

function dryRunOption(): Option {
  return new Option("--dry-run [strategy]", "only show what would change: client (default) or server")
    .choices(["none", "client", "server"])
    .preset("client")
    .default("none");
}

function parseBool(value: string): boolean {
  if (/^(true|1|yes)$/i.test(value)) return true;
  if (/^(false|0|no)$/i.test(value)) return false;
  throw new InvalidArgumentError("expected true or false.");
}
