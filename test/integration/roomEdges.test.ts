// The rooms' edges against a hostile client (docs/security.md, "Room messages", "Presence",
// "Reconnection"): what one member's presence toggling makes the others receive is bounded and the
// toggler is cut; a reconnection with a live player's token is refused without touching its seat;
// requests of unknown types count against the message budget like any other message.
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import type { Room as SdkRoom } from "@colyseus/sdk";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { eventually, joined, type MessageLog } from "../helpers/boss.js";
import { captureLogs, type CapturedLogs } from "../helpers/logs.js";
import { leaveAll, pair } from "../helpers/pvp.js";
import { slitherPlayer } from "../helpers/slitherrush.js";
import { HARD_MESSAGES_PER_SECOND, MESSAGE_RATE_LIMIT, PRESENCE_RATE_LIMIT } from "../../src/rooms/kit/guard.js";

let t: TestApp;
let logs: CapturedLogs;
beforeAll(async () => {
  logs = captureLogs();
  t = await startTestApp({}, { logger: logs.logger });
});
afterEach(() => leaveAll());
afterAll(() => t?.stop());

/** Enough toggles to pass the presence burst, use up the patience, and be cut: one second at 24/s. */
const TOGGLES = 24;
const closeCode = (room: SdkRoom) => new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));
const cutLines = (room: string) => logs.lines.filter((l) => l.room === room && l.msg === "cut a client that kept sending over a limit");

/** The toggler's own errors: one notice when it first went over the limit, one when it was cut. */
function expectCut(log: MessageLog, types: readonly string[]) {
  expect(log.all("error")).toEqual([
    { code: "rate_limited", message: "Too many messages: some were dropped", type: expect.toBeOneOf(types) },
    { code: "rate_limited", message: "Too many presence messages: disconnected", type: expect.toBeOneOf(types) },
  ]);
}

