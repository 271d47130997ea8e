/**
 * A short fixed-seed slice of the chaos campaign (test/chaos, `make chaos` runs the long one):
 * two PetSets through rollouts, spec changes mid-rollout, broken images, autoRollback, scale,
 * pause, canaries, a preRollout Job and an exec preUpdate hook whose bodies log their
 * executions (judged: never two of one hook id at once, none for a version that is no longer
 * the target, no Succeeded record without one) while the controller is SIGKILLed and a frozen leader is
 * resumed (and, on the embedded backend, `petset dev` is killed and restarted on its data
 * dir). The invariant monitor watches each PetSet; nothing may be found: no violation, no
 * version lost or duplicated, convergence after the faults, no controller crash, no write
 * by the fenced replica. On the real backend the slice leaves kube-apiserver alone (later
 * suites share it); `make chaos` restarts it and etcd.
 */
import { expect, it } from "vitest";
import { runCampaign } from "../chaos/campaign.js";
import { backendFromEnv } from "../support/cluster.js";

const SEED = 15;
const backend = backendFromEnv();

it.skipIf(backend === "kubeconfig")(
  `chaos slice (seed ${SEED}) finds nothing`,
  { timeout: 300_000 },
  async () => {
    if (backend === "kubeconfig") return;
    const lines: string[] = [];
    const { totals, outcomes } = await runCampaign({
      backend,
      kind: "slice",
      seed: SEED,
      runs: 1,
      convergeMs: backend === "real" ? 120_000 : 60_000,
      log: (line) => lines.push(line),
    });
    const report = lines.join("\n");
    expect(totals.failedSeeds, report).toEqual([]);
    // The faults did happen (a slice that injected nothing would prove nothing).
    expect(totals.kills, report).toBeGreaterThanOrEqual(3);
    expect(totals.freezes, report).toBe(1);
    expect(outcomes[0]?.controllers.started, report).toBeGreaterThanOrEqual(4);
    // The hooks ran and were judged (a run whose hooks ran nothing is a harness error too).
    expect(outcomes[0]?.hooks?.hookRuns.job, report).toBeGreaterThan(0);
    expect(outcomes[0]?.hooks?.hookRuns.exec, report).toBeGreaterThan(0);
  },
);
