// Scaling out for real: two server processes sharing PostgreSQL and Redis. Matchmaking requests
// all go to process A; rooms are created on both processes, and each client opens its WebSocket to
// the process that owns its room (its PUBLIC_ADDRESS). Runs with TEST_DATABASE_URL and TEST_REDIS_URL.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client, MatchMakeError } from "@colyseus/sdk";
import pg from "pg";
import { Redis } from "ioredis";
import { freshPostgresDatabase } from "../helpers/app.js";
import { freePort, runEntry, waitFor, type ServerProcess } from "../helpers/process.js";
import { duelist } from "../helpers/pvp.js";
import { MessageLog } from "../helpers/boss.js";
import { retryLikeTheDocs, slitherPlayer } from "../helpers/slitherrush.js";
import { testRedisUrl } from "../helpers/redis.js";


const redisUrl = testRedisUrl("scaleout");
const enabled = process.env.TEST_DB === "postgres" && Boolean(redisUrl);

const postJson = (url: string, body: unknown, cookie?: string) =>
  fetch(url, { method: "POST", headers: { "content-type": "application/json", ...(cookie ? { cookie } : {}) }, body: JSON.stringify(body) });

/** A new account's session cookie, with `bullets` on its record: only accounts may create a boss room (a row per room). */
async function bossAccount(base: string, dbUrl: string, bullets = 20): Promise<string> {
  const res = await postJson(`${base}/api/auth/register`, { username: `boss_${process.pid}_${Math.random().toString(36).slice(2, 10)}`, password: "correct horse battery" });
  expect(res.status).toBe(201);
  const { user } = await res.json();
  const sql = new pg.Client({ connectionString: dbUrl });
  await sql.connect();
  try {
    await sql.query(`INSERT INTO game_progress (user_id, total_bullets, updated_at) VALUES ($1, $2, now()) ON CONFLICT (user_id) DO UPDATE SET total_bullets = $2`, [user.id, bullets]);
  } finally {
    await sql.end();
  }
  return res.headers.getSetCookie()[0].split(";")[0];
}

