// The PvP duel screen: quick-play matchmaking, the ready check, the battle, the result with both
// players' stats, rematches, chat. When the server asks this client to queue again (its opponent
// left while someone waits elsewhere) it joins the next room by itself.
import { go, type Screen } from "../app.js";
import { announce, h, notify, replace, youName } from "../dom.js";
import { colyseus, followServerDraining, joinErrorMessage, matchmake, type Joinable } from "../net.js";
import { session } from "../session.js";
import { PVP_ROOM, type PvpJoinOptions, type PvpRoomType } from "../../../../src/protocol/pvp.js";
import { GUEST_MAX_BULLETS } from "../../../../src/game/pvp/constants.js";
import { PvpGame, type PvpHud, type PvpPhase, type PvpRoom, type PvpSide } from "../pvp/game.js";
import { chatPanel, controlsHelp, kbd, sidePanels, TOUCH_HELP } from "../widgets.js";
import { touchPad } from "../touch.js";

const PHASE_TEXT: Record<PvpPhase, string> = {
  waiting: "Waiting for an opponent",
  ready_check: "Ready check",
  battle: "Battle!",
  finished: "Battle over",
};

const REASON_TEXT: Record<string, string> = {
  knockout: "knock-out",
  forfeit: "forfeit",
  out_of_ammo: "both out of bullets",
};

export const pvpScreen: Screen = {
  title: "PvP duel",
  needs: "player",
  async mount(root) {
    root.append(h("h1", { class: "visually-hidden" }, "PvP duel"));
    const view = buildView(root);
    let game: PvpGame | undefined;
    let closing = false;

    const connect = async (): Promise<void> => {
      view.hud.notice("Finding an opponent…");
      let room: PvpRoom;
      try {
        room = await join();
      } catch (err) {
        view.hud.notice(joinErrorMessage(err));
        return;
      }
      let requeued = false;
      const hud: PvpHud = { ...view.hud, requeue: () => (requeued = true) };
      game = new PvpGame(room, view.canvas, hud);
      // A stopping server lets a duel finish, then sends its players to queue on another one.
      const moving = followServerDraining(room, view.hud.notice, () => void (closing || connect()));
      room.onLeave((code) => {
        game?.dispose();
        game = undefined;
        if (closing || moving()) return;
        if (requeued) void connect();
        else view.hud.notice(`The arena closed the connection (${code}).`);
      });
      view.canvas.focus({ preventScroll: true });
    };
    view.onReady(() => game?.ready());
    view.onChat((text) => game?.sendChat(text));
    view.onLeave(() => go("modes"));
    await connect();
    return async () => {
      closing = true;
      const room = game?.room;
      game?.dispose();
      if (room?.connection?.isOpen) await room.leave().catch(() => undefined);
    };
  },
};

function join(): Promise<PvpRoom> {
  const player = session.player!;
  const options: PvpJoinOptions = player.kind === "guest" ? { username: player.name, bullets: GUEST_MAX_BULLETS } : {};
  return matchmake(() => colyseus().joinOrCreate<Joinable<PvpRoomType, PvpJoinOptions>>(PVP_ROOM, options));
}

interface PvpView {
  canvas: HTMLCanvasElement;
  hud: Omit<PvpHud, "requeue">;
  onReady(fn: () => void): void;
  onChat(fn: (text: string) => void): void;
  onLeave(fn: () => void): void;
}

