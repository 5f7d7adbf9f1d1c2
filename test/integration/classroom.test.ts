// Issue 40: a class of 40 behind one school address plays a lesson on the default limits without a
// single refusal, while an attacker at that address is still stopped: 30 guesses at one student's
// password are stopped within 10 (and the classmates still log in), one wrong password tried against
// the 40 accounts is stopped before the 40th. Twice: every request from one address (the school's
// NAT, no proxy), and through a trusted proxy (TRUST_PROXY) whose X-Forwarded-For carries each
// student's own address and the attacker's. What each limit's counter reached is printed (the
// numbers in docs/security.md, "Classrooms and shared addresses").
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Client as ColyseusClient } from "@colyseus/sdk";
import { HttpClient, startTestApp, type HttpResponse, type TestApp } from "../helpers/app.js";
import { DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, defaultRateLimits } from "../../src/config.js";
import { createApiKey, type ApiKeyPair } from "../../src/workspace/apiKeys.js";

const CLASS_SIZE = 40;
const PASSWORD = "Our-class-2026";

interface Variant {
  name: string;
  /** TRUST_PROXY */
  trustProxy: string[];
  /** The X-Forwarded-For a student's (or the attacker's) requests carry; none: the peer's own address counts. */
  studentAddress(i: number): string | undefined;
  attackerAddress: string | undefined;
}

const variants: Variant[] = [
  { name: "one school address (NAT), no proxy", trustProxy: ["loopback"], studentAddress: () => undefined, attackerAddress: undefined },
  {
    name: "through a trusted proxy: X-Forwarded-For names each student and the attacker",
    trustProxy: ["127.0.0.1/32"],
    studentAddress: (i) => `198.51.100.${i + 10}`,
    attackerAddress: "203.0.113.66",
  },
];

