import { describe, expect, it } from "vitest";
import { API_VERSION, PETSET_KIND, type PetSet, parsePetSet } from "../../../src/api/index.js";
import type { PluginDeps } from "../../../src/cli/plugin/context.js";
import { runPlugin } from "../../../src/cli/plugin/program.js";
import { FakePetSetApi } from "./fake-petset-api.js";
import { NOW } from "./fixtures.js";

/** web: init container `setup`, containers `app` (ports, mounts, env) and `sidecar`. */
function webPetSet(overrides: { annotations?: Record<string, string>; paused?: boolean } = {}): PetSet {
  return parsePetSet({
    apiVersion: API_VERSION,
    kind: PETSET_KIND,
    metadata: {
      name: "web",
      namespace: "default",
      resourceVersion: "100",
      generation: 2,
      ...(overrides.annotations ? { annotations: overrides.annotations } : {}),
    },
    spec: {
      replicas: 3,
      paused: overrides.paused ?? false,
      selector: { matchLabels: { app: "web" } },
      template: {
        metadata: { labels: { app: "web" } },
        spec: {
          initContainers: [{ name: "setup", image: "busybox:1.36" }],
          containers: [
            {
              name: "app",
              image: "nginx:1.27",
              ports: [{ name: "http", containerPort: 80 }],
              volumeMounts: [{ name: "www", mountPath: "/usr/share/nginx/html" }],
              env: [
                { name: "MODE", value: "primary" },
                { name: "DEBUG", value: "1" },
                { name: "POD_IP", valueFrom: { fieldRef: { fieldPath: "status.podIP" } } },
              ],
            },
            { name: "sidecar", image: "envoy:1.30" },
          ],
        },
      },
    },
  });
}

function setup(petSet: PetSet = webPetSet()) {
  const api = new FakePetSetApi();
  api.put(petSet);
  const run = async (...args: string[]) => {
    const out: string[] = [];
    const err: string[] = [];
    const deps: PluginDeps = {
      io: {
        stdout: { write: (s) => void out.push(s), isTTY: false },
        stderr: { write: (s) => void err.push(s), isTTY: false },
      },
      clock: { now: () => NOW },
      connect: () => api,
    };
    const code = await runPlugin(args, deps);
    return { code, stdout: out.join(""), stderr: err.join("") };
  };
  const containers = async () => (await api.getPetSet("web")).spec.template.spec.containers;
  return { api, run, containers };
}

