/**
 * Issue 30 item 2: the controller refuses to start against CRDs older than it needs. The pure
 * check of src/controller/crd-compat.ts, table-style, and the committed crds/ carry the
 * revision this build needs.
 */
import { readFileSync } from "node:fs";
import { ApiException } from "@kubernetes/client-node";
import { describe, expect, it } from "vitest";
import { parse } from "yaml";
import {
  CRD_REVISION,
  CRD_REVISION_ANNOTATION,
  checkCrdCompat,
  type InstalledCrd,
  PETSET_CRDS,
  readUntilAnswered,
} from "../../../src/controller/crd-compat.js";

const at = (revision: string | undefined): Readonly<Record<string, string>> | undefined =>
  revision === undefined ? undefined : { [CRD_REVISION_ANNOTATION]: revision, other: "x" };
const found = (name: string, revision: string | undefined): InstalledCrd => ({
  name,
  state: "found",
  annotations: at(revision),
});
const [PS, PSV] = PETSET_CRDS;

describe("issue 30 item 2: checkCrdCompat", () => {
  const cases: {
    name: string;
    installed: InstalledCrd[];
    required: number;
    ok: boolean;
    says?: RegExp[];
    warns?: RegExp;
  }[] = [
    {
      name: "both at the needed revision",
      installed: [found(PS, "3"), found(PSV, "3")],
      required: 3,
      ok: true,
    },
    {
      name: "newer CRDs (schemas only grow)",
      installed: [found(PS, "4"), found(PSV, "7")],
      required: 3,
      ok: true,
    },
    {
      name: "one CRD one revision behind",
      installed: [found(PS, "3"), found(PSV, "2")],
      required: 3,
      ok: false,
      says: [/CRD petsetversions\.petset\.dev is at revision 2; this controller needs revision 3 or newer/],
    },
    {
      name: "CRDs from before the annotation existed",
      installed: [found(PS, undefined), found(PSV, undefined)],
      required: 1,
      ok: false,
      says: [
        /CRD petsets\.petset\.dev has no petset\.dev\/crd-revision annotation: it is older than revision 1/,
        /CRD petsetversions\.petset\.dev has no/,
      ],
    },
    {
      name: "an unreadable revision",
      installed: [found(PS, "v2"), found(PSV, "1")],
      required: 1,
      ok: false,
      says: [/unreadable petset\.dev\/crd-revision annotation "v2"/],
    },
    {
      name: "a CRD not installed",
      installed: [found(PS, "1"), { name: PSV, state: "missing" }],
      required: 1,
      ok: false,
      says: [/CRD petsetversions\.petset\.dev is not installed/],
    },
    {
      name: "CRDs it may not read: a warning, not a refusal",
      installed: [
        { name: PS, state: "forbidden" },
        { name: PSV, state: "forbidden" },
      ],
      required: 1,
      ok: true,
      warns: /cannot read CRD petsets\.petset\.dev \(forbidden\).*grant get on customresourcedefinitions/,
    },
  ];

  it.each(cases)("$name", ({ installed, required, ok, says, warns }) => {
    const verdict = checkCrdCompat(installed, required);
    expect(verdict.ok).toBe(ok);
    if (!verdict.ok) {
      expect(verdict.message).toMatch(/^refusing to start: /);
      for (const s of says ?? []) expect(verdict.message).toMatch(s);
      // The fix is named: the CRD upgrade step.
      expect(verdict.message).toContain("kubectl apply --server-side --force-conflicts -f crds/");
    } else {
      expect(verdict.warnings.length > 0).toBe(warns !== undefined);
      if (warns) expect(verdict.warnings[0]).toMatch(warns);
    }
  });
});

describe("issue 30 item 2: crds/ as generated", () => {
  it.each(PETSET_CRDS.map((n) => [n]))("%s carries the revision this build needs", (name) => {
    const crd = parse(readFileSync(`crds/${name}.yaml`, "utf8")) as {
      metadata: { name: string; annotations?: Record<string, string> };
    };
    expect(crd.metadata.name).toBe(name);
    expect(crd.metadata.annotations?.[CRD_REVISION_ANNOTATION]).toBe(String(CRD_REVISION));
    expect(checkCrdCompat([{ name, state: "found", annotations: crd.metadata.annotations }]).ok).toBe(true);
  });
});

describe("chaos seed 7010: the CRDs are read until the API server answers", () => {
  const refused = () =>
    Object.assign(new Error("connect ECONNREFUSED 127.0.0.1:6443"), { code: "ECONNREFUSED" });
  const noWait = async () => {};

  it("retries a refused connection and a 502/503 with backoff, then checks what it read", async () => {
    const errors = [
      refused(),
      new ApiException(502, "Bad Gateway", "{}", {}),
      new ApiException(503, "Service Unavailable", "{}", {}),
    ];
    const retries: number[] = [];
    const installed = await readUntilAnswered(
      async () => {
        const err = errors.shift();
        if (err) throw err;
        return [{ name: "petsets.petset.dev", state: "missing" as const }];
      },
      (_err, n) => retries.push(n),
      noWait,
    );
    expect(retries).toEqual([0, 1, 2]);
    expect(installed).toEqual([{ name: "petsets.petset.dev", state: "missing" }]);
  });

  it("throws a definite error (401) at once", async () => {
    let calls = 0;
    const read = async () => {
      calls++;
      throw new ApiException(401, "Unauthorized", "{}", {});
    };
    await expect(readUntilAnswered(read, () => {}, noWait)).rejects.toMatchObject({ code: 401 });
    expect(calls).toBe(1);
  });
});
