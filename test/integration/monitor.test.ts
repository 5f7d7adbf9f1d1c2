import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ monitorUser: "ops", monitorPassword: "monitor-pass-1" });
});
afterAll(() => t?.stop());

describe("Colyseus monitor", () => {
  it("is mounted at /monitor behind basic auth", async () => {
    expect((await t.http().get("/monitor/api")).status).toBe(401);
    const wrong = Buffer.from("ops:nope").toString("base64");
    expect((await t.http().get("/monitor/api", { authorization: `Basic ${wrong}` })).status).toBe(401);
    const right = Buffer.from("ops:monitor-pass-1").toString("base64");
    const res = await t.http().get("/monitor/api", { authorization: `Basic ${right}` });
    expect(res.status).toBe(200);
  });
});

describe("the monitor's clients tab", () => {
  const auth = { authorization: `Basic ${Buffer.from("ops:monitor-pass-1").toString("base64")}` };

  it("names each client (display name, guest or account id) in the field it lists, and its actions still find the client", async () => {
    const room = await t.sdk().joinOrCreate("boss", { username: "Ann", bullets: 30 });
    room.onMessage("*", () => {});
    const res = await t.http().get(`/monitor/api/room?roomId=${room.roomId}`, auth);
    expect(res.status).toBe(200);
    const { clients } = res.body as { clients: Array<{ sessionId: string; elapsedTime: number }> };
    expect(clients.map((c) => c.sessionId)).toEqual([`${room.sessionId} · Ann (guest) · guest`]);

    // An account is named by its id; the labels carry no token.
    const acc = await t.account("monitored");
    const other = await t.sdk(acc.cookie).joinOrCreate("slitherrush", {});
    other.onMessage("*", () => {});
    const inArena = (await t.http().get(`/monitor/api/room?roomId=${other.roomId}`, auth)).body as { clients: Array<{ sessionId: string }> };
    expect(inArena.clients.map((c) => c.sessionId)).toEqual([`${other.sessionId} · monitored · account ${acc.user.id}`]);
    expect(JSON.stringify(inArena)).not.toContain(other.reconnectionToken.split(":").pop()!);
    await other.leave();

    // "Disconnect" in the monitor hands back that label.
    const left = new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));
    const args = encodeURIComponent(JSON.stringify([clients[0].sessionId]));
    expect((await t.http().get(`/monitor/api/room/call?roomId=${room.roomId}&method=_forceClientDisconnect&args=${args}`, auth)).status).toBe(200);
    expect(await left).toBeGreaterThan(0);
  });
});
