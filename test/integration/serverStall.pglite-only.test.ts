// A stall of the server is not its players' flood (issue 29), and neither is a player's own outage
// (issue 30): the real entry point in a child process, players in a duel, a boss battle and a
// SlitherRush arena each sending 30 inputs/s. SIGSTOP holds the server for 10 s while they keep
// sending; after SIGCONT every frame of the pause is read at once, and nobody is cut, no duel is
// forfeited. Then one duellist holds its inputs 7 s and sends them together: it keeps its seat.
// A true flood is still cut (4002) with an info line naming its reason.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as SdkClient, type Room } from "@colyseus/sdk";
import { bootEntry, freePort, migratedDataDir, waitFor, type ServerProcess } from "../helpers/process.js";
import { MessageLog } from "../helpers/boss.js";
import { ShooterInput } from "../../src/protocol/shooterInput.js";

// STALL_MS and STALL_DUELS measure longer stalls and more players (docs/security.md); CI runs the defaults.
const STALL_MS = Number(process.env.STALL_MS ?? 10_000);
const EXTRA_DUELS = Number(process.env.STALL_DUELS ?? 1) - 1;
const OUTAGE_MS = 7000;
const INPUT_HZ = 30;

const running: ServerProcess[] = [];
const stoppers: Array<() => void> = [];
afterAll(async () => {
  for (const stop of stoppers) stop();
  await Promise.all(running.map((p) => p.stop("SIGKILL")));
});

interface Player {
  name: string;
  room: Room;
  log: MessageLog;
  closedWith?: number;
  /** Close codes of connections the SDK lost and tried to re-establish (its automatic reconnection). */
  drops: number[];
  sent: number;
  /** A request the room answers, and the message that answers it: proof the server read what came before. */
  probe(): Promise<unknown>;
}

function player(name: string, room: Room, probe: (p: Player) => Promise<unknown>): Player {
  const p: Player = { name, room, log: new MessageLog(room), drops: [], sent: 0, probe: () => probe(p) };
  room.onLeave((code) => (p.closedWith = code));
  room.onDrop((code) => p.drops.push(code));
  return p;
}

/** Sends 30 frames a second, as /play does, until the test ends (catching up when this process's timers run late). */
function keepSending(p: Player, send: (i: number) => void): void {
  const start = performance.now();
  const timer = setInterval(() => {
    const due = Math.floor(((performance.now() - start) * INPUT_HZ) / 1000);
    while (p.sent < due && p.room.connection.isOpen) send(p.sent++);
  }, 1000 / INPUT_HZ);
  stoppers.push(() => clearInterval(timer));
}

/**
 * Each input moves a little and, every 8th, fires: the shooter input of /play. Duellists fire
 * upwards, where nobody stands: a knock-out would end their duel whatever the guard does.
 */
function shooterInputs(p: Player, aim = { aim_x: 1, aim_y: 0 }): void {
  const input = p.room.input({ type: ShooterInput });
  keepSending(p, (i) => {
    Object.assign(input.data, { x: 100 + (i % 50), y: 300, moving: true, shots: Math.floor(i / 8), ...aim });
    input.send();
  });
}

let proc: ServerProcess;
let ws: string;
const players: Player[] = [];
let a: Player;
let b: Player;
const duellists: Player[] = [];

beforeAll(async () => {
  const env = { PORT: String(await freePort()), SAMPLE_PORT: "0", DATA_DIR: await migratedDataDir("snakes-stall-"), LOG_LEVEL: "info" };
  ({ proc } = await bootEntry(env, running));
  ws = `ws://127.0.0.1:${env.PORT}`;
  const pvpProbe = async (p: Player) => {
    const answer = p.log.waitFor("pvp_room_status", undefined, 20_000);
    p.room.send("pvp_get_status", {});
    return answer;
  };
  a = player("duellist a", await new SdkClient(ws).joinOrCreate("pvp", { bullets: 30 }), pvpProbe);
  b = player("duellist b", await new SdkClient(ws).joinById(a.room.roomId, { bullets: 30 }), pvpProbe);
  const duel = async (x: Player, y: Player) => {
    await Promise.all([x.log.waitFor("pvp_match_ready"), y.log.waitFor("pvp_match_ready")]);
    const started = Promise.all([x.log.waitFor("pvp_battle_start"), y.log.waitFor("pvp_battle_start")]);
    x.room.send("pvp_ready", {});
    y.room.send("pvp_ready", {});
    await started;
  };
  await duel(a, b);
  for (let i = 0; i < EXTRA_DUELS; i++) {
    const x = player(`duellist ${i}x`, await new SdkClient(ws).joinOrCreate("pvp", { bullets: 30 }), pvpProbe);
    const y = player(`duellist ${i}y`, await new SdkClient(ws).joinById(x.room.roomId, { bullets: 30 }), pvpProbe);
    await duel(x, y);
    duellists.push(x, y);
  }
  const bossProbe = async (p: Player) => {
    const answer = p.log.waitFor("boss_room_players", (m) => m.playerCount >= 1, 20_000);
    p.room.send("boss_get_players", {});
    return answer;
  };
  const boss = player("boss player", await new SdkClient(ws).joinOrCreate("boss", { bullets: 20 }), bossProbe);
  const snake = player("snake", await new SdkClient(ws).joinOrCreate("slitherrush", {}), async (p) => {
    const answer = p.log.waitFor("slitherrush_joined", undefined, 20_000);
    p.room.send("slitherrush_join", {});
    return answer;
  });
  await snake.log.waitFor("slitherrush_joined");
  duellists.unshift(a, b);
  players.push(...duellists, boss, snake);
  for (const p of duellists) shooterInputs(p, { aim_x: 0, aim_y: -1 });
  shooterInputs(boss);
  keepSending(snake, (i) => snake.room.send("slitherrush_input", { direction: { x: Math.cos(i / 30), y: Math.sin(i / 30) }, shoot: i % 10 === 0 }));
  // Everyone is sending and answered before the pause.
  await Promise.all(players.map((p) => p.probe()));
}, 120_000);

