// Revocable sessions without a database read per request. A session is a signed token naming its
// subject (a game account or a workspace user), its own id (`sid`) and the subject's session epoch
// when it was issued. A session is live while its subject exists (and, for workspace users, is
// neither locked nor disabled), its epoch is the subject's current one, and its sid has not been
// revoked. Logout revokes one sid; a password change or an operator's logout bumps the epoch.
// The epochs are bumped by their tables' writers: a game account's by stores/accounts.ts (here, in
// endAllSessions), a workspace user's by workspace/users.ts, whose caller then calls invalidate().
//
// The database is the truth (users.session_epoch, workspace_users.session_epoch, revoked_sessions).
// Each process caches a subject's state for SESSION_CACHE_TTL_MS; a process that ends sessions
// drops its own entry at once and tells the others through the shared session events (Redis
// pub/sub when scaled out), so an ended session stops working everywhere at once, and within the
// TTL even if that message is lost.
// Above the subjects: the database's authentication generation (auth_generation), which every
// restore replaces (src/backup/restore.ts). A session issued under another generation is ended:
// a restore ends every session from before it, and a token from before it names no account made
// after it, even when the restore hands out that account's id again. Cached for the same TTL.
import type { PrismaClient } from "../db/client.js";
import type { SessionEvents } from "../shared/sessionEvents.js";
import { liveRevokedSessions, liveRevokedSessionsOf, recordRevokedSession } from "../stores/sessions.js";
import { bumpSessionEpoch } from "../stores/accounts.js";
import { readAuthGeneration } from "../stores/authGeneration.js";
import type { SessionClaims } from "./tokens.js";

export type SessionSubject = { kind: "account"; id: number } | { kind: "workspace"; id: string };
type AccountSubject = Extract<SessionSubject, { kind: "account" }>;

/** What a live session's subject looks like, as cached. */
export interface SubjectState {
  username: string;
  epoch: number;
  /** False for a locked or disabled workspace user: none of its sessions is live. */
  active: boolean;
  /** A game account a teacher or admin locked: none of its sessions is live, and it cannot sign in. */
  locked: boolean;
  /** A game account whose chat lines are refused (src/rooms/kit/chat.ts). */
  muted: boolean;
  revoked: ReadonlySet<string>;
}

export type SessionCheck = { ok: true; subject: SubjectState } | { ok: false; reason: "unknown_subject" | "ended" | "locked" };

/** How long a process trusts what it cached about a subject. */
export const SESSION_CACHE_TTL_MS = 5000;
/** Cached subjects beyond this many push out the oldest. */
const MAX_CACHED_SUBJECTS = 100_000;

export const subjectKey = (s: SessionSubject): string => (s.kind === "account" ? `u:${s.id}` : `w:${s.id}`);

export class SessionRegistry {
  private readonly cache = new Map<string, { state: SubjectState | null; loadedAt: number }>();
  private readonly loading = new Map<string, Promise<SubjectState | null>>();
  /** Counts invalidations: a load that raced one is returned but not cached. */
  private invalidations = 0;
  /** Told of every subject whose sessions changed, here or on another process. */
  private readonly changeHandlers: Array<(subjectKey: string) => void> = [];

  constructor(
    private readonly prisma: PrismaClient,
    private readonly events: SessionEvents,
    private readonly ttlMs = SESSION_CACHE_TTL_MS,
    private readonly now: () => number = Date.now,
  ) {
    events.onChange((key) => this.forget(key));
  }

  /** Whether the session a valid token describes is still live. */
  async check(subject: SessionSubject, session: SessionClaims): Promise<SessionCheck> {
    const [state, generation] = await Promise.all([this.state(subject), this.generation()]);
    if ((session.generation ?? "") !== generation) return { ok: false, reason: "ended" };
    if (!state) return { ok: false, reason: "unknown_subject" };
    if (state.locked) return { ok: false, reason: "locked" };
    if (!state.active || session.epoch !== state.epoch || (session.sid !== undefined && state.revoked.has(session.sid))) return { ok: false, reason: "ended" };
    return { ok: true, subject: state };
  }

  /**
   * Whether the account's chat lines are refused now: from the cache (every bound account is read
   * again every 2 s, and a mute drops it everywhere at once), else read.
   */
  async isMuted(userId: number): Promise<boolean> {
    return (await this.state({ kind: "account", id: userId }))?.muted ?? false;
  }

  /** The database's authentication generation, for a new session's token ("" when never restored). */
  async generation(): Promise<string> {
    if (this.generationCache && this.now() - this.generationCache.loadedAt < this.ttlMs) return this.generationCache.value;
    this.generationLoading ??= readAuthGeneration(this.prisma)
      .then((value) => {
        this.generationCache = { value, loadedAt: this.now() };
        return value;
      })
      .finally(() => (this.generationLoading = undefined));
    return this.generationLoading;
  }

