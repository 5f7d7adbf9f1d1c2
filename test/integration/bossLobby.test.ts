// The boss lobby over real WebSocket clients: membership, pushed member lists, pre-battle chat.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { patchedUntil } from "../helpers/waits.js";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { accountWithBullets, eventually, joined, settle } from "../helpers/boss.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(() => t?.stop());

const names = (members: Array<{ username: string }>) => members.map((m) => m.username).sort();

describe("boss lobby", () => {
  it("tracks membership and pushes the member list on every change", async () => {
    const acc = await accountWithBullets(t, 0);
    const a = await joined(t.sdk(acc.cookie).joinOrCreate("boss_lobby", { character: "archer" }));
    expect(await a.log.waitFor("boss_lobby_state")).toEqual({ playerCount: 1, players: [{ sid: a.room.sessionId, username: acc.user.username, character: "archer", guest: false }] });
    const b = await joined(t.sdk().joinOrCreate("boss_lobby", { username: "Bea" }));
    expect(b.room.roomId).toBe(a.room.roomId);
    expect((await b.log.waitFor("boss_lobby_state")).playerCount).toBe(2);
    const members = await a.log.waitFor("boss_lobby_members", (m) => m.members.length === 2);
    expect(names(members.members)).toEqual(names([{ username: acc.user.username }, { username: "Bea (guest)" }]));
    expect(await a.log.waitFor("boss_lobby_player_count", (m) => m.playerCount === 2)).toEqual({ playerCount: 2 });
    expect(await a.log.waitFor("boss_chat_message")).toEqual({ sid: "", username: "System", character: "knight", content: "Bea (guest) joined the lobby", room_id: "boss_lobby" });
    await patchedUntil(a.room, () => a.room.state.members?.size === 2, "synchronized members");

    // boss_leave_lobby: off the list (still connected), no chat; boss_join_lobby: back, with a new character.
    a.log.clear();
    b.room.send("boss_leave_lobby");
    expect((await a.log.waitFor("boss_lobby_members")).members).toHaveLength(1);
    expect(await a.log.waitFor("boss_chat_message")).toMatchObject({ username: "System", content: "Bea (guest) left the lobby" });
    b.room.send("boss_chat_send", { content: "hello?" });
    expect(await b.log.waitFor("error")).toMatchObject({ code: "not_in_room", type: "boss_chat_send" });
    a.log.clear();
    b.room.send("boss_join_lobby", { character: "wizard" });
    const back = await a.log.waitFor("boss_lobby_members", (m) => m.members.length === 2);
    expect(back.members.find((m: any) => m.username === "Bea (guest)")).toMatchObject({ character: "wizard", guest: true });

    // Leaving the room leaves the lobby.
    a.log.clear();
    await b.room.leave();
    expect((await a.log.waitFor("boss_lobby_members")).members).toHaveLength(1);
    expect(await a.log.waitFor("boss_lobby_player_count")).toEqual({ playerCount: 1 });
    await a.room.leave();
  });

  it("relays chat to the other members only, under the server-side name, sanitised and limited", async () => {
    const a = await joined(t.sdk().joinOrCreate("boss_lobby", { username: "Al" }));
    const b = await joined(t.sdk().joinOrCreate("boss_lobby", { username: "Bo" }));
    b.room.send("boss_chat_send", { content: "ready <now>\u202e!", username: "Admin", room_id: "boss_lobby" });
    expect(await a.log.waitFor("boss_chat_message", (m) => m.sid === b.room.sessionId)).toEqual({
      sid: b.room.sessionId,
      username: "Bo (guest)",
      character: "knight",
      content: "ready now!",
      room_id: "boss_lobby",
    });
    b.room.send("boss_chat_send", { content: "to a battle", room_id: "SomeBossRoom" });
    expect(await b.log.waitFor("error")).toMatchObject({ code: "wrong_room" });
    b.room.send("boss_chat_send", { content: "z".repeat(281) });
    b.room.send("boss_chat_send", { content: "   " });
    await eventually(() => b.log.all("error").length === 3, "three errors");
    expect(b.log.all("error").map((e) => e.code)).toEqual(["wrong_room", "invalid_payload", "invalid_payload"]);
    await settle(200); // a while longer: b's refused lines never reach anyone
    expect(b.log.all("boss_chat_message").filter((m) => m.sid === b.room.sessionId)).toEqual([]);
    expect(a.log.all("boss_chat_message").filter((m) => m.sid === b.room.sessionId)).toHaveLength(1);

    // Chat floods are cut by the chat limit (5 at once, then 1/s), with one notice.
    const c = await joined(t.sdk().joinOrCreate("boss_lobby", { username: "Cy" }));
    for (let i = 0; i < 8; i++) c.room.send("boss_chat_send", { content: `spam ${i}` });
    await c.log.waitFor("error", (e) => e.code === "rate_limited");
    await settle(300); // a while longer: no more spam is delivered and no second notice comes
    const spam = a.log.all("boss_chat_message").filter((m) => m.content.startsWith("spam"));
    expect(spam.length).toBeGreaterThanOrEqual(5);
    expect(spam.length).toBeLessThan(8);
    expect(c.log.all("error").filter((e) => e.code === "rate_limited")).toHaveLength(1);
    await Promise.all([a.room.leave(), b.room.leave(), c.room.leave()]);
  });

  it("answers unknown types and bad payloads with an error and keeps the client", async () => {
    const a = await joined(t.sdk().joinOrCreate("boss_lobby", {}));
    a.room.send("boss_debug_state");
    a.room.send("boss_join_lobby", { character: "dragon" });
    a.room.send("boss_chat_send", { content: ["x"] });
    await eventually(() => a.log.all("error").length === 3, "three errors");
    expect(a.log.all("error").map((e) => [e.code, e.type])).toEqual([
      ["unknown_message", "boss_debug_state"],
      ["invalid_payload", "boss_join_lobby"],
      ["invalid_payload", "boss_chat_send"],
    ]);
    expect((await t.sdk().joinOrCreate("boss_lobby", { character: "dragon" }).catch((e) => e)).code).toBe(400);
    a.log.clear();
    a.room.send("boss_join_lobby", {});
    expect((await a.log.waitFor("boss_lobby_state")).players.map((p: any) => p.sid)).toContain(a.room.sessionId);
    await a.room.leave();
  });
});
