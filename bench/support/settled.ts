/**
 * When a rollout bench calls a set settled: the controller has seen the latest spec and every
 * pet is updated and Ready, as the status says (the same fields for a PetSet and a StatefulSet).
 */
import type { Backend } from "./backends.js";
import { waitFor } from "./stats.js";

interface SetStatus {
  metadata: { generation?: number };
  status?: {
    observedGeneration?: number;
    replicas?: number;
    readyReplicas?: number;
    updatedReplicas?: number;
    currentVersion?: number;
    updateVersion?: number;
    currentRevision?: string;
    updateRevision?: string;
  };
}

export function settled(o: SetStatus, pets: number): boolean {
  const s = o.status ?? {};
  const sameVersion =
    s.currentVersion !== undefined
      ? s.currentVersion === s.updateVersion
      : s.currentRevision === s.updateRevision;
  return (
    (s.observedGeneration ?? 0) >= (o.metadata.generation ?? 1) &&
    s.replicas === pets &&
    s.readyReplicas === pets &&
    s.updatedReplicas === pets &&
    sameVersion
  );
}

/** Seconds until the set at `path` is settled, polling every `pollMs`. */
export async function secondsUntilSettled(
  backend: Backend,
  path: string,
  pets: number,
  opts: { perPetMs: number; pollMs: number },
): Promise<number> {
  const t0 = performance.now();
  await waitFor(
    `${path}: ${pets} pets updated and Ready`,
    async () => (settled(await backend.http.json<SetStatus>("GET", path), pets) ? true : undefined),
    Math.max(120_000, pets * opts.perPetMs),
    opts.pollMs,
  );
  return (performance.now() - t0) / 1000;
}
