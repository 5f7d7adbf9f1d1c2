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

export interface PublicUser {
  id: number;
  username: string;
  created_at: string;
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

async function request<T>(method: string, path: string, body?: unknown): Promise<T> {
  const res = await fetch(path, {
    method,
    credentials: "same-origin",
    headers: body === undefined ? { accept: "application/json" } : { accept: "application/json", "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
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

  progress: () => request<ProgressState>("GET", "/api/snakes/progress"),
  completeLesson: (lesson_number: number, bullets_earned: number) =>
    request<ProgressState>("POST", "/api/snakes/complete-lesson", { lesson_number, bullets_earned }),
  answerQuestion: (square: number, correct: boolean, bullets_earned: number) =>
    request<ProgressState>("POST", "/api/snakes/answer-question", { square, correct, bullets_earned }),
  unvisitedSquares: () => request<UnvisitedSquares>("GET", "/api/snakes/unvisited-squares"),
  setCharacter: (character: Character) => request<ProgressState>("PUT", "/api/snakes/update-game", { character }),
  champions: (limit = 20) => request<Champions>("GET", `/api/snakes/champions?limit=${limit}`),
  leaderboard: (limit = 10) => request<Leaderboard>("GET", `/api/snakes/leaderboard?limit=${limit}`),

  bossJoin: () => request<BossJoinAnswer>("POST", "/api/boss/join", { reserve_seat: true }),
  bossStats: () => request<BossStats>("GET", "/api/boss/stats"),
};
