// Boss battle: full rooms of 10 guest players. Each moves every 100 ms (30 px, within the speed cap)
// and, while its 30 bullets last, shoots twice a second in a random direction (aimed shots would
// defeat the boss within a run and end the room's load). Latency: a move → its
// `boss_player_position` at each of the other 9 players of the room; loss: the positions that never
// arrived. An input here is a move (server CPU per 1,000 moves).
import { BOSS_ROOM, BossErrorCodes } from "../../src/protocol/boss.js";
import { ERROR_MESSAGE } from "../../src/protocol/common.js";
import { SIMULATION_HZ } from "../../src/game/boss/constants.js";
import { decode, field, hashString, LeanRoom, messagePrefix, numberAt, strHash } from "../harness/leanClient.js";
import type { RunningLoad, Scenario, ScenarioContext } from "../harness/scenario.js";
import { joinAll, Ticker } from "./common.js";

const ROOM_SIZE = 10;
const MOVE_EVERY_MS = 100;
const SHOOT_EVERY_MS = 500;
const MOVE_STEP_PX = 30;
const BULLETS = 30;

const MOVE = messagePrefix("boss_player_move");
const SHOOT = messagePrefix("boss_player_shoot");

interface Bot {
  slot: number;
  sid: string;
  room: LeanRoom;
  seat: Seat;
  x: number;
  y: number;
  /** performance.now() of each move sent, in order: the server answers them in this order. */
  sentAt: number[];
  /** Moves the server accepted (boss_self_position echoes). */
  accepted: number;
  /** Positions of each other slot received so far: the k-th answers that slot's k-th move. */
  seen: Int32Array;
  shots: number;
  nextMove: number;
  nextShot: number;
  /** Dead, or the battle is over: the server ignores its moves. */
  idle: boolean;
}

interface Seat {
  bots: Bot[];
  /** hashString(session id) → bot: positions are matched to their mover without decoding. */
  bySid: Map<number, Bot>;
}