function buildView(root: HTMLElement): PvpView {
  const phase = h("strong", { id: "pvp-phase" }, "Connecting");
  const selfLives = h("strong", { id: "self-lives" }, "–");
  const selfBullets = h("strong", { id: "self-bullets" }, "–");
  const opponent = h("span", { id: "pvp-opponent" }, "no opponent yet");
  const readyButton = h("button", { type: "button", id: "pvp-ready", disabled: true }, "Ready");
  const leave = h("button", { type: "button", class: "danger" }, "Leave arena");
  const status = h("p", { class: "status-line", role: "status" });
  const canvas = h("canvas", {
    id: "pvp-canvas",
    tabindex: 0,
    role: "img",
    "aria-label": "PvP arena, split by a wall. Move with W A S D or the arrow keys inside your half (or drag on the left half); hold the mouse button to shoot at the pointer, Space to shoot at your opponent, or hold a finger on the right half.",
  });
  const overlay = h("div", { class: "overlay", hidden: true, id: "pvp-result" });
  const chat = chatPanel();

  root.append(
    h(
      "section",
      { class: "game", "aria-label": "PvP duel" },
      h(
        "div",
        { class: "hud panel" },
        h("div", { class: "hud-item hud-wide" }, "Phase", phase),
        h("div", { class: "hud-item" }, "Lives", selfLives),
        h("div", { class: "hud-item" }, "Bullets", selfBullets),
        h("div", { class: "hud-item hud-wide" }, "Opponent", opponent),
        h("div", { class: "hud-actions" }, readyButton, leave),
        status,
      ),
      h("div", { class: "stage" }, canvas, touchPad("◀ drag: move", "hold: shoot ▶"), overlay),
      sidePanels(
        "Chat and controls",
        chat.element,
        controlsHelp(
          [kbd("Ready"), ": both players press it to start a battle (and again for a rematch)."],
          [kbd("W A S D"), " / arrows: move in your half. ", kbd("Mouse"), ": aim, hold to shoot. ", kbd("Space"), ": shoot (at your opponent when the pointer is away)."],
          TOUCH_HELP,
          ["Bullets fly over the wall. Five lives each; a hit takes one."],
        ),
      ),
    ),
  );

  let lastPhase: PvpPhase | null = null;
  const describe = (s: PvpSide | null) => (s ? `${s.username}: ♥ ${s.lives}${s.ready ? " · ready" : ""}${!s.connected ? " · reconnecting" : s.away ? " · away" : ""}` : "no opponent yet");
  const hud: PvpView["hud"] = {
    phase(p, self, opp) {
      phase.textContent = PHASE_TEXT[p];
      selfLives.textContent = self ? String(self.lives) : "–";
      selfBullets.textContent = self ? String(self.bullets) : "–";
      opponent.textContent = describe(opp);
      const canReady = p !== "battle" && !!self && !self.ready && self.bullets > 0;
      readyButton.disabled = !canReady;
      readyButton.textContent = self?.ready ? "Ready ✓ (waiting)" : p === "finished" ? "Ready for a rematch" : "Ready";
      if (p !== lastPhase) {
        announce(PHASE_TEXT[p]);
        if (p === "battle") overlay.hidden = true;
        lastPhase = p;
      }
    },
    chat: chat.add,
    notice(text) {
      notify(status, text);
    },
    battleStarted() {
      overlay.hidden = true;
      canvas.focus({ preventScroll: true });
    },
    ended(result, selfSid) {
      const verdict = result.winner === null ? "Draw" : result.winner === selfSid ? "You won!" : "You lost";
      const rematch = h("button", { type: "button", onclick: () => readyButton.click() }, "Ready for a rematch");
      replace(
        overlay,
        h(
          "div",
          { class: "panel", role: "dialog", "aria-modal": "false", "aria-labelledby": "result-h" },
          h("h2", { id: "result-h" }, verdict),
          h("p", {}, `By ${REASON_TEXT[result.reason] ?? result.reason}, after ${Math.round(result.stats.duration_ms / 1000)} s.`),
          h(
            "div",
            { class: "table-wrap" },
            h(
              "table",
              { id: "pvp-stats" },
              h("caption", { class: "visually-hidden" }, "Battle statistics"),
              h("thead", {}, h("tr", {}, ...["Player", "Shots", "Hits", "Lives left", "Bullets"].map((c, i) => h("th", { scope: "col", class: i ? "num" : undefined }, c)))),
              h(
                "tbody",
                {},
                ...result.stats.players.map((p) =>
                  h(
                    "tr",
                    { "aria-current": p.sid === selfSid ? "true" : undefined },
                    h("td", {}, p.sid === selfSid ? youName(p.username) : p.username),
                    ...[p.shots, p.hits, p.lives, p.bullets].map((n) => h("td", { class: "num" }, String(n))),
                  ),
                ),
              ),
            ),
          ),
          h("div", { class: "row" }, rematch, h("button", { type: "button", class: "secondary", onclick: () => go("modes") }, "Back to modes")),
        ),
      );
      overlay.hidden = false;
      announce(`${verdict} The battle is over.`);
      rematch.focus({ preventScroll: true });
    },
  };

  return {
    canvas,
    hud,
    onReady: (fn) => readyButton.addEventListener("click", fn),
    onChat: chat.onSend,
    onLeave: (fn) => leave.addEventListener("click", fn),
  };
}
