// A clock that stands still while the event loop does. When the process stops (SIGSTOP, a frozen
// VM, a long GC, a synchronous stretch of work), wall-clock timers that measure a PLAYER's absence
// (a reconnection window) would count the server's own absence against the player: a seat dropped
// a second before a 30 s pause lapsed before its client's reconnection, waiting in the listen
// queue, could be read. A beat every BEAT_MS notes how long the loop was away; `liveNow()` is the
// monotonic clock minus that away-time (also the part of a stall still going on when it is read,
// so a timer firing right after a pause sees it before the next beat).

const BEAT_MS = 100;
/** Lateness a busy loop may have without counting as away (a long tick, a GC under a second). */
const TOLERANCE_MS = 400;

let awayMs = 0;
let lastBeat = performance.now();
let beating: NodeJS.Timeout | undefined;

function start(): void {
  if (beating) return;
  lastBeat = performance.now();
  beating = setInterval(() => {
    const now = performance.now();
    awayMs += pendingAway(now);
    lastBeat = now;
  }, BEAT_MS);
  beating.unref();
}

/** The part of the time since the last beat that the loop was away. */
function pendingAway(now: number): number {
  return Math.max(0, now - lastBeat - BEAT_MS - TOLERANCE_MS);
}

/** Milliseconds on a clock that does not advance while the event loop is stalled. */
export function liveNow(): number {
  start();
  const now = performance.now();
  return now - awayMs - pendingAway(now);
}

/** How long the event loop has been away in total since the clock started (ms). */
export function loopAwayMs(): number {
  return awayMs + pendingAway(performance.now());
}

export interface LiveTimer {
  clear(): void;
}

/**
 * Runs `fn` once `ms` of live time (liveNow) have passed: a stall of the loop meanwhile extends the
 * wait. Unref'd: it does not keep a process alive on its own.
 */
export function liveTimeout(fn: () => void, ms: number): LiveTimer {
  const due = liveNow() + ms;
  let timer: NodeJS.Timeout;
  const check = () => {
    const left = due - liveNow();
    if (left > 1) (timer = setTimeout(check, left)).unref();
    else fn();
  };
  (timer = setTimeout(check, ms)).unref();
  return { clear: () => clearTimeout(timer) };
}
