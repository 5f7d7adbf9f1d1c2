// PvP: duels of two guests. Both ready at once, so the duel is a battle; each moves every 50 ms (as
// the original client did, 20 px within the 450 px/s cap) and shoots once a second in a random
// direction while its 30 bullets last; after a battle ends both ready again (a rematch) while they
// have bullets. Latency: a move → its `pvp_opponent_position` at the opponent; loss: the opponent
// positions that never arrived. An input here is a move.
import { PVP_ROOM, PvpErrorCodes, type PvpOutbound } from "../../src/protocol/pvp.js";
import { SIMULATION_HZ } from "../../src/game/pvp/constants.js";
import { ERROR_MESSAGE } from "../../src/protocol/common.js";
import { decode, field, LeanRoom, messagePrefix, numberAt } from "../harness/leanClient.js";
import type { RunningLoad, Scenario, ScenarioContext } from "../harness/scenario.js";
import { joinAll, Ticker } from "./common.js";

const MOVE_EVERY_MS = 50;
const SHOOT_EVERY_MS = 1000;
const MOVE_STEP_PX = 20;
const BULLETS = 30;

const MOVE = messagePrefix("pvp_move");
const SHOOT = messagePrefix("pvp_shoot");
const READY = messagePrefix("pvp_ready");

interface Duelist {
  room: LeanRoom;
  opponent: Duelist | null;
  x: number;
  y: number;
  /** performance.now() of each move sent, in order: the server answers them in this order. */
  sentAt: number[];
  /** Opponent positions received: the k-th answers the opponent's k-th move. */
  seen: number;
  bullets: number;
  nextMove: number;
  nextShot: number;
}

type Payload<K extends keyof PvpOutbound> = PvpOutbound[K];

export const pvp: Scenario = {
  name: "pvp",
  summary: "PvP duels of 2: moves every 50 ms, a shot a second, rematches; move → opponent's pvp_opponent_position",
  defaultClients: 1000,
  clientStep: 2,
  roomName: PVP_ROOM,
  tickBudgetMs: 1000 / SIMULATION_HZ,
  async start(ctx: ScenarioContext): Promise<RunningLoad> {
    const { recorder } = ctx;
    const pairs: Duelist[][] = [];
    for (let i = 0; i < Math.floor(ctx.clients / 2); i++) pairs.push([]);

    const handlers = (self: () => Duelist | undefined) => ({
      pvp_room_state: (f: Buffer, s: number, e: number) => {
        const me = self();
        const state = decode<Payload<"pvp_room_state">>(f, s, e);
        if (me) ((me.x = state.self.x), (me.y = state.self.y));
      },
      pvp_self_position: (f: Buffer, s: number, e: number) => {
        const me = self();
        if (!me) return;
        me.x = numberAt(f, field(f, s, e, "x"));
        me.y = numberAt(f, field(f, s, e, "y"));
      },
      pvp_opponent_position: () => {
        const at = performance.now();
        const me = self();
        const mover = me?.opponent;
        if (!me || !mover) return;
        const sentAt = mover.sentAt[me.seen++];
        if (sentAt !== undefined) recorder.delivered(sentAt, at);
      },
      pvp_battle_end: () => {
        const me = self();
        if (me && me.bullets > 0) me.room.send(READY, {}); // rematch
      },
      // A shot or a ready crossing the end of a battle is refused: expected in a duel.
      [ERROR_MESSAGE]: (f: Buffer, s: number, e: number) => {
        const err = decode<{ code: string; type?: string }>(f, s, e);
        const expected: string[] = [PvpErrorCodes.notInBattle, PvpErrorCodes.battleActive, PvpErrorCodes.noBullets];
        if (!expected.includes(err.code)) recorder.error(`error message: ${err.code}${err.type ? ` (${err.type})` : ""}`);
      },
    });

    let number = 0;
    const seat = (pair: Duelist[], slot: number, method: "joinOrCreate" | "joinById", name: string) => {
      let me: Duelist | undefined;
      return LeanRoom.join({
        base: ctx.base,
        method,
        name,
        options: { username: `lt${number++}`, bullets: BULLETS },
        recorder,
        on: handlers(() => me),
        onClose: (reason) => recorder.error(`disconnected: ${reason}`),
      }).then((room) => {
        me = { room, opponent: null, x: slot === 0 ? 100 : 700, y: 300, sentAt: [], seen: 0, bullets: BULLETS, nextMove: 0, nextShot: 0 };
        pair.push(me);
        return room;
      });
    };
    await joinAll(ctx, pairs, async (pair) => {
      // A lone player is moved to an older waiting duel (pvp_requeue) and its room closes; rooms of
      // a previous ramp step may still be closing: then this duel is set up again.
      for (let attempt = 1; ; attempt++) {
        try {
          // Duels are made by matchmaking (guests may not `create` one): with one duel set up at a
          // time, quick play finds every earlier duel full and opens this one.
          const first = await seat(pair, 0, "joinOrCreate", PVP_ROOM);
          await seat(pair, 1, "joinById", first.roomId);
          break;
        } catch (err) {
          await Promise.all(pair.splice(0).map((d) => d.room.leave()));
          if (attempt === 5) throw err;
          await new Promise((r) => setTimeout(r, 250));
        }
      }
      pair[0].opponent = pair[1];
      pair[1].opponent = pair[0];
      for (const d of pair) d.room.send(READY, {});
    }, 1); // one duel at a time: two half-empty duels at once would be re-paired by the server

    const now = performance.now();
    const duelists = pairs.flat();
    for (const d of duelists) {
      d.nextMove = now + Math.random() * MOVE_EVERY_MS;
      d.nextShot = now + Math.random() * SHOOT_EVERY_MS;
    }
    const ticker = new Ticker((t) => {
      for (const d of duelists) {
        if (t >= d.nextMove) {
          d.nextMove = Math.max(d.nextMove + MOVE_EVERY_MS, t - MOVE_EVERY_MS);
          const angle = Math.random() * Math.PI * 2;
          const sentAt = performance.now();
          d.sentAt.push(sentAt);
          d.room.send(MOVE, { x: d.x + Math.cos(angle) * MOVE_STEP_PX, y: d.y + Math.sin(angle) * MOVE_STEP_PX });
          recorder.input(sentAt, 1);
        }
        if (t >= d.nextShot && d.bullets > 0) {
          d.nextShot = Math.max(d.nextShot + SHOOT_EVERY_MS, t - SHOOT_EVERY_MS);
          const angle = Math.random() * Math.PI * 2;
          d.bullets--;
          d.room.send(SHOOT, { dx: Math.cos(angle), dy: Math.sin(angle) });
        }
      }
    });
    return {
      stop: () => ticker.stop(),
      close: async () => {
        ticker.stop();
        await Promise.all(duelists.map((d) => d.room.leave()));
      },
    };
  },
};
