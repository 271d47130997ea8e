/**
 * `kubectl petset replace POD [--reason TEXT] [--claims keep|recreate] [--yes]`: asks the
 * controller to replace one pet by annotating its pod petset.dev/replace=keep|recreate (and
 * petset.dev/replace-reason). The controller (planner/replacement.ts) does it through the pet's
 * hooks and within maxUnavailable; the request goes with the pod. Nothing is deleted here.
 * `--claims recreate` destroys the pet's storage, so it needs `--yes`.
 */
import { Annotations, Labels } from "../../../api/index.js";
import type { CommandContext } from "../context.js";
import { PluginError, UsageError } from "../errors.js";

export const ClaimModes = ["keep", "recreate"] as const;
export type ClaimMode = (typeof ClaimModes)[number];

export interface ReplaceOptions {
  readonly reason?: string;
  readonly claims: string;
  readonly yes: boolean;
}

export async function replaceCommand(
  ctx: CommandContext,
  podName: string,
  o: ReplaceOptions,
): Promise<number> {
  const { api, io } = ctx;
  const claims = ClaimModes.find((m) => m === o.claims);
  if (claims === undefined) throw new UsageError(`--claims must be keep or recreate, not "${o.claims}"`);
  const pod = (await api.listPods()).find((p) => p.metadata.name === podName);
  if (pod === undefined) {
    throw new PluginError("NotFound", `pod "${podName}" not found in namespace "${api.namespace}"`);
  }
  const petSet = pod.metadata.labels?.[Labels.petSet];
  if (petSet === undefined) {
    throw new PluginError(
      "BadRequest",
      `pod "${podName}" is not a pet: it has no ${Labels.petSet} label (kubectl get pods -l ${Labels.petSet} lists the pets)`,
    );
  }
  if (claims === "recreate" && !o.yes) {
    // Name what is lost: the pet's claims (labelled with its set and ordinal, as the controller makes them).
    const index = pod.metadata.labels?.[Labels.podIndex] ?? podName.slice(podName.lastIndexOf("-") + 1);
    const names = (await api.listClaims())
      .filter(
        (c) =>
          c.metadata.labels?.[Labels.petSet] === petSet && c.metadata.labels?.[Labels.podIndex] === index,
      )
      .map((c) => c.metadata.name)
      .sort();
    const lost = names.length > 0 ? `${names.join(", ")}: their data is lost` : "its data";
    throw new UsageError(
      `--claims recreate deletes the claims of ${podName} (${lost}) and creates empty ones: add --yes to confirm`,
    );
  }
  if (pod.metadata.deletionTimestamp !== undefined && pod.metadata.deletionTimestamp !== null) {
    throw new PluginError(
      "BadRequest",
      `pod "${podName}" is being deleted already: the controller recreates it`,
    );
  }
  const annotations: Record<string, string | null> = {
    [Annotations.replace]: claims,
    [Annotations.replaceReason]: o.reason !== undefined && o.reason !== "" ? o.reason : null,
  };
  await api.patchPodMetadata(podName, { annotations }, pod.metadata.resourceVersion ?? "");
  const what = claims === "keep" ? "its claims are kept" : "its claims are deleted and created again, empty";
  io.stdout.write(
    `pod/${podName} replacement requested (petset ${petSet}; ${what}); the controller replaces it through its hooks within maxUnavailable: kubectl petset status ${petSet}\n`,
  );
  return 0;
}
