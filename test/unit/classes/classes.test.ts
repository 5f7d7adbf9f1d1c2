// Issue 42's pure parts: join codes, issued passwords, the strict RFC 4180 reader and writer, the
// roster's checks, the figures from records, and which mode an account in several rooms is shown in.
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CLASS_CODE_ALPHABET, CLASS_CODE_LENGTH, generateClassCode, normalizeClassCode } from "../../../src/classes/codes.js";
import { generateIssuedPassword, ISSUED_PASSWORD_PATTERN } from "../../../src/auth/issuedPasswords.js";
import { csvCell, CsvError, formatCsv, parseCsv } from "../../../src/classes/csv.js";
import { parseRoster, MAX_ROSTER_ROWS } from "../../../src/http/rosterCsv.js";
import { classQuestionFigures, studentFigures, topicFigures, type StudentInput } from "../../../src/classes/figures.js";
import { QUESTION_BANK, TOPICS, questionOn } from "../../../src/game/questionBank.js";
import { preferredEntry } from "../../../src/shared/online.js";

describe("class codes", () => {
  it("are 7 characters of an alphabet without 0, O, 1, I or L", () => {
    for (const ch of "0O1IL") expect(CLASS_CODE_ALPHABET).not.toContain(ch);
    for (let i = 0; i < 200; i++) expect(generateClassCode()).toMatch(new RegExp(`^[${CLASS_CODE_ALPHABET}]{${CLASS_CODE_LENGTH}}$`));
  });

  it("use every character of the alphabet (the random source picks them, unbiased)", () => {
    let n = 0;
    const code = generateClassCode((max) => n++ % max);
    expect(code).toBe(CLASS_CODE_ALPHABET.slice(0, CLASS_CODE_LENGTH));
  });

  it("read typed codes in any case, with spaces and dashes; anything else is no code", () => {
    expect(normalizeClassCode("ab2-c 3d4")).toBe("AB2C3D4");
    expect(normalizeClassCode("ＡＢ２Ｃ３Ｄ４")).toBe("AB2C3D4");
    expect(normalizeClassCode("AB2C3D")).toBeUndefined();
    expect(normalizeClassCode("AB2C3D0")).toBeUndefined();
    fc.assert(fc.property(fc.integer({ min: 0, max: 2 ** 31 }), (seed) => {
      let s = seed;
      const code = generateClassCode((max) => (s = (s * 1103515245 + 12345) % 2 ** 31) % max);
      return normalizeClassCode(code.toLowerCase()) === code;
    }));
  });
});

describe("issued passwords", () => {
  it("are syllables and two digits, long enough for registration's rule", () => {
    for (let i = 0; i < 200; i++) {
      const p = generateIssuedPassword();
      expect(p).toMatch(ISSUED_PASSWORD_PATTERN);
      expect(p.length).toBeGreaterThanOrEqual(8);
      expect(p).not.toMatch(/[lqx01]/);
    }
  });
});

describe("CSV (RFC 4180, strict)", () => {
  it("reads quoted fields, doubled quotes, line breaks inside quotes, CRLF and LF, a BOM", () => {
    expect(parseCsv('\uFEFFa,b\r\n"x, y","he said ""hi"""\r\n"two\nlines",\n')).toEqual([
      { line: 1, fields: ["a", "b"] },
      { line: 2, fields: ["x, y", 'he said "hi"'] },
      { line: 3, fields: ["two\nlines", ""] },
    ]);
    expect(parseCsv("a\n\n\nb")).toEqual([{ line: 1, fields: ["a"] }, { line: 4, fields: ["b"] }]);
    expect(parseCsv("")).toEqual([]);
  });

  it("refuses what RFC 4180 does not allow, naming the line", () => {
    const fails = (text: string, line: number) => {
      try {
        parseCsv(text);
      } catch (err) {
        expect(err).toBeInstanceOf(CsvError);
        expect((err as CsvError).line).toBe(line);
        return;
      }
      throw new Error(`accepted ${JSON.stringify(text)}`);
    };
    fails('a\nb"c\n', 2);
    fails('a\n"open\n', 2);
    fails('a\n"x"y\n', 2);
    fails("a\rb", 1);
  });

  it("writes what it reads back, and defuses formulas", () => {
    expect(csvCell("=1+2")).toBe("'=1+2");
    expect(csvCell("+x")).toBe("'+x");
    expect(csvCell("-x")).toBe("'-x");
    expect(csvCell("@x")).toBe("'@x");
    expect(csvCell("\tx")).toBe("'\tx");
    expect(csvCell(-3)).toBe("-3");
    expect(csvCell(null)).toBe("");
    expect(csvCell('a"b')).toBe('"a""b"');
    const safe = fc.string().filter((s) => !/^[=+\-@\t\r]/.test(s));
    fc.assert(
      fc.property(fc.array(fc.array(safe, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 5 }), (rows) => {
        const nonBlank = rows.filter((r) => !(r.length === 1 && r[0] === ""));
        expect(parseCsv(formatCsv(nonBlank)).map((r) => r.fields)).toEqual(nonBlank);
      }),
    );
  });
});

