// Who is playing: an account (the HttpOnly session cookie, checked with GET /api/auth/me) or a guest
// (a display name kept in this tab only; guests are never persisted by the server).
import { api, ApiError, type PublicUser } from "./api.js";

export type Player = { kind: "account"; user: PublicUser } | { kind: "guest"; name: string };

// The cookie is HttpOnly, so the page cannot see it. A hint in localStorage says whether asking
// /api/auth/me is worth it: a first visit then makes no request that is bound to fail.
const SIGNED_IN_HINT = "play.signedIn";
const GUEST_NAME = "play.guestName";

let current: Player | null = null;
// The password just typed at sign-in, kept in memory only while the account must replace it, so the
// "Choose your own password" screen need not ask for the handed-out one again (a page load forgets it).
let issuedPassword: string | null = null;
const listeners = new Set<(p: Player | null) => void>();

export const session = {
  get player(): Player | null {
    return current;
  },
  get username(): string {
    return current?.kind === "account" ? current.user.username : (current?.name ?? "");
  },
  onChange(fn: (p: Player | null) => void): () => void {
    listeners.add(fn);
    return () => listeners.delete(fn);
  },

  /** Restores the session at page load. */
  async restore(): Promise<Player | null> {
    const guest = sessionStorage.getItem(GUEST_NAME);
    if (localStorage.getItem(SIGNED_IN_HINT)) {
      try {
        const { user } = await api.me();
        return set({ kind: "account", user });
      } catch (err) {
        if (!(err instanceof ApiError) || err.status >= 500) throw err;
        localStorage.removeItem(SIGNED_IN_HINT); // expired or revoked: sign in again
      }
    }
    return set(guest ? { kind: "guest", name: guest } : null);
  },

  async signIn(username: string, password: string, register: boolean): Promise<Player> {
    const { user } = register ? await api.register(username, password) : await api.login(username, password);
    localStorage.setItem(SIGNED_IN_HINT, "1");
    sessionStorage.removeItem(GUEST_NAME);
    issuedPassword = user.password_change_required ? password : null;
    return set({ kind: "account", user })!;
  },

  /** True while the account's password was handed out by someone else (docs/auth.md#one-time-passwords). */
  get mustChoosePassword(): boolean {
    return current?.kind === "account" && current.user.password_change_required === true;
  },
  /** The handed-out password typed at this sign-in, if the page has not been reloaded since. */
  get issuedPassword(): string | null {
    return issuedPassword;
  },

  /** Replaces the password (the server ends every other session and sends a fresh cookie). */
  async choosePassword(currentPassword: string, newPassword: string): Promise<Player> {
    const { user } = await api.changePassword(currentPassword, newPassword);
    issuedPassword = null;
    return set({ kind: "account", user })!;
  },

  playAsGuest(name: string): Player {
    const clean = name.trim().slice(0, 24) || `Guest${Math.floor(Math.random() * 9000 + 1000)}`;
    sessionStorage.setItem(GUEST_NAME, clean);
    return set({ kind: "guest", name: clean })!;
  },

  async signOut(): Promise<void> {
    if (current?.kind === "account") await api.logout().catch(() => undefined);
    localStorage.removeItem(SIGNED_IN_HINT);
    sessionStorage.removeItem(GUEST_NAME);
    issuedPassword = null;
    set(null);
  },

  /** A protected request answered 401/403: the session is gone. */
  expired(): void {
    localStorage.removeItem(SIGNED_IN_HINT);
    issuedPassword = null;
    set(null);
  },
};

function set(p: Player | null): Player | null {
  current = p;
  for (const fn of listeners) fn(p);
  return p;
}
