// Lag compensation with real SDK clients (docs/netcode.md): moves and shots through Colyseus'
// input channel, a PvP shooter whose view lags a simulated round trip behind the server, the
// rewind cap against forged render-time stamps, the per-player switch the aim load test uses, and
// boss-battle shots judged where the shooter saw the boss.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Room as SdkRoom } from "@colyseus/sdk";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { eventually, joined, serverBossRoom } from "../helpers/boss.js";
import { faceToFace, leaveAll, nextMessage, nextTick, pair, startBattle, type Duelist } from "../helpers/pvp.js";
import { simulateRoundTrip } from "../../loadtest/harness/simulatedLatency.js";
import { MAX_REWIND_MS } from "../../src/game/lagCompensation.js";
import type { PvpRoom } from "../../src/rooms/pvp/PvpRoom.js";
import type { BossRoom } from "../../src/rooms/boss/BossRoom.js";
import { ShooterInput } from "../../src/protocol/shooterInput.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterEach(() => leaveAll());
afterAll(() => t?.stop());

/** Records the lag of every bullet the room's simulation fires. */
function bulletLags(server: PvpRoom | BossRoom): number[] {
  const lags: number[] = [];
  type Shooting = { shoot(id: string, dx: number, dy: number, lagMs?: number): { ok: boolean; bullet?: { lagMs: number } } };
  const sim: Shooting = "arena" in server ? server.arena : server.battle;
  const shoot = sim.shoot.bind(sim);
  sim.shoot = (...args) => {
    const shot = shoot(...args);
    if (shot.ok && shot.bullet) lags.push(shot.bullet.lagMs);
    return shot;
  };
  return lags;
}

/** The room's input handle (typed: the reflected class has no defaults). */
const inputOf = (room: SdkRoom) => room.input({ type: ShooterInput });

/** One input through the SDK's input channel. */
function sendInput(room: SdkRoom, fields: Partial<ShooterInput>) {
  const input = inputOf(room);
  Object.assign(input.data, fields);
  input.send();
}

/** Fires one shot through the input channel along (dx, dy), once the fire rate allows; resolves when the opponent hears it. */
async function fire(shooter: Duelist, watcher: Duelist, server: PvpRoom, dx: number, dy: number) {
  while ((server.arena.players.get(shooter.sid)?.fireCharge ?? 0) < 1) await nextTick(server);
  const heard = nextMessage(watcher, "pvp_opponent_shot");
  const input = inputOf(shooter.room);
  input.data.shots += 1;
  input.data.aim_x = dx;
  input.data.aim_y = dy;
  input.send();
  return heard;
}

/** Until the SDK's clock has heard the server (an input is stamped only then). */
const synced = (room: SdkRoom) => eventually(() => room.clock.lastServerTime() > 0, "the SDK clock synchronised", 10_000);

/** Sends an input every step (as a game client does) until the SDK has measured the round trip. */
async function measuredRoundTrip(room: SdkRoom, atLeastMs: number) {
  const keepAlive = setInterval(() => inputOf(room).send(), 1000 / 30);
  try {
    await eventually(() => room.clock.smoothedRtt() >= atLeastMs, `an SDK round trip of ${atLeastMs} ms`, 10_000);
  } finally {
    clearInterval(keepAlive);
  }
}

describe("the input channel", () => {
  it("moves and shoots under the same rules as pvp_move / pvp_shoot", async () => {
    const { a, b, server } = await pair(t);
    await startBattle(a, b);
    const moved = nextMessage(b, "pvp_opponent_position");
    sendInput(a.room, { x: 2000, y: 300, moving: true }); // beyond the wall: clamped, and speed-capped per step
    const first = await moved;
    expect(first.x).toBeLessThanOrEqual(366);
    await eventually(() => server.arena.players.get(a.sid)!.x === 366, "P1 at the wall, never past it", 5000);
    const shot = await fire(a, b, server, 1, 0);
    expect(shot).toMatchObject({ dx: 1, dy: 0, speed: 720 });
    expect(server.arena.players.get(a.sid)).toMatchObject({ shots: 1, bullets: 29 });
  });

  it("refuses a shot over the fire rate with an error, as for messages", async () => {
    const { a, b, server } = await pair(t);
    await startBattle(a, b);
    const input = inputOf(a.room);
    for (let i = 0; i < 4; i++) {
      input.data.shots += 1;
      input.data.aim_x = 0;
      input.data.aim_y = -1;
      input.send();
    }
    const refused = await a.log.waitFor("error", (e) => e.code === "fire_rate");
    expect(refused).toMatchObject({ type: "input" });
    expect(server.arena.players.get(a.sid)!.shots).toBe(2); // the burst of two, then the cap
  });
});

