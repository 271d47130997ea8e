/**
 * `kubectl petset status`: the pets on lost nodes (condition PetsOnLostNodes, docs/failover.md),
 * one line for the condition and, under spec.nodeFailure.policy Manual, the exact commands to
 * fence each pet by hand. Nothing when no pet is on a lost node.
 */
import { type PetSetStatus, PetsOnLostNodesCondition } from "../../api/index.js";
import { manualFenceCommand } from "../../controller/planner/node-failure.js";

export function lostPetLines(status: PetSetStatus | undefined, namespace: string): string[] {
  const c = status?.conditions.find((x) => x.type === PetsOnLostNodesCondition);
  if (c === undefined || c.status !== "True") return [];
  const message = c.message ?? "";
  const pets = message.split("; spec.nodeFailure")[0]?.split("; a failed fence")[0] ?? message;
  const out = [`pets on lost nodes (${c.reason ?? ""}): ${pets}`];
  if (c.reason !== "ManualFenceRequired") {
    if (c.reason === "FenceFailed") out.push("  the fence failed: kubectl petset hook list, then hook retry");
    return out;
  }
  for (const m of pets.matchAll(/(\S+) on node (\S+) \([^)]*manual\)/g)) {
    const pod = m[1] ?? "";
    const node = m[2] ?? "";
    out.push(`  to fence ${pod} by hand: ${manualFenceCommand(namespace, { pod, node })}`);
  }
  return out;
}
