// The SlitherRush screen: the arena that follows the own head, the numbers of the own snake, the
// live top-5 leaderboard, the snakes in view, a feed of kills, and the death notice with "play again".
import { go, type Screen } from "../app.js";
import { announce, h, notify, replace, youName } from "../dom.js";
import { colyseus, followServerDraining, joinErrorMessage, matchmake, type Joinable } from "../net.js";
import { session } from "../session.js";
import { SLITHERRUSH_ROOM, type SlitherRushJoinOptions, type SlitherRushRoomType } from "../../../../src/protocol/slitherrush.js";
import { SlitherGame, type SlitherHud, type SlitherRoom } from "../slither/game.js";
import { controlsHelp, kbd, sidePanels } from "../widgets.js";
import { touchPad } from "../touch.js";

export const slitherScreen: Screen = {
  title: "SlitherRush",
  needs: "player",
  async mount(root) {
    root.append(h("h1", { class: "visually-hidden" }, "SlitherRush"));
    const view = buildView(root);
    let room: SlitherRoom;
    try {
      room = await join();
    } catch (err) {
      view.hud.notice(joinErrorMessage(err));
      return;
    }
    const game = new SlitherGame(room, view.canvas, view.hud);
    view.onLeave(() => go("modes"));
    let leaving = false;
    // A stopping server: the player joins an arena on another one (the screen mounts again).
    const moving = followServerDraining(room, view.hud.notice, () => leaving || go("slither"));
    room.onLeave((code) => {
      if (!leaving && !moving()) view.hud.notice(`The arena closed the connection (${code}).`);
    });
    view.canvas.focus({ preventScroll: true });
    return async () => {
      leaving = true;
      game.dispose();
      view.dispose();
      if (room.connection?.isOpen) await room.leave().catch(() => undefined);
    };
  },
};

function join(): Promise<SlitherRoom> {
  const player = session.player!;
  const options: SlitherRushJoinOptions = player.kind === "guest" ? { username: player.name } : {};
  return matchmake(() => colyseus().joinOrCreate<Joinable<SlitherRushRoomType, SlitherRushJoinOptions>>(SLITHERRUSH_ROOM, options));
}

/** Seconds the death notice stays up. */
const DEATH_NOTICE_S = 3;

interface SlitherView {
  canvas: HTMLCanvasElement;
  hud: SlitherHud;
  dispose(): void;
  onLeave(fn: () => void): void;
}

