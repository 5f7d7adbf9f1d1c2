// Refused connections are logged once per key and interval (an origin, an address), not once per
// attempt, so a misbehaving page or client cannot flood the log.

/** At most one line per key this often. */
export const REFUSAL_LOG_INTERVAL_MS = 60_000;
/** Keys remembered at most; past that all are forgotten at once (a flood of distinct keys logs again). */
const MAX_REMEMBERED_REFUSALS = 1000;

/** Says whether a refusal of `key` is due its log line now. */
export function refusalLogGate(now: () => number = Date.now): (key: string) => boolean {
  const lastLogged = new Map<string, number>();
  return (key) => {
    const at = now();
    if (at - (lastLogged.get(key) ?? -Infinity) < REFUSAL_LOG_INTERVAL_MS) return false;
    if (lastLogged.size >= MAX_REMEMBERED_REFUSALS) lastLogged.clear();
    lastLogged.set(key, at);
    return true;
  };
}
