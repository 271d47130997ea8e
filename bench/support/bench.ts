/** What every benchmark file exports, and what the runner hands it. */
import type { Backend, BackendName } from "./backends.js";

export type Scale = "small" | "full";

export interface SizeOverrides {
  petSets?: number;
  changes?: number;
  gcVersions?: number;
  pets?: number;
  /** rollout --statefulset: rounds per maxUnavailable, and pets in the comparison. */
  runs?: number;
  comparePets?: number;
  /** rollout --statefulset: unrecorded petset runs before the recorded ones (default 1). */
  compareWarmups?: number;
  /** history-compare: sets per side and excess history for the GC (over petSets, gcVersions). */
  historySets?: number;
  historyGc?: number;
}

export interface BenchContext {
  backend: Backend;
  scale: Scale;
  /** Compare with the built-in StatefulSet controller (restarts the shared real cluster). */
  statefulSet: boolean;
  /** Sizes given on the command line, over the scale's. */
  sizes: SizeOverrides;
  /** Extra node flags for the controller child process (e.g. --cpu-prof). */
  controllerNodeArgs: string[];
  /**
   * `--controller-cpu-prof DIR`: where the controller's CPU profiles go. Benchmarks record their
   * measured windows there too (profile-windows.ts), so a profile can be read for them alone.
   */
  controllerCpuProfDir?: string;
  /**
   * `--compare-only` (make bench-quick): rollout runs only its comparison with the StatefulSet
   * controller, history-compare only its side by side with kube-controller-manager.
   */
  compareOnly?: boolean;
  log(message: string): void;
}

export interface BenchOutput {
  parameters: Record<string, unknown>;
  results: Record<string, unknown>;
  notes: string[];
  /** Extra facts about the backend as it ran (merged into the record's `server`). */
  server?: Record<string, unknown>;
}

export interface Benchmark {
  name: string;
  description: string;
  backends: readonly BackendName[];
  /** Options for the backend this benchmark needs (e.g. a kubelet delay). */
  backendOptions?: { readyDelayMs?: number };
  run(ctx: BenchContext): Promise<BenchOutput>;
}
