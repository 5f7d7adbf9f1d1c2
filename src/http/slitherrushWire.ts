// The JSON of /api/slitherrush/*: query and response schemas (the routes validate with them, the
// OpenAPI document is generated from them, tests check bodies against them) and the mappers.
import { z } from "zod";
import type { SlitherRushStatsRow } from "../stores/slitherrush.js";
import { queryIntegerIn } from "./progressWire.js";

export const SLITHERRUSH_LEADERBOARD_DEFAULT_LIMIT = 10;
export const SLITHERRUSH_LEADERBOARD_MAX_LIMIT = 100;

const count = z.number().int().min(0);

export const leaderboardQuery = z.object({
  limit: queryIntegerIn(1, SLITHERRUSH_LEADERBOARD_MAX_LIMIT, SLITHERRUSH_LEADERBOARD_DEFAULT_LIMIT),
});

export const statsResponse = z
  .object({
    user_id: z.number().int(),
    username: z.string(),
    sessions: count.describe("Arena sessions played (one per join)"),
    kills: count,
    deaths: count,
    best_score: count.describe("Highest score reached in a session"),
    best_length: count.describe("Longest snake in a session (segments)"),
    time_played: z.number().min(0).describe("Seconds in arenas, one decimal"),
    last_played_at: z.iso.datetime().nullable(),
  })
  .strict();

export const leaderboardEntrySchema = z
  .object({
    rank: z.number().int().min(1),
    user_id: z.number().int(),
    username: z.string(),
    best_score: count,
    best_length: count,
    kills: count,
    deaths: count,
    sessions: count,
  })
  .strict();

export const leaderboardResponse = z
  .object({
    leaderboard: z.array(leaderboardEntrySchema),
    count: count.describe("Entries returned"),
    limit: z.number().int(),
  })
  .strict();

const round1 = (n: number) => Math.round(n * 10) / 10;

/** The caller's results; zeros before the first session. */
export function toStats(user: { id: number; username: string }, row: SlitherRushStatsRow | null): z.infer<typeof statsResponse> {
  return {
    user_id: user.id,
    username: user.username,
    sessions: row?.sessions ?? 0,
    kills: row?.kills ?? 0,
    deaths: row?.deaths ?? 0,
    best_score: row?.bestScore ?? 0,
    best_length: row?.bestLength ?? 0,
    time_played: round1(row?.timePlayedSeconds ?? 0),
    last_played_at: row?.lastPlayedAt ? row.lastPlayedAt.toISOString() : null,
  };
}

export const toLeaderboardEntry = (r: SlitherRushStatsRow, index: number): z.infer<typeof leaderboardEntrySchema> => ({
  rank: index + 1,
  user_id: r.userId,
  username: r.username,
  best_score: r.bestScore,
  best_length: r.bestLength,
  kills: r.kills,
  deaths: r.deaths,
  sessions: r.sessions,
});
