/** Request context for writes the shim's own controllers make. */
import type { RequestContext } from "../registry/resource.js";
import type { Clock } from "../time.js";

export function systemContext(clock: Clock, manager: string): RequestContext {
  return { fieldManager: manager, dryRun: false, now: clock.now(), warnings: [], fieldValidation: "Ignore" };
}
