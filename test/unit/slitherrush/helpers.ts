import { SlitherArena, type Snake } from "../../../src/game/slitherrush/arena.js";
import { buildBody } from "../../../src/game/slitherrush/spawn.js";
import { seededRng } from "../../../src/game/rng.js";

export function arena(seed = 1): SlitherArena {
  return new SlitherArena({ rng: seededRng(seed) });
}

/** Puts a snake's head at (x, y) heading (dx, dy) with a straight body, and ends its protection. */
export function place(a: SlitherArena, snake: Snake, x: number, y: number, dx = 1, dy = 0): Snake {
  const len = Math.hypot(dx, dy);
  snake.dirX = dx / len;
  snake.dirY = dy / len;
  snake.body = buildBody({ x, y }, snake.dirX, snake.dirY, snake.length, a.size);
  snake.protectedUntil = a.tick - 1;
  snake.pendingHeading = null;
  return snake;
}

export function join(a: SlitherArena, id: string, username = id): Snake {
  const s = a.addPlayer(id, { username });
  if (!s) throw new Error(`could not add ${id}`);
  return s;
}

export function steps(a: SlitherArena, n: number) {
  const all = [];
  for (let i = 0; i < n; i++) all.push(a.step());
  return all;
}
