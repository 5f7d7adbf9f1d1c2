// GET /play serves the reference web client from the game server's origin.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client } from "@colyseus/sdk";
import { startTestApp, type TestApp } from "../helpers/app.js";

let t: TestApp;
beforeAll(async () => {
  t = await startTestApp();
});
afterAll(async () => {
  await t?.stop();
});

describe("/play", () => {
  it("redirects /play to /play/ and serves the page with a strict content security policy", async () => {
    const redirect = await fetch(`${t.baseUrl}/play`, { redirect: "manual" });
    expect(redirect.status).toBe(301);
    expect(redirect.headers.get("location")).toBe("/play/");

    const page = await t.http().get("/play/");
    expect(page.status).toBe(200);
    expect(page.headers.get("content-type")).toMatch(/^text\/html/);
    expect(page.text).toContain('<script type="module" src="app.js"></script>');
    expect(page.headers.get("content-security-policy")).toContain("script-src 'self'");
    expect(page.headers.get("x-content-type-options")).toBe("nosniff");
  });

  it("serves the bundle, its source map and the stylesheet", async () => {
    const js = await t.http().get("/play/app.js");
    expect(js.status).toBe(200);
    expect(js.headers.get("content-type")).toMatch(/javascript/);
    expect(js.text).toContain("boss_player_position"); // the protocol's names are bundled (/play shoots through room.input() now)
    expect(js.text.length).toBeLessThan(400_000); // zod (~440 KB) is left out
    expect((await t.http().get("/play/app.js.map")).status).toBe(200);
    expect((await t.http().get("/play/style.css")).headers.get("content-type")).toMatch(/text\/css/);
  });

  it("answers unknown files under /play with the JSON 404", async () => {
    const res = await t.http().get("/play/nope.js");
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe("not_found");
  });

  it("accepts WebSocket upgrades from its own origin even when CORS_ORIGINS does not list it", async () => {
    expect(t.config.corsOrigins).not.toContain(t.baseUrl);
    const room = await new Client(t.wsUrl, { headers: { origin: t.baseUrl } }).joinOrCreate("boss", { bullets: 30 });
    expect(room.roomId).toBeTruthy();
    await room.leave();
    // Another port on the same host is another origin: still refused.
    const other = `http://127.0.0.1:${t.port === 1 ? 2 : 1}`;
    const err = await new Client(t.wsUrl, { headers: { origin: other } }).joinOrCreate("boss", { bullets: 30 }).catch((e: Error) => e);
    expect(err).toBeInstanceOf(Error);
  });
});