describe("kubectl petset set image", () => {
  it("patches exactly the image, guarded by a test of the container's name at its index", async () => {
    const { api, run, containers } = setup();
    const before = await containers();
    const r = await run("set", "image", "web", "sidecar=envoy:1.31");
    expect(r).toEqual({
      code: 0,
      stdout: "petset.petset.dev/web image updated (sidecar: envoy:1.30 -> envoy:1.31)\n",
      stderr: "",
    });
    expect(api.jsonPatches.map((p) => p.ops)).toEqual([
      [
        { op: "test", path: "/spec/template/spec/containers/1/name", value: "sidecar" },
        { op: "add", path: "/spec/template/spec/containers/1/image", value: "envoy:1.31" },
      ],
    ]);
    expect(await containers()).toEqual([before[0], { name: "sidecar", image: "envoy:1.31" }]);
    expect(api.patches).toEqual([]);
  });

  it("sets several images at once and records --cause as the change-cause annotation", async () => {
    const { api, run, containers } = setup();
    const r = await run(
      "set",
      "image",
      "web",
      "app=nginx:1.28",
      "setup=busybox:1.37",
      "--cause",
      "nginx 1.28",
    );
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(
      "petset.petset.dev/web image updated (app: nginx:1.27 -> nginx:1.28; setup: busybox:1.36 -> busybox:1.37)\n",
    );
    const stored = await api.getPetSet("web");
    expect(stored.metadata.annotations).toEqual({ "kubernetes.io/change-cause": "nginx 1.28" });
    expect((await containers())[0]).toMatchObject({ image: "nginx:1.28", ports: [{ containerPort: 80 }] });
    expect(stored.spec.template.spec.initContainers?.[0]?.image).toBe("busybox:1.37");
    // No annotations before: the map is added whole, guarded by the resourceVersion.
    expect(api.jsonPatches[0]?.ops.slice(-2)).toEqual([
      { op: "test", path: "/metadata/resourceVersion", value: "100" },
      { op: "add", path: "/metadata/annotations", value: { "kubernetes.io/change-cause": "nginx 1.28" } },
    ]);
  });

  it("adds the change-cause to existing annotations without touching the others", async () => {
    const { api, run } = setup(
      webPetSet({ annotations: { team: "web", "kubernetes.io/change-cause": "old" } }),
    );
    expect((await run("set", "image", "web", "app=nginx:1.28", "--cause", "new")).code).toBe(0);
    expect(api.jsonPatches[0]?.ops.at(-1)).toEqual({
      op: "add",
      path: "/metadata/annotations/kubernetes.io~1change-cause",
      value: "new",
    });
    expect((await api.getPetSet("web")).metadata.annotations).toEqual({
      team: "web",
      "kubernetes.io/change-cause": "new",
    });
  });

  it("names the containers that exist when one does not, and writes nothing", async () => {
    const { api, run } = setup();
    expect(await run("set", "image", "web", "nginx=nginx:1.28")).toEqual({
      code: 1,
      stdout: "",
      stderr:
        'error: container "nginx" not found in petset "web": its containers are app, sidecar; init containers: setup\n',
    });
    expect(api.jsonPatches).toEqual([]);
    expect((await run("set", "image", "db", "app=x")).stderr).toBe(
      'error: petset "db" not found in namespace "default"\n',
    );
  });

  it("after a concurrent reorder the test fails; it re-reads and patches the right container", async () => {
    const { api, run, containers } = setup();
    api.beforeNextPatch.push(() =>
      api.mutate("web", (raw) => {
        raw.spec.template.spec.containers?.reverse();
      }),
    );
    const r = await run("set", "image", "web", "app=nginx:1.28");
    expect(r).toMatchObject({ code: 0, stderr: "" });
    expect(api.jsonPatches.map((p) => p.ops[0])).toEqual([
      { op: "test", path: "/spec/template/spec/containers/0/name", value: "app" },
      { op: "test", path: "/spec/template/spec/containers/1/name", value: "app" },
    ]);
    expect((await containers()).map((c) => [c.name, c.image])).toEqual([
      ["sidecar", "envoy:1.30"],
      ["app", "nginx:1.28"],
    ]);
  });

  it("says unchanged (and writes nothing) when the images are already set; * means every container", async () => {
    const { api, run, containers } = setup();
    expect((await run("set", "image", "web", "app=nginx:1.27")).stdout).toBe(
      "petset.petset.dev/web image unchanged\n",
    );
    expect(api.jsonPatches).toEqual([]);
    expect((await run("set", "image", "web", "*=mirror/all:1")).code).toBe(0);
    expect((await containers()).map((c) => c.image)).toEqual(["mirror/all:1", "mirror/all:1"]);
    expect((await api.getPetSet("web")).spec.template.spec.initContainers?.[0]?.image).toBe("mirror/all:1");
  });

  it("--dry-run prints the patch and writes nothing; --dry-run=server sends it with dryRun", async () => {
    const { api, run, containers } = setup();
    const client = await run("set", "image", "web", "app=nginx:1.28", "--dry-run");
    expect(client.stdout).toMatch(
      /^petset.petset.dev\/web image updated \(app: nginx:1.27 -> nginx:1.28\) \(dry run\)\n\[/,
    );
    expect(JSON.parse(client.stdout.slice(client.stdout.indexOf("\n") + 1))).toHaveLength(2);
    expect(api.jsonPatches).toEqual([]);
    const server = await run("set", "image", "web", "app=nginx:1.28", "--dry-run=server");
    expect(server.stdout).toBe(
      "petset.petset.dev/web image updated (app: nginx:1.27 -> nginx:1.28) (server dry run)\n",
    );
    expect(api.jsonPatches.map((p) => p.dryRun)).toEqual([true]);
    expect((await containers())[0]?.image).toBe("nginx:1.27");
  });

  it("rejects malformed arguments in one line", async () => {
    const { run } = setup();
    expect(await run("set", "image", "web", "nginx")).toMatchObject({
      code: 1,
      stderr: 'error: set image: "nginx" is not CONTAINER=IMAGE (e.g. app=nginx:1.28)\n',
    });
    expect((await run("set", "image", "web", "app=a", "app=b")).stderr).toBe(
      'error: set image: container "app" is given more than one image\n',
    );
  });

  it("notes that a paused PetSet moves its pods once resumed", async () => {
    const { run } = setup(webPetSet({ paused: true }));
    expect((await run("set", "image", "web", "app=nginx:1.28")).stderr).toBe(
      'note: petset "web" is paused: pods move to the new version once it is resumed (kubectl petset resume web)\n',
    );
  });
});

describe("kubectl petset set env", () => {
  it("sets, replaces and removes entries of one container with -c, tests first, removals high to low", async () => {
    const { api, run, containers } = setup();
    const r = await run(
      "set",
      "env",
      "web",
      "-c",
      "app",
      "MODE=replica",
      "POD_IP=10.0.0.1",
      "DEBUG-",
      "NEW=x=y",
    );
    expect(r).toEqual({
      code: 0,
      stdout: "petset.petset.dev/web env updated (app: set MODE, POD_IP, NEW, removed DEBUG)\n",
      stderr: "",
    });
    const path = "/spec/template/spec/containers/0";
    expect(api.jsonPatches[0]?.ops).toEqual([
      { op: "test", path: `${path}/name`, value: "app" },
      { op: "test", path: `${path}/env/0/name`, value: "MODE" },
      { op: "test", path: `${path}/env/2/name`, value: "POD_IP" },
      { op: "test", path: `${path}/env/1/name`, value: "DEBUG" },
      { op: "replace", path: `${path}/env/0`, value: { name: "MODE", value: "replica" } },
      { op: "replace", path: `${path}/env/2`, value: { name: "POD_IP", value: "10.0.0.1" } },
      { op: "remove", path: `${path}/env/1` },
      { op: "add", path: `${path}/env/-`, value: { name: "NEW", value: "x=y" } },
    ]);
    const [app, sidecar] = await containers();
    expect(app?.env).toEqual([
      { name: "MODE", value: "replica" },
      { name: "POD_IP", value: "10.0.0.1" },
      { name: "NEW", value: "x=y" },
    ]);
    expect(app).toMatchObject({ ports: [{ containerPort: 80 }], volumeMounts: [{ name: "www" }] });
    expect(sidecar).toEqual({ name: "sidecar", image: "envoy:1.30" });
  });

  it("without -c changes every container and init container, adding env where there is none", async () => {
    const { api, run, containers } = setup();
    const r = await run("set", "env", "web", "LOG=debug", "--cause", "debug logging");
    expect(r.stdout).toBe(
      "petset.petset.dev/web env updated (setup: set LOG; app: set LOG; sidecar: set LOG)\n",
    );
    const stored = await api.getPetSet("web");
    expect(stored.spec.template.spec.initContainers?.[0]?.env).toEqual([{ name: "LOG", value: "debug" }]);
    expect((await containers()).map((c) => (c.env as unknown[]).at(-1))).toEqual([
      { name: "LOG", value: "debug" },
      { name: "LOG", value: "debug" },
    ]);
    expect(stored.metadata.annotations?.["kubernetes.io/change-cause"]).toBe("debug logging");
  });

  it("says unchanged when every entry already has its value or is absent", async () => {
    const { api, run } = setup();
    expect((await run("set", "env", "web", "-c", "app", "MODE=primary", "GONE-")).stdout).toBe(
      "petset.petset.dev/web env unchanged\n",
    );
    expect(api.jsonPatches).toEqual([]);
  });

  it("reports an unknown container, a malformed argument and a key given twice in one line", async () => {
    const { run } = setup();
    expect((await run("set", "env", "web", "-c", "db", "A=1")).stderr).toBe(
      'error: container "db" not found in petset "web": its containers are app, sidecar; init containers: setup\n',
    );
    expect((await run("set", "env", "web", "A")).stderr).toBe(
      'error: set env: "A" is neither KEY=VALUE nor KEY- (e.g. LOG_LEVEL=debug, DEBUG-)\n',
    );
    expect((await run("set", "env", "web", "A=1", "A-")).stderr).toBe(
      "error: set env: A is given more than once\n",
    );
  });
});