describe.each(variants)("a class of $name", (variant) => {
  let t: TestApp;
  const statuses: Record<string, number[]> = {};
  const note = (phase: string, res: HttpResponse) => (statuses[phase] ??= []).push(res.status);
  const refusals = (phase: string) => (statuses[phase] ?? []).filter((s) => s === 429).length;
  const students: { name: string; id?: number; http: HttpClient }[] = [];
  const headersOf = (address: string | undefined): Record<string, string> => (address ? { "x-forwarded-for": address } : {});
  const studentHeaders = (i: number) => headersOf(variant.studentAddress(i));
  const attacker = () => new HttpClient(t.baseUrl, headersOf(variant.attackerAddress));
  /** What a limit's counter holds now (src/http/rateLimit.ts and loginLimits.ts key spaces). */
  const counter = async (key: string) => (await t.app.ctx.counters.peek(key)).count;
  const schoolKey = (i: number) => variant.studentAddress(i) ?? "127.0.0.1";

  beforeAll(async () => {
    // The defaults of a fresh clone (src/config.ts), only TRUST_PROXY set for the proxied class.
    t = await startTestApp({ rateLimits: defaultRateLimits(), maxConnectionsPerAddress: DEFAULT_MAX_CONNECTIONS_PER_ADDRESS, trustProxy: variant.trustProxy });
    for (let i = 0; i < CLASS_SIZE; i++) students.push({ name: `pupil${i}_${process.pid % 10000}`, http: new HttpClient(t.baseUrl, studentHeaders(i)) });
  });
  afterAll(() => t?.stop());

  const login = async (i: number, password = PASSWORD) => {
    const http = new HttpClient(t.baseUrl, studentHeaders(i));
    const res = await http.post("/api/auth/login", { username: students[i].name, password });
    return { http, res };
  };

  it("signs up, logs in (some after a typo), autosaves and plays through the modes without one refusal", async () => {
    const started = Date.now();
    const lap = (what: string) => console.log(`[classroom] ${what} done at ${Date.now() - started} ms`);
    // Sign-up: the whole class at once, and three who first picked a name already taken.
    await Promise.all(
      students.map(async (s) => {
        const res = await s.http.post("/api/auth/register", { username: s.name, password: PASSWORD });
        note("register", res);
        if (res.status === 201) s.id = res.body.user.id;
      }),
    );
    for (let i = 0; i < 3; i++) {
      const taken = await new HttpClient(t.baseUrl, studentHeaders(i)).post("/api/auth/register", { username: students[i + 1].name, password: PASSWORD });
      expect(taken.status).toBe(409);
    }
    // The next lesson: everyone logs in; a quarter mistype first, two of them twice.
    await Promise.all(
      students.map(async (s, i) => {
        if (i % 4 === 0) note("login", (await login(i, "our-class-2026")).res);
        if (i % 20 === 0) note("login", (await login(i, "Our-class-2025")).res);
        const { http, res } = await login(i);
        note("login", res);
        s.http = http;
      }),
    );
    lap("sign-up and log-in");
    const typos = (statuses.login ?? []).filter((s) => s === 401).length;
    // Autosave every 10 s for half a minute, an answered lesson (the bullets the boss battle asks for).
    await Promise.all(
      students.map(async (s) => {
        note("writes", await s.http.post("/api/snakes/complete-lesson", { lesson_number: 1, bullets_earned: 20 }));
        for (let save = 0; save < 3; save++) note("writes", await s.http.put("/api/snakes/", { current_square: 1 + save, time_played: 10 * save, lives: 5 }));
      }),
    );
    lap("autosaves");
    // Mode selection, a SlitherRush arena, back, a duel, back, a boss battle, back: what /play does.
    let open = 0;
    let peakOpen = 0;
    const matchmakeErrors: string[] = [];
    let inBattle = 0;
    let allIn!: () => void;
    const everyoneInBattle = new Promise<void>((resolve) => (allIn = resolve));
    await Promise.all(
      students.map(async (s, i) => {
        const sdk = new ColyseusClient(t.wsUrl, { headers: { cookie: s.http.cookieHeader, ...studentHeaders(i) } });
        const visit = async (join: () => Promise<{ leave(): Promise<unknown> }>) => {
          try {
            const room = await join();
            peakOpen = Math.max(peakOpen, ++open);
            await room.leave();
            open--;
          } catch (err) {
            matchmakeErrors.push(`${s.name}: ${(err as Error).message} (${(err as { code?: number }).code})`);
          }
        };
        await visit(() => sdk.joinOrCreate("mode_select"));
        await visit(() => sdk.joinOrCreate("slitherrush", {}));
        await visit(() => sdk.joinOrCreate("mode_select"));
        await visit(() => sdk.joinOrCreate("pvp", {}));
        await visit(() => sdk.joinOrCreate("mode_select"));
        // Boss battles seat 10: the whole class clicks at once, as /play joins (POST /api/boss/join
        // reserves a seat in the fullest open battle, the SDK redeems it), each staying until the last is in.
        let battle: { leave(): Promise<unknown> } | undefined;
        try {
          const answer = await s.http.post("/api/boss/join", { reserve_seat: true });
          note("writes", answer);
          if (answer.status !== 200) throw new Error(`POST /api/boss/join: ${answer.status} ${answer.text}`);
          battle = await sdk.consumeSeatReservation(answer.body.join.reservation);
          peakOpen = Math.max(peakOpen, ++open);
        } catch (err) {
          matchmakeErrors.push(`${s.name}: ${(err as Error).message} (${(err as { code?: number }).code})`);
        }
        if (++inBattle === CLASS_SIZE) allIn();
        await everyoneInBattle;
        if (battle) {
          await battle.leave();
          open--;
        }
        await visit(() => sdk.joinOrCreate("mode_select"));
      }),
    );

    lap("modes");
    expect(matchmakeErrors).toEqual([]);
    for (const phase of ["register", "login", "writes"]) expect(refusals(phase), phase).toBe(0);
    expect(statuses.register.filter((s) => s === 201)).toHaveLength(CLASS_SIZE);
    expect(statuses.login.filter((s) => s === 200)).toHaveLength(CLASS_SIZE);
    expect(statuses.writes.every((s) => s === 200)).toBe(true);

    const limits = defaultRateLimits();
    const perStudentMatchmake = await Promise.all(students.map((s) => counter(`matchmake-account:u:${s.id}`)));
    const perStudentWrites = await Promise.all(students.map((s) => counter(`account-writes:u:${s.id}`)));
    const used = {
      "RATE_LIMIT_REGISTER (per address)": `${Math.max(...(await Promise.all(students.map((_, i) => counter(`register-ip:${schoolKey(i)}`)))))} of ${limits.register.limit}`,
      "RATE_LIMIT_LOGIN_ADDRESS (unforgiven failures per address)": `${await counter(`login-address:${schoolKey(0)}`)} of ${limits.loginAddress.limit} after ${typos} typos`,
      "RATE_LIMIT_LOGIN (failures per account+address)": `${Math.max(...(await Promise.all(students.map((s, i) => counter(`login-pair:u:${s.name.toLowerCase()}@${schoolKey(i)}`)))))} of ${limits.login.limit}`,
      "RATE_LIMIT_LOGIN_ACCOUNT (failures per account)": `${Math.max(...(await Promise.all(students.map((s) => counter(`login-account:u:${s.name.toLowerCase()}`)))))} of ${limits.loginAccount.limit}`,
      "RATE_LIMIT_WRITES (per account)": `${Math.max(...perStudentWrites)} of ${limits.accountWrites.limit}`,
      "RATE_LIMIT_MATCHMAKE (per account)": `${Math.max(...perStudentMatchmake)} of ${limits.matchmake.limit}`,
      "RATE_LIMIT_MATCHMAKE_ADDRESS (guests per address)": `${await counter(`matchmake-ip:${schoolKey(0)}`)} of ${limits.matchmakeAddress.limit}`,
      "MAX_CONNECTIONS_PER_ADDRESS (open at once, class-wide)": `${peakOpen} of ${DEFAULT_MAX_CONNECTIONS_PER_ADDRESS}`,
    };
    console.log(`[classroom] ${variant.name}: what the class of ${CLASS_SIZE} used\n${Object.entries(used).map(([k, v]) => `  ${k}: ${v}`).join("\n")}`);
    // The typos were forgiven by the right password that followed each.
    expect(await counter(`login-address:${schoolKey(0)}`)).toBe(0);
  }, 120_000); // about 5 s on an idle machine; the margin is for a shared one

  it("plays through the modes as guests (no accounts): every request counts on the address, none refused", async () => {
    let open = 0;
    let peakOpen = 0;
    const errors: string[] = [];
    await Promise.all(
      students.map(async (_, i) => {
        const sdk = new ColyseusClient(t.wsUrl, { headers: studentHeaders(i) });
        const username = `guest${i}`;
        for (const [room, options] of [
          ["mode_select", {}],
          ["slitherrush", { username }],
          ["mode_select", {}],
          ["pvp", { username, bullets: 20 }],
          ["mode_select", {}],
          ["boss", { username, bullets: 20 }],
          ["mode_select", {}],
        ] as const) {
          try {
            const joined = await sdk.joinOrCreate(room, options);
            peakOpen = Math.max(peakOpen, ++open);
            await joined.leave();
            open--;
          } catch (err) {
            errors.push(`${username} ${room}: ${(err as Error).message} (${(err as { code?: number }).code})`);
          }
        }
      }),
    );
    expect(errors).toEqual([]);
    const used = await counter(`matchmake-ip:${schoolKey(0)}`);
    console.log(`[classroom] ${variant.name}: 40 guests: RATE_LIMIT_MATCHMAKE_ADDRESS ${used} of ${defaultRateLimits().matchmakeAddress.limit} per address; ${peakOpen} WebSockets open at once`);
  }, 120_000);

  it("(a) 30 guesses at one student's password are stopped within 10; every classmate still logs in", async () => {
    const victim = students[0].name;
    const answers: HttpResponse[] = [];
    const guesser = attacker();
    for (let i = 0; i < 30; i++) answers.push(await guesser.post("/api/auth/login", { username: victim, password: `guess-${i}-Password` }));
    const firstRefusal = answers.findIndex((r) => r.status === 429);
    console.log(`[classroom] ${variant.name}: guessing one account: first 429 at guess ${firstRefusal + 1}; ${answers.filter((r) => r.status === 401).length} of 30 guesses checked`);
    expect(firstRefusal).toBeGreaterThanOrEqual(0);
    expect(firstRefusal).toBeLessThan(10);
    expect(answers.slice(firstRefusal).every((r) => r.status === 429)).toBe(true);
    expect(answers.filter((r) => r.status === 401).length).toBeLessThan(10);
    const refused = answers[firstRefusal];
    expect(refused.body.error.code).toBe("rate_limited");
    expect(Number(refused.headers.get("retry-after"))).toBeGreaterThan(0);

    const classmates = await Promise.all(students.slice(1).map(async (_, j) => (await login(j + 1)).res.status));
    expect(classmates.filter((s) => s !== 200)).toEqual([]);
    // Through the proxy the victim is at an address of its own: the attacker's lock is not the victim's.
    if (variant.attackerAddress) expect((await login(0)).res.status).toBe(200);
  });

  it("(b) one wrong password tried against the 40 accounts is stopped before the 40th", async () => {
    const sprayer = attacker();
    const answers: number[] = [];
    for (const s of students) answers.push((await sprayer.post("/api/auth/login", { username: s.name, password: "Password123!" })).status);
    // Stopped: from here on every answer is 429 (the victim of (a) may be locked already).
    const stoppedAt = answers.lastIndexOf(401) + 1;
    console.log(`[classroom] ${variant.name}: spraying 40 accounts: ${answers.filter((s) => s === 401).length} passwords checked, every attempt from account ${stoppedAt + 1} on refused`);
    expect(answers.every((s) => s === 401 || s === 429)).toBe(true);
    expect(stoppedAt).toBeLessThan(CLASS_SIZE - 1);
    expect(answers.slice(stoppedAt)).toEqual(Array(CLASS_SIZE - stoppedAt).fill(429));
    // The students' own addresses are not the sprayer's: they still log in.
    if (variant.attackerAddress) expect((await Promise.all(students.slice(1).map(async (_, j) => (await login(j + 1)).res.status))).filter((s) => s !== 200)).toEqual([]);
  });
});

