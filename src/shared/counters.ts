// Hit counters in fixed windows, for rate limits that must hold across every process: in Redis
// when scaled out, in process memory otherwise (src/sharedState.ts picks one).
import type { Redis } from "ioredis";
import { DIRECT_CALLS, type RedisCalls } from "./matchSeats.js";

export interface WindowCount {
  /** Hits in the current window (0 when there is none). */
  count: number;
  /** ms until the current window ends. */
  resetInMs: number;
}

/** Hit counters by key, one fixed window each; every operation on one key is atomic. */
export interface WindowCounters {
  /** Counts one hit; a key without a live window starts one of `windowMs`. */
  hit(key: string, windowMs: number): Promise<WindowCount>;
  peek(key: string): Promise<WindowCount>;
  /** Takes `amount` hits back from the key's live window (never below 0; the window's end stays); returns what is left. */
  subtract(key: string, amount: number): Promise<number>;
}

/** Expired windows are dropped at most this often. */
const SWEEP_INTERVAL_MS = 1000;

export class MemoryWindowCounters implements WindowCounters {
  private readonly windows = new Map<string, { count: number; resetAt: number }>();
  private lastSweep = 0;

  constructor(private readonly now: () => number = Date.now) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const now = this.now();
    this.sweep(now);
    let w = this.windows.get(key);
    if (!w || w.resetAt <= now) {
      w = { count: 0, resetAt: now + windowMs };
      this.windows.set(key, w);
    }
    w.count++;
    return { count: w.count, resetInMs: w.resetAt - now };
  }

  async peek(key: string): Promise<WindowCount> {
    const now = this.now();
    const w = this.windows.get(key);
    return w && w.resetAt > now ? { count: w.count, resetInMs: w.resetAt - now } : { count: 0, resetInMs: 0 };
  }

  async subtract(key: string, amount: number): Promise<number> {
    const w = this.windows.get(key);
    if (!w || w.resetAt <= this.now()) return 0;
    w.count = Math.max(0, w.count - amount);
    return w.count;
  }

  get size(): number {
    return this.windows.size;
  }

  private sweep(now: number): void {
    if (now - this.lastSweep < SWEEP_INTERVAL_MS) return;
    this.lastSweep = now;
    for (const [key, w] of this.windows) if (w.resetAt <= now) this.windows.delete(key);
  }
}

// INCR, and start the window on the first hit (or if a window somehow lost its expiry).
const HIT = `
local count = redis.call("INCR", KEYS[1])
local ttl = redis.call("PTTL", KEYS[1])
if ttl < 0 then
  redis.call("PEXPIRE", KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}`;

// Takes hits back, keeping the window's expiry (KEEPTTL); an emptied window is dropped.
const SUBTRACT = `
local count = tonumber(redis.call("GET", KEYS[1]) or "0")
if count <= 0 then return 0 end
local left = math.max(0, count - tonumber(ARGV[1]))
if left == 0 then redis.call("DEL", KEYS[1]) else redis.call("SET", KEYS[1], left, "KEEPTTL") end
return left`;

/**
 * Counters in Redis. While Redis is away a hit is refused with the 503 `dependency_unavailable`
 * (through the link): a limit that must hold across processes cannot be checked, so the request is
 * refused with Retry-After rather than let through unlimited.
 */
export class RedisWindowCounters implements WindowCounters {
  constructor(
    private readonly redis: Redis,
    private readonly prefix = "ratelimit:",
    private readonly link: RedisCalls = DIRECT_CALLS,
  ) {}

  async hit(key: string, windowMs: number): Promise<WindowCount> {
    const [count, ttl] = (await this.link.call(() => this.redis.eval(HIT, 1, this.prefix + key, windowMs))) as [number, number];
    return { count, resetInMs: ttl };
  }

  async subtract(key: string, amount: number): Promise<number> {
    return (await this.link.call(() => this.redis.eval(SUBTRACT, 1, this.prefix + key, amount))) as number;
  }

  async peek(key: string): Promise<WindowCount> {
    const multi = () => this.redis.multi().get(this.prefix + key).pttl(this.prefix + key).exec();
    const [[, count], [, ttl]] = (await this.link.call(multi)) as [[null, string | null], [null, number]];
    return count === null || ttl <= 0 ? { count: 0, resetInMs: 0 } : { count: Number(count), resetInMs: ttl };
  }
}
