// With REDIS_URL the matchmaker keeps its room listings in Redis (presence + driver), which is what
// lets several processes share matchmaking. Runs when TEST_REDIS_URL is set (CI).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Redis } from "ioredis";
import { defineRoom } from "@colyseus/core";
import { startTestApp, type TestApp } from "../helpers/app.js";
import { IdentityRoom } from "../helpers/rooms.js";

const redisUrl = process.env.TEST_REDIS_URL;

describe.skipIf(!redisUrl)("Redis presence and driver", () => {
  let t: TestApp;
  let redis: Redis;
  beforeAll(async () => {
    t = await startTestApp({ redisUrl }, { rooms: { identity: defineRoom(IdentityRoom) } });
    redis = new Redis(redisUrl!);
  });
  afterAll(async () => {
    await t?.stop();
    redis?.disconnect();
  });

  it("lists rooms in Redis while they live and removes them when they close", async () => {
    const { cookie } = await t.account();
    const room = await t.sdk(cookie).create("identity", {});
    const cached = await redis.hget("roomcaches", room.roomId);
    expect(cached).toBeTruthy();
    expect(JSON.parse(cached!)).toMatchObject({ name: "identity", roomId: room.roomId });
    await room.leave();
    const deadline = Date.now() + 5000;
    while ((await redis.hget("roomcaches", room.roomId)) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    expect(await redis.hget("roomcaches", room.roomId)).toBeNull();
  });
});
