// Interest management: what one client is sent. A client sees the box of VIEW_WIDTH × VIEW_HEIGHT
// world pixels centred on its own head; snakes whose body box comes within SNAKE_MARGIN of it and
// bullets within BULLET_MARGIN of it are sent, so they are known before they are on screen.
// Snakes already sent stay until SNAKE_KEEP_MARGIN (hysteresis: no flicker at the edge).
import type { Point } from "../geometry.js";

export const VIEW_WIDTH = 1920;
export const VIEW_HEIGHT = 1080;
/** ~10 snapshots of head travel before a snake can reach the visible box. */
export const SNAKE_MARGIN = 160;
export const SNAKE_KEEP_MARGIN = 280;
/** ~3 snapshots of bullet travel (640 px/s). */
export const BULLET_MARGIN = 130;

export interface Box {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
}

export const emptyBox = (): Box => ({ minX: 0, minY: 0, maxX: 0, maxY: 0 });

/** The view box around `center`, grown by `margin` on every side (written into `out`). */
export function viewBox(center: Point, margin: number, out: Box = emptyBox()): Box {
  const hw = VIEW_WIDTH / 2 + margin;
  const hh = VIEW_HEIGHT / 2 + margin;
  out.minX = center.x - hw;
  out.minY = center.y - hh;
  out.maxX = center.x + hw;
  out.maxY = center.y + hh;
  return out;
}

/** The bounding box of `points` (written into `out`). */
export function boxOf(points: readonly Point[], out: Box = emptyBox()): Box {
  let minX = Infinity;
  let minY = Infinity;
  let maxX = -Infinity;
  let maxY = -Infinity;
  for (const p of points) {
    if (p.x < minX) minX = p.x;
    if (p.x > maxX) maxX = p.x;
    if (p.y < minY) minY = p.y;
    if (p.y > maxY) maxY = p.y;
  }
  out.minX = minX;
  out.minY = minY;
  out.maxX = maxX;
  out.maxY = maxY;
  return out;
}

/** A viewer's three boxes, computed once per snapshot: snakes entering, snakes staying, bullets. */
export class InterestBoxes {
  readonly enter = emptyBox();
  readonly keep = emptyBox();
  readonly bullets = emptyBox();

  around(center: Point): this {
    viewBox(center, SNAKE_MARGIN, this.enter);
    viewBox(center, SNAKE_KEEP_MARGIN, this.keep);
    viewBox(center, BULLET_MARGIN, this.bullets);
    return this;
  }

  snake(body: Box, alreadySent: boolean): boolean {
    return boxesOverlap(alreadySent ? this.keep : this.enter, body);
  }

  bullet(p: Point): boolean {
    return boxContains(this.bullets, p);
  }
}

export function boxesOverlap(a: Box, b: Box): boolean {
  return a.minX <= b.maxX && b.minX <= a.maxX && a.minY <= b.maxY && b.minY <= a.maxY;
}

export function boxContains(box: Box, p: Point): boolean {
  return p.x >= box.minX && p.x <= box.maxX && p.y >= box.minY && p.y <= box.maxY;
}

/** Whether a viewer at `viewer` gets a snake whose body spans `body`, given whether it had it. */
export function snakeInInterest(viewer: Point, body: Box, alreadySent: boolean): boolean {
  return boxesOverlap(viewBox(viewer, alreadySent ? SNAKE_KEEP_MARGIN : SNAKE_MARGIN), body);
}

/** Whether a viewer at `viewer` is told about a bullet now at `bullet`. */
export function bulletInInterest(viewer: Point, bullet: Point): boolean {
  return boxContains(viewBox(viewer, BULLET_MARGIN), bullet);
}
