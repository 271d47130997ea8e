import { Annotations, type PetSet, ProgressingReasons } from "../../api/index.js";
import { rolloutState } from "../plugin/rollout-state.js";
import type { DemoCluster } from "./demo-cluster.js";
import type { Narrator } from "./narrator.js";

/** What the tour runs with. */
export interface DemoScriptDeps {
  readonly narrator: Narrator;
  readonly cluster: DemoCluster;
  /** Runs `kubectl petset ARGS` in this process, printing through the narrator; the exit code. */
  readonly plugin: (args: readonly string[]) => Promise<number>;
  /** Longest wait for one step's goal. */
  readonly stepTimeoutMs: number;
}

export const DEMO_STEPS = 8;
const NAME = "web";
/** Short so the broken rollout is reported within the tour; the default is 600. */
const DEADLINE_SECONDS = 6;

/** The demo's manifest (web.yaml) with this image; what a user would keep in Git. */
export function webManifest(image: string, changeCause?: string): Record<string, unknown> {
  return {
    apiVersion: "petset.dev/v1alpha1",
    kind: "PetSet",
    metadata: {
      name: NAME,
      ...(changeCause ? { annotations: { [Annotations.changeCause]: changeCause } } : {}),
    },
    spec: {
      replicas: 3,
      progressDeadlineSeconds: DEADLINE_SECONDS,
      selector: { matchLabels: { app: NAME } },
      // A lifecycle hook (docs/hooks.md): each Ready pet runs this in its pod before it restarts.
      lifecycle: {
        preUpdate: {
          exec: {
            command: [
              "sh",
              "-c",
              'echo "$PETSET_POD steps down: version $PETSET_FROM_VERSION -> $PETSET_TO_VERSION"',
            ],
          },
          timeoutSeconds: 30,
        },
      },
      template: {
        metadata: { labels: { app: NAME } },
        spec: { containers: [{ name: "app", image, ports: [{ name: "http", containerPort: 80 }] }] },
      },
    },
  };
}

const LEGACY = "legacy";

/** The migration step's StatefulSet (legacy.yaml). */
export function legacyManifest(): Record<string, unknown> {
  return {
    apiVersion: "apps/v1",
    kind: "StatefulSet",
    metadata: { name: LEGACY },
    spec: {
      replicas: 2,
      serviceName: LEGACY,
      selector: { matchLabels: { app: LEGACY } },
      template: {
        metadata: { labels: { app: LEGACY } },
        spec: { containers: [{ name: "app", image: "nginx:1.26" }] },
      },
    },
  };
}

/** The rollout to `version` is complete: every pet runs it and is Ready. */
const completeAt =
  (version: number) =>
  (ps: PetSet): true | undefined => {
    const s = rolloutState(ps);
    return s.phase === "complete" && s.updateVersion === version && s.ready === s.desired ? true : undefined;
  };

/** The rollout to `version` names a broken pet (Progressing message; docs/rollouts.md). */
const brokenPetAt =
  (version: number) =>
  (ps: PetSet): true | undefined => {
    const s = rolloutState(ps);
    return s.updateVersion === version && s.brokenPets.length > 0 ? true : undefined;
  };

/** The rollout to `version` failed: Progressing=False, ProgressDeadlineExceeded. */
const failedAt =
  (version: number) =>
  (ps: PetSet): true | undefined => {
    const s = rolloutState(ps);
    const failed = s.phase === "failed" && s.reason === ProgressingReasons.progressDeadlineExceeded;
    return failed && s.updateVersion === version ? true : undefined;
  };

/**
 * The tour: create, update and watch the rollout, break it with a bad image and recover,
 * history, diff, rollback, and a StatefulSet adopted and released. Each step waits for the PetSet's status to say it is done
 * (a watch, never a sleep) and prints what happened on the way.
 */
