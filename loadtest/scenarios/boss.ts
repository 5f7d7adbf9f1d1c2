// Boss battle: full rooms of 10 guest players. Each moves every 100 ms (30 px, within the speed cap)
// and, while its 30 bullets last, shoots twice a second in a random direction (aimed shots would
// defeat the boss within a run and end the room's load). Latency: a move → its
// `boss_player_position` at each of the other 9 players of the room; loss: the positions that never
// arrived. An input here is a move (server CPU per 1,000 moves).
// The boss kills players, most of them within a minute: a bot that died leaves a second later and a
// fresh guest takes its place in the same room, as players would, so the load holds through
// consecutive windows (--windows). A replacement's moves are measured at the bots that were there
// from the start; it measures nothing itself (the k-th position of a mover answers the mover's k-th
// move only for a bot that saw all of them).
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
  /** For each move, the peers expected to measure its position. */
  expectedPeers: number[];
  /** Moves the server accepted (boss_self_position echoes). */
  accepted: number;
  /** Positions of each other slot received so far: the k-th answers that slot's k-th move. */
  seen: Int32Array;
  shots: number;
  nextMove: number;
  nextShot: number;
  /** Dead, or the battle is over: the server ignores its moves. */
  idle: boolean;
  /** performance.now() when it went idle (+Infinity while it plays). */
  idleAt: number;
  /** In the room since the start: it measures its peers' moves (a replacement does not). */
  measures: boolean;
  /** Left the room (replaced). */
  gone: boolean;
}

/** How long a dead bot stays (receiving its peers' moves still in flight) before it is replaced. */
const REPLACE_AFTER_MS = 1000;

interface Seat {
  bots: Bot[];
  /** hashString(session id) → bot: positions are matched to their mover without decoding. */
  bySid: Map<number, Bot>;
  roomId: string;
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
    for (let i = 0; i < ctx.clients; i += ROOM_SIZE) seats.push({ bots: [], bySid: new Map(), roomId: "" });
    let stopped = false;
    let replacements = 0;
    let refusedReplacements = 0;
    /** Every bot moving, in the order the ticker serves them (a replacement takes its predecessor's place). */
    const bots: Bot[] = [];