describe("roster CSV", () => {
  it("takes username and an optional display_name, trimmed and cleaned", () => {
    expect(parseRoster("Username , Display Name\nada.l, Ada  L. \nalan\n".replace("alan\n", "alan,\n"))).toEqual({
      ok: true,
      rows: [
        { line: 2, username: "ada.l", displayName: "Ada L." },
        { line: 3, username: "alan", displayName: null },
      ],
    });
    expect(parseRoster("username\nada\n")).toMatchObject({ ok: true, rows: [{ username: "ada", displayName: null }] });
  });

  it("names every bad line: registration's name rules, duplicates in any case, wrong field counts, the header, the size", () => {
    const r = parseRoster("username,display_name\nada,A\nno way,B\nADA,C\nbob\nx,\n");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.problems.map((p) => [p.line, p.field])).toEqual([
      [3, "username"],
      [4, "username"],
      [5, "row"],
      [6, "username"],
    ]);
    expect(parseRoster("")).toMatchObject({ ok: false, problems: [{ field: "header" }] });
    expect(parseRoster("user\nada\n")).toMatchObject({ ok: false, problems: [{ field: "header" }] });
    expect(parseRoster("username\n")).toMatchObject({ ok: false, problems: [{ field: "row" }] });
    const many = `username\n${Array.from({ length: MAX_ROSTER_ROWS + 1 }, (_, i) => `s${i}xx`).join("\n")}`;
    expect(parseRoster(many)).toMatchObject({ ok: false, problems: [{ field: "row", line: MAX_ROSTER_ROWS + 2 }] });
  });
});