describe("presence toggling", () => {
  it("boss_lobby: the others get one notice and a few coalesced lists for a toggler, which is cut (4002) and logged at warn", async () => {
    const first = await joined(t.joinNewRoom("boss_lobby", { username: "Watcher" }));
    const others = [first];
    for (let i = 1; i < 10; i++) others.push(await joined(t.sdk().joinById(first.room.roomId, { username: `Member${i}` })));
    const toggler = await joined(t.sdk().joinById(first.room.roomId, { username: "Toggler" }));
    // The toggler's join has been told: its notice goes out before the list naming it.
    await first.log.waitFor("boss_lobby_members", (m) => m.members.length === 11);
    first.log.clear();

    const closed = closeCode(toggler.room);
    for (let i = 0; i < TOGGLES; i++) toggler.room.send(i % 2 === 0 ? "boss_leave_lobby" : "boss_join_lobby");
    expect(await closed).toBe(4002);
    expectCut(toggler.log, ["boss_leave_lobby", "boss_join_lobby"]);

    // A newcomer's join is told in a later flush than anything about the toggler: once the
    // watcher has it, it has everything the toggling made it receive.
    await joined(t.sdk().joinById(first.room.roomId, { username: "Newcomer" }));
    await first.log.waitFor("boss_chat_message", (m) => m.content === "Newcomer (guest) joined the lobby");
    await first.log.waitFor("boss_lobby_members", (m) => m.members.some((x: { username: string }) => x.username === "Newcomer (guest)"));
    const aboutToggler = first.log.all("boss_chat_message").filter((m) => m.content.startsWith("Toggler"));
    expect(aboutToggler.length).toBeGreaterThanOrEqual(1);
    expect(aboutToggler.length).toBeLessThanOrEqual(2);
    // At most a list (and count) per flush: at once, one more within PRESENCE_FLUSH_MS, the newcomer's.
    expect(first.log.all("boss_lobby_members").length).toBeLessThanOrEqual(3);
    expect(first.log.all("boss_lobby_player_count").length).toBeLessThanOrEqual(3);
    expect(cutLines("boss_lobby")).toMatchObject([{ level: 40, limit: "presence", sid: toggler.room.sessionId }]);
    await Promise.all(others.map((o) => o.room.leave()));
  });

  it("boss: away/returned toggling reaches the others once, and the toggler is cut", async () => {
    const first = await joined(t.joinNewRoom("boss", { bullets: 30 }));
    const toggler = await joined(t.sdk().joinById(first.room.roomId, { bullets: 30 }));
    const closed = closeCode(toggler.room);
    for (let i = 0; i < TOGGLES; i++) toggler.room.send(i % 2 === 0 ? "boss_player_away" : "boss_player_returned", {});
    expect(await closed).toBe(4002);
    expectCut(toggler.log, ["boss_player_away", "boss_player_returned"]);
    // Its departure ends what was pending about it: nothing more about it can come after this.
    await first.log.waitFor("boss_player_left", (m) => m.player.sid === toggler.room.sessionId);
    expect([...first.log.all("boss_player_away"), ...first.log.all("boss_player_returned")]).toHaveLength(1);
    await first.room.leave();
  });

  it("pvp: away/returned toggling reaches the opponent once, and the toggler is cut", async () => {
    const { a, b } = await pair(t);
    const closed = closeCode(a.room);
    for (let i = 0; i < TOGGLES; i++) a.room.send(i % 2 === 0 ? "pvp_player_away" : "pvp_player_returned", {});
    expect(await closed).toBe(4002);
    expectCut(a.log, ["pvp_player_away", "pvp_player_returned"]);
    await b.log.waitFor("pvp_opponent_left", (m) => m.sid === a.sid);
    expect([...b.log.all("pvp_player_away"), ...b.log.all("pvp_player_returned")]).toHaveLength(1);
  });

  it("a player switching tabs now and then is told every time and never cut", async () => {
    const first = await joined(t.joinNewRoom("boss", { bullets: 30 }));
    const player = await joined(t.sdk().joinById(first.room.roomId, { bullets: 30 }));
    const told = { boss_player_away: 0, boss_player_returned: 0 };
    for (let i = 0; i < PRESENCE_RATE_LIMIT.burst - 1; i++) {
      const type = i % 2 === 0 ? "boss_player_away" : "boss_player_returned";
      player.room.send(type, {});
      const n = ++told[type];
      await first.log.waitFor(type, () => first.log.all(type).length === n);
    }
    expect(player.log.all("error")).toEqual([]);
    await Promise.all([first.room.leave(), player.room.leave()]);
  });
});

describe("a reconnection with the token of a connected player", () => {
  /** Tries to take `room`'s seat with its token; the attempt is refused and `room` keeps being served. */
  async function refusedAndUntouched(room: SdkRoom, log: MessageLog, ask: () => void, answer: string) {
    let left: number | undefined;
    room.onLeave((code) => (left = code));
    const attempt = await t
      .sdk()
      .reconnect(room.reconnectionToken)
      .then((taken) => taken.leave().then(() => "reconnected"))
      .catch((err: { code?: number }) => err.code);
    // Colyseus' 524 reaches the client as 410 reconnection_expired (src/http/matchmake.ts: never a 52x).
    expect(attempt).toBe(410);
    log.clear();
    ask();
    await log.waitFor(answer);
    expect(left).toBeUndefined();
    expect(logs.lines.some((l) => l.msg === "refused a reconnection to a seat whose client is connected" && l.sid === room.sessionId && l.level === 30)).toBe(true);
  }

  it("boss: is refused (410) and the live player keeps its connection and seat", async () => {
    const a = await joined(t.joinNewRoom("boss", { bullets: 30 }));
    await refusedAndUntouched(a.room, a.log, () => a.room.send("boss_get_players"), "boss_room_players");
    await a.room.leave();
  });

  it("pvp: is refused (410) and the live duelist keeps its connection and seat", async () => {
    const { a } = await pair(t);
    await refusedAndUntouched(a.room, a.log, () => a.room.send("pvp_get_status", {}), "pvp_room_status");
  });

  it("slitherrush: is refused (410) and the live snake keeps its connection", async () => {
    const p = await slitherPlayer(t.sdk().joinOrCreate("slitherrush", {}));
    await refusedAndUntouched(p.room, p.log, () => p.room.send("slitherrush_join", {}), "slitherrush_joined");
    await p.room.leave();
  });

  it("boss_lobby and mode_select: is refused (410) and the member stays", async () => {
    const member = await joined(t.joinNewRoom("boss_lobby", {}));
    await refusedAndUntouched(member.room, member.log, () => member.room.send("boss_join_lobby", {}), "boss_lobby_state");
    const viewer = await joined(t.sdk().joinOrCreate("mode_select"));
    await refusedAndUntouched(viewer.room, viewer.log, () => viewer.room.send("pvp_get_status"), "pvp_status");
    await Promise.all([member.room.leave(), viewer.room.leave()]);
  });
});

