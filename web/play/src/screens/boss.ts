// The boss battle screen: joins a room (accounts through POST /api/boss/join, guests with their
// claimed bullets), then shows the canvas, the HUD, the player list, the chat and the victory stats.
import { go, type Screen } from "../app.js";
import { api, ApiError } from "../api.js";
import { announce, fmt, h, notify, replace, youName } from "../dom.js";
import { colyseus, followServerDraining, joinErrorMessage, matchmake, type Joinable } from "../net.js";
import { session } from "../session.js";
import { BOSS_ROOM, type BossJoinOptions, type BossRoomType } from "../../../../src/protocol/boss.js";
import { GUEST_MAX_BULLETS } from "../../../../src/game/boss/constants.js";
import { chatPanel, controlsHelp, kbd, sidePanels, TOUCH_HELP } from "../widgets.js";
import { touchPad } from "../touch.js";
import { BossGame, type BossHud, type BossRoom } from "../boss/game.js";
import { POWERUP_STYLE } from "../boss/draw.js";

export const bossScreen: Screen = {
  title: "Boss battle",
  needs: "player",
  async mount(root) {
    const heading = h("h1", { class: "visually-hidden" }, "Boss battle");
    const status = h("p", { class: "status-line", role: "status" }, "Finding a battle…");
    root.append(heading, status);

    let room: BossRoom;
    try {
      room = await join();
    } catch (err) {
      status.textContent = "";
      root.append(
        h("p", { class: "error-text", role: "alert" }, err instanceof ApiError || err instanceof Error ? joinErrorMessage(err) : String(err)),
        h("button", { type: "button", onclick: () => go("home") }, "Back to progress"),
      );
      return;
    }
    const view = buildView(root, status);
    const game = new BossGame(room, view.canvas, view.hud);
    view.onChat((text) => game.sendChat(text));
    view.onLeave(() => void room.leave().finally(() => go("home")));
    let leaving = false;
    // A stopping server lets the battle finish first; afterwards a new battle is on another server.
    const moving = followServerDraining(room, () => undefined, () => undefined);
    room.onLeave((code) => {
      if (leaving) return;
      view.hud.notice(moving() ? "This server is restarting: a new battle will start on another one." : `The battle closed the connection (${code}).`);
      view.showEnded();
    });
    view.canvas.focus({ preventScroll: true });
    return async () => {
      leaving = true;
      game.dispose();
      if (room.connection?.isOpen) await room.leave().catch(() => undefined);
    };
  },
};

async function join(): Promise<BossRoom> {
  const player = session.player!;
  const client = colyseus();
  if (player.kind === "account") {
    // The REST join checks the bullets first, with a clear error, and takes a seat in the fullest
    // open battle: redeemed here, it cannot be lost to classmates clicking at the same moment.
    const { join: seat } = await api.bossJoin();
    return client.consumeSeatReservation(seat.reservation) as Promise<BossRoom>;
  }
  return matchmake(() => client.joinOrCreate<Joinable<BossRoomType, BossJoinOptions>>(BOSS_ROOM, { username: player.name, bullets: GUEST_MAX_BULLETS }));
}

interface BossView {
  canvas: HTMLCanvasElement;
  hud: BossHud;
  onChat(fn: (text: string) => void): void;
  onLeave(fn: () => void): void;
  showEnded(): void;
}