describe.skipIf(!enabled)("two processes behind one matchmaker", () => {
  const procs: ServerProcess[] = [];
  const ports: number[] = [];
  let drop: () => Promise<void>;
  let dbUrl: string;

  // Two processes start at once, possibly beside another test file on a 2-core machine.
  beforeAll(async () => {
    const db = await freshPostgresDatabase();
    drop = db.drop;
    dbUrl = db.url;
    for (let i = 0; i < 2; i++) {
      const port = await freePort();
      ports.push(port);
      procs.push(
        runEntry("src/index.ts", {
          PORT: String(port),
          SAMPLE_PORT: "0",
          NODE_ENV: "test",
          LOG_LEVEL: "warn",
          DATABASE_URL: db.url,
          REDIS_URL: redisUrl!,
          PUBLIC_ADDRESS: `127.0.0.1:${port}`,
          JWT_SECRET: "scaleout-secret-0123456789abcdefghijklmnopqrstu",
          // Boss rooms are opened by accounts: the tests register dozens and matchmake hundreds of times from one address.
          RATE_LIMIT_REGISTER: "1000/1m",
          RATE_LIMIT_MATCHMAKE: "100000/1m",
          DATA_DIR: "/nonexistent-scaleout",
          // Stopping at the end: the battles the tests leave running may play on for 2 s, not 5 minutes.
          SHUTDOWN_DRAIN_SECONDS: "2",
        }),
      );
    }
    for (const port of ports) {
      await waitFor(async () => ((await fetch(`http://127.0.0.1:${port}/ready`)).ok ? true : undefined), 150_000, `process on ${port}`);
    }
  }, 180_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.stop()));
    await drop?.();
  });

  it("spreads rooms over both processes and connects each client to the owner", { timeout: 60_000 }, async () => {
    const a = `http://127.0.0.1:${ports[0]}`;
    // Each process publishes its room count at most once a second and new rooms go to the process
    // with the fewest, so rooms made a second apart alternate between the two.
    const reservations: any[] = [];
    const cookies: string[] = [];
    const wanted = new Set(ports.map((p) => `127.0.0.1:${p}`));
    for (let i = 0; i < 8 && (reservations.length < 4 || new Set(reservations.map((r) => r.publicAddress)).size < 2); i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, 1200));
      cookies.push(await bossAccount(a, dbUrl));
      const res = await postJson(`${a}/matchmake/create/boss`, {}, cookies[i]);
      expect(res.status).toBe(200);
      reservations.push(await res.json());
    }
    const owners = new Set(reservations.map((r) => r.publicAddress));
    expect(owners).toEqual(wanted);

    const rooms = [];
    for (const [i, reservation] of reservations.entries()) {
      const room = await new Client(a, { headers: { cookie: cookies[i] } }).consumeSeatReservation(reservation);
      const state = await new Promise<any>((resolve, reject) => {
        room.onMessage("boss_room_state", resolve);
        room.onMessage("*", () => {});
        setTimeout(() => reject(new Error("no boss_room_state")), 10_000);
      });
      expect(state.self.x).toBeGreaterThan(0);
      rooms.push(room);
    }
    // Every room is listed (from Redis) by either process.
    for (const port of ports) {
      const listed = await (await postJson(`http://127.0.0.1:${port}/matchmake/joinOrCreate/boss`, { username: "probe", bullets: 20 })).json();
      expect(reservations.map((r) => r.roomId)).toContain(listed.roomId);
    }

    // One boss seat per account holds across processes: seated on one, refused on the other.
    const owner = (address: string) => reservations.find((r) => r.publicAddress === address)!.roomId as string;
    const [here, there] = [...wanted].map(owner);
    const register = await postJson(`${a}/api/auth/register`, { username: `scaler_acc_${process.pid}`, password: "correct horse battery" });
    expect(register.status).toBe(201);
    const { user } = await register.json();
    const cookie = register.headers.getSetCookie()[0].split(";")[0];
    const sql = new pg.Client({ connectionString: dbUrl });
    await sql.connect();
    await sql.query(
      `INSERT INTO game_progress (user_id, total_bullets, updated_at) VALUES ($1, 20, now())
       ON CONFLICT (user_id) DO UPDATE SET total_bullets = 20`,
      [user.id],
    );
    await sql.end();
    const account = new Client(a, { headers: { cookie } });
    const seated = await account.joinById(here, {});
    const refused = await account.joinById(there, {}).catch((e) => e);
    expect(refused).toBeInstanceOf(MatchMakeError);
    expect(refused.code).toBe(409);
    expect(refused.message).toBe(`this account is already in boss room ${here}`);
    await seated.leave();
    const deadline = Date.now() + 5000;
    let moved = await account.joinById(there, {}).catch((e) => e);
    while (moved instanceof Error && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 100));
      moved = await account.joinById(there, {}).catch((e) => e);
    }
    expect(moved.roomId).toBe(there);
    await moved.leave();
    await Promise.all(rooms.map((r) => r.leave()));
  });

  it("pairs PvP clients that matchmake through different processes, one after the other and all at once", { timeout: 90_000 }, async () => {
    const [viaA, viaB] = ports.map((port) => new Client(`http://127.0.0.1:${port}`));
    // Each duelist follows pvp_requeue as a client must (joins again when sent on).
    const duelistVia = (sdk: Client) => {
      const join = () => sdk.joinOrCreate("pvp", { bullets: 30 });
      return duelist(join(), join);
    };
    const first = await duelistVia(viaA);
    const second = await duelistVia(viaB);
    expect(second.room.roomId).toBe(first.room.roomId);
    const [readyA, readyB] = await Promise.all([first.log.waitFor("pvp_match_ready"), second.log.waitFor("pvp_match_ready")]);
    expect(readyA).toEqual(readyB);
    expect([readyA.player1.sid, readyA.player2.sid]).toEqual([first.sid, second.sid]);
    // A battle across the two: the room's process decides the hit both see.
    first.room.send("pvp_ready", {});
    second.room.send("pvp_ready", {});
    await Promise.all([first.log.waitFor("pvp_battle_start"), second.log.waitFor("pvp_battle_start")]);
    second.room.send("pvp_shoot", { dx: -1, dy: 0 });
    expect(await first.log.waitFor("pvp_player_hit")).toEqual({ target: first.sid, lives: 4, shooter: second.sid });
    first.done = second.done = true;
    await Promise.all([first.room.leave(), second.room.leave()]);

    // Four at once, two through each process: two full rooms. Racing creations may open a third
    // room for a moment (Colyseus' create lock is best-effort across processes); its player is sent
    // to the older waiting room, whichever process either room lives on.
    for (let round = 0; round < 4; round++) {
      const crowd = await Promise.all([viaA, viaB, viaA, viaB].map(duelistVia));
      const grouped = () => {
        const sizes = new Map<string, number>();
        for (const d of crowd) if (d.room.connection.isOpen) sizes.set(d.room.roomId, (sizes.get(d.room.roomId) ?? 0) + 1);
        return [...sizes.values()];
      };
      await waitFor(async () => (grouped().join() === "2,2" ? true : undefined), 20_000, `two full rooms (round ${round}: ${grouped().join()})`);
      await Promise.all(crowd.map((d) => d.log.waitFor("pvp_match_ready")));
      for (const d of crowd) d.done = true;
      await Promise.all(crowd.map((d) => d.room.leave()));
    }
  });

  it("fills the oldest SlitherRush arena from both processes, opens a new one for the 33rd, and keeps a party together across them", { timeout: 120_000 }, async () => {
    const [a, b] = ports.map((p) => new Client(`http://127.0.0.1:${p}`));
    const joined = async (room: Awaited<ReturnType<Client["joinOrCreate"]>>) => {
      const payload = await new Promise<any>((resolve, reject) => {
        room.onMessage("slitherrush_joined", resolve);
        room.onMessage("*", () => {});
        room.onMessage("slitherrush_state", () => {});
        setTimeout(() => reject(new Error("no slitherrush_joined")), 10_000);
      });
      return { room, payload };
    };
    const players = [];
    for (let i = 0; i < 32; i++) players.push(await joined(await (i % 2 ? b : a).joinOrCreate("slitherrush", { username: `wide${i}` })));
    const first = players[0].room.roomId;
    expect(new Set(players.map((p) => p.room.roomId))).toEqual(new Set([first]));
    const thirtyThird = await joined(await b.joinOrCreate("slitherrush", { username: "wide32" }));
    expect(thirtyThird.room.roomId).not.toBe(first);
    players.push(thirtyThird);

    // A party made through one process, joined through the other: same arena.
    const leader = await joined(await a.joinOrCreate("slitherrush", { party: "create" }));
    expect(leader.room.roomId).toBe(thirtyThird.room.roomId);
    const code = leader.payload.party_code;
    const member = await joined(await b.joinOrCreate("slitherrush", { party: code }));
    expect(member.room.roomId).toBe(leader.room.roomId);
    expect(member.payload.party).toEqual({ code, leader: false });
    const unknown = await b.joinOrCreate("slitherrush", { party: "0000000000" }).catch((e) => e);
    expect(unknown).toBeInstanceOf(MatchMakeError);
    expect(unknown.code).toBe(404);
    players.push(leader, member);
    await Promise.all(players.map((p) => p.room.leave()));
  });

  it("holds the login rate limit across processes", async () => {
    const redis = new Redis(redisUrl!);
    const clearLoginWindows = async () => {
      const keys = await redis.keys("ratelimit:login-*");
      if (keys.length) await redis.del(...keys);
    };
    try {
      await clearLoginWindows(); // windows another run of this test may have left
      const login = (port: number) =>
        postJson(`http://127.0.0.1:${port}/api/auth/login`, { username: `nobody_${process.pid}`, password: "wrong password" });
      // RATE_LIMIT_LOGIN: 5 failed sign-ins at one account from one address (issue 40), wherever they land.
      for (let i = 0; i < 5; i++) expect((await login(ports[i % 2])).status).toBe(401);
      for (const port of ports) {
        const refused = await login(port);
        expect(refused.status).toBe(429);
        expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);
        expect((await refused.json()).error.code).toBe("rate_limited");
      }
    } finally {
      await clearLoginWindows();
      redis.disconnect();
    }
  });
  it("a sign-out through one process closes the session's room connection on the other (4007) and writes its seat", { timeout: 60_000 }, async () => {
    // A boss room on whichever process the matchmaker picks; the sign-out goes through the other one.
    const cookie = await bossAccount(`http://127.0.0.1:${ports[0]}`, dbUrl);
    const reservation: any = await (await postJson(`http://127.0.0.1:${ports[0]}/matchmake/create/boss`, {}, cookie)).json();
    const host = ports.find((p) => reservation.publicAddress === `127.0.0.1:${p}`);
    expect(host, `the room's process ${reservation.publicAddress} is one of ${ports}`).toBeDefined();
    const [a, b] = [ports.find((p) => p !== host)!, host!].map((p) => `http://127.0.0.1:${p}`);
    const room = await new Client(a, { headers: { cookie } }).consumeSeatReservation(reservation);
    const log = new MessageLog(room);
    await log.waitFor("boss_room_state");
    const closed = new Promise<number>((resolve) => room.onLeave((code) => resolve(code)));
    const at = Date.now();
    expect((await postJson(`${a}/api/auth/logout`, {}, cookie)).status).toBe(200);
    expect(await closed).toBe(4007);
    expect(Date.now() - at).toBeLessThan(10_000);
    // The seat was written as on a leave (its row closed), by B.
    expect((await fetch(`${b}/api/auth/me`, { headers: { cookie } })).status).toBe(401);
    const sql = new pg.Client({ connectionString: dbUrl });
    await sql.connect();
    try {
      await waitFor(async () => ((await sql.query(`SELECT 1 FROM boss_players p JOIN boss_rooms r ON r.id = p.boss_room_id WHERE r.room_id = $1 AND p.left_at IS NOT NULL`, [room.roomId])).rowCount ? true : undefined), 10_000, "the seat's row closed");
    } finally {
      await sql.end();
    }
  });

  it("who is online in which mode: a room on one process shows in a teacher's class read through the other within 5 s, and its leave too", { timeout: 60_000 }, async () => {
    const a = `http://127.0.0.1:${ports[0]}`;
    const register = async (name: string) => {
      const res = await postJson(`${a}/api/auth/register`, { username: `${name}_${process.pid}_${Math.random().toString(36).slice(2, 8)}`, password: "correct horse battery" });
      expect(res.status).toBe(201);
      return { id: (await res.json()).user.id as number, cookie: res.headers.getSetCookie()[0].split(";")[0] };
    };
    const teacher = await register("teacher");
    const student = await register("pupil");
    const sql = new pg.Client({ connectionString: dbUrl });
    await sql.connect();
    try {
      await sql.query(`UPDATE users SET role = 'teacher' WHERE id = $1`, [teacher.id]);
    } finally {
      await sql.end();
    }
    const made = await (await postJson(`${a}/api/classes`, { name: "Scaled class" }, teacher.cookie)).json();
    expect((await postJson(`${a}/api/classes/join`, { code: made.class.code }, student.cookie)).status).toBe(200);
    const reservation: any = await (await postJson(`${a}/matchmake/joinOrCreate/slitherrush`, {}, student.cookie)).json();
    const host = ports.find((p) => reservation.publicAddress === `127.0.0.1:${p}`)!;
    const other = `http://127.0.0.1:${ports.find((p) => p !== host)}`;
    const onlineOf = async () => {
      const res = await fetch(`${other}/api/classes/${made.class.id}/students`, { headers: { cookie: teacher.cookie } });
      return (await res.json()).students.find((s: { id: number }) => s.id === student.id)?.online;
    };
    const room = await new Client(a, { headers: { cookie: student.cookie } }).consumeSeatReservation(reservation);
    room.onMessage("*", () => {});
    const joinedAt = Date.now();
    await waitFor(async () => ((await onlineOf())?.mode === "slitherrush" ? true : undefined), 5000, "online in slitherrush, read through the other process");
    expect(Date.now() - joinedAt).toBeLessThan(5000);
    await room.leave();
    const leftAt = Date.now();
    await waitFor(async () => ((await onlineOf()) === null ? true : undefined), 5000, "offline after the leave, read through the other process");
    expect(Date.now() - leftAt).toBeLessThan(5000);
  });
});

