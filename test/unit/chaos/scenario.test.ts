/**
 * The chaos scenario generator (test/chaos/scenario.ts) draws the network faults of a run from
 * its seed: lost answers and 429/503 bursts, each scoped to a resource the run exercises; and
 * the campaign's hooks whose bodies log their side effects (issue 24).
 */
import { describe, expect, it } from "vitest";
import { chaosProfile } from "../../chaos/campaign.js";
import { generateScenario, networkScopes } from "../../chaos/scenario.js";

describe("chaos scenario: hooks with measured side effects", () => {
  const profile = chaosProfile("campaign", "embedded");
  const sinks = { logPath: "/tmp/x/hooks.log", webhookUrl: "http://127.0.0.1:4000/hooks" };

  it("PetSet 1 runs a preRollout Job and a preUpdate exec, PetSet 2 a postUpdate webhook, all logging", () => {
    for (const seed of [777, 3000, 424242]) {
      const s = generateScenario(seed, profile, sinks);
      const [, one, two] = s.petSets;
      expect(one?.features).toEqual(expect.arrayContaining(["preRollout-job", "preUpdate-exec"]));
      expect(two?.features).toContain("postUpdate-webhook");
      type Lifecycle = Record<string, Record<string, { command?: string[]; url?: string }>>;
      const lifecycle = (p: typeof one) =>
        ((p?.manifest.spec ?? {}) as { lifecycle?: Lifecycle }).lifecycle ?? {};
      expect(lifecycle(one).preRollout?.job?.command?.join(" ")).toContain("'/tmp/x/hooks.log'");
      expect(lifecycle(one).preUpdate?.exec?.command?.join(" ")).toContain("start %s %s");
      expect(lifecycle(two).postUpdate?.webhook?.url).toBe(sinks.webhookUrl);
      expect(networkScopes(s.petSets)).toEqual(expect.arrayContaining(["jobs", "pods/exec", "webhook"]));
      expect(generateScenario(seed, profile, sinks)).toEqual(s);
    }
  });

  it("the slice adds PetSet 1's logged Job and exec hooks, its steps and faults drawn as before", () => {
    const slice = chaosProfile("slice", "embedded");
    const s = generateScenario(15, slice, sinks);
    expect(s.petSets[1]?.features).toEqual(expect.arrayContaining(["preRollout-job", "preUpdate-exec"]));
    expect(JSON.stringify(s.petSets[1]?.manifest)).toContain("hooks.log");
    const without = generateScenario(15, { ...slice, hookSideEffects: false }, sinks);
    expect(s.petSets.map((p) => p.steps)).toEqual(without.petSets.map((p) => p.steps));
    expect(s.faults).toEqual(without.faults);
  });
});

describe("chaos scenario: network faults", () => {
  const profile = chaosProfile("campaign", "embedded");

  it("draws the campaign's lost answers and status bursts, scoped, from the seed", () => {
    for (const seed of [777, 778, 3000, 123456]) {
      const s = generateScenario(seed, profile);
      const scopes = networkScopes(s.petSets);
      const lost = s.faults.filter((f) => f.kind === "lost-answer");
      const bursts = s.faults.filter((f) => f.kind === "status-burst");
      expect(lost).toHaveLength(profile.lostAnswers);
      expect(bursts).toHaveLength(profile.statusBursts);
      for (const f of [...lost, ...bursts]) {
        expect(f.network?.kind).toBe(f.kind);
        const resources = f.network && "resources" in f.network ? f.network.resources : undefined;
        expect(resources).toHaveLength(1);
        expect(scopes).toContain(resources?.[0]);
      }
      for (const f of lost)
        if (f.network?.kind === "lost-answer" && f.network.answer === "delay")
          expect(f.network.delayMs).toBeGreaterThan(0);
      // Same seed, same scenario; faults in time order.
      expect(generateScenario(seed, profile)).toEqual(s);
      expect(s.faults.map((f) => f.atMs)).toEqual([...s.faults.map((f) => f.atMs)].sort((a, b) => a - b));
    }
  });

  it("scopes pods/exec only when a PetSet runs an exec hook, never the Lease", () => {
    const s = generateScenario(777, profile);
    expect(s.petSets.some((p) => p.features.includes("preUpdate-exec"))).toBe(true);
    expect(networkScopes(s.petSets)).toContain("pods/exec");
    expect(networkScopes([])).not.toContain("pods/exec");
    expect(networkScopes(s.petSets)).not.toContain("leases");
  });

  it("over many seeds, both answers (drop, delay) and both codes (429, 503) are drawn", () => {
    const seen = new Set<string>();
    for (let seed = 0; seed < 50; seed++)
      for (const f of generateScenario(seed, profile).faults) {
        if (f.network?.kind === "lost-answer") seen.add(f.network.answer);
        if (f.network?.kind === "status-burst") seen.add(String(f.network.code));
      }
    expect([...seen].sort()).toEqual(["429", "503", "delay", "drop"]);
  });

  it("the slice in make test draws none", () => {
    const s = generateScenario(15, chaosProfile("slice", "embedded"));
    expect(s.faults.filter((f) => f.network !== undefined)).toEqual([]);
  });
});