const cutLines = () => proc.stdout().split("\n").filter((l) => l.includes("cut a client") || l.includes("refused a WebSocket frame"));

describe("frames that arrive together after a silence are not a flood", () => {
  it(`a ${STALL_MS / 1000} s server stall (SIGSTOP) while every player sends ${INPUT_HZ} inputs/s: nobody is cut, no forfeit`, async () => {
    console.log(`stall ${STALL_MS} ms, ${players.length} clients sending ${INPUT_HZ}/s`);
    const before = players.map((p) => p.sent);
    proc.child.kill("SIGSTOP");
    await new Promise((resolve) => setTimeout(resolve, STALL_MS)); // the stall itself: what is under test
    proc.child.kill("SIGCONT");
    expect(players.map((p, i) => p.sent - before[i]).every((n) => n >= (INPUT_HZ * STALL_MS) / 1000 - 30)).toBe(true);
    // Each answer comes after the whole backlog of its connection was read.
    await Promise.all(players.map((p) => p.probe()));
    expect(players.map((p) => [p.name, p.closedWith, p.drops])).toEqual(players.map((p) => [p.name, undefined, []]));
    expect(cutLines()).toEqual([]);
    for (const d of duellists) {
      expect(d.log.all("pvp_player_left")).toEqual([]);
      expect(d.log.all("pvp_battle_end")).toEqual([]);
    }
  }, STALL_MS + 50_000);

  it(`a duellist whose inputs were held ${OUTAGE_MS / 1000} s and then arrive together keeps its seat`, async () => {
    const connection = a.room.connection as unknown as { send(data: unknown): void };
    const send = connection.send.bind(connection);
    const held: unknown[] = [];
    // Copied as a socket's buffer would hold them (the SDK reuses its encoding buffer).
    connection.send = (data) => void held.push(data instanceof Uint8Array ? data.slice() : data);
    const heldFrom = a.sent;
    await waitFor(async () => (a.sent - heldFrom >= (INPUT_HZ * OUTAGE_MS) / 1000 ? true : undefined), OUTAGE_MS + 5000, "7 s of held inputs");
    connection.send = send;
    for (const frame of held) send(frame);
    expect(held.length).toBeGreaterThanOrEqual((INPUT_HZ * OUTAGE_MS) / 1000);
    await a.probe();
    await b.probe();
    expect([a.closedWith, a.drops]).toEqual([undefined, []]);
    expect(cutLines()).toEqual([]);
    expect(b.log.all("pvp_player_left")).toEqual([]);
    expect(b.log.all("pvp_battle_end")).toEqual([]);
  }, 30_000);

  it("a flood far over the budget from a player that was sending normally is cut (4002), logged at info with its reason", async () => {
    const flooder = players.find((p) => p.name === "boss player")!;
    const closed = new Promise<number>((resolve) => flooder.room.onLeave(resolve));
    // 5x the boss room's budget (150 frames/s) for up to a second, paced every 10 ms, on top of its inputs.
    const started = performance.now();
    let flooded = 0;
    const flood = setInterval(() => {
      const due = Math.min(750, Math.floor((performance.now() - started) * 0.75));
      while (flooded < due && flooder.room.connection.isOpen) (flooded++, flooder.room.send("boss_get_players", {}));
    }, 10);
    const code = await closed;
    clearInterval(flood);
    console.log(`flood of 750 frames/s cut after ${Math.round(performance.now() - started)} ms (${flooded} frames sent)`);
    expect(code).toBe(4002);
    expect(flooded).toBeLessThan(750);
    const line = await waitFor(async () => cutLines()[0], 5000, "the cut's log line");
    expect(JSON.parse(line)).toMatchObject({ level: 30, reason: "frame_flood", msg: "cut a client sending frames over its budget" });
    // The others play on.
    await a.probe();
    expect(a.closedWith).toBeUndefined();
  }, 30_000);
});
