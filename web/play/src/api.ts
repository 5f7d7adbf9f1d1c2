// The REST API as the client uses it: same origin, the session is the HttpOnly cookie the server
// sets. Errors arrive as { error: { code, message, details? } } and become ApiError.
import type { z } from "zod";
import type { ProgressState, championsResponse, leaderboardResponse, unvisitedSquaresResponse } from "../../../src/http/progressWire.js";
import type { Character } from "../../../src/game/progress.js";
import type { SeatReservation } from "@colyseus/sdk";

export type { ProgressState };
export type Champions = z.infer<typeof championsResponse>;
export type Leaderboard = z.infer<typeof leaderboardResponse>;
export type UnvisitedSquares = z.infer<typeof unvisitedSquaresResponse>;

export type Role = "student" | "teacher" | "admin";
export interface PublicUser {
  id: number;
  username: string;
  created_at: string;
  /** Absent on a server without roles: a student. */
  role?: Role;
  /** The password was handed out by a teacher, an admin or the operator: choose one's own first. */
  password_change_required?: boolean;
}
export interface BossJoinAnswer {
  room_id: string;
  /** With reserve_seat: the seat the server took for this account, redeemed with consumeSeatReservation. */
  join: { room_name: string; room_id: string; method: "consumeSeatReservation"; reservation: SeatReservation };
}
export interface BossStats {
  battles_joined: number;
  battles_won: number;
  total_damage_dealt: number;
  best_damage: number;
  win_rate: number;
}

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
  }
}

async function request<T>(method: string, path: string, body?: unknown, contentType = "application/json"): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": contentType },
    body: body === undefined ? undefined : typeof body === "string" ? body : JSON.stringify(body),
  });
  const text = await res.text();
  const json = text ? safeJson(text) : undefined;
  if (!res.ok) {
    const err = (json as { error?: { code?: string; message?: string; details?: Record<string, unknown> } } | undefined)?.error;
    throw new ApiError(res.status, err?.code ?? "http_error", err?.message ?? `${method} ${path} failed with ${res.status}`, err?.details);
  }
  return json as T;
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

export const api = {
  me: () => request<{ user: PublicUser }>("GET", "/api/auth/me"),
  register: (username: string, password: string) => request<{ user: PublicUser }>("POST", "/api/auth/register", { username, password }),
  login: (username: string, password: string) => request<{ user: PublicUser }>("POST", "/api/auth/login", { username, password }),
  logout: () => request<{ ok: true }>("POST", "/api/auth/logout"),
  changePassword: (currentPassword: string, newPassword: string) =>
    request<{ user: PublicUser; message: string }>("POST", "/api/auth/password", { current_password: currentPassword, new_password: newPassword }),

  progress: () => request<ProgressState>("GET", "/api/snakes/progress"),
  completeLesson: (lesson_number: number, bullets_earned: number) =>
    request<ProgressState>("POST", "/api/snakes/complete-lesson", { lesson_number, bullets_earned }),
  answerQuestion: (square: number, correct: boolean, bullets_earned: number) =>
    request<ProgressState>("POST", "/api/snakes/answer-question", { square, correct, bullets_earned }),
  unvisitedSquares: () => request<UnvisitedSquares>("GET", "/api/snakes/unvisited-squares"),
  setCharacter: (character: Character) => request<ProgressState>("PUT", "/api/snakes/update-game", { character }),
  champions: (limit = 20) => request<Champions>("GET", `/api/snakes/champions?limit=${limit}`),
  leaderboard: (limit = 10) => request<Leaderboard>("GET", `/api/snakes/leaderboard?limit=${limit}`),

  joinClass: (code: string) => request<{ class: ClassSummary }>("POST", "/api/classes/join", { code }),

  bossJoin: () => request<BossJoinAnswer>("POST", "/api/boss/join", { reserve_seat: true }),
  bossStats: () => request<BossStats>("GET", "/api/boss/stats"),
};

