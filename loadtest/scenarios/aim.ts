// Aim: what lag compensation is worth (docs/netcode.md). Duels of a shooter and a target, both SDK
// clients. The target walks a seeded stop-and-go path near the wall (pvp_move every step, no added
// latency). The shooter stands at the wall with a simulated round trip (its sends and receipts wait
// RTT/2 each inside the client) and fires through the input channel at the rate cap, aimed exactly
// where its own view shows the target: the opponent's synchronized position interpolated at its
// render time (server clock − INTERPOLATION_MS − RTT/2, the instant the SDK stamps on the input).
// Duels are spread over round trips {0, 100, 200} ms × compensation {on, off} (off: the join option
// `lag_compensation: false`, which only this test uses). Each shooter fires its 30 guest bullets,
// rematching after knockouts; the window should outlast that (the default 3 s + 20 s does).
// Reports scenario_metrics.hit_rate_pct = {"0": {on, off}, "100": {…}, "200": {…}}: hits per
// accepted shot, as counted by the targets. An input here is a shot.
import { Client, type Room } from "@colyseus/sdk";
import { PVP_ROOM, PvpErrorCodes, type PvpRoomType } from "../../src/protocol/pvp.js";
import { ERROR_MESSAGE } from "../../src/protocol/common.js";
import { ShooterInput } from "../../src/protocol/shooterInput.js";
import { FIRE_RATE_PER_SECOND, PLAYER_MAX_SPEED, SIMULATION_HZ } from "../../src/game/pvp/constants.js";
import { laneOf } from "../../src/game/pvp/movement.js";
import { randomBetween, seededRng, type Rng } from "../../src/game/rng.js";
import type { RunningLoad, Scenario, ScenarioContext } from "../harness/scenario.js";
import { simulateRoundTrip } from "../harness/simulatedLatency.js";
import { joinAll } from "./common.js";

/** How far in the past the shooter draws its opponent (as /play does): two patches at 20 Hz. */
export const INTERPOLATION_MS = 100;
const BULLETS = 30;
const STEP_MS = 1000 / SIMULATION_HZ;
/** At the rate cap, a hair slower so that a jittery tick never refuses a shot. */
const FIRE_EVERY_MS = 1000 / FIRE_RATE_PER_SECOND + 5;
const SHOOTER_SPOT = { x: 330, y: 300 };
const DEFAULT_RTTS = [0, 100, 200];
const MODES = ["on", "off"] as const;
type Mode = (typeof MODES)[number];

interface Sample {
  t: number;
  x: number;
  y: number;
}

interface Duel {
  rtt: number;
  mode: Mode;
  shooter: Room<PvpRoomType>;
  target: Room<PvpRoomType>;
  /** Counted at the target, which has no added latency. */
  shots: number;
  hits: number;
  timer?: NodeJS.Timeout;
}

/** The opponent's position at server time t, interpolated between the patches received (what the shooter draws). */
function viewAt(samples: Sample[], t: number): Sample | undefined {
  if (samples.length === 0) return undefined;
  if (t <= samples[0].t) return samples[0];
  for (let i = samples.length - 1; i > 0; i--) {
    const a = samples[i - 1];
    const b = samples[i];
    if (a.t <= t) {
      if (t >= b.t) return b;
      const f = (t - a.t) / (b.t - a.t);
      return { t, x: a.x + (b.x - a.x) * f, y: a.y + (b.y - a.y) * f };
    }
  }
  return samples[samples.length - 1];
}

/** The target's path: at full speed to a random point near the wall, then a pause of 0.3–0.9 s. */
function stopAndGo(rng: Rng) {
  const lane = laneOf(2);
  let goal: { x: number; y: number } | null = null;
  let restUntil = 0;
  return (now: number, at: { x: number; y: number }) => {
    if (goal && Math.hypot(goal.x - at.x, goal.y - at.y) < 1) {
      goal = null;
      restUntil = now + randomBetween(rng, 300, 900);
    }
    if (!goal && now >= restUntil) goal = { x: randomBetween(rng, lane.minX, lane.minX + 220), y: randomBetween(rng, lane.minY + 60, lane.maxY - 60) };
    if (!goal) return null;
    const d = Math.hypot(goal.x - at.x, goal.y - at.y);
    const f = Math.min(1, (PLAYER_MAX_SPEED * STEP_MS) / 1000 / d);
    return { x: at.x + (goal.x - at.x) * f, y: at.y + (goal.y - at.y) * f };
  };
}

