// Sign-in limits that count failures, not people (docs/security.md, "Classrooms and shared
// addresses"). A class signs in from one school address, so nothing here counts a successful
// sign-in, and an attacker at that address is stopped by what it does wrong:
// - one account from one address (guessing): RATE_LIMIT_LOGIN failures, then every further failure
//   locks that account *from that address* out for a delay that doubles (30 s, 1 min, … 15 min);
// - one account from every address (guessing from many): RATE_LIMIT_LOGIN_ACCOUNT failures, then
//   the same growing delay for that account;
// - one address at any accounts (spraying one password over many): RATE_LIMIT_LOGIN_ADDRESS
//   failures, then the address waits out the window. A typo followed by the right password is
//   forgiven (taken back from the address's count), so a class's typos never add up to it.
// The counters live in the shared state (Redis when scaled out). Game login and workspace sign-in
// each have their own key space.
import type { WindowLimit } from "../config.js";
import type { WindowCounters } from "../shared/counters.js";
import { countRateLimited } from "../ops/metrics.js";
import { addressKey } from "../net/proxy.js";

/** The first lock after the limit… */
export const LOCKOUT_BASE_MS = 30_000;
/** …doubles with each further failure, up to this. */
export const LOCKOUT_MAX_MS = 15 * 60_000;

/** How long a key is locked after its `failures`-th failure: 0 below `limit`, then 30 s doubling to 15 min. */
export function lockoutMs(failures: number, limit: number): number {
  if (failures < limit) return 0;
  return Math.min(LOCKOUT_MAX_MS, LOCKOUT_BASE_MS * 2 ** Math.min(failures - limit, 20));
}

export interface LoginLimitSettings {
  /** Failures per account and address (RATE_LIMIT_LOGIN). */
  pair: WindowLimit;
  /** Failures per account (RATE_LIMIT_LOGIN_ACCOUNT). */
  account: WindowLimit;
  /** Unforgiven failures per address (RATE_LIMIT_LOGIN_ADDRESS). */
  address: WindowLimit;
}

/** Which limit answered: for the 429's message and the metric. */
export type LoginRefusal = { waitMs: number; reason: "account_from_address" | "account" | "address" };

export class LoginLimits {
  constructor(
    private readonly counters: WindowCounters,
    /** "login" or "workspace-login": the key space, and the metric's limiter label. */
    readonly name: string,
    readonly settings: LoginLimitSettings,
  ) {}

  private keys(account: string, address: string) {
    const a = addressKey(address);
    return {
      pair: `${this.name}-pair:${account}@${a}`,
      pairLock: `${this.name}-pair-lock:${account}@${a}`,
      account: `${this.name}-account:${account}`,
      accountLock: `${this.name}-account-lock:${account}`,
      address: `${this.name}-address:${a}`,
    };
  }

  /** Whether an attempt at `account` (its usernameKey) from `address` may be checked now; counts nothing. */
  async refusal(account: string, address: string): Promise<LoginRefusal | undefined> {
    const refusal = await this.current(account, address);
    if (refusal) countRateLimited(`${this.name}-${refusal.reason}`);
    return refusal;
  }

  private async current(account: string, address: string): Promise<LoginRefusal | undefined> {
    const k = this.keys(account, address);
    const [pairLock, accountLock, spray] = await Promise.all([this.counters.peek(k.pairLock), this.counters.peek(k.accountLock), this.counters.peek(k.address)]);
    let refusal: LoginRefusal | undefined;
    const consider = (waitMs: number, reason: LoginRefusal["reason"]) => {
      if (waitMs > 0 && (!refusal || waitMs > refusal.waitMs)) refusal = { waitMs, reason };
    };
    if (pairLock.count > 0) consider(pairLock.resetInMs, "account_from_address");
    if (accountLock.count > 0) consider(accountLock.resetInMs, "account");
    if (spray.count >= this.settings.address.limit) consider(spray.resetInMs, "address");
    return refusal;
  }

  /** Counts a wrong password; returns what the next attempt would meet (undefined: it may try). */
  async failed(account: string, address: string): Promise<LoginRefusal | undefined> {
    const k = this.keys(account, address);
    const { pair, account: perAccount, address: perAddress } = this.settings;
    const [p, a] = await Promise.all([
      this.counters.hit(k.pair, pair.windowMs),
      this.counters.hit(k.account, perAccount.windowMs),
      this.counters.hit(k.address, perAddress.windowMs),
    ]);
    // A lock is a window of its own whose length is the delay; the failure that sets one was
    // checked while none was live, so the window starts now.
    const pairDelay = lockoutMs(p.count, pair.limit);
    const accountDelay = lockoutMs(a.count, perAccount.limit);
    await Promise.all([pairDelay > 0 && this.counters.hit(k.pairLock, pairDelay), accountDelay > 0 && this.counters.hit(k.accountLock, accountDelay)]);
    return this.current(account, address);
  }

  /**
   * A right password: the account's failures from this address were typos. They leave the
   * address's spraying count and the pair's count (a student who mistyped and then got in starts
   * afresh); the account-wide count stays, so a victim's own sign-in gives nobody a fresh budget.
   */
  async succeeded(account: string, address: string): Promise<void> {
    const k = this.keys(account, address);
    const typos = (await this.counters.peek(k.pair)).count;
    if (typos === 0) return;
    await Promise.all([this.counters.subtract(k.address, typos), this.counters.subtract(k.pair, typos)]);
  }
}

/** The 429's message: which limit, and how long. */
export function loginRefusalMessage(refusal: LoginRefusal, retryAfterSeconds: number): string {
  const what =
    refusal.reason === "address"
      ? "Too many failed sign-ins from this network"
      : refusal.reason === "account"
        ? "Too many failed sign-ins for this account"
        : "Too many failed sign-ins for this account from this network";
  return `${what}; try again in ${retryAfterSeconds} s`;
}