// Classes and the teacher's dashboard (docs/teachers.md).
export interface ClassSummary {
  id: number | string;
  name: string;
  code?: string;
}
export interface TopicFigures {
  topic: string;
  right: number;
  wrong: number;
}
export interface StudentFigures {
  id: number;
  username: string;
  displayName?: string | null;
  lessonsCompleted: number;
  squaresRight: number;
  squaresWrong: number;
  topics: TopicFigures[];
  bullets: number;
  bossAttempts: number;
  bossVictories: number;
  pvpWon: number;
  pvpLost: number;
  slitherrushBest: number;
  secondsPlayed: number;
  lastSeenAt: string | null;
  online: null | { mode: string; since: string };
  locked: boolean;
  muted: boolean;
}
export interface ClassStudents {
  class: ClassSummary;
  students: StudentFigures[];
}
export interface QuestionFigures {
  square: number;
  topic: string;
  question: string;
  right: number;
  wrong: number;
}
export interface ClassQuestions {
  topics: TopicFigures[];
  questions: QuestionFigures[];
}
export interface RosterAccount {
  id: number;
  username: string;
  password: string;
  displayName?: string | null;
}
export interface AdminAccount {
  id: number;
  username: string;
  role: Role;
  displayName?: string | null;
  createdAt: string;
  locked: boolean;
  muted: boolean;
}
export interface AuditEntry {
  id: number;
  at: string;
  actor: { id: number | null; name: string | null; role: "teacher" | "admin" | "operator" };
  action: string;
  target: { id: number; name: string | null } | null;
  class_id: number | null;
  address: string | null;
  /** "ok", or the error code the action ended with. */
  result: string;
  detail: unknown;
}
/** Parts of who, what and on whom (any letter case), applied to the entries loaded. */
export interface AuditFilter {
  actor?: string;
  action?: string;
  target?: string;
}

const enc = encodeURIComponent;

export const teacherApi = {
  classes: () => request<{ classes: ClassSummary[] }>("GET", "/api/classes"),
  createClass: (name: string) => request<{ class: ClassSummary }>("POST", "/api/classes", { name }),
  rotateCode: (classId: ClassSummary["id"]) => request<{ class: ClassSummary }>("POST", `/api/classes/${enc(String(classId))}/code`, {}),
  importRoster: (classId: ClassSummary["id"], csv: string) =>
    request<{ students: RosterAccount[] }>("POST", `/api/classes/${enc(String(classId))}/roster`, csv, "text/csv"),
  students: (classId: ClassSummary["id"]) => request<ClassStudents>("GET", `/api/classes/${enc(String(classId))}/students`),
  questions: (classId: ClassSummary["id"]) => request<ClassQuestions>("GET", `/api/classes/${enc(String(classId))}/questions`),
  studentsCsvUrl: (classId: ClassSummary["id"]) => `/api/classes/${enc(String(classId))}/students.csv`,
  removeStudent: (classId: ClassSummary["id"], studentId: number) =>
    request<unknown>("DELETE", `/api/classes/${enc(String(classId))}/students/${studentId}`),

  resetPassword: (studentId: number) => request<{ password: string }>("POST", `/api/students/${studentId}/password-reset`, {}),
  /** lock, unlock, mute, unmute, logout (end its sessions). */
  studentAction: (studentId: number, action: "lock" | "unlock" | "mute" | "unmute" | "logout") =>
    request<unknown>("POST", `/api/students/${studentId}/${action}`, {}),

  searchAccounts: (q: string) => request<{ accounts: AdminAccount[]; truncated?: boolean }>("GET", `/api/admin/accounts?q=${enc(q)}`),
  exportAccount: (id: number) => request<unknown>("GET", `/api/admin/accounts/${id}/export`),
  eraseAccount: (id: number) => request<unknown>("DELETE", `/api/admin/accounts/${id}`),
  /** The newest entries, or those older than `before` (the previous page's next_before). */
  audit: (before?: number | null) =>
    request<{ entries: AuditEntry[]; next_before: number | null }>("GET", `/api/admin/audit?limit=200${before ? `&before=${before}` : ""}`),
};

/** A readable sentence for a failed request: the server's message and the fields it names. */
export function describeError(err: unknown): string {
  if (err instanceof ApiError) {
    const problems = (err.details?.problems as Array<{ message?: string }> | undefined)?.map((p) => p.message).filter(Boolean);
    // A schema's refusal names its fields in details.problems; other errors say it all in the message.
    return err.code === "validation_failed" && problems?.length ? `${err.message.replace(/:.*$/, "")}: ${problems.join("; ")}` : err.message;
  }
  return "The server could not be reached. Try again.";
}

/** Fetches a CSV (or any text) with the session cookie; an error answer becomes ApiError. */
export async function fetchText(path: string, accept: string): Promise<string> {
  const res = await fetch(path, { credentials: "same-origin", headers: { accept } });
  const text = await res.text();
  if (!res.ok) {
    const err = (safeJson(text) as { error?: { code?: string; message?: string } } | undefined)?.error;
    throw new ApiError(res.status, err?.code ?? "http_error", err?.message ?? `GET ${path} failed with ${res.status}`);
  }
  return text;
}