function buildView(root: HTMLElement, status: HTMLElement): BossView {
  const meter = h("meter", { id: "boss-health-meter", min: 0, max: 2000, value: 2000, low: 600, high: 1400, optimum: 2000, "aria-labelledby": "boss-health-label" });
  const healthText = h("strong", { id: "boss-health" }, "2000 / 2000");
  const lives = h("strong", { id: "self-lives" }, "–");
  const bullets = h("strong", { id: "self-bullets" }, "–");
  const boosts = h("span", { class: "boosts", id: "self-boosts" });
  const leave = h("button", { type: "button", class: "danger" }, "Leave battle");
  const canvas = h("canvas", {
    id: "boss-canvas",
    tabindex: 0,
    role: "img",
    "aria-label": "Boss battle arena. Move with W A S D or the arrow keys (or drag on the left half); hold the mouse button to shoot at the pointer, Space to shoot at the boss, or hold a finger on the right half.",
  });
  const overlay = h("div", { class: "overlay", hidden: true, id: "victory" });
  const playerList = h("ul", { class: "player-list", id: "player-list" });
  const chat = chatPanel();
  root.append(
    h(
      "section",
      { class: "game", "aria-label": "Boss battle" },
      h(
        "div",
        { class: "hud panel" },
        h("div", { class: "health" }, h("span", { id: "boss-health-label" }, "Boss health"), meter, healthText),
        h("div", { class: "hud-item" }, "Lives", lives),
        h("div", { class: "hud-item" }, "Bullets", bullets),
        boosts,
        h("div", { class: "hud-actions" }, leave),
        status,
      ),
      h("div", { class: "stage" }, canvas, touchPad("◀ drag: move", "hold: shoot ▶"), overlay),
      sidePanels(
        "Players, chat and controls",
        h("section", { class: "panel", "aria-labelledby": "players-h" }, h("h2", { id: "players-h" }, "Players"), playerList),
        chat.element,
        controlsHelp(
          [kbd("W A S D"), " / arrows: move. ", kbd("Mouse"), ": aim, hold to shoot. ", kbd("Space"), ": shoot (at the boss when the pointer is away)."],
          TOUCH_HELP,
          ["Powerups: ", ...Object.values(POWERUP_STYLE).map((s) => `${s.letter} ${s.name}; `)],
        ),
      ),
    ),
  );

  let lastHealth = -1;
  const hud: BossHud = {
    health(health, max) {
      if (health === lastHealth) return;
      lastHealth = health;
      meter.max = max;
      meter.value = health;
      healthText.textContent = `${fmt.format(health)} / ${fmt.format(max)}`;
    },
    self(p) {
      lives.textContent = p.status === "dead" ? "0 (defeated)" : String(p.lives);
      bullets.textContent = fmt.format(p.bullets);
      boosts.textContent = [p.damage_boost && "double damage", p.speed_boost && "speed"].filter(Boolean).join(", ");
    },
    players(list) {
      replace(
        playerList,
        ...list.map((p) =>
          h(
            "li",
            { class: [p.self && "self", p.status === "dead" && "dead"].filter(Boolean).join(" ") || undefined },
            h("span", {}, p.self ? youName(p.username) : p.username),
            h("span", {}, `${p.status === "dead" ? "defeated" : `♥ ${p.lives}`} · ${p.damage} dmg`),
          ),
        ),
      );
    },
    chat: chat.add,
    notice(text) {
      notify(status, text);
    },
    defeated(d, selfSid) {
      const rows = d.all_player_stats.map((s) =>
        h(
          "tr",
          { "aria-current": s.sid === selfSid ? "true" : undefined },
          h("td", {}, s.username),
          h("td", { class: "num" }, String(s.damage_dealt)),
          h("td", { class: "num" }, `${s.bullets_hit} / ${s.bullets_fired}`),
          h("td", { class: "num optional" }, s.bullets_fired ? `${Math.round((100 * s.bullets_hit) / s.bullets_fired)}%` : "–"),
          h("td", { class: "num" }, String(s.lives_lost)),
          h("td", {}, s.powerups_collected.join(", ") || "–"),
        ),
      );
      const back = h("button", { type: "button", onclick: () => go("home") }, "Back to progress");
      replace(
        overlay,
        h(
          "div",
          { class: "panel", role: "dialog", "aria-modal": "false", "aria-labelledby": "victory-h" },
          h("h2", { id: "victory-h" }, "Victory! The boss is defeated"),
          h("p", {}, d.message),
          h(
            "div",
            { class: "table-wrap" },
            h(
              "table",
              { id: "victory-stats" },
              h("caption", { class: "visually-hidden" }, "Battle statistics per player"),
              h(
                "thead",
                {},
                h("tr", {}, ...["Player", "Damage", "Hits / shots", "Accuracy", "Lives lost", "Powerups"].map((c, i) => h("th", { scope: "col", class: [i > 0 && i < 5 && "num", i === 3 && "optional"].filter(Boolean).join(" ") || undefined }, c))),
              ),
              h("tbody", {}, ...rows),
            ),
          ),
          h("div", { class: "row" }, back),
        ),
      );
      overlay.hidden = false;
      announce("Victory! The boss is defeated.");
      back.focus({ preventScroll: true });
    },
  };

  return {
    canvas,
    hud,
    onChat: chat.onSend,
    onLeave(fn) {
      leave.addEventListener("click", fn);
    },
    showEnded() {
      leave.textContent = "Back to progress";
    },
  };
}
