// Mode selection: one card per real-time mode with its live numbers (players, active rooms, open
// seats), pushed by the `mode_select` room whenever they change.
import { go, type Screen } from "../app.js";
import { api } from "../api.js";
import { announce, h } from "../dom.js";
import { colyseus, followServerDraining, joinErrorMessage, matchmake } from "../net.js";
import { session } from "../session.js";
import { MODE_SELECT_ROOM, type Mode, type ModeSelectRoomType, type ModeStatusPayload } from "../../../../src/protocol/modes.js";
import { GUEST_MAX_BULLETS, MIN_BULLETS_TO_JOIN } from "../../../../src/game/boss/constants.js";
import { MIN_BULLETS_TO_READY } from "../../../../src/game/pvp/constants.js";

interface ModeCard {
  mode: Mode;
  title: string;
  blurb: string;
  /** The screen that plays it. */
  screen: string;
}

/** The modes this client plays, in the order shown. */
export const MODE_CARDS: ModeCard[] = [
  { mode: "boss", title: "Boss battle", blurb: "Up to 10 players against one boss. Needs 10 bullets.", screen: "boss" },
  { mode: "pvp", title: "PvP duel", blurb: "One opponent, a wall between you, five lives each. Needs a bullet.", screen: "pvp" },
  { mode: "slitherrush", title: "SlitherRush", blurb: "Up to 32 snakes in one arena: shoot heads, grow, top the leaderboard.", screen: "slither" },
];

export const modesScreen: Screen = {
  title: "Choose a mode",
  needs: "player",
  nav: "Modes",
  async mount(root) {
    const player = session.player!;
    const bullets = player.kind === "account" ? (await api.progress()).total_bullets : GUEST_MAX_BULLETS;
    const viewers = h("p", { class: "muted", id: "mode-viewers" }, "Connecting to the live status…");
    root.append(h("h1", {}, "Choose a mode"), viewers);

    const numbers = new Map<Mode, HTMLElement>();
    const grid = h("div", { class: "grid" });
    for (const card of MODE_CARDS) {
      const status = h("p", { class: "mode-status", id: `status-${card.mode}`, "aria-live": "polite" }, "–");
      numbers.set(card.mode, status);
      const blocked =
        card.mode === "boss" && bullets < MIN_BULLETS_TO_JOIN
          ? `You have ${bullets} bullets; earn ${MIN_BULLETS_TO_JOIN} on the progress screen.`
          : card.mode === "pvp" && bullets < MIN_BULLETS_TO_READY
            ? "You need a bullet to duel; earn some on the progress screen."
            : null;
      grid.append(
        h(
          "section",
          { class: "panel mode-card", "aria-labelledby": `mode-${card.mode}-h` },
          h("h2", { id: `mode-${card.mode}-h` }, card.title),
          h("p", {}, card.blurb),
          status,
          blocked ? h("p", { class: "muted" }, blocked) : null,
          h("button", { type: "button", disabled: !!blocked, onclick: () => go(card.screen), "aria-describedby": `status-${card.mode}` }, `Play ${card.title}`),
        ),
      );
    }
    root.append(grid);

    const room = await matchmake(() => colyseus().joinOrCreate<ModeSelectRoomType>(MODE_SELECT_ROOM))
      .catch((err: unknown) => {
        viewers.textContent = `Live status unavailable: ${joinErrorMessage(err)}`;
        return null;
      });
    if (!room) return;
    const show = (mode: Mode) => (s: ModeStatusPayload) => {
      const el = numbers.get(mode);
      if (el) el.textContent = `${plural(s.totalPlayers, "player")} in ${plural(s.activeRooms, "room")} · ${plural(s.openSlots, "open seat")}`;
      viewers.textContent = `${plural(s.viewerCount, "player")} choosing a mode right now.`;
    };
    room.onMessage("boss_status", show("boss"));
    room.onMessage("pvp_status", show("pvp"));
    room.onMessage("slitherrush_status", show("slitherrush"));
    room.onMessage("error", (e) => announce(e.message));
    // A stopping server: the live status moves to another one (the screen mounts again).
    let left = false;
    followServerDraining(room, (text) => (viewers.textContent = text), () => left || go("modes"));
    return async () => {
      left = true;
      await room.leave().catch(() => undefined);
    };
  },
};

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? "" : "s"}`;