// Faults, on the same PostgreSQL + Redis deployment: a process killed with SIGKILL, and one stopped
// with SIGTERM while it serves players and progress writes.
describe.skipIf(!enabled)("a process that dies or stops under load", () => {
  interface Proc {
    port: number;
    base: string;
    address: string;
    proc: ServerProcess;
  }
  const procs: Proc[] = [];
  let drop: () => Promise<void>;
  let dbUrl: string;

  async function startProcess(env: Record<string, string> = {}): Promise<Proc> {
    const port = await freePort();
    const proc = runEntry("src/index.ts", {
      // Stopping at the end: the battles the tests leave running may play on for 2 s, not 5 minutes.
      SHUTDOWN_DRAIN_SECONDS: "2",
      ...env,
      PORT: String(port),
      SAMPLE_PORT: "0",
      NODE_ENV: "test",
      LOG_LEVEL: "error",
      DATABASE_URL: dbUrl,
      REDIS_URL: redisUrl!,
      PUBLIC_ADDRESS: `127.0.0.1:${port}`,
      JWT_SECRET: "scaleout-secret-0123456789abcdefghijklmnopqrstu",
      // Boss rooms are opened by accounts: the tests register dozens and matchmake hundreds of times from one address.
      RATE_LIMIT_REGISTER: "1000/1m",
      RATE_LIMIT_MATCHMAKE: "100000/1m",
      DATA_DIR: "/nonexistent-scaleout",
    });
    const p = { port, base: `http://127.0.0.1:${port}`, address: `127.0.0.1:${port}`, proc };
    procs.push(p);
    await waitFor(async () => ((await fetch(`${p.base}/ready`)).ok ? true : undefined), 150_000, `process on ${port}`);
    return p;
  }

  beforeAll(async () => {
    const db = await freshPostgresDatabase();
    drop = db.drop;
    dbUrl = db.url;
    await Promise.all([startProcess(), startProcess()]);
  }, 180_000);

  afterAll(async () => {
    await Promise.all(procs.map((p) => p.proc.stop()));
    await drop?.();
  });

  /** An account (registered through `via`) with a session cookie and `bullets` on its record. */
  async function account(via: Proc, bullets = 0) {
    const res = await postJson(`${via.base}/api/auth/register`, { username: `fault_${process.pid}_${procs.length}_${Math.random().toString(36).slice(2, 8)}`, password: "correct horse battery" });
    expect(res.status).toBe(201);
    const { user } = await res.json();
    const cookie = res.headers.getSetCookie()[0].split(";")[0];
    if (bullets > 0) await sql(`INSERT INTO game_progress (user_id, total_bullets, updated_at) VALUES ($1, $2, now()) ON CONFLICT (user_id) DO UPDATE SET total_bullets = $2`, [user.id, bullets]);
    return { id: user.id as number, cookie };
  }

  async function sql(text: string, values: unknown[] = []) {
    const client = new pg.Client({ connectionString: dbUrl });
    await client.connect();
    try {
      return (await client.query(text, values)).rows;
    } finally {
      await client.end();
    }
  }

  const progressOf = async (via: Proc, cookie: string) => (await fetch(`${via.base}/api/snakes/progress`, { headers: { cookie } })).json();
  const bossStatus = async (via: Proc) => (await (await fetch(`${via.base}/api/modes/status`)).json()).boss as { totalPlayers: number; activeRooms: number };

  /** A boss room on `owner`, created through `via`'s matchmaker (placement goes to the process with fewer rooms). */
  async function bossRoomOn(owner: Proc, via: Proc): Promise<string> {
    for (let i = 0; i < 10; i++) {
      const cookie = await bossAccount(via.base, dbUrl);
      const listed = await (await postJson(`${via.base}/matchmake/create/boss`, {}, cookie)).json();
      const guest = await new Client(via.base, { headers: { cookie } }).consumeSeatReservation(listed);
      guests.push({ room: guest, log: new MessageLog(guest), owner: listed.publicAddress });
      if (listed.publicAddress === owner.address) return listed.roomId;
      await new Promise((r) => setTimeout(r, 1200)); // room counts are published once a second
    }
    throw new Error(`no boss room landed on ${owner.address}`);
  }
  const guests: Array<{ room: Awaited<ReturnType<Client["joinById"]>>; log: MessageLog; owner: string }> = [];

  /** Autosaves as fast as they are answered; remembers the last time_played acknowledged. */
  function autosaves(via: Proc, cookie: string) {
    let acked = 0;
    let running = true;
    const done = (async () => {
      for (let t = 1; running; t++) {
        try {
          const res = await fetch(`${via.base}/api/snakes/`, {
            method: "PUT",
            headers: { cookie, "content-type": "application/json" },
            body: JSON.stringify({ current_square: 3, lives: 4, time_played: t }),
          });
          if (res.status === 200) acked = t;
          else return;
        } catch {
          return; // the process is gone: this request was never acknowledged
        }
      }
    })();
    return { acked: () => acked, stop: async () => ((running = false), await done), done };
  }

  it("reads back through one process what was written through the other", async () => {
    const [a, b] = procs;
    const { cookie } = await account(a);
    const put = await fetch(`${a.base}/api/snakes/`, {
      method: "PUT",
      headers: { cookie, "content-type": "application/json" },
      body: JSON.stringify({ current_square: 4, lives: 2, character: "wizard", time_played: 77 }),
    });
    expect(put.status).toBe(200);
    expect(await progressOf(b, cookie)).toMatchObject({ current_square: 4, lives: 2, character: "wizard", time_played: 77 });
  });

  it("kill -9: the other process plays on, the dead one's rooms and seats are freed, no acknowledged write is lost", { timeout: 90_000 }, async () => {
    const [a, b] = procs;
    const base = await bossStatus(a);
    const roomA = await bossRoomOn(a, a);
    const roomB = await bossRoomOn(b, a);
    // A second player in A's room (to see it keep playing) and an account seated in B's room.
    const peer = await new Client(a.base).joinById(roomA, { username: "peer", bullets: 20 });
    const peerLog = new MessageLog(peer);
    const seated = await account(a, 20);
    const accountRoom = await new Client(a.base, { headers: { cookie: seated.cookie } }).joinById(roomB, {});
    accountRoom.onMessage("*", () => {});
    const onA = guests.filter((g) => g.owner === a.address).length + 1;
    const onB = guests.filter((g) => g.owner === b.address).length + 1;
    await waitFor(async () => ((await bossStatus(a)).totalPlayers === base.totalPlayers + onA + onB ? true : undefined), 10_000, "mode status counting both processes");

    const writer = await account(b);
    const saves = autosaves(b, writer.cookie);
    await waitFor(async () => (saves.acked() >= 5 ? true : undefined), 10_000, "autosaves through B");
    const killedAt = Date.now();
    await b.proc.stop("SIGKILL");
    await saves.done;

    // A's room keeps playing.
    const mover = guests.find((g) => g.room.roomId === roomA)!;
    mover.room.send("boss_player_move", { x: 300, y: 400 });
    expect((await peerLog.waitFor("boss_player_position", (p) => p.sid === mover.room.sessionId)).sid).toBe(mover.room.sessionId);

    // Within a bounded time the dead process's rooms leave mode status, and its seats are free.
    await waitFor(async () => ((await bossStatus(a)).totalPlayers === base.totalPlayers + onA ? true : undefined), 20_000, "mode status without the dead process's rooms");
    expect(Date.now() - killedAt).toBeLessThan(20_000);
    const rejoined = await waitFor(
      async () => new Client(a.base, { headers: { cookie: seated.cookie } }).joinById(roomA, {}).catch((e) => (e instanceof MatchMakeError && e.code === 409 ? undefined : Promise.reject(e))),
      20_000,
      "the account's seat in the dead process's room to be freed",
    );
    expect(Date.now() - killedAt).toBeLessThan(20_000); // well inside the 45 s lease
    expect(rejoined.roomId).toBe(roomA);
    await rejoined.leave();

    // Every acknowledged autosave is in the database.
    expect((await progressOf(a, writer.cookie)).time_played).toBeGreaterThanOrEqual(saves.acked());
    await peer.leave();
  });

  it("SIGTERM under load: rooms write their seats, acknowledged writes stay, exit 0", { timeout: 90_000 }, async () => {
    const [a] = procs;
    // The battle on C is in progress: it may play on for a second (the drain limit), then its seats are written.
    const c = await startProcess({ SHUTDOWN_DRAIN_SECONDS: "1" });
    await new Promise((r) => setTimeout(r, 1200)); // C publishes its (empty) room count
    const roomC = await bossRoomOn(c, a);
    const watcher = guests.find((g) => g.room.roomId === roomC)!;
    const shooter = await account(a, 20);
    const seat = await new Client(a.base, { headers: { cookie: shooter.cookie } }).joinById(roomC, {});
    seat.onMessage("*", () => {});
    for (let i = 0; i < 3; i++) {
      seat.send("boss_player_shoot", { dx: 0, dy: -1 });
      const shots = () => watcher.log.all("boss_player_bullet").filter((p) => p.sid === seat.sessionId).length;
      await waitFor(async () => (shots() > i ? true : undefined), 5000, `shot ${i + 1} seen by the other player`);
      await new Promise((r) => setTimeout(r, 250)); // within the fire rate
    }
    const left = new Promise<number>((resolve) => seat.onLeave((code) => resolve(code)));

    const writer = await account(c);
    const saves = autosaves(c, writer.cookie);
    await waitFor(async () => (saves.acked() >= 5 ? true : undefined), 10_000, "autosaves through C");
    const exit = c.proc.stop("SIGTERM");
    await saves.done;
    expect(await exit).toBe(0);
    expect(await left).toBeGreaterThan(0);

    // The seat's spent bullets were written at shutdown; every acknowledged autosave is there.
    const [{ total_bullets }] = await sql(`SELECT total_bullets FROM game_progress WHERE user_id = $1`, [shooter.id]);
    expect(total_bullets).toBe(17);
    expect((await progressOf(a, writer.cookie)).time_played).toBeGreaterThanOrEqual(saves.acked());
    // Its rooms left the listings at once: the account can sit down elsewhere.
    const elsewhere = await new Client(a.base, { headers: { cookie: shooter.cookie } }).joinOrCreate("boss", {});
    await elsewhere.leave();
  });

  it("a deploy: the stopping process takes no new rooms, new matches land on the other process, a party follows there, its duel plays to its end, exit 0", { timeout: 150_000 }, async () => {
    const [a] = procs;
    const d = await startProcess({ SHUTDOWN_DRAIN_SECONDS: "60" });
    await new Promise((r) => setTimeout(r, 1200)); // D publishes its (empty) room count
    // A SlitherRush party on D: its leader's arena opens there, a member joins by the code through A.
    // Arenas are made by matchmaking (nobody may `create` one): an arena that opened on A is emptied
    // (it closes) and the next try opens one where the fewest rooms are.
    let arena: any;
    for (let i = 0; i < 10 && arena?.publicAddress !== d.address; i++) {
      if (arena) {
        await (await new Client(a.base).consumeSeatReservation(arena)).leave();
        await new Promise((r) => setTimeout(r, 1200)); // room counts are published once a second
      }
      arena = await (await postJson(`${d.base}/matchmake/joinOrCreate/slitherrush`, { username: `leader${i}`, party: "create" })).json();
    }
    expect(arena.publicAddress).toBe(d.address);
    const leader = await slitherPlayer(new Client(d.base).consumeSeatReservation(arena));
    await leader.until(() => leader.joined, "the leader's slitherrush_joined");
    const code: string = leader.joined.party_code;
    const member = await slitherPlayer(new Client(a.base).joinOrCreate("slitherrush", { username: "member", party: code }));
    await member.until(() => member.joined, "the member's slitherrush_joined");
    expect(member.room.roomId).toBe(leader.room.roomId);
    const [ann, bob] = [await account(a, 20), await account(a, 20)];
    /** A pvp seat reserved through `via`'s matchmaker, and the process that owns its room. */
    const reserve = async (via: Proc, cookie: string) =>
      fetch(`${via.base}/matchmake/joinOrCreate/pvp`, { method: "POST", headers: { "content-type": "application/json", cookie }, body: "{}" });
    // Ann's duel opens on D (D has the fewest rooms), Bob joins it.
    let reservation: any;
    for (let i = 0; i < 10 && reservation?.publicAddress !== d.address; i++) {
      if (reservation) await new Promise((r) => setTimeout(r, 1200)); // room counts are published once a second
      reservation = await (await reserve(d, ann.cookie)).json();
    }
    expect(reservation.publicAddress).toBe(d.address);
    const roomA = await new Client(d.base, { headers: { cookie: ann.cookie } }).consumeSeatReservation(reservation);
    const logA = new MessageLog(roomA);
    const roomB = await new Client(d.base, { headers: { cookie: bob.cookie } }).joinById(roomA.roomId, {});
    const logB = new MessageLog(roomB);
    roomA.send("pvp_ready");
    roomB.send("pvp_ready");
    await Promise.all([logA.waitFor("pvp_battle_start"), logB.waitFor("pvp_battle_start")]);

    const exit = d.proc.stop("SIGTERM");
    await waitFor(async () => ((await fetch(`${d.base}/ready`)).status === 503 ? true : undefined), 10_000, "D says it is stopping");
    // The party is told to move and follows its code to A, together.
    for (const p of [leader, member]) expect(await p.log.waitFor("server_draining")).toEqual({ reason: "shutdown", retry_after_ms: 1000 });
    const moved = [];
    for (const name of ["leader", "member"]) {
      const reservation = await (await postJson(`${a.base}/matchmake/joinOrCreate/slitherrush`, { username: name, party: code })).json();
      expect(reservation.publicAddress).toBe(a.address);
      const p = await slitherPlayer(new Client(a.base).consumeSeatReservation(reservation));
      await p.until(() => p.joined, `${name}'s slitherrush_joined on A`);
      moved.push(p);
    }
    expect(moved[1].room.roomId).toBe(moved[0].room.roomId);
    expect(moved.map((p) => p.joined.party.code)).toEqual([code, code]);
    await Promise.all(moved.map((p) => p.room.leave()));
    // D takes no new rooms or seats; every new match lands on A, through either process.
    expect((await postJson(`${d.base}/matchmake/create/boss`, { username: "late", bullets: 20 })).status).toBe(503);
    for (let i = 0; i < 3; i++) {
      const [bossPlayer, late] = [await account(a, 20), await account(a, 20)]; // one live match per account
      const boss = await (await postJson(`${a.base}/matchmake/create/boss`, {}, bossPlayer.cookie)).json();
      expect(boss.publicAddress).toBe(a.address);
      const duel = await (await reserve(a, late.cookie)).json();
      expect(duel.publicAddress).toBe(a.address);
      await new Client(a.base, { headers: { cookie: bossPlayer.cookie } }).consumeSeatReservation(boss).then((r) => r.leave());
      await new Client(a.base, { headers: { cookie: late.cookie } }).consumeSeatReservation(duel).then((r) => r.leave());
      await new Promise((r) => setTimeout(r, 400)); // spread over a room-count publication
    }

    // The duel on D goes on to its end: five hits.
    for (let lives = 4; lives >= 0; lives--) {
      roomA.send("pvp_shoot", { dx: 1, dy: 0 });
      await logA.waitFor("pvp_player_hit", (h) => h.lives === lives);
    }
    expect(await logB.waitFor("pvp_battle_end")).toMatchObject({ winner: roomA.sessionId, reason: "knockout" });
    expect(await logA.waitFor("server_draining")).toEqual({ reason: "shutdown", retry_after_ms: 1000 });
    expect(await exit).toBe(0);
    // The result was written before D went: A reads it.
    expect(await (await fetch(`${a.base}/api/pvp/stats`, { headers: { cookie: ann.cookie } })).json()).toMatchObject({ matches: 1, wins: 1 });
  });

  it("a deploy with parties: four parties of three on the stopping process all meet again, each in one arena, joining at once through both processes", { timeout: 150_000 }, async () => {
    // A; D, the one that stops; then B, a second live process (the first B died in an earlier test).
    const [a] = procs;
    const d = await startProcess();
    await new Promise((r) => setTimeout(r, 1200)); // D publishes its (empty) room count

    // Four parties of three, each in an arena on D (placement goes where the fewest rooms are: an
    // arena opened elsewhere is emptied, and the leader tries again).
    const parties: { code: string; members: Awaited<ReturnType<typeof slitherPlayer>>[] }[] = [];
    for (let p = 0; p < 4; p++) {
      let leader: Awaited<ReturnType<typeof slitherPlayer>> | undefined;
      for (let i = 0; i < 10 && !leader; i++) {
        const arena = await (await postJson(`${d.base}/matchmake/joinOrCreate/slitherrush`, { username: `lead${p}_${i}`, party: "create" })).json();
        const joined = await slitherPlayer(new Client(d.base).consumeSeatReservation(arena));
        if (arena.publicAddress === d.address) leader = joined;
        else await joined.room.leave().then(() => new Promise((r) => setTimeout(r, 1200)));
      }
      expect(leader).toBeDefined();
      const code: string = leader!.joined.party_code;
      const members = [leader!];
      for (const m of [1, 2]) members.push(await slitherPlayer(new Client([a, d][m - 1].base).joinOrCreate("slitherrush", { username: `p${p}m${m}`, party: code })));
      expect(members.every((m) => m.room.roomId === leader!.room.roomId)).toBe(true);
      parties.push({ code, members });
    }
    const b = await startProcess();

    const exit = d.proc.stop("SIGTERM");
    for (const p of parties.flatMap((party) => party.members)) expect(await p.log.waitFor("server_draining", () => true, 10_000)).toMatchObject({ reason: "shutdown" });
    // All twelve at once: a party's members through different processes.
    const moved = await Promise.all(
      parties.map(({ code }) => Promise.all([a, b, a].map((via, m) => retryLikeTheDocs(() => slitherPlayer(new Client(via.base).joinOrCreate("slitherrush", { username: `again${m}`, party: code })))))),
    );
    for (const [i, { code }] of parties.entries()) {
      expect(new Set(moved[i].map((m) => m.room.roomId)).size).toBe(1);
      expect(moved[i].map((m) => m.joined.party.code)).toEqual([code, code, code]);
      expect(moved[i].filter((m) => m.joined.party.leader)).toHaveLength(1);
    }
    await Promise.all(moved.flat().map((m) => m.room.leave()));
    expect(await exit).toBe(0);
  });
});
