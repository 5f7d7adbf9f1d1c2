// Game accounts shaped like the real thing, written straight into a migrated database (the load
// scenarios that need a big database: backupCandidates.ts, backup.ts): every account with progress,
// five answers, half with boss stats, a PvP result each. Their passwords are not usable (fake hashes).

/** Anything that runs a multi-statement SQL script: PGlite's exec, or a pg client's query. */
export interface SqlScript {
  exec(sql: string): Promise<unknown>;
}

export async function fillAccounts(db: SqlScript, n: number): Promise<void> {
  await db.exec(`
    INSERT INTO users (username, password_hash, updated_at)
      SELECT 'player' || i, 'scrypt$16384$8$1$' || md5(i::text) || '$' || md5((i * 7)::text) || md5((i * 13)::text), now() FROM generate_series(1, ${n}) i;
    INSERT INTO game_progress (user_id, current_square, total_bullets, completed_lessons, visited_squares, time_played)
      SELECT id, id % 100 + 1, id % 50, ARRAY[1, 2, 3], ARRAY(SELECT generate_series(1, id % 30 + 1)), id * 1.5 FROM users;
    INSERT INTO square_completions (progress_id, square, correct, bullets_earned)
      SELECT p.id, s * 7, s % 3 <> 0, 2 FROM game_progress p, generate_series(1, 5) s;
    INSERT INTO boss_battle_stats (user_id, battles_joined, battles_won, total_damage_dealt)
      SELECT id, 3, 1, 450 FROM users WHERE id % 2 = 0;
    INSERT INTO pvp_results (match_id, user_id, room_id, player_number, outcome, reason, shots, hits, lives_left, opponent_name, duration_ms, ended_at)
      SELECT 'm' || (id / 2), id, 'room' || (id / 2), id % 2 + 1, CASE WHEN id % 2 = 0 THEN 'win' ELSE 'loss' END, 'knockout', 20, 7, 2, 'player' || (id + 1), 61000, now() FROM users;
    CHECKPOINT;
  `);
}
