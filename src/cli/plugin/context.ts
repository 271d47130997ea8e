import type { Clock } from "../../util/clock.js";
import type { ConnectionFlags } from "./kubeconfig.js";
import type { PetSetApi } from "./petset-api.js";

/** Where a command writes: stdout for results, stderr for notes and errors. */
export interface Output {
  write(text: string): void;
  readonly isTTY: boolean;
  /** Terminal width when known. */
  readonly columns?: number | undefined;
}

export interface PluginIO {
  readonly stdout: Output;
  readonly stderr: Output;
  /** $NO_COLOR, read once at start-up by the entry point. */
  readonly noColor?: string | undefined;
}

/** Everything the plugin is built from: passed down, never global. */
export interface PluginDeps {
  readonly io: PluginIO;
  readonly clock: Clock;
  /** Opens the API for the connection flags (loads the kubeconfig). */
  connect(flags: ConnectionFlags): PetSetApi | Promise<PetSetApi>;
}

/** What one command runs with, once the connection flags are resolved. */
export interface CommandContext {
  readonly api: PetSetApi;
  readonly io: PluginIO;
  readonly clock: Clock;
}

/** `petset.petset.dev/web`: how kubectl names an object in its one-line results. */
export const objectRef = (name: string): string => `petset.petset.dev/${name}`;
