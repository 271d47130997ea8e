/**
 * The set of served resources, keyed by group/version/resource. Built-ins register at
 * start; CRD versions come and go as CRDs are created, changed and deleted.
 */
import type { ResourceDefinition } from "./resource.js";

export interface GroupVersion {
  group: string;
  version: string;
}

export class ResourceRegistry {
  private readonly defs = new Map<string, ResourceDefinition>();
  /** Group → versions in preference order (first = preferred). */
  private readonly groupVersions = new Map<string, string[]>();
  private readonly listeners = new Set<() => void>();
  private generation = 0;

  register(def: ResourceDefinition, versionPriority?: string[]): void {
    this.defs.set(id(def.group, def.version, def.resource), def);
    const versions = this.groupVersions.get(def.group) ?? [];
    if (!versions.includes(def.version)) versions.push(def.version);
    if (versionPriority) versions.sort((a, b) => rank(versionPriority, a) - rank(versionPriority, b));
    this.groupVersions.set(def.group, versions);
    this.changed();
  }

  /** Removes every version of `group/resource`. */
  unregister(group: string, resource: string): void {
    for (const [k, d] of this.defs) if (d.group === group && d.resource === resource) this.defs.delete(k);
    const left = [...this.defs.values()].filter((d) => d.group === group).map((d) => d.version);
    const versions = (this.groupVersions.get(group) ?? []).filter((v) => left.includes(v));
    if (versions.length) this.groupVersions.set(group, versions);
    else this.groupVersions.delete(group);
    this.changed();
  }

  get(group: string, version: string, resource: string): ResourceDefinition | undefined {
    return this.defs.get(id(group, version, resource));
  }

  /** The preferred-version definition of a group/resource (for internal controllers). */
  preferred(group: string, resource: string): ResourceDefinition | undefined {
    for (const v of this.groupVersions.get(group) ?? []) {
      const d = this.get(group, v, resource);
      if (d) return d;
    }
    return undefined;
  }

  byKind(apiVersion: string, kind: string): ResourceDefinition | undefined {
    const [group, version] = apiVersion.includes("/") ? apiVersion.split("/") : ["", apiVersion];
    for (const d of this.defs.values())
      if (d.group === group && d.version === version && d.kind === kind) return d;
    return undefined;
  }

  /** Groups in discovery order: core first, then by registration. */
  groups(): string[] {
    return [...this.groupVersions.keys()];
  }

  versions(group: string): string[] {
    return this.groupVersions.get(group) ?? [];
  }

  resources(group: string, version: string): ResourceDefinition[] {
    return [...this.defs.values()].filter((d) => d.group === group && d.version === version);
  }

  all(): ResourceDefinition[] {
    return [...this.defs.values()];
  }

  /** Bumped on every change; discovery documents are cached against it. */
  revision(): number {
    return this.generation;
  }

  onChange(fn: () => void): () => void {
    this.listeners.add(fn);
    return () => this.listeners.delete(fn);
  }

  private changed(): void {
    this.generation++;
    for (const l of this.listeners) l();
  }
}

function id(group: string, version: string, resource: string): string {
  return `${group}/${version}/${resource}`;
}

/** kube's version priority: GA > beta > alpha, higher numbers first; unknown last. */
export function versionRank(v: string): number {
  const m = /^v(\d+)(?:(alpha|beta)(\d+))?$/.exec(v);
  if (!m) return 1_000_000;
  const major = Number(m[1]);
  const stage = m[2] === "alpha" ? 2 : m[2] === "beta" ? 1 : 0;
  const minor = m[3] ? Number(m[3]) : 0;
  return stage * 100_000 - major * 100 - minor;
}

function rank(priority: string[], v: string): number {
  const i = priority.indexOf(v);
  return i < 0 ? priority.length + versionRank(v) : i;
}
