// The /play dashboard's pure helpers (web/play/src/screens/teacher.ts, admin.ts, joinClass.ts):
// how figures read, the printable CSV of one-time passwords, the audit filter, the typed class code.
import { describe, expect, it } from "vitest";
import { ago, duration, modeLabel, onlineText, passwordsCsv, topicTitle, wrongShare } from "../../../web/play/src/screens/teacher.js";
import { filterAudit } from "../../../web/play/src/screens/admin.js";
import { normaliseClassCode } from "../../../web/play/src/screens/joinClass.js";
import type { AuditEntry } from "../../../web/play/src/api.js";

describe("dashboard figures", () => {
  it("says where a student is: online in a named mode, or offline", () => {
    expect(onlineText({ mode: "slitherrush", since: "2026-12-01T10:00:00Z" })).toBe("online — in SlitherRush");
    expect(onlineText({ mode: "boss", since: "" })).toBe("online — in Boss battle");
    expect(onlineText({ mode: "pvp", since: "" })).toBe("online — in PvP duel");
    expect(onlineText(null)).toBe("offline");
    expect(modeLabel("a_new_mode")).toBe("a_new_mode"); // a mode this client does not know yet still shows
  });

  it("reads time played and last seen as people say them", () => {
    expect([duration(0), duration(59), duration(60), duration(3599), duration(3600), duration(3600 + 5 * 60)]).toEqual(["0 s", "59 s", "1 min", "59 min", "1 h 00 min", "1 h 05 min"]);
    const now = Date.parse("2026-12-01T12:00:00Z");
    expect(ago(null, now)).toBe("never");
    expect(ago("2026-12-01T11:59:30Z", now)).toBe("just now");
    expect(ago("2026-12-01T11:57:00Z", now)).toBe("3 min ago");
    expect(ago("2026-12-01T09:00:00Z", now)).toBe("3 h ago");
    expect(ago("2026-12-01T12:00:05Z", now)).toBe("just now"); // a clock a little ahead of this one
  });

  it("gives the share answered wrongly, and none when nothing was answered", () => {
    expect(wrongShare(3, 1)).toBe("25 %");
    expect(wrongShare(0, 0)).toBe("–");
    expect(wrongShare(0, 2)).toBe("100 %");
  });

  it("names topics by their titles, whether the server sends the key or the title", () => {
    expect(topicTitle("loops")).toBe("Loops");
    expect(topicTitle("variables_and_types")).toBe("Variables and data types");
    expect(topicTitle("Loops")).toBe("Loops");
  });
});

describe("the printable CSV of one-time passwords", () => {
  it("has a header and one line per account, quoting what a spreadsheet would misread", () => {
    const csv = passwordsCsv("7B, Computing", [
      { id: 1, username: "ada.l", password: "plum-river-42", displayName: "Ada \"the first\"" },
      { id: 2, username: "alan.t", password: "=cmd|calc", displayName: null },
    ]);
    expect(csv.split("\r\n")).toEqual([
      "class,username,display_name,password",
      '"7B, Computing",ada.l,"Ada ""the first""",plum-river-42',
      '"7B, Computing",alan.t,,"=cmd|calc"', // a leading = would be a formula in a spreadsheet
      "",
    ]);
  });
});

describe("the audit filter", () => {
  const entry = (actorName: string, action: string, targetName: string | null): AuditEntry => ({
    id: 1, at: "2026-12-01T10:00:00Z", actor: { id: 1, name: actorName, role: "teacher" }, action, target: targetName === null ? null : { id: 2, name: targetName }, class_id: null, address: "127.0.0.1", result: "ok", detail: null,
  });
  const entries = [entry("ms_l", "student.lock", "ada"), entry("ms_l", "student.unlock", "ada"), entry("root", "account.erase", "bob"), entry("root", "class.create", null)];

  it("keeps entries matching every filter, by any part of the field in any letter case", () => {
    expect(filterAudit(entries, { action: "LOCK" }).map((e) => e.action)).toEqual(["student.lock", "student.unlock"]);
    expect(filterAudit(entries, { actor: "roo", target: "bo" }).map((e) => e.action)).toEqual(["account.erase"]);
    expect(filterAudit(entries, { target: "ada", action: "un" }).map((e) => e.action)).toEqual(["student.unlock"]);
    expect(filterAudit(entries, {})).toHaveLength(4);
    expect(filterAudit(entries, { target: "x" })).toEqual([]);
  });
});

describe("a typed class code", () => {
  it("loses its spaces and letter case", () => {
    expect(normaliseClassCode(" k7qm 2xp\n")).toBe("K7QM2XP");
  });
});
