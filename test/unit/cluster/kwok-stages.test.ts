/**
 * kwok's pod stages write a pod's status as a kubelet does: with the pod's UID in the patch as
 * a precondition (kubelet's status manager does the same, pkg/util/pod PatchPodStatus). kwok
 * (v0.8.0) keys its delayed jobs by name and patches by name: a job rendered for a pod that is
 * gone can fire after the pet's next pod of the same name was created, and without the UID it
 * marks that live pod's containers terminated (CI: upstream rolling-update, ss3-p1-0 stuck
 * unready for 90 s after kwok's pod-delete stage patched it, in kube-apiserver's audit log).
 * kube-apiserver refuses a patch whose metadata.uid differs (the field is immutable).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { parseAllDocuments } from "yaml";
import { REPO_ROOT } from "../../support/cluster.js";

interface StageDoc {
  kind?: string;
  metadata?: { name?: string };
  spec?: {
    resourceRef?: { kind?: string };
    next?: unknown;
    steps?: { patch?: { subresource?: string; root?: string; template?: string } }[];
  };
}

const dir = join(REPO_ROOT, "test/cluster/kwok-stages");
const podStatusPatches = readdirSync(dir)
  .filter((f) => f.endsWith(".yaml"))
  .flatMap((f) =>
    parseAllDocuments(readFileSync(join(dir, f), "utf8"))
      .map((d) => d.toJS() as StageDoc | null)
      .filter((d): d is StageDoc => d?.kind === "Stage" && d.spec?.resourceRef?.kind === "Pod")
      .flatMap((d) =>
        (d.spec?.steps ?? [])
          .filter((s) => s.patch?.subresource === "status")
          .map((s) => ({ stage: `${f}: ${d.metadata?.name}`, patch: s.patch ?? {} })),
      ),
  );

describe("kwok pod stages", () => {
  it("find the status patches (the list below is not empty by accident)", () => {
    expect(podStatusPatches.length).toBeGreaterThanOrEqual(12);
  });

  it.each(podStatusPatches.map((p) => [p.stage, p.patch] as const))(
    "%s: the status patch carries the pod's UID as a precondition",
    (_stage, patch) => {
      expect(patch.root).toBeUndefined();
      expect(patch.template ?? "").toMatch(
        /^metadata:\n {2}uid: \{\{ \.metadata\.uid \| Quote \}\}\nstatus:\n/,
      );
    },
  );
});
