// SlitherRush: arenas of 32 guest players joined with joinOrCreate (matchmaking fills the oldest
// arena first). Each player steers 10 times a second (a random turn of 0.1–0.6 rad, back towards the
// middle near a wall) and holds the trigger in half of its inputs. Latency: an input → the first of
// the sender's own snapshots whose newest head step goes the new way (the input applied and sent
// back); an input replaced before it showed is withdrawn, not lost. Scenario metrics: snapshots per
// second per client (mean, min), leaderboard updates per second per client, snapshot bytes.
import { SLITHERRUSH_ROOM } from "../../src/protocol/slitherrush.js";
import { ARENA_HEIGHT, ARENA_WIDTH, MAX_PLAYERS, TICK_RATE } from "../../src/game/slitherrush/constants.js";
import { ABSOLUTE_POINT, NO_SLOT, SNAKE_FULL } from "../../src/game/slitherrush/wireFormat.js";
import { LeanRoom, messagePrefix } from "../harness/leanClient.js";
import type { RunningLoad, Scenario, ScenarioContext } from "../harness/scenario.js";
import { Ticker } from "./common.js";

const STEER_EVERY_MS = 100;
const WALL_MARGIN = 200;
/** A step of 7.5 px travels as ~75 tenths: its direction is good to ~0.015 rad. */
const SAME_HEADING_RAD = 0.05;

const JOIN_CONCURRENCY = 8;

const INPUT = messagePrefix("slitherrush_input");

interface Bot {
  room: LeanRoom;
  heading: number;
  /** The latest input not yet seen applied: when it left and which way it points. */
  pendingAt: number;
  pendingHeading: number;
  nextSteer: number;
  /** Arrivals inside the measured window. */
  snapshots: number;
  leaderboards: number;
  snapshotBytes: number;
  /** The head, as far as this bot tracks it from its own snapshots (px). */
  x: number;
  y: number;
}

/** What a bot reads of its own snake in a snapshot (tenths of a pixel). */
export interface OwnRecord {
  /** "full": `x, y` is the head; "move": the head moved by `sumDx, sumDy`, the newest step being `dx, dy`. */
  kind: "none" | "full" | "move";
  x: number;
  y: number;
  sumDx: number;
  sumDy: number;
  dx: number;
  dy: number;
}

/**
 * The receiver's own snake record in a snapshot, read in place without decoding the rest
 * (docs/slitherrush.md has the layout). Writes into `out` (no allocation per snapshot).
 */
export function readOwnRecord(b: Buffer, start: number, end: number, out: OwnRecord): OwnRecord {
  out.kind = "none";
  let o = start + 5;
  const self = b[o];
  if (self === NO_SLOT) return out;
  o += 11; // self block + player count
  for (let n = b[o++]; n > 0; n--) {
    o += 2;
    o += 1 + b[o];
    o += 1 + b[o];
  }
  for (let n = b[o++]; n > 0 && o < end; n--) {
    const slot = b[o];
    const full = (b[o + 1] & SNAKE_FULL) !== 0;
    o += 3;
    const mine = slot === self;
    if (full) {
      if (mine) ((out.kind = "full"), (out.x = b.readUInt16LE(o)), (out.y = b.readUInt16LE(o + 2)));
      o += 4;
    } else if (mine) ((out.kind = "move"), (out.sumDx = out.sumDy = out.dx = out.dy = 0));
    for (let k = b[o++]; k > 0; k--) {
      const dx = (b[o] << 24) >> 24;
      if (dx === ABSOLUTE_POINT) {
        if (mine && !full) ((out.kind = "full"), (out.x = b.readUInt16LE(o + 1)), (out.y = b.readUInt16LE(o + 3)));
        o += 5;
      } else {
        const dy = (b[o + 1] << 24) >> 24;
        if (mine && out.kind === "move") ((out.sumDx += dx), (out.sumDy += dy), (out.dx = dx), (out.dy = dy));
        o += 2;
      }
    }
    if (mine) return out;
  }
  return out;
}

function angleDistance(a: number, b: number): number {
  const d = Math.abs(a - b) % (2 * Math.PI);
  return d > Math.PI ? 2 * Math.PI - d : d;
}