export const boss: Scenario = {
  name: "boss",
  summary: "boss battle rooms of 10: moves every 100 ms, shots at 2 Hz; move → peers' boss_player_position; --updates messages: no state patches",
  defaultClients: 400,
  clientStep: ROOM_SIZE,
  roomName: BOSS_ROOM,
  tickBudgetMs: 1000 / SIMULATION_HZ,
  async start(ctx: ScenarioContext): Promise<RunningLoad> {
    const { recorder } = ctx;
    const seats: Seat[] = [];
    for (let i = 0; i < ctx.clients; i += ROOM_SIZE) seats.push({ bots: [], bySid: new Map() });

    /** Stops a bot's moves; the deliveries expected for moves the server did not accept are withdrawn. */
    const goIdle = (bot: Bot) => {
      if (bot.idle) return;
      bot.idle = true;
      const peers = bot.seat.bots.length - 1;
      for (let k = bot.accepted; k < bot.sentAt.length; k++) recorder.cancel(bot.sentAt[k], peers);
    };

    const handlers = (seat: Seat, self: () => Bot | undefined) => ({
      boss_room_state: (f: Buffer, s: number, e: number) => {
        const bot = self();
        const state = decode<{ self: { x: number; y: number } }>(f, s, e);
        if (bot) ((bot.x = state.self.x), (bot.y = state.self.y));
        else pendingPosition.set(seat, state.self);
      },
      boss_self_position: (f: Buffer, s: number, e: number) => {
        const bot = self()!;
        bot.x = numberAt(f, field(f, s, e, "x"));
        bot.y = numberAt(f, field(f, s, e, "y"));
        bot.accepted++;
      },
      boss_player_position: (f: Buffer, s: number, e: number) => {
        const at = performance.now();
        const bot = self();
        const mover = seat.bySid.get(strHash(f, field(f, s, e, "sid")));
        if (!bot || !mover) return; // a move made before this bot was told who is who
        const k = bot.seen[mover.slot]++;
        const sentAt = mover.sentAt[k];
        if (sentAt !== undefined) recorder.delivered(sentAt, at);
      },
      boss_player_died: (f: Buffer, s: number, e: number) => {
        const bot = self();
        const { player } = decode<{ player: { sid: string } }>(f, s, e);
        if (bot && player.sid === bot.sid) goIdle(bot);
      },
      // A shot already on its way when its shooter died or the boss fell is refused: expected.
      [ERROR_MESSAGE]: (f: Buffer, s: number, e: number) => {
        const err = decode<{ code: string; type?: string }>(f, s, e);
        if (err.code !== BossErrorCodes.dead && err.code !== BossErrorCodes.battleOver) recorder.error(`error message: ${err.code}${err.type ? ` (${err.type})` : ""}`);
      },
      boss_defeated: () => {
        const bot = self();
        if (bot) goIdle(bot);
      },
    });
    const pendingPosition = new Map<Seat, { x: number; y: number }>();

    // --updates messages: the bots say at join that they read messages only (no state patches).
    const updates = ctx.args.updates;
    if (updates !== undefined && updates !== "messages") throw new Error('boss --updates takes "messages" (the bots read boss_player_position)');
    let number = 0;
    await joinAll(ctx, seats, async (seat, index) => {
      const size = Math.min(ROOM_SIZE, ctx.clients - index * ROOM_SIZE);
      let roomId = "";
      for (let slot = 0; slot < size; slot++) {
        let bot: Bot | undefined;
        const room = await LeanRoom.join({
          base: ctx.base,
          // Guests may not `create` a battle (docs/security.md): the first bot of a room opens it by
          // quick play, which finds every earlier room full because rooms are filled one at a time.
          method: slot === 0 ? "joinOrCreate" : "joinById",
          name: slot === 0 ? BOSS_ROOM : roomId,
          options: { username: `lt${number++}`, bullets: BULLETS, ...(updates ? { updates } : {}) },
          recorder,
          on: handlers(seat, () => bot),
          onClose: (reason) => recorder.error(`disconnected: ${reason}`),
        });
        roomId = room.roomId;
        const start = pendingPosition.get(seat) ?? { x: 550, y: 450 };
        pendingPosition.delete(seat);
        bot = {
          slot,
          sid: room.sessionId,
          room,
          seat,
          x: start.x,
          y: start.y,
          sentAt: [],
          accepted: 0,
          seen: new Int32Array(ROOM_SIZE),
          shots: 0,
          nextMove: 0,
          nextShot: 0,
          idle: false,
        };
        seat.bots.push(bot);
        const key = hashString(bot.sid);
        if (seat.bySid.has(key)) throw new Error(`session ids ${bot.sid} and ${seat.bySid.get(key)!.sid} share a hash`);
        seat.bySid.set(key, bot);
      }
    }, 1); // one room at a time: quick play must not put a room's first bot into a room still filling

    // Every bot starts at a random phase, so the room's moves are spread over the 100 ms.
    const now = performance.now();
    const bots = seats.flatMap((s) => s.bots);
    for (const bot of bots) {
      bot.nextMove = now + Math.random() * MOVE_EVERY_MS;
      bot.nextShot = now + Math.random() * SHOOT_EVERY_MS;
    }
    const ticker = new Ticker((t) => {
      for (const bot of bots) {
        if (bot.idle) continue;
        if (t >= bot.nextMove) {
          bot.nextMove = Math.max(bot.nextMove + MOVE_EVERY_MS, t - MOVE_EVERY_MS);
          const angle = Math.random() * Math.PI * 2;
          const sentAt = performance.now();
          bot.sentAt.push(sentAt);
          bot.room.send(MOVE, { x: bot.x + Math.cos(angle) * MOVE_STEP_PX, y: bot.y + Math.sin(angle) * MOVE_STEP_PX });
          recorder.input(sentAt, bot.seat.bots.length - 1);
        }
        if (t >= bot.nextShot && bot.shots < BULLETS) {
          bot.nextShot = Math.max(bot.nextShot + SHOOT_EVERY_MS, t - SHOOT_EVERY_MS);
          const angle = Math.random() * Math.PI * 2;
          bot.shots++;
          bot.room.send(SHOOT, { dx: Math.cos(angle), dy: Math.sin(angle) });
        }
      }
    });
    return {
      stop: () => ticker.stop(),
      close: async () => {
        ticker.stop();
        await Promise.all(bots.map((b) => b.room.leave()));
      },
    };
  },
};
