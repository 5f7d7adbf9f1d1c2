// Issue 10, fault 1: the server's own origin (as the browser sees it: the Host it reached, a
// proxy's X-Forwarded-Host, or PUBLIC_ADDRESS) may always open a WebSocket, whatever PORT is;
// other origins outside CORS_ORIGINS are refused with 403 and a warn line naming the setting.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import WebSocket from "ws";
import { startTestApp, TEST_ORIGIN, type TestApp } from "../helpers/app.js";
import { captureLogs, type CapturedLogs } from "../helpers/logs.js";

let t: TestApp;
let logs: CapturedLogs;
beforeAll(async () => {
  logs = captureLogs();
  t = await startTestApp({ publicAddress: "play.example.com/2568" }, { logger: logs.logger });
});
afterAll(() => t?.stop());

/** The HTTP status of a WebSocket upgrade (101 when it opened). */
function upgradeStatus(headers: Record<string, string>): Promise<number> {
  return new Promise((resolve) => {
    const ws = new WebSocket(`${t.wsUrl}/`, { headers });
    ws.on("unexpected-response", (_req, res) => resolve(res.statusCode ?? 0));
    ws.on("open", () => {
      ws.close();
      resolve(101);
    });
    ws.on("error", () => {});
  });
}

describe("WebSocket upgrades and the server's own origin", () => {
  it("lets a page served by the server itself connect on a non-default port", async () => {
    expect(t.port).not.toBe(8500);
    expect(t.config.corsOrigins).not.toContain(t.baseUrl);
    expect(await upgradeStatus({ origin: t.baseUrl })).toBe(101);
    expect(await upgradeStatus({ origin: `http://localhost:${t.port}`, host: `localhost:${t.port}` })).toBe(101);
  });

  it("lets the public address (PUBLIC_ADDRESS, or the host a proxy forwarded) connect", async () => {
    expect(await upgradeStatus({ origin: "https://play.example.com" })).toBe(101);
    expect(await upgradeStatus({ origin: "https://game.example.org", "x-forwarded-host": "game.example.org" })).toBe(101);
    expect(await upgradeStatus({ origin: TEST_ORIGIN })).toBe(101);
  });

  it("refuses other origins with 403 and logs a warn line with the origin and the setting to change", async () => {
    logs.lines.length = 0;
    expect(await upgradeStatus({ origin: "https://evil.example" })).toBe(403);
    expect(await upgradeStatus({ origin: `http://127.0.0.1:${t.port + 1}` })).toBe(403);
    const refused = logs.lines.filter((l) => l.msg.includes("WebSocket upgrade refused"));
    expect(refused.map((l) => l.origin)).toEqual(["https://evil.example", `http://127.0.0.1:${t.port + 1}`]);
    for (const line of refused) {
      expect(line.level).toBe(40);
      expect(line.msg).toMatch(/CORS_ORIGINS/);
    }
  });
});