function buildView(root: HTMLElement): SlitherView {
  const stat = (id: string) => h("strong", { id: `slither-${id}` }, "–");
  const score = stat("score");
  const kills = stat("kills");
  const deaths = stat("deaths");
  const length = stat("length");
  const rank = stat("rank");
  const hp = stat("hp");
  const leave = h("button", { type: "button", class: "danger" }, "Leave arena");
  const status = h("p", { class: "status-line", role: "status" }, "Joining an arena…");
  const canvas = h("canvas", {
    id: "slither-canvas",
    tabindex: 0,
    role: "img",
    "aria-label": "SlitherRush arena, centred on your snake. Steer with the pointer, W A S D / arrow keys or a finger dragged on the left half; hold the mouse button, Space or a finger on the right half to shoot.",
  });
  // The death notice: a banner at the arena's top edge that counts itself away; the snake has
  // already respawned (protected) and plays on under the thumbs, never hidden.
  const deathText = h("p", { id: "slither-death-text" });
  const banner = h("div", { class: "death-banner", hidden: true, id: "slither-death" }, h("h2", { id: "death-h" }, "You were shot"), deathText);
  let countdown: ReturnType<typeof setInterval> | undefined;
  const board = h("ol", { class: "leaderboard", id: "slither-leaderboard", "aria-label": "Top five" });
  const players = h("p", { class: "muted", id: "slither-players" });
  const nearby = h("ul", { class: "player-list", id: "slither-nearby" });
  const feed = h("ul", { class: "chat-log", role: "log", "aria-live": "polite", "aria-label": "Arena events", id: "slither-feed" });

  root.append(
    h(
      "section",
      { class: "game", "aria-label": "SlitherRush" },
      h(
        "div",
        { class: "hud panel" },
        h("div", { class: "hud-item" }, "Score", score),
        h("div", { class: "hud-item" }, "Kills", kills),
        h("div", { class: "hud-item" }, "Deaths", deaths),
        h("div", { class: "hud-item" }, "Length", length),
        h("div", { class: "hud-item" }, "Rank", rank),
        h("div", { class: "hud-item" }, "HP", hp),
        h("div", { class: "hud-actions" }, leave),
        status,
      ),
      h("div", { class: "stage" }, canvas, touchPad("◀ drag: steer", "hold: shoot ▶"), banner),
      sidePanels(
        "Leaderboard, snakes in view, arena",
        h("section", { class: "panel", "aria-labelledby": "lb-h" }, h("h2", { id: "lb-h" }, "Leaderboard"), board, players),
        h("section", { class: "panel", "aria-labelledby": "nearby-h" }, h("h2", { id: "nearby-h" }, "Snakes in view"), nearby),
        h("section", { class: "panel", "aria-labelledby": "feed-h" }, h("h2", { id: "feed-h" }, "Arena"), feed),
        controlsHelp(
          [kbd("Pointer"), " or ", kbd("W A S D"), " / arrows: steer. ", kbd("Mouse button"), " or ", kbd("Space"), ": shoot ahead."],
          ["Touch: drag on the left half to steer; hold on the right half to shoot ahead."],
          ["Three hits take a head. A kill: +1 score, +2 length; a death: −1 score, −2 length, and you respawn elsewhere."],
        ),
      ),
    ),
  );

  const hud: SlitherHud = {
    joined(j) {
      notify(status, `In arena ${j.arena_id}.`);
    },
    self(s) {
      score.textContent = String(s.score);
      kills.textContent = String(s.kills);
      deaths.textContent = String(s.deaths);
      length.textContent = String(s.length);
      rank.textContent = s.rank ? `${s.rank} / ${s.players}` : "–";
      hp.textContent = `${s.hp}${s.protected ? " (protected)" : ""}`;
    },
    leaderboard(l, selfId) {
      replace(
        board,
        ...l.leaderboard.map((row) =>
          h("li", { class: row.id === selfId ? "self" : undefined }, h("span", {}, row.id === selfId ? youName(row.username) : row.username), h("span", {}, `${row.score} pts · ${row.kills} kills · ${row.length} long`)),
        ),
      );
      players.textContent = `${l.player_count} snake${l.player_count === 1 ? "" : "s"} in this arena.`;
    },
    nearby(names) {
      replace(nearby, ...(names.length ? names.map((n) => h("li", {}, n)) : [h("li", { class: "muted" }, "nobody else right now")]));
    },
    feed(text) {
      feed.append(h("li", { class: "system" }, text));
      while (feed.children.length > 50) feed.firstElementChild!.remove();
      feed.scrollTop = feed.scrollHeight;
    },
    died(killer) {
      const says = `${killer ? `${killer} took your head. ` : ""}Playing on from a new spot`;
      let left = DEATH_NOTICE_S;
      const show = () => (deathText.textContent = `${says} (${left})`);
      clearInterval(countdown);
      notify(status, ""); // the notice takes the place where notices show
      show();
      banner.hidden = false;
      countdown = setInterval(() => {
        if (--left > 0) return void show();
        clearInterval(countdown);
        banner.hidden = true;
      }, 1000);
      announce(`You were shot${killer ? ` by ${killer}` : ""}. Your snake plays on from a new spot.`);
    },
    notice(text) {
      notify(status, text);
    },
  };

  return {
    canvas,
    hud,
    dispose: () => clearInterval(countdown),
    onLeave: (fn) => leave.addEventListener("click", fn),
  };
}