// The workspace sign-in (/api/workspace/login) has the same limits, counted apart from the game's.
describe("the workspace sign-in behind one school address", () => {
  let t: TestApp;
  let key: ApiKeyPair;
  const users = Array.from({ length: CLASS_SIZE }, (_, i) => `ws_pupil${i}_${process.pid % 10000}`);
  beforeAll(async () => {
    t = await startTestApp({ rateLimits: defaultRateLimits() });
    key = await createApiKey(t.prisma, "classroom");
    const created = await Promise.all(users.map((username) => t.http().post("/api/public/create_user", { ...key, target_user: { username, password: PASSWORD } })));
    expect(created.map((r) => r.status).filter((s) => s !== 200)).toEqual([]);
  });
  afterAll(() => t?.stop());
  const signIn = (username: string, password: string) => t.http().post("/api/workspace/login", { username, password });

  it("signs the class in (a quarter after a typo), stops a guesser within 10 and a sprayer before the 40th", async () => {
    const started = Date.now();
    const answers = await Promise.all(
      users.map(async (u, i) => {
        if (i % 4 === 0) expect((await signIn(u, "typo-typo")).status).toBe(401);
        return (await signIn(u, PASSWORD)).status;
      }),
    );
    expect(answers.filter((s) => s !== 200)).toEqual([]);
    console.log(`[classroom] workspace: class signed in at ${Date.now() - started} ms`);
    const guesses: number[] = [];
    for (let i = 0; i < 30; i++) guesses.push((await signIn(users[0], `guess-${i}-Password`)).status);
    expect(guesses.indexOf(429)).toBeGreaterThanOrEqual(0);
    expect(guesses.indexOf(429)).toBeLessThan(10);
    expect(guesses.slice(guesses.indexOf(429)).every((s) => s === 429)).toBe(true);
    expect((await Promise.all(users.slice(1).map(async (u) => (await signIn(u, PASSWORD)).status))).filter((s) => s !== 200)).toEqual([]);
    const spray: number[] = [];
    for (const u of users) spray.push((await signIn(u, "Password123!")).status);
    const stoppedAt = spray.lastIndexOf(401) + 1;
    expect(stoppedAt).toBeLessThan(CLASS_SIZE - 1);
    expect(spray.slice(stoppedAt).every((s) => s === 429)).toBe(true);
  });
});
