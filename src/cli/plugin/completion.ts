/**
 * Shell completion, as cobra does it: the shell asks the plugin itself
 * (`kubectl-petset __complete WORDS... CURRENT`) and the answer is computed from the
 * program's own commands and options, so it never drifts from what the plugin accepts.
 * The same protocol serves kubectl's completion of plugins (`kubectl petset <TAB>` runs an
 * executable `kubectl_complete-petset` on PATH with the words after `petset`), and the
 * bash/zsh scripts of `kubectl petset completion` for the `kubectl-petset` binary.
 *
 * Output: one candidate per line (`value<TAB>description`), then `:<directive>` with
 * cobra's bits: 4 = no file completion (only paths are completed with files: --kubeconfig).
 * A PetSet NAME is completed from the cluster (the PetSets of the namespace), best effort.
 */
import type { Command, Option } from "commander";
import type { ConnectionFlags } from "./kubeconfig.js";

export const COMPLETE_COMMAND = "__complete";
export const NO_FILE_COMPLETION = 4;
export const DEFAULT_COMPLETION = 0;

export interface Candidate {
  readonly value: string;
  readonly description: string;
}

export interface Completion {
  readonly candidates: readonly Candidate[];
  /** Cobra directive: DEFAULT_COMPLETION lets the shell complete file names. */
  readonly directive: number;
  /**
   * Set when the word is a command's PetSet NAME: the names come from the cluster the
   * connection flags typed so far point at (the caller asks it; completion stays pure).
   */
  readonly petSetName?: { readonly prefix: string; readonly flags: ConnectionFlags };
}

const CONNECTION_FLAGS: Record<string, keyof ConnectionFlags> = {
  "--namespace": "namespace",
  "--kubeconfig": "kubeconfig",
  "--context": "context",
};

/** Options that name a file: completed by the shell. */
const FILE_OPTIONS = new Set(["--kubeconfig"]);

const HELP: Candidate = { value: "--help", description: "usage and examples" };

/** What may follow `words` (the last word is the one being completed, possibly ""). */
export function complete(program: Command, words: readonly string[]): Completion {
  const current = words.at(-1) ?? "";
  let command = program;
  let positionals = 0;
  let pending: Option | undefined;
  const flags: { -readonly [K in keyof ConnectionFlags]: ConnectionFlags[K] } = {};
  const remember = (option: Option | undefined, value: string) => {
    const key = option?.long !== undefined ? CONNECTION_FLAGS[option.long] : undefined;
    if (key !== undefined) flags[key] = value;
  };
  for (const word of words.slice(0, -1)) {
    if (pending !== undefined) {
      remember(pending, word);
      pending = undefined;
      continue;
    }
    if (word.startsWith("-")) {
      const at = word.indexOf("=");
      const option = findOption(command, at < 0 ? word : word.slice(0, at));
      if (at >= 0) remember(option, word.slice(at + 1));
      else if (option?.required) pending = option;
      continue;
    }
    const sub = positionals === 0 ? visibleCommands(command).find((c) => c.name() === word) : undefined;
    if (sub !== undefined) command = sub;
    else positionals++;
  }
  if (pending !== undefined) return valuesOf(pending, "", current);
  if (current.startsWith("--") && current.includes("=")) {
    const at = current.indexOf("=");
    const option = findOption(command, current.slice(0, at));
    return option ? valuesOf(option, current.slice(0, at + 1), current.slice(at + 1)) : nothing();
  }
  if (current.startsWith("-")) {
    const flags: Candidate[] = [
      ...command.options
        .filter((o) => !o.hidden && o.long)
        .map((o) => ({ value: o.long ?? "", description: o.description })),
      HELP,
    ];
    return { candidates: byPrefix(flags, current), directive: NO_FILE_COMPLETION };
  }
  const subs = positionals === 0 ? visibleCommands(command) : [];
  if (subs.length > 0)
    return {
      candidates: byPrefix(
        subs.map((c) => ({ value: c.name(), description: c.description() })),
        current,
      ),
      directive: NO_FILE_COMPLETION,
    };
  const argument = command.registeredArguments[positionals];
  if (argument?.name() === "name" && positionals === 0)
    return { candidates: [], directive: NO_FILE_COMPLETION, petSetName: { prefix: current, flags } };
  const choices = argument?.argChoices ?? [];
  return {
    candidates: byPrefix(
      choices.map((value) => ({ value, description: argument?.description ?? "" })),
      current,
    ),
    directive: NO_FILE_COMPLETION,
  };
}

/** The `__complete` answer as printed. */
export function formatCompletion({ candidates, directive }: Completion): string {
  const lines = candidates.map((c) => (c.description ? `${c.value}\t${oneLine(c.description)}` : c.value));
  return `${[...lines, `:${directive}`].join("\n")}\n`;
}

function valuesOf(option: Option, prefix: string, current: string): Completion {
  if (option.long !== undefined && FILE_OPTIONS.has(option.long))
    return { candidates: [], directive: DEFAULT_COMPLETION };
  const choices = (option.argChoices ?? []).filter((c) => c !== "none");
  return {
    candidates: byPrefix(
      choices.map((c) => ({ value: `${prefix}${c}`, description: "" })),
      `${prefix}${current}`,
    ),
    directive: NO_FILE_COMPLETION,
  };
}

function nothing(): Completion {
  return { candidates: [], directive: NO_FILE_COMPLETION };
}

function findOption(command: Command, flag: string): Option | undefined {
  return command.options.find((o) => o.long === flag || o.short === flag);
}

function visibleCommands(command: Command): readonly Command[] {
  return command.commands;
}

function byPrefix(candidates: readonly Candidate[], prefix: string): Candidate[] {
  return candidates.filter((c) => c.value.startsWith(prefix));
}

function oneLine(text: string): string {
  return text.replace(/\s+/g, " ").trim();
}