describe("requests (room.request) of unknown types", () => {
  it("are answered with an unknown_message error within the budget, count against it, and over it are answered as rejected (rate_limited)", async () => {
    const member = await joined(t.joinNewRoom("boss_lobby", {}));
    const answers: Array<{ name?: string; code?: string; message?: string; reason?: { code?: string } }> = [];
    const flood = MESSAGE_RATE_LIMIT.burst + 20;
    for (let i = 0; i < flood; i++) void member.room.request("no_such_request", undefined, { timeout: 60_000 }).catch((err) => answers.push(err));
    // Over the budget: the one rate_limited notice any message over it gets, and each request still settles.
    expect(await member.log.waitFor("error")).toEqual({ code: "rate_limited", message: "Too many messages: some were dropped", type: "no_such_request" });
    await eventually(() => answers.length === flood, "an answer to every request");
    expect(answers[0]).toMatchObject({ name: "unknown_message", code: "unknown_message", message: 'Unknown message type "no_such_request"' });
    const unknown = answers.filter((a) => a.name === "unknown_message").length;
    const limited = answers.filter((a) => a.name === "rejected" && a.reason?.code === "rate_limited").length;
    expect(unknown).toBeGreaterThanOrEqual(MESSAGE_RATE_LIMIT.burst);
    expect(limited).toBeGreaterThan(0);
    expect(unknown + limited).toBe(flood);
    await member.room.leave();
  });

  it("a flood of them far over the budget is still cut by Colyseus' hard limit (4002)", async () => {
    const member = await joined(t.joinNewRoom("boss_lobby", {}));
    const closed = closeCode(member.room);
    for (let i = 0; i < 3 * HARD_MESSAGES_PER_SECOND; i++) void member.room.request("no_such_request", undefined, { timeout: 60_000 }).catch(() => undefined);
    expect(await closed).toBe(4002);
  });

  it("a request of a known type over the budget is answered as rejected (rate_limited), not as served", async () => {
    const viewer = await joined(t.sdk().joinOrCreate("mode_select"));
    const answers = await Promise.all(
      Array.from({ length: MESSAGE_RATE_LIMIT.burst + 40 }, () =>
        viewer.room.request("pvp_get_status").then(
          () => "served",
          (err: { name?: string; reason?: { code?: string } }) => (err.name === "rejected" ? err.reason?.code : String(err)),
        ),
      ),
    );
    expect(answers.filter((a) => a === "rate_limited").length).toBeGreaterThanOrEqual(10);
    expect(answers.filter((a) => a !== "rate_limited" && a !== "served")).toEqual([]);
    await viewer.room.leave();
  });

  it("a request of a known type is still served", async () => {
    const member = await joined(t.joinNewRoom("boss_lobby", {}));
    await member.room.request("boss_join_lobby", {});
    expect(await member.log.waitFor("boss_lobby_state")).toMatchObject({ playerCount: 1 });
    await member.room.leave();
  });
});
