/** Counts API writes by verb and resource (metrics, and the "writes per pet update" benchmark). */
export interface WriteCounter {
  count(verb: string, resource: string): void;
}

export const noWriteCounter: WriteCounter = { count: () => {} };
