/** Flags and help text shared by the plugin's commands. */
import { type Command, Option } from "commander";

export function examples(lines: readonly string[]): string {
  return `\nExamples:\n${lines.map((l) => `  ${l}`).join("\n")}\n`;
}

export function connectionOptions(command: Command): Command {
  return command
    .option("-n, --namespace <namespace>", "namespace of the PetSet (default: the context's, else default)")
    .option("--kubeconfig <path>", "kubeconfig file (default: $KUBECONFIG, else ~/.kube/config)")
    .option("--context <name>", "kubeconfig context to use");
}

export function outputOption(formats: readonly string[], fallback: string): Option {
  return new Option("-o, --output <format>", "output format").choices(formats).default(fallback);
}
