/**
 * The errors a newcomer meets before any PetSet is read: no kubeconfig, a wrong one, a
 * stopped cluster. Each is one line that says what to do.
 */
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { delimiter, join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { translateApiError } from "../../../src/cli/plugin/api-error.js";
import { connect } from "../../../src/cli/plugin/kubeconfig.js";

const dir = mkdtempSync(join(tmpdir(), "petset-kubeconfig-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const KUBECONFIG = `apiVersion: v1
kind: Config
clusters: [{name: dev, cluster: {server: "http://127.0.0.1:6443"}}]
users: [{name: dev, user: {token: t}}]
contexts: [{name: dev, context: {cluster: dev, user: dev, namespace: shop}}]
current-context: dev
`;
const good = join(dir, "kubeconfig");
writeFileSync(good, KUBECONFIG);
const home = join(dir, "home");
const env = (KUBECONFIG?: string) => ({ KUBECONFIG, home, inCluster: false });
const HINT = '(after make run: export KUBECONFIG="$PWD/.petset/kubeconfig")';

describe("loading the kubeconfig", () => {
  it("says what to set when there is none at all (instead of trying localhost:8080)", () => {
    expect(() => connect({}, env())).toThrow(
      `no kubeconfig: set $KUBECONFIG or pass --kubeconfig ${HINT}, or create ~/.kube/config`,
    );
  });

  it("names a --kubeconfig or $KUBECONFIG file that does not exist", () => {
    expect(() => connect({ kubeconfig: join(dir, "nope") }, env())).toThrow(
      `--kubeconfig "${join(dir, "nope")}" does not exist: pass an existing kubeconfig ${HINT}`,
    );
    expect(() => connect({}, env(join(dir, "gone")))).toThrow(
      `$KUBECONFIG names no file that exists (${join(dir, "gone")}): set it to an existing kubeconfig ${HINT}`,
    );
  });

  it("skips missing $KUBECONFIG files as kubectl does, and takes the context's namespace", () => {
    const c = connect({}, env([join(dir, "gone"), good].join(delimiter)));
    expect(c.namespace).toBe("shop");
    expect(c.kubeConfig.getCurrentCluster()?.server).toBe("http://127.0.0.1:6443");
  });

  it("issue 31 item 4: a --context that does not exist lists the contexts there are", () => {
    expect(() => connect({ kubeconfig: good, context: "prod" }, env())).toThrow(
      '--context: context "prod" does not exist in the kubeconfig: expected one of dev',
    );
  });

  it("reports a malformed file in one line", () => {
    const bad = join(dir, "bad");
    writeFileSync(bad, "clusters: [\n");
    let message = "";
    try {
      connect({ kubeconfig: bad }, env());
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(new RegExp(`^cannot load --kubeconfig "${bad}": `));
    expect(message).not.toContain("\n");
  });
});

describe("an API server that does not answer", () => {
  it("names the server and what to do", () => {
    const err = Object.assign(
      new Error(
        "request to http://127.0.0.1:40591/apis/petset.dev/v1alpha1/namespaces/default/petsets/web failed, reason: connect ECONNREFUSED 127.0.0.1:40591",
      ),
      { name: "FetchError", code: "ECONNREFUSED" },
    );
    expect(translateApiError(err)).toMatchObject({
      reason: "Unreachable",
      message:
        "cannot reach the API server at http://127.0.0.1:40591 (connect ECONNREFUSED 127.0.0.1:40591): start the cluster (make run) or point --kubeconfig / $KUBECONFIG at a running one",
    });
  });
});