export const aim: Scenario = {
  name: "aim",
  summary: "lag compensation: shooters with a simulated round trip aim where they see a moving target; hit rate per RTT, on/off",
  defaultClients: 96,
  clientStep: 12,
  roomName: PVP_ROOM,
  tickBudgetMs: 1000 / SIMULATION_HZ,
  async start(ctx: ScenarioContext): Promise<RunningLoad> {
    const { recorder } = ctx;
    const rtts = ctx.args.rtts ? ctx.args.rtts.split(",").map(Number) : DEFAULT_RTTS;
    if (rtts.some((r) => !Number.isFinite(r) || r < 0)) throw new Error("--rtts takes round trips in ms, e.g. 0,100,200");
    const configs = rtts.flatMap((rtt) => MODES.map((mode) => ({ rtt, mode })));
    const perConfig = Math.max(1, Math.floor(ctx.clients / 2 / configs.length));
    const sdk = new Client(ctx.base);
    const duels: Duel[] = [];
    const plan = Array.from({ length: perConfig * configs.length }, (_, i) => configs[i % configs.length]);
    let seed = Number(ctx.args.seed ?? 1);

    const setUp = async ({ rtt, mode }: { rtt: number; mode: Mode }) => {
      // Duels are made by matchmaking (no `create`); one is set up at a time, so this one is new.
      const shooter = await sdk.joinOrCreate<PvpRoomType>(PVP_ROOM, { username: `aim${duels.length}`, bullets: BULLETS, lag_compensation: mode === "on" });
      const target = await sdk.joinById<PvpRoomType>(shooter.roomId, { username: `target${duels.length}`, bullets: BULLETS });
      const duel: Duel = { rtt, mode, shooter, target, shots: 0, hits: 0 };
      duels.push(duel);
      for (const room of [shooter, target]) {
        room.onMessage("*", () => {});
        room.onMessage(ERROR_MESSAGE, (e: { code: string; type?: string }) => {
          const expected: string[] = [PvpErrorCodes.notInBattle, PvpErrorCodes.battleActive, PvpErrorCodes.noBullets, PvpErrorCodes.fireRate];
          if (!expected.includes(e.code)) recorder.error(`error message: ${e.code}${e.type ? ` (${e.type})` : ""}`);
        });
        room.onMessage("pvp_battle_end", () => room.send("pvp_ready", {})); // rematch while bullets last
        room.onLeave((code) => {
          if (duel.timer) recorder.error(`disconnected: ${code}`);
        });
      }
      target.onMessage("pvp_opponent_shot", () => duel.shots++);
      target.onMessage("pvp_player_hit", (hit: { shooter: string }) => {
        if (hit.shooter === shooter.sessionId) duel.hits++;
      });
      simulateRoundTrip(shooter, rtt);
      play(duel, seededRng(seed++));
      shooter.send("pvp_ready", {});
      target.send("pvp_ready", {});
    };

    const play = (duel: Duel, rng: Rng) => {
      const { shooter, target } = duel;
      const input = shooter.input({ type: ShooterInput, renderDelay: INTERPOLATION_MS });
      const samples: Sample[] = [];
      shooter.onStateChange(() => {
        const t = shooter.clock.lastServerTime();
        for (const [sid, p] of shooter.state.players) {
          if (sid === shooter.sessionId) continue;
          const last = samples[samples.length - 1];
          if (last && last.t >= t) samples.pop();
          samples.push({ t, x: p.x, y: p.y });
          if (samples.length > 64) samples.shift();
        }
      });
      const path = stopAndGo(rng);
      let nextShot = performance.now() + 500;
      duel.timer = setInterval(() => {
        const now = performance.now();
        // The target: one step of its path (read from its own, undelayed state).
        const me = target.state.players?.get(target.sessionId);
        const step = me && path(now, me);
        if (step) target.send("pvp_move", step);
        // The shooter: holds its spot; at the rate cap, fires where it sees the target.
        const self = shooter.state.players?.get(shooter.sessionId);
        if (!self || shooter.state.phase !== "battle") return;
        Object.assign(input.data, { x: SHOOTER_SPOT.x, y: SHOOTER_SPOT.y, moving: true });
        const seen = viewAt(samples, shooter.clock.serverNow() - INTERPOLATION_MS - shooter.clock.smoothedRtt() / 2);
        if (seen && now >= nextShot && self.bullets > 0) {
          nextShot = now + FIRE_EVERY_MS;
          input.data.shots += 1;
          input.data.aim_x = seen.x - self.x;
          input.data.aim_y = seen.y - self.y;
          recorder.input(now);
        }
        input.send();
      }, STEP_MS);
    };

    await joinAll(ctx, plan, setUp, 1); // one duel at a time: two half-empty duels would be re-paired
    const stopAll = () => {
      for (const d of duels) {
        clearInterval(d.timer);
        d.timer = undefined;
      }
    };
    return {
      stop: stopAll,
      close: async () => {
        stopAll();
        await Promise.all(duels.flatMap((d) => [d.shooter.leave(), d.target.leave()]).map((p) => p.catch(() => undefined)));
      },
      metrics: () => {
        const hitRate: Record<string, Partial<Record<Mode, number>>> = {};
        const shots: Record<string, Partial<Record<Mode, number>>> = {};
        const rttSeen: Record<string, number> = {};
        for (const { rtt, mode } of configs) {
          const of = duels.filter((d) => d.rtt === rtt && d.mode === mode);
          const s = of.reduce((n, d) => n + d.shots, 0);
          const h = of.reduce((n, d) => n + d.hits, 0);
          (hitRate[rtt] ??= {})[mode] = s ? Math.round((h / s) * 1000) / 10 : 0;
          (shots[rtt] ??= {})[mode] = s;
          rttSeen[rtt] = Math.round(of.reduce((n, d) => n + d.shooter.clock.smoothedRtt(), 0) / Math.max(1, of.length));
        }
        return { hit_rate_pct: hitRate, shots, shooter_smoothed_rtt_ms: rttSeen, interpolation_ms: INTERPOLATION_MS, duels_per_config: perConfig };
      },
    };
  },
};