describe("figures", () => {
  const base: StudentInput = {
    id: 1,
    username: "ada",
    displayName: null,
    lockedAt: null,
    mutedAt: new Date(0),
    lastSeenAt: new Date("2026-01-01T10:00:00Z"),
    progress: { completedLessons: [1, 2, 2], totalBullets: 40, timePlayed: 100.4, updatedAt: new Date("2026-01-02T10:00:00Z") },
    answers: [
      { square: 7, right: 2, wrong: 1 },
      { square: 12, right: 0, wrong: 3 },
      { square: 8, right: 1, wrong: 0 },
    ],
    boss: { battlesJoined: 3, battlesWon: 1, secondsInBattle: 60, lastAt: null },
    pvp: { won: 2, lost: 1, drawn: 0, secondsInBattle: 30, lastAt: new Date("2026-01-03T10:00:00Z") },
    slitherrush: { bestScore: 9, secondsPlayed: 10, lastAt: null },
  };

  it("the bank has 50 questions on squares 7-56, ten per topic, each topic in each half", () => {
    expect(QUESTION_BANK).toHaveLength(50);
    expect(QUESTION_BANK.map((q) => q.square)).toEqual(Array.from({ length: 50 }, (_, i) => i + 7));
    for (const topic of TOPICS) expect(QUESTION_BANK.filter((q) => q.topic === topic)).toHaveLength(10);
    expect(new Set(QUESTION_BANK.map((q) => q.text)).size).toBe(50);
    expect(questionOn(6)).toBeUndefined();
    expect(questionOn(57)).toBeUndefined();
  });

  it("a student's row adds up what was recorded", () => {
    const f = studentFigures(base, undefined, new Date("2026-02-01T00:00:00Z"));
    expect(f).toMatchObject({ lessonsCompleted: 2, squaresRight: 3, squaresWrong: 4, bullets: 40, bossAttempts: 3, bossVictories: 1, pvpWon: 2, pvpLost: 1, slitherrushBest: 9, secondsPlayed: 200, locked: false, muted: true, online: null });
    expect(f.lastSeenAt).toBe("2026-01-03T10:00:00.000Z");
    expect(f.topics).toEqual([
      { topic: "variables_and_types", right: 2, wrong: 4 },
      { topic: "conditionals", right: 1, wrong: 0 },
      { topic: "loops", right: 0, wrong: 0 },
      { topic: "functions", right: 0, wrong: 0 },
      { topic: "data_structures", right: 0, wrong: 0 },
    ]);
    const online = studentFigures(base, { mode: "pvp", since: Date.parse("2026-02-01T00:00:00Z") - 5000 }, new Date("2026-02-01T00:00:00Z"));
    expect(online.online).toEqual({ mode: "pvp", since: "2026-01-31T23:59:55.000Z" });
    expect(online.lastSeenAt).toBe("2026-02-01T00:00:00.000Z");
    const nothing = studentFigures({ ...base, progress: null, answers: [], slitherrush: null, lastSeenAt: null, pvp: { ...base.pvp, lastAt: null } }, undefined, new Date());
    expect(nothing).toMatchObject({ lessonsCompleted: 0, bullets: 0, lastSeenAt: null, secondsPlayed: 90 });
  });

  it("answers on squares outside the bank count under no topic", () => {
    expect(topicFigures([{ square: 3, right: 5, wrong: 5 }]).every((t) => t.right === 0 && t.wrong === 0)).toBe(true);
  });

  it("the class's questions: every question, most wrong first, then by square", () => {
    const { questions, topics } = classQuestionFigures([base, { answers: [{ square: 8, right: 0, wrong: 2 }] }]);
    expect(questions).toHaveLength(50);
    expect(questions.slice(0, 3).map((q) => [q.square, q.wrong])).toEqual([
      [12, 3],
      [8, 2],
      [7, 1],
    ]);
    expect(questions[3].square).toBe(9);
    expect(topics.find((t) => t.topic === "conditionals")).toEqual({ topic: "conditionals", right: 1, wrong: 2 });
  });

  it("an account in several rooms shows the game it plays, then its latest room", () => {
    expect(preferredEntry({ mode: "mode_select", since: 5 }, { mode: "boss", since: 1 })).toEqual({ mode: "boss", since: 1 });
    expect(preferredEntry({ mode: "pvp", since: 1 }, { mode: "boss_lobby", since: 9 })).toEqual({ mode: "pvp", since: 1 });
    expect(preferredEntry({ mode: "boss_lobby", since: 1 }, { mode: "boss_lobby", since: 9 })).toEqual({ mode: "boss_lobby", since: 9 });
  });
});

describe("a room's part of who is online", async () => {
  const { LocalPresence } = await import("@colyseus/core");
  const { RoomOnline, ONLINE_KEY } = await import("../../../src/shared/online.js");

  it("keeps its accounts with their earliest connection, drops them on leave and itself on dispose", async () => {
    const presence = new LocalPresence();
    const errors: unknown[] = [];
    let now = 1000;
    const room = new RoomOnline(presence, "room1", "slitherrush", (e) => errors.push(e), () => now);
    const field = async () => (await presence.hgetall(ONLINE_KEY))?.room1;
    room.joined("s1", 7);
    now = 2000;
    room.joined("s2", 7); // a second tab of the same account
    room.joined("s1", 7); // a reconnection keeps its session id: nothing changes
    room.joined("s3", 8);
    await Promise.resolve();
    expect(JSON.parse((await field())!)).toEqual({ mode: "slitherrush", accounts: { "7": 1000, "8": 2000 } });
    room.left("s1");
    await Promise.resolve();
    expect(JSON.parse((await field())!).accounts).toEqual({ "7": 2000, "8": 2000 });
    room.left("s2");
    room.left("s3");
    await Promise.resolve();
    expect(await field()).toBeUndefined();
    room.joined("s4", 9);
    room.dispose();
    await Promise.resolve();
    expect(await field()).toBeUndefined();
    room.joined("s5", 9); // a late event after dispose writes nothing
    await Promise.resolve();
    expect(await field()).toBeUndefined();
    expect(errors).toEqual([]);
  });
});