export const slitherrush: Scenario = {
  name: "slitherrush",
  summary: "arenas of 32 snakes: steering 10/s, shooting half the time; input → own snapshot; snapshots/s per client",
  defaultClients: 32 * MAX_PLAYERS,
  clientStep: MAX_PLAYERS,
  roomName: SLITHERRUSH_ROOM,
  tickBudgetMs: 1000 / TICK_RATE,
  async start(ctx: ScenarioContext): Promise<RunningLoad> {
    const { recorder } = ctx;
    const bots: Bot[] = [];
    const record: OwnRecord = { kind: "none", x: 0, y: 0, sumDx: 0, sumDy: 0, dx: 0, dy: 0 };
    const handlers = (self: () => Bot | undefined) => ({
      slitherrush_joined: () => {},
      slitherrush_death: () => {},
      slitherrush_leaderboard_update: () => {
        const bot = self();
        if (bot && recorder.isOpen) bot.leaderboards++;
      },
      slitherrush_state: (frame: Buffer, start: number, end: number) => {
        const bot = self();
        if (!bot) return;
        if (recorder.isOpen) {
          bot.snapshots++;
          bot.snapshotBytes += end - start;
        }
        const own = readOwnRecord(frame, start, end, record);
        if (own.kind === "full") {
          bot.x = own.x / 10;
          bot.y = own.y / 10;
          return;
        }
        if (own.kind !== "move") return;
        bot.x += own.sumDx / 10;
        bot.y += own.sumDy / 10;
        if (bot.pendingAt && (own.dx !== 0 || own.dy !== 0) && angleDistance(Math.atan2(own.dy, own.dx), bot.pendingHeading) < SAME_HEADING_RAD) {
          recorder.delivered(bot.pendingAt);
          bot.pendingAt = 0;
        }
      },
    });

    // joinOrCreate fills the oldest arena with a seat first; a few joins at a time, like players arriving.
    let joinedCount = 0;
    let next = 0;
    const joinOne = async (n: number) => {
      let bot: Bot | undefined;
      const heading = Math.random() * 2 * Math.PI;
      const room = await LeanRoom.join({
        base: ctx.base,
        method: "joinOrCreate",
        name: SLITHERRUSH_ROOM,
        options: { username: `lt${n}`, direction: { x: Math.cos(heading), y: Math.sin(heading) } },
        recorder,
        on: handlers(() => bot),
        onClose: (reason) => recorder.error(`disconnected: ${reason}`),
      });
      bot = { room, heading, pendingAt: 0, pendingHeading: 0, nextSteer: 0, snapshots: 0, leaderboards: 0, snapshotBytes: 0, x: ARENA_WIDTH / 2, y: ARENA_HEIGHT / 2 };
      bots.push(bot);
      if (++joinedCount % 128 === 0) ctx.log(`  joined ${joinedCount}/${ctx.clients} players`);
    };
    await Promise.all(
      Array.from({ length: JOIN_CONCURRENCY }, async () => {
        while (next < ctx.clients) await joinOne(next++);
      }),
    );
    const arenas = Math.ceil(ctx.clients / MAX_PLAYERS);

    const now = performance.now();
    for (const bot of bots) bot.nextSteer = now + Math.random() * STEER_EVERY_MS;
    const ticker = new Ticker((t) => {
      for (const bot of bots) {
        if (t < bot.nextSteer) continue;
        bot.nextSteer = Math.max(bot.nextSteer + STEER_EVERY_MS, t - STEER_EVERY_MS);
        const nearWall = bot.x < WALL_MARGIN || bot.y < WALL_MARGIN || bot.x > ARENA_WIDTH - WALL_MARGIN || bot.y > ARENA_HEIGHT - WALL_MARGIN;
        const turn = (0.1 + Math.random() * 0.5) * (Math.random() < 0.5 ? -1 : 1);
        bot.heading = nearWall ? Math.atan2(ARENA_HEIGHT / 2 - bot.y, ARENA_WIDTH / 2 - bot.x) : bot.heading + turn;
        // A heading not yet seen applied is replaced: withdrawn, not lost.
        if (bot.pendingAt) recorder.cancel(bot.pendingAt, 1);
        const sentAt = performance.now();
        bot.pendingAt = sentAt;
        bot.pendingHeading = Math.atan2(Math.sin(bot.heading), Math.cos(bot.heading));
        bot.room.send(INPUT, { direction: { x: Math.cos(bot.heading), y: Math.sin(bot.heading) }, shoot: Math.random() < 0.5 });
        recorder.input(sentAt, 1);
      }
    });
    return {
      stop: () => ticker.stop(),
      close: async () => {
        ticker.stop();
        await Promise.all(bots.map((b) => b.room.leave()));
      },
      metrics(seconds: number) {
        const perClient = bots.map((b) => b.snapshots / seconds);
        const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / Math.max(1, xs.length);
        const round = (n: number, d = 2) => Math.round(n * 10 ** d) / 10 ** d;
        const figures = {
          arenas,
          snapshots_per_client_per_s: { mean: round(mean(perClient)), min: round(Math.min(...perClient)) },
          clients_below_14_5_snapshots_per_s: perClient.filter((r) => r < 14.5).length,
          leaderboard_updates_per_client_per_s: round(mean(bots.map((b) => b.leaderboards / seconds))),
          snapshot_bytes_per_client_per_s: round(mean(bots.map((b) => b.snapshotBytes / seconds)), 0),
        };
        // The next window (--windows) counts from zero.
        for (const b of bots) b.snapshots = b.leaderboards = b.snapshotBytes = 0;
        return figures;
      },
    };
  },
};