    /** Stops a bot's moves; the deliveries expected for moves the server did not accept are withdrawn. A dead bot is replaced. */
    const goIdle = (bot: Bot, died: boolean) => {
      if (bot.idle) return;
      bot.idle = true;
      bot.idleAt = performance.now();
      for (let k = bot.accepted; k < bot.sentAt.length; k++) recorder.cancel(bot.sentAt[k], bot.expectedPeers[k]);
      if (died && !stopped) setTimeout(() => void replace(bot), REPLACE_AFTER_MS).unref();
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
        if (!bot?.measures) return;
        const mover = seat.bySid.get(strHash(f, field(f, s, e, "sid")));
        if (!mover) return; // a move made before this bot was told who is who
        const k = bot.seen[mover.slot]++;
        const sentAt = mover.sentAt[k];
        // A dead bot still measures the moves sent while it lived (their senders counted on it).
        if (sentAt !== undefined && sentAt < bot.idleAt) recorder.delivered(sentAt, at);
      },
      boss_player_died: (f: Buffer, s: number, e: number) => {
        const bot = self();
        const { player } = decode<{ player: { sid: string } }>(f, s, e);
        if (bot && player.sid === bot.sid) goIdle(bot, true);
      },
      // A shot already on its way when its shooter died or the boss fell is refused: expected.
      [ERROR_MESSAGE]: (f: Buffer, s: number, e: number) => {
        const err = decode<{ code: string; type?: string }>(f, s, e);
        if (err.code !== BossErrorCodes.dead && err.code !== BossErrorCodes.battleOver) recorder.error(`error message: ${err.code}${err.type ? ` (${err.type})` : ""}`);
      },
      boss_defeated: () => {
        const bot = self();
        if (bot) goIdle(bot, false);
      },
    });
    const pendingPosition = new Map<Seat, { x: number; y: number }>();

    // --updates messages: the bots say at join that they read messages only (no state patches).
    const updates = ctx.args.updates;
    if (updates !== undefined && updates !== "messages") throw new Error('boss --updates takes "messages" (the bots read boss_player_position)');
    let number = 0;
    /** Joins one bot into a seat's room (slot 0 opens it). */
    const joinBot = async (seat: Seat, slot: number, measures: boolean): Promise<Bot> => {
      let bot: Bot | undefined;
      const room = await LeanRoom.join({
        base: ctx.base,
        // Guests may not `create` a battle (docs/security.md): a room's first bot opens it by quick
        // play, which finds every earlier room full because rooms are filled one at a time.
        method: seat.roomId === "" ? "joinOrCreate" : "joinById",
        name: seat.roomId === "" ? BOSS_ROOM : seat.roomId,
        options: { username: `lt${number++}`, bullets: BULLETS, ...(updates ? { updates } : {}) },
        recorder,
        on: handlers(seat, () => bot),
        ...(ctx.onFrame ? { onFrame: ctx.onFrame } : {}),
        onClose: (reason) => {
          if (!bot?.gone) recorder.error(`disconnected: ${reason}`);
        },
      });
      seat.roomId = room.roomId;
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
        expectedPeers: [],
        accepted: 0,
        seen: new Int32Array(ROOM_SIZE),
        shots: 0,
        nextMove: 0,
        nextShot: 0,
        idle: false,
        idleAt: Infinity,
        measures,
        gone: false,
      };
      const key = hashString(bot.sid);
      if (seat.bySid.has(key)) throw new Error(`session ids ${bot.sid} and ${seat.bySid.get(key)!.sid} share a hash`);
      seat.bySid.set(key, bot);
      return bot;
    };
    /** A dead bot leaves; a fresh guest joins the same room in its slot and moves from the next tick. */
    const replace = async (dead: Bot) => {
      const { seat } = dead;
      dead.gone = true;
      await dead.room.leave(true);
      seat.bySid.delete(hashString(dead.sid));
      if (stopped) return;
      let fresh: Bot | undefined;
      let failure: unknown;
      // The room unlocks once it has let the dead bot go (its seat's last write): try a few times.
      for (let attempt = 0; attempt < 10 && !fresh && !stopped; attempt++) {
        try {
          fresh = await joinBot(seat, dead.slot, false);
        } catch (err) {
          failure = err;
          await new Promise((r) => setTimeout(r, 300));
        }
      }
      if (!fresh) {
        const err = failure;
        // The battle is over (the room refuses joins): the seat stays empty.
        if (!stopped && refusedReplacements++ === 0) ctx.log(`boss: a replacement could not join (${err instanceof Error ? err.message : String(err)}); seats stay empty`);
        return;
      }
      replacements++;
      if (stopped) return void fresh.room.leave();
      // The slot's positions now answer the replacement's moves, counted from its first.
      for (const peer of seat.bots) peer.seen[dead.slot] = 0;
      seat.bots[seat.bots.indexOf(dead)] = fresh;
      fresh.nextMove = performance.now() + Math.random() * MOVE_EVERY_MS;
      fresh.nextShot = performance.now() + Math.random() * SHOOT_EVERY_MS;
      bots[bots.indexOf(dead)] = fresh;
    };

    await joinAll(ctx, seats, async (seat, index) => {
      const size = Math.min(ROOM_SIZE, ctx.clients - index * ROOM_SIZE);
      for (let slot = 0; slot < size; slot++) seat.bots.push(await joinBot(seat, slot, true));
    }, 1); // one room at a time: quick play must not put a room's first bot into a room still filling

    /** The peers that measure a move of `bot`: the bots in its room since the start, still alive. */
    const measuringPeers = (bot: Bot) => {
      let n = 0;
      for (const peer of bot.seat.bots) if (peer !== bot && peer.measures && !peer.idle) n++;
      return n;
    };

    // Every bot starts at a random phase, so the room's moves are spread over the 100 ms.
    const now = performance.now();
    for (const seat of seats) bots.push(...seat.bots);
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
          const peers = measuringPeers(bot);
          bot.sentAt.push(sentAt);
          bot.expectedPeers.push(peers);
          bot.room.send(MOVE, { x: bot.x + Math.cos(angle) * MOVE_STEP_PX, y: bot.y + Math.sin(angle) * MOVE_STEP_PX });
          recorder.input(sentAt, peers);
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
      stop: () => {
        stopped = true;
        ticker.stop();
        ctx.log(`boss: ${replacements} dead bots replaced by fresh guests${refusedReplacements ? `, ${refusedReplacements} refused` : ""}`);
      },
      close: async () => {
        stopped = true;
        ticker.stop();
        await Promise.all(seats.flatMap((s) => s.bots).map((b) => b.room.leave()));
      },
    };
  },
};
