// Issue 23, "HTTP": the limits a game server needs at its edge (src/http/edge.ts): a request has
// REQUEST_TIMEOUT_MS to arrive (Node's default held a slow body 300 s), and one address holds at
// most MAX_CONNECTIONS_PER_ADDRESS WebSockets (3,000 idle guests from one address were accepted).
import { connect } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { Client as ColyseusClient, type Room } from "@colyseus/sdk";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { REQUEST_TIMEOUT_MS } from "../../src/http/limits.js";

const LIMIT = 3;
let t: TestApp;
beforeAll(async () => {
  t = await startTestApp({ maxConnectionsPerAddress: LIMIT });
});
afterAll(() => t?.stop());

/** A raw WebSocket upgrade: 101, or the status and body of the refusal. */
function upgrade(headers: Record<string, string> = {}): Promise<{ status: number; body: string; ws?: WebSocket }> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${t.wsUrl}/nowhere/room`, { headers });
    ws.on("unexpected-response", (_req, res) => {
      let body = "";
      res.on("data", (c) => (body += c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    ws.on("upgrade", () => resolve({ status: 101, body: "", ws }));
    ws.on("error", () => {});
  });
}

describe("WebSocket connections per address", () => {
  it(`refuses the upgrade over ${LIMIT} open sockets of one address with 429, and counts each address on its own`, async () => {
    const client = new ColyseusClient(t.wsUrl);
    const rooms: Room[] = [];
    for (let i = 0; i < LIMIT; i++) rooms.push(await client.joinOrCreate("mode_select"));
    const refused = await upgrade();
    expect(refused.status).toBe(429);
    expect(JSON.parse(refused.body)).toEqual({ error: { code: "too_many_connections", message: `At most ${LIMIT} open connections per address` } });
    // Another client behind the trusted proxy (loopback) is another address.
    const other = await upgrade({ "x-forwarded-for": "198.51.100.44" });
    expect(other.status).toBe(101);
    other.ws!.close();
    // A closed socket frees its slot.
    await rooms.pop()!.leave();
    await expect.poll(async () => {
      const again = await upgrade();
      again.ws?.close();
      return again.status;
    }).toBe(101);
    for (const r of rooms) await r.leave();
  });
});

describe("slow requests", () => {
  it(`a body that does not arrive within ${REQUEST_TIMEOUT_MS / 1000} s gets 408 and the connection closes`, async () => {
    const started = Date.now();
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(t.port, "127.0.0.1", () => {
        socket.write(`POST /api/auth/login HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"user`);
      });
      let text = "";
      socket.on("data", (c) => (text += c));
      socket.on("close", () => resolve(text));
      socket.on("error", reject);
    });
    expect(answer).toMatch(/^HTTP\/1.1 408 /);
    expect(JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4))).toEqual({ error: { code: "request_timeout", message: expect.any(String) } });
    expect(Date.now() - started).toBeLessThan(REQUEST_TIMEOUT_MS + 3000);
  }, REQUEST_TIMEOUT_MS + 15_000);
});
