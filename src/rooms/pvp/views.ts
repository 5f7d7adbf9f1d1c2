// The PvP room's outbound payloads built from the simulation (players, the room state, results).
import { BULLET_RADIUS, BULLET_SPEED, PLAYER_RADIUS, PVP_BOUNDS, WALL_LEFT, WALL_RIGHT, type PlayerNumber } from "../../game/pvp/constants.js";
import type { ActionError, BattleResult, PvpArena, PvpBullet, PvpPlayer } from "../../game/pvp/simulation.js";
import { ErrorCodes } from "../../protocol/common.js";
import { PvpErrorCodes } from "../../protocol/pvp.js";
import type { PvpArenaView, PvpBattleEndPayload, PvpOpponentShotPayload, PvpPlayerView, PvpRoomStatePayload, PvpRoomStatusPayload } from "../../protocol/pvp.js";

/** The `error` text (code not_in_room) for a client without a player in the duel. */
export const NOT_IN_DUEL = "You are not a player of this duel";

/** The `error` a refused action gets: code and message. */
export const ACTION_ERRORS: Partial<Record<ActionError, [string, string]>> = {
  not_in_room: [ErrorCodes.notInRoom, NOT_IN_DUEL],
  battle_active: [PvpErrorCodes.battleActive, "The battle is already running"],
  not_in_battle: [PvpErrorCodes.notInBattle, "There is no battle running"],
  paused: [PvpErrorCodes.battlePaused, "The battle waits for your opponent's connection"],
  disconnected: [PvpErrorCodes.disconnected, "Your connection is not in the battle"],
  no_bullets: [PvpErrorCodes.noBullets, "You have no bullets left"],
  fire_rate: [PvpErrorCodes.fireRate, "Firing too fast"],
  no_direction: [PvpErrorCodes.noDirection, "A shot needs a direction"],
  bad_position: [ErrorCodes.invalidPayload, "A move needs finite coordinates"],
};

/** The `error` code and text for an action the arena refused. */
export function actionError(error: ActionError): [string, string] {
  return ACTION_ERRORS[error] ?? [ErrorCodes.invalidPayload, error];
}

/** What the room knows about a seat beyond the simulation. */
export interface SeatFacts {
  guest: boolean;
  away: boolean;
}
export type FactsOf = (sid: string) => SeatFacts;

export const ARENA_VIEW: Readonly<PvpArenaView> = Object.freeze({
  width: PVP_BOUNDS.width,
  height: PVP_BOUNDS.height,
  player_radius: PLAYER_RADIUS,
  wall_left: WALL_LEFT,
  wall_right: WALL_RIGHT,
  bullet_radius: BULLET_RADIUS,
  bullet_speed: BULLET_SPEED,
});

export function playerView(p: PvpPlayer, facts: SeatFacts): PvpPlayerView {
  return {
    sid: p.id,
    username: p.username,
    character: p.character,
    player_number: p.number,
    x: p.x,
    y: p.y,
    lives: p.lives,
    bullets: p.bullets,
    ready: p.ready,
    connected: p.connected,
    away: facts.away,
    guest: facts.guest,
  };
}

/** Both seats' views for pvp_match_ready / pvp_battle_start; undefined unless both are taken. */
export function bothPlayers(arena: PvpArena, factsOf: FactsOf): { player1: PvpPlayerView; player2: PvpPlayerView } | undefined {
  const [one, two] = ([1, 2] as PlayerNumber[]).map((n) => arena.byNumber(n));
  if (!one || !two) return undefined;
  return { player1: playerView(one, factsOf(one.id)), player2: playerView(two, factsOf(two.id)) };
}

export function roomStatePayload(roomId: string, arena: PvpArena, factsOf: FactsOf, self: PvpPlayer): PvpRoomStatePayload {
  const opponent = arena.opponentOf(self);
  return {
    roomId,
    playerCount: arena.players.size,
    playerNumber: self.number,
    phase: arena.phase,
    self: playerView(self, factsOf(self.id)),
    opponent: opponent ? playerView(opponent, factsOf(opponent.id)) : null,
    arena: { ...ARENA_VIEW },
  };
}

export function roomStatusPayload(roomId: string, arena: PvpArena): PvpRoomStatusPayload {
  return { roomId, playerCount: arena.players.size, battleActive: arena.phase === "battle", phase: arena.phase };
}

export function battleEndPayload(result: BattleResult, factsOf: FactsOf): PvpBattleEndPayload {
  return {
    winner: result.winnerId,
    loser: result.loserId,
    reason: result.reason,
    stats: {
      match_id: result.matchId,
      duration_ms: Math.round(result.durationMs),
      players: result.players.map((p) => ({
        sid: p.id,
        player_number: p.number,
        username: p.username,
        character: p.character,
        guest: factsOf(p.id).guest,
        shots: p.shots,
        hits: p.hits,
        lives: p.lives,
        bullets: p.bullets,
      })),
    },
  };
}

/** A shot as the opponent sees it: where the bullet starts, its unit direction and speed. */
export function shotPayload(character: string, bullet: PvpBullet): PvpOpponentShotPayload {
  return {
    bullet_id: bullet.id,
    bulletX: bullet.x,
    bulletY: bullet.y,
    dx: bullet.vx / BULLET_SPEED,
    dy: bullet.vy / BULLET_SPEED,
    speed: BULLET_SPEED,
    character,
  };
}
