/**
 * Open watch streams per resource, served at /metrics in Prometheus text as kube-apiserver's
 * `apiserver_longrunning_requests{verb="WATCH"}` gauge (`make soak` checks it stays flat), and
 * the stored objects per resource as its `apiserver_storage_objects`.
 */
export class WatchGauge {
  private readonly open = new Map<string, number>();

  opened(gr: string): void {
    this.open.set(gr, (this.open.get(gr) ?? 0) + 1);
  }

  closed(gr: string): void {
    const n = (this.open.get(gr) ?? 1) - 1;
    if (n > 0) this.open.set(gr, n);
    else this.open.delete(gr);
  }

  total(): number {
    let n = 0;
    for (const v of this.open.values()) n += v;
    return n;
  }

  /** Prometheus text exposition. */
  render(): string {
    const lines = [
      "# HELP apiserver_longrunning_requests Gauge of all active long-running apiserver requests broken out by verb, group and resource.",
      "# TYPE apiserver_longrunning_requests gauge",
    ];
    for (const [gr, n] of [...this.open].sort()) {
      const [group, resource] = gr.split("/");
      lines.push(`apiserver_longrunning_requests{group="${group}",resource="${resource}",verb="WATCH"} ${n}`);
    }
    return `${lines.join("\n")}\n`;
  }
}

/** kube-apiserver's `apiserver_storage_objects{resource}` gauge ("pods", "petsets.petset.dev"). */
export function renderStorageObjects(counts: Map<string, number>): string {
  const lines = [
    "# HELP apiserver_storage_objects Number of stored objects at the time of last check split by kind.",
    "# TYPE apiserver_storage_objects gauge",
  ];
  for (const [gr, n] of [...counts].sort()) {
    const [group, resource] = gr.split("/");
    lines.push(`apiserver_storage_objects{resource="${group ? `${resource}.${group}` : resource}"} ${n}`);
  }
  return `${lines.join("\n")}\n`;
}
