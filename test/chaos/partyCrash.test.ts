// Issue 35, shape 3: kill -9 of the process that holds a SlitherRush party of three. Every member
// does what docs/messages.md's client does when its connection is lost for good (the SDK's own
// reconnection, cut short as that client sets it, gives up on the dead process): joins again with
// the party's code, retrying while the answer is 503. The members race each other (they lose the
// process at the same instant); the party must meet again in one arena, on the process that lives,
// within 25 s of the kill.
import { MatchMakeError, type Room } from "@colyseus/sdk";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { retryLikeTheDocs, slitherPlayer, type SlitherPlayer } from "../helpers/slitherrush.js";
import { account, Cluster, report, type GameServer } from "./harness.js";
import { expectQuiet, quietness, sdk } from "./common.js";
import { killGroup } from "./backing.js";

const MEMBERS = 3;
/** The bound: the party plays together again this long after the kill. */
const MEET_AGAIN_MS = 25_000;
/** docs/messages.md's client: the SDK's reconnection gives up after this many tries (≈ 11 s of backoff). */
const RECONNECT_TRIES = 6;

describe("kill -9 of the process that holds a party of three", () => {
  let cluster: Cluster;
  let a: GameServer;
  let b: GameServer;

  beforeAll(async () => {
    cluster = await Cluster.open({ redisPort: 6468, pgPort: 55468 });
  });
  afterAll(async () => {
    await cluster?.close();
  });

  it("the party meets again in one arena on the process that lives", async () => {
    // The party forms while B is the only process, so its arena is B's; A joins after.
    b = await cluster.startServer("B");
    const cookies: string[] = [];
    for (let m = 0; m < MEMBERS; m++) cookies.push((await account(cluster, b)).cookie);
    const setUp = (room: Room) => {
      // As the documented client: a lost connection is retried a few times, then the party's code is used.
      room.reconnection.maxRetries = RECONNECT_TRIES;
      // The party has played for a while (the SDK only reconnects a room joined ≥ 5 s ago).
      room.reconnection.minUptime = 0;
      return room;
    };
    const leader = await slitherPlayer(sdk(b, cookies[0]).joinOrCreate("slitherrush", { party: "create" }).then(setUp));
    const code: string = leader.joined.party_code;
    const players = [leader];
    for (let m = 1; m < MEMBERS; m++) players.push(await slitherPlayer(sdk(b, cookies[m]).joinOrCreate("slitherrush", { party: code }).then(setUp)));
    expect(new Set(players.map((p) => p.room.roomId)).size, "the party formed in one arena").toBe(1);
    a = await cluster.startServer("A");

    const left = players.map((p) => new Promise<number>((resolve) => p.room.onLeave((closeCode) => resolve(closeCode))));
    const killedAt = Date.now();
    killGroup(b.pid, "SIGKILL");
    await b.exited;

    const moved: SlitherPlayer[] = [];
    const outcomes = await Promise.all(
      players.map(async (_p, m) => {
        const closeCode = await left[m];
        const leftAt = Date.now() - killedAt;
        // Through the load balancer, which sends everything to the process that answers: A.
        try {
          const again = await retryLikeTheDocs(() => slitherPlayer(sdk(a, cookies[m]).joinOrCreate("slitherrush", { party: code })));
          moved.push(again);
          return { closeCode, leftAt, room: again.room.roomId, code: again.joined.party?.code as string | undefined, at: Date.now() - killedAt };
        } catch (err) {
          const e = err as MatchMakeError;
          return { closeCode, leftAt, error: `${e.code ?? ""} ${e.message}`.trim(), at: Date.now() - killedAt };
        }
      }),
    );
    const together = outcomes.every((o) => "room" in o && o.room === (outcomes[0] as { room?: string }).room && o.code === code);
    const lastJoin = Math.max(...outcomes.map((o) => o.at));
    report("crash-party", {
      members: MEMBERS,
      together,
      last_rejoin_ms: lastJoin,
      connection_lost_ms: Math.max(...outcomes.map((o) => o.leftAt)),
      outcomes: outcomes.map((o) => ("error" in o ? `refused after ${o.at} ms: ${o.error}` : `arena ${o.room} after ${o.at} ms`)),
    });
    // They play together: every member sees the others' snakes in the arena's snapshots.
    if (together) await Promise.all(moved.map((p) => p.until(() => p.snapshots.length > 0, "a snapshot in the party's new arena")));
    await Promise.all(moved.map((p) => p.room.leave().catch(() => undefined)));
    expect(together, `the party met again in one arena: ${JSON.stringify(outcomes)}`).toBe(true);
    expect.soft(lastJoin, "the last member is back within 25 s of the kill").toBeLessThan(MEET_AGAIN_MS);
  });

  it("no line outside the JSON log (crash)", async () => {
    await a?.stop();
    report("crash-party/noise", { servers: quietness([a]) });
    expectQuiet([a]);
  });
});
