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