  private generationCache: { value: string; loadedAt: number } | undefined;
  private generationLoading: Promise<string> | undefined;

  /** Ends one session (logout). A token without a sid can only be ended with all the others. */
  async revoke(subject: SessionSubject, session: SessionClaims): Promise<void> {
    if (session.sid === undefined) {
      // Only a game account's token can predate sids: verifyWorkspace refuses a workspace token without one.
      if (subject.kind !== "account") throw new Error("a workspace session without a sid");
      return void (await this.endAllSessions(subject));
    }
    await recordRevokedSession(this.prisma, subjectKey(subject), session.sid, session.expiresAt);
    this.invalidate(subject);
  }

  /** Ends every session of a game account (an operator's logout); false when there is no such account. */
  async endAllSessions(subject: AccountSubject): Promise<boolean> {
    const found = (await bumpSessionEpoch(this.prisma, subject.id)) !== undefined;
    this.invalidate(subject);
    return found;
  }

  /** The subject's sessions changed in the database (epoch, password, lock): forget it everywhere. */
  invalidate(subject: SessionSubject): void {
    const key = subjectKey(subject);
    this.forget(key);
    this.events.publish(key);
  }

  /**
   * Calls `handler` with the key of every subject whose sessions changed (a logout, an operator's
   * logout, a new password), ended on this process or, scaled out, on another one.
   */
  onSubjectChanged(handler: (subjectKey: string) => void): void {
    this.changeHandlers.push(handler);
  }

  /**
   * Reads the accounts' sessions from the database in two queries and caches what it read, so that
   * checks of their sessions right after need no query of their own (src/rooms/kit/sessionSeats.ts
   * re-checks every seated account this way, for the changes no event told this process about).
   */
  async refreshAccounts(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    const at = this.invalidations;
    const keys = ids.map((id) => subjectKey({ kind: "account", id }));
    const [users, revoked] = await Promise.all([
      this.prisma.user.findMany({ where: { id: { in: [...ids] } }, select: { id: true, username: true, sessionEpoch: true, lockedAt: true, mutedAt: true } }),
      liveRevokedSessionsOf(this.prisma, keys),
    ]);
    if (this.invalidations !== at) return; // a change came meanwhile: what was read may be older than it
    const found = new Map(users.map((u) => [subjectKey({ kind: "account", id: u.id }), u]));
    for (const key of keys) {
      const user = found.get(key);
      this.remember(key, user ? accountState(user, revoked.get(key) ?? []) : null);
    }
  }

  private forget(key: string): void {
    this.invalidations++;
    this.cache.delete(key);
    this.loading.delete(key);
    for (const handler of this.changeHandlers) handler(key);
  }

  private async state(subject: SessionSubject): Promise<SubjectState | null> {
    const key = subjectKey(subject);
    const cached = this.cache.get(key);
    if (cached && this.now() - cached.loadedAt < this.ttlMs) return cached.state;
    let pending = this.loading.get(key);
    if (!pending) {
      const at = this.invalidations;
      pending = this.load(subject, key).then((state) => {
        if (this.loading.get(key) === pending) this.loading.delete(key);
        if (this.invalidations === at) this.remember(key, state);
        return state;
      });
      pending.catch(() => this.loading.delete(key));
      this.loading.set(key, pending);
    }
    return pending;
  }

  private remember(key: string, state: SubjectState | null): void {
    this.cache.delete(key);
    if (this.cache.size >= MAX_CACHED_SUBJECTS) this.cache.delete(this.cache.keys().next().value!);
    this.cache.set(key, { state, loadedAt: this.now() });
  }

  private async load(subject: SessionSubject, key: string): Promise<SubjectState | null> {
    if (subject.kind === "account") {
      const [user, revoked] = await Promise.all([
        this.prisma.user.findUnique({ where: { id: subject.id }, select: { username: true, sessionEpoch: true, lockedAt: true, mutedAt: true } }),
        liveRevokedSessions(this.prisma, key),
      ]);
      return user && accountState(user, revoked);
    }
    const [user, revoked] = await Promise.all([
      this.prisma.workspaceUser.findUnique({ where: { id: subject.id }, select: { username: true, sessionEpoch: true, locked: true, disabled: true } }),
      liveRevokedSessions(this.prisma, key),
    ]);
    return user && { username: user.username, epoch: user.sessionEpoch, active: !user.locked && !user.disabled, locked: false, muted: false, revoked: new Set(revoked) };
  }
}

function accountState(user: { username: string; sessionEpoch: number; lockedAt: Date | null; mutedAt: Date | null }, revoked: readonly string[]): SubjectState {
  return { username: user.username, epoch: user.sessionEpoch, active: true, locked: Boolean(user.lockedAt), muted: Boolean(user.mutedAt), revoked: new Set(revoked) };
}