export async function runDemoScript(deps: DemoScriptDeps): Promise<void> {
  const { narrator: n, cluster } = deps;
  const apply = async (image: string, cause?: string) => {
    n.command(`kubectl apply --server-side -f web.yaml     # image: ${image}`);
    await cluster.apply(webManifest(image, cause));
  };
  const wait = <R>(what: string, goal: (ps: PetSet) => R | undefined) =>
    cluster.waitFor(NAME, what, goal, deps.stepTimeoutMs);
  /** Runs `kubectl petset ARGS`; an exit code outside `ok` stops the demo. */
  const petsetExpecting = async (ok: readonly number[], ...args: string[]) => {
    n.command(`kubectl petset ${args.join(" ")}`);
    const code = await deps.plugin([...args, ...cluster.pluginFlags()]);
    if (!ok.includes(code)) throw new Error(`demo: kubectl petset ${args.join(" ")} exited with ${code}`);
  };
  const petset = (...args: string[]) => petsetExpecting([0], ...args);
  await cluster.followPods(NAME);

  n.section("Create a PetSet: three pets running nginx:1.26");
  n.say("Pets are created in order, each once the previous one is Ready. The spec is recorded as version 1.");
  await apply("nginx:1.26");
  await wait("the first rollout", completeAt(1));

  n.section("Update the image and watch the rollout");
  n.say("A new image is a new version (web-v2). Pets move one at a time, highest ordinal first.");
  n.say(
    "Before each pet restarts, its preUpdate hook runs in its pod (spec.lifecycle, an exec): the babysitter contract.",
  );
  await apply("nginx:1.27");
  await wait("the rollout to version 2", completeAt(2));
  await petset("hook", "list", NAME);

  n.section("Break it with a bad image, then recover");
  n.say(
    "nginx:broken crash-loops. The rollout stops at the first pet; the other two keep serving version 2.",
  );
  n.say("Within seconds the PetSet names the broken pet and why, in its Progressing condition.");
  await apply("nginx:broken", "try the nightly build");
  await wait("the broken pet to be named", brokenPetAt(3));
  // Exit code 2: the rollout is not healthy (docs/cli.md).
  await petsetExpecting([0, 2], "status", NAME);
  n.say(
    `After spec.progressDeadlineSeconds (${DEADLINE_SECONDS}s here) the rollout is reported failed (ProgressDeadlineExceeded).`,
  );
  await wait("the broken rollout to be reported", failedAt(3));
  n.say(
    "The fix is simply the next version: the crash-looping pod is replaced at once, no one deletes pods by hand.",
  );
  await apply("nginx:1.28", "fix: nginx 1.28");
  await wait("the rollout to version 4", completeAt(4));

  n.section("History: every change is a PetSetVersion");
  n.say("Each version records who changed what (CHANGED-BY is the field manager) and why (CHANGE-CAUSE).");
  await petset("history", NAME);

  n.section("Diff two versions");
  await petset("diff", NAME, "2", "4", "--color=never");

  n.section("Roll back to version 2");
  n.say("A rollback is a new version (web-v5) that repeats version 2's content: numbers only grow.");
  await petset("rollback", NAME, "--to-version", "2");
  await wait("the rollback to complete", completeAt(5));
  await petset("history", NAME);

  n.section("Migrate a StatefulSet, and back, without restarting a pod");
  n.say(
    "A StatefulSet already running (the embedded server runs a StatefulSet controller, as a cluster does).",
  );
  n.command("kubectl apply --server-side -f legacy.yaml     # a StatefulSet, 2 replicas");
  await cluster.applyStatefulSet(legacyManifest());
  await cluster.waitForStatefulSet(LEGACY, 2, deps.stepTimeoutMs);
  const before = await cluster.podUids(LEGACY);
  n.say("adopt records its template as version 1 and hands its pods to a PetSet of the same name.");
  await petset("adopt", `statefulset/${LEGACY}`);
  await petset("history", LEGACY);
  n.say("release hands them back: the StatefulSet is re-created and takes the same pods.");
  await petset("release", LEGACY);
  await cluster.waitForStatefulSet(LEGACY, 2, deps.stepTimeoutMs);
  const after = await cluster.podUids(LEGACY);
  const kept = [...before].filter(([pod, uid]) => after.get(pod) === uid).map(([pod]) => pod);
  n.say(
    kept.length === before.size
      ? `${kept.join(", ")}: the same pods all along (uids unchanged).`
      : `pods replaced: ${[...before.keys()].filter((p) => !kept.includes(p)).join(", ")}`,
  );
  if (kept.length !== before.size) throw new Error("demo: release replaced pods");

  n.section("What you saw");
  n.say(
    [
      "- every pod-shaping change became an immutable, numbered PetSetVersion (kubectl get psv);",
      "- rollouts went one pet at a time, highest ordinal first, waiting for Ready;",
      "- a broken version named its crash-looping pet at once, was reported at its deadline and fixed by the next version;",
      "- a rollback recorded version 5 with rollbackOf: 2;",
      "- a StatefulSet moved to a PetSet (adopt) and back (release) with no pod restarted.",
      "Run it yourself: `petset dev` (or `make run`), then `kubectl get petsets,petsetversions,pods`.",
    ].join("\n"),
  );
}
