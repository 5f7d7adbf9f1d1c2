// Screens and the hash router: #/signin, #/home, #/boards, #/boss … Each screen builds itself into
// <main> and returns a cleanup (leave rooms, stop loops) that runs before the next screen mounts.
import { h, replace } from "./dom.js";
import { session, type Player } from "./session.js";

export type Cleanup = () => void | Promise<void>;
export interface Screen {
  title: string;
  /** Who may open it; others are sent to sign in (or home). */
  needs: "nobody" | "player" | "account" | "student" | "teacher" | "admin";
  /** Shown in the top navigation. */
  nav?: string;
  mount(root: HTMLElement, params: URLSearchParams): Promise<Cleanup | void> | Cleanup | void;
}

const screens = new Map<string, Screen>();
/** The screen an account with a one-time password sees first (screens/choosePassword.ts). */
export const CHOOSE_PASSWORD = "password";
let cleanup: Cleanup | void;
let mounting = Promise.resolve();

export function defineScreen(name: string, screen: Screen): void {
  screens.set(name, screen);
}

export function go(name: string, params: Record<string, string> = {}): void {
  const query = new URLSearchParams(params).toString();
  const hash = `#/${name}${query ? `?${query}` : ""}`;
  if (location.hash === hash) void route();
  else location.hash = hash;
}

function parseHash(): { name: string; params: URLSearchParams } {
  const [path, query] = location.hash.replace(/^#\/?/, "").split("?");
  return { name: path || homeOf(session.player), params: new URLSearchParams(query ?? "") };
}

/** Where an account starts: teachers and admins on their classes, everyone else on progress. */
export function homeOf(player: Player | null): string {
  const role = roleOf(player);
  return role === "teacher" || role === "admin" ? "teacher" : "home";
}

/** Mounts the screen the hash names (one at a time, in order). */
export function route(): Promise<void> {
  mounting = mounting.then(mountCurrent, mountCurrent);
  return mounting;
}

async function mountCurrent(): Promise<void> {
  let { name, params } = parseHash();
  let screen = screens.get(name);
  const player = session.player;
  if (!screen) [name, screen] = ["home", screens.get("home")!];
  if (screen.needs !== "nobody" && !player) [name, screen] = ["signin", screens.get("signin")!];
  else if (!allowed(screen, player)) [name, screen] = ["home", screens.get("home")!];
  // A handed-out password is replaced before anything else (the server does not block the game).
  if (session.mustChoosePassword) [name, screen] = [CHOOSE_PASSWORD, screens.get(CHOOSE_PASSWORD)!];

  const previous = cleanup;
  cleanup = undefined;
  try {
    await previous?.();
  } catch (err) {
    console.warn("screen cleanup failed", err);
  }
  const main = document.getElementById("main")!;
  replace(main);
  document.title = `${screen.title} — Snakes play`;
  document.body.dataset.screen = name; // game screens lay out differently on small screens (style.css)
  playMode(GAME_SCREENS.has(name));
  renderNav(name, player);
  try {
    cleanup = await screen.mount(main, params);
  } catch (err) {
    replace(main, h("div", { class: "panel" }, h("h1", {}, screen.title), h("p", { class: "error-text", role: "alert" }, (err as Error).message)));
  }
  // Move focus to the new content for keyboard and screen-reader users (not on first load).
  if (document.activeElement === document.body || !main.contains(document.activeElement)) main.focus({ preventScroll: true });
}

/** Screens where fingers play: no page zoom or scroll there (style.css `body.playing`, playMode). */
const GAME_SCREENS = new Set(["boss", "pvp", "slither"]);
const ZOOMABLE = "width=device-width, initial-scale=1";
let guarded = false;

/**
 * In a game, two thumbs moving on a touch screen must never zoom or scroll the page (a stuck zoom
 * hides the arena and the dialogs); elsewhere people may zoom to read. The viewport is locked only
 * while a game screen is up, multi-finger moves are cancelled then (touch.ts handles the stage's own
 * single fingers), and Safari's gesture events too.
 */
function playMode(on: boolean): void {
  document.body.classList.toggle("playing", on);
  const meta = document.querySelector<HTMLMetaElement>('meta[name="viewport"]');
  const content = on ? `${ZOOMABLE}, maximum-scale=1, user-scalable=no` : ZOOMABLE;
  if (meta && meta.content !== content) meta.content = content;
  if (guarded) return;
  guarded = true;
  const playing = () => document.body.classList.contains("playing");
  const stop = (e: Event) => {
    if (playing() && e.cancelable) e.preventDefault();
  };
  document.addEventListener("touchmove", (e) => e.touches.length > 1 && stop(e), { passive: false });
  for (const type of ["gesturestart", "gesturechange", "gestureend"]) document.addEventListener(type, stop, { passive: false });
}

/** The role of the signed-in account (a server without roles: a student). */
export function roleOf(player: Player | null): "guest" | "student" | "teacher" | "admin" | null {
  if (!player) return null;
  return player.kind === "guest" ? "guest" : (player.user.role ?? "student");
}

/** Teachers' and admins' screens need the role; the server checks every request anyway. */
function allowed(screen: Screen, player: Player | null): boolean {
  const role = roleOf(player);
  switch (screen.needs) {
    case "nobody":
    case "player":
      return true;
    case "account":
      return role !== null && role !== "guest";
    case "student":
      return role === "student";
    case "teacher":
      return role === "teacher" || role === "admin";
    case "admin":
      return role === "admin";
  }
}

function renderNav(active: string, player: Player | null): void {
  const nav = document.getElementById("nav")!;
  // Nothing to go to until a handed-out password is replaced: the menu would only lead back here.
  const items = session.mustChoosePassword ? [] : [...screens].filter(([, s]) => s.nav && (s.needs === "nobody" || (player && allowed(s, player))));
  replace(
    nav,
    ...items.map(([name, s]) => h("li", {}, h("a", { href: `#/${name}`, "aria-current": name === active ? "page" : undefined }, s.nav!))),
  );
  const who = document.getElementById("who")!;
  if (!player) return replace(who);
  replace(
    who,
    h("span", {}, player.kind === "account" ? `Signed in as ${player.user.username}${player.user.role && player.user.role !== "student" ? ` (${player.user.role})` : ""}` : `Guest: ${player.name} (nothing is saved)`),
    h("button", { class: "secondary", type: "button", onclick: () => void session.signOut().then(() => go("signin")) }, player.kind === "account" ? "Sign out" : "Stop playing as guest"),
  );
}
