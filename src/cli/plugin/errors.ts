/**
 * Errors the plugin reports to the user: one line on stderr, then the exit code. Each has a
 * Kubernetes-style `reason` so callers (and tests) branch on the kind, not on the text.
 */
export type PluginErrorReason =
  | "NotFound"
  | "VersionNotFound"
  | "NoRollbackTarget"
  | "BadRequest"
  | "Invalid"
  | "Conflict"
  | "ServerError"
  | "Unreachable"
  | "Kubeconfig"
  | "RolloutFailed"
  | "Timeout";

export class PluginError extends Error {
  override name = "PluginError";
  constructor(
    readonly reason: PluginErrorReason,
    message: string,
    readonly exitCode = 1,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/** A bad argument or flag value; names the argument. */
export class UsageError extends PluginError {
  override name = "UsageError";
  constructor(message: string) {
    super("BadRequest", message);
  }
}

/** A PetSet that does not exist in the namespace. */
export class PetSetNotFoundError extends PluginError {
  override name = "PetSetNotFoundError";
  constructor(
    readonly petSet: string,
    readonly namespace: string,
    cause?: unknown,
  ) {
    super("NotFound", `petset "${petSet}" not found in namespace "${namespace}"`, 1, { cause });
  }
}

/** A version number the PetSet does not have (any more, or not yet). */
export class VersionNotFoundError extends PluginError {
  override name = "VersionNotFoundError";
  constructor(
    readonly petSet: string,
    readonly version: number,
    newest: number | undefined,
  ) {
    super("VersionNotFound", versionNotFoundMessage(petSet, version, newest));
  }
}

function versionNotFoundMessage(petSet: string, version: number, newest: number | undefined): string {
  const listHint = `kubectl petset history ${petSet} lists the versions kept`;
  if (newest === undefined)
    return `petset "${petSet}" has no versions yet: the controller has not recorded any`;
  if (version > newest)
    return `version ${version} of petset "${petSet}" does not exist: the newest is ${newest}; ${listHint}`;
  return `version ${version} of petset "${petSet}" not found: it may have been garbage-collected; ${listHint}`;
}
