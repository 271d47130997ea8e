/**
 * Ages as kubectl prints them (`7s`, `2m30s`, `5h`, `3d4h`, `2y10d`): the same buckets as
 * apimachinery's HumanDuration, so our AGE column reads like `kubectl get`'s.
 */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return "<invalid>";
  if (seconds < 0) return "0s";
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return withRest(minutes, "m", seconds % 60, "s");
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return withRest(hours, "h", minutes % 60, "m");
  if (hours < 48) return `${hours}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 8) return withRest(days, "d", hours % 24, "h");
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return withRest(years, "y", days % 365, "d");
  return `${years}y`;
}

function withRest(major: number, majorUnit: string, minor: number, minorUnit: string): string {
  return minor === 0 ? `${major}${majorUnit}` : `${major}${majorUnit}${minor}${minorUnit}`;
}

/** The AGE of an object created at `timestamp` (as the API returns it), `<unknown>` if unset. */
export function age(timestamp: string | Date | undefined, now: number): string {
  if (timestamp === undefined) return "<unknown>";
  const at = timestamp instanceof Date ? timestamp.getTime() : Date.parse(timestamp);
  return Number.isNaN(at) ? "<unknown>" : humanDuration(now - at);
}
