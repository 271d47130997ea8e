/** Runs a scenario's steps in order against one server, in a namespace of its own. */
import type { RawRequest, Server } from "./client.js";
import { isObject } from "./normalize.js";
import type { Json, Scenario, Step, StepResponse } from "./types.js";

export type Vars = Record<string, string>;

function substitute(s: string, vars: Vars): string {
  return s.replace(/\{\{(\w+)\}\}/g, (_m, name: string) => {
    const v = vars[name];
    if (v === undefined) throw new Error(`scenario variable {{${name}}} is not set`);
    return v;
  });
}

function substituteJson(v: Json, vars: Vars): Json {
  if (typeof v === "string") return substitute(v, vars);
  if (Array.isArray(v)) return v.map((x) => substituteJson(x, vars));
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, substituteJson(x, vars)]));
  return v;
}

function at(body: Json, path: string): Json | undefined {
  let v: Json | undefined = body;
  for (const key of path.split(".")) {
    if (Array.isArray(v)) v = v[Number(key)];
    else if (isObject(v)) v = v[key];
    else return undefined;
  }
  return v;
}

function toRequest(step: Step, vars: Vars): RawRequest {
  const query = new URLSearchParams(
    Object.entries(step.query ?? {}).map(([k, v]) => [k, substitute(v, vars)] as [string, string]),
  ).toString();
  const path = substitute(step.path, vars) + (query ? `?${query}` : "");
  const body =
    step.rawBody ?? (step.body === undefined ? undefined : JSON.stringify(substituteJson(step.body, vars)));
  return {
    method: step.method,
    path,
    ...(step.contentType ? { contentType: step.contentType } : {}),
    ...(step.accept ? { accept: step.accept } : {}),
    ...(body === undefined ? {} : { body }),
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function runStep(server: Server, step: Step, vars: Vars): Promise<StepResponse> {
  const req = toRequest(step, vars);
  if (step.watch)
    return server.watch(req, step.watch.events ?? Number.POSITIVE_INFINITY, step.watch.timeoutMs ?? 15_000);
  if (!step.until) return server.request(req);
  const deadline = Date.now() + (step.until.timeoutMs ?? 60_000);
  for (;;) {
    const res = await server.request(req);
    if (step.until.check(res) || Date.now() > deadline) return res;
    await sleep(250);
  }
}

/** Creates the namespace (waiting for its default ServiceAccount where a controller makes one). */
export async function createNamespace(
  server: Server,
  ns: string,
  waitForServiceAccount: boolean,
): Promise<void> {
  const res = await server.request({
    method: "POST",
    path: "/api/v1/namespaces",
    body: JSON.stringify({ apiVersion: "v1", kind: "Namespace", metadata: { name: ns } }),
  });
  if (res.status !== 201) throw new Error(`${server.name}: creating namespace ${ns}: ${res.status}`);
  if (!waitForServiceAccount) return;
  const deadline = Date.now() + 30_000;
  while (Date.now() < deadline) {
    const sa = await server.request({
      method: "GET",
      path: `/api/v1/namespaces/${ns}/serviceaccounts/default`,
    });
    if (sa.status === 200) return;
    await sleep(100);
  }
  throw new Error(`${server.name}: no default ServiceAccount in ${ns} after 30 s`);
}

/** Runs every step; returns the raw responses, one per step. */
export async function runScenario(server: Server, scenario: Scenario, ns: string): Promise<StepResponse[]> {
  const vars: Vars = { ns };
  const out: StepResponse[] = [];
  for (const step of scenario.steps) {
    const res = await runStep(server, step, vars);
    out.push(res);
    for (const [name, path] of Object.entries(step.save ?? {})) {
      const v = at(res.body, path);
      if (typeof v !== "string" && typeof v !== "number")
        throw new Error(
          `${server.name}: ${scenario.id} / ${step.name}: nothing to save at ${path} (${res.status})`,
        );
      vars[name] = String(v);
    }
  }
  return out;
}