describe("a shooter whose view lags 200 ms behind the server", () => {
  /** P2 runs up and down at full speed at the wall; P1 (200 ms round trip) fires where it sees P2. Resolves with hits per shot. */
  async function duel(compensated: boolean, shots: number) {
    const { a, b, server } = await pair(t, [], [{ bullets: 30, lag_compensation: compensated }]);
    await startBattle(a, b);
    faceToFace(server);
    simulateRoundTrip(a.room, 200);
    await measuredRoundTrip(a.room, 180);
    let up = true;
    const runner = setInterval(() => {
      const p = server.arena.players.get(b.sid);
      if (!p) return;
      if (p.y <= 120) up = false;
      if (p.y >= 480) up = true;
      b.room.send("pvp_move", { x: 434, y: up ? p.y - 15 : p.y + 15 });
    }, 1000 / 30);
    const lags = bulletLags(server);
    let hits = 0;
    b.room.onMessage("pvp_player_hit", () => hits++);
    try {
      for (let i = 0; i < shots && server.arena.phase === "battle"; i++) {
        await new Promise((r) => setTimeout(r, 300)); // a shot every 300 ms: under the fire rate
        const seen = a.room.state.players.get(b.sid)!;
        const self = a.room.state.players.get(a.sid)!;
        await fire(a, b, server, seen.x - self.x, seen.y - self.y);
        await nextTick(server);
        await nextTick(server);
      }
    } finally {
      clearInterval(runner);
    }
    return { hits, lags };
  }

  it("hits where it saw the target when compensated, misses when judged live", async () => {
    const on = await duel(true, 5);
    expect(on.lags.every((l) => l > 150 && l <= MAX_REWIND_MS)).toBe(true);
    expect(on.hits).toBeGreaterThanOrEqual(4);
    await leaveAll();
    const off = await duel(false, 5);
    expect(off.lags).toEqual([0, 0, 0, 0, 0]);
    expect(off.hits).toBeLessThanOrEqual(2);
  });
});

describe("forged render-time stamps", () => {
  /** A shooter whose SDK clock claims server time `claim(real)`: the stamp it puts on its inputs. */
  async function forged(claim: (real: number) => number) {
    const { a, b, server } = await pair(t);
    await startBattle(a, b);
    await synced(a.room);
    const clock = a.room.clock;
    a.room.clock = new Proxy(clock, {
      get: (target, key) => (key === "serverNow" ? () => claim(target.serverNow()) : Reflect.get(target, key)),
    });
    const lags = bulletLags(server);
    // A shot never reaches back before the battle's start: let two caps of the arena's own clock pass.
    const started = server.arena.now;
    await eventually(() => server.arena.now - started > 2 * MAX_REWIND_MS, "two caps of battle", 10_000);
    await fire(a, b, server, 0, -1);
    return lags[0];
  }

  it("a stamp from far in the past (the room's first moments) is judged at the cap", async () => {
    expect(await forged(() => 60)).toBe(MAX_REWIND_MS);
  });

  it("a stamp from the future is judged live", async () => {
    expect(await forged((real) => real + 60_000)).toBe(0);
  });

  it("a stamp that is not a number is judged live", async () => {
    expect(await forged(() => Number.NaN)).toBe(0);
  });
});

describe("boss battle", () => {
  it("a shot through the input channel carries the shooter's view age; a boss_player_shoot message is judged live", async () => {
    const { room, log } = await joined(t.joinNewRoom("boss", { bullets: 20 }));
    const server = serverBossRoom(room.roomId);
    const lags = bulletLags(server);
    simulateRoundTrip(room, 200);
    await measuredRoundTrip(room, 180);
    const input = inputOf(room);
    input.data.shots += 1;
    input.data.aim_x = 1;
    input.data.aim_y = 0;
    input.send();
    await eventually(() => lags.length === 1, "the input's shot");
    expect(lags[0]).toBeGreaterThan(150);
    expect(lags[0]).toBeLessThanOrEqual(MAX_REWIND_MS);
    room.send("boss_player_shoot", { dx: 0, dy: 1 });
    await eventually(() => lags.length === 2, "the message's shot");
    expect(lags[1]).toBe(0);
    expect(log.all("error")).toEqual([]);
    await room.leave();
  });
});
