// Shared drawing: characters as coloured discs with a letter and a name, bullets, labels.
export const CHARACTER_COLORS: Record<string, string> = {
  knight: "#7cc4ff",
  wizard: "#c9a6ff",
  archer: "#7ee0a1",
  warrior: "#ffb36b",
};

export interface FigureStyle {
  color: string;
  label: string;
  /** Own player: drawn with a bright ring. */
  self?: boolean;
  dim?: boolean;
  /** Short text under the name (lives, status). */
  sub?: string;
  /** Flash white (just hit). */
  flash?: boolean;
}

export function drawFigure(ctx: CanvasRenderingContext2D, x: number, y: number, r: number, s: FigureStyle): void {
  ctx.save();
  ctx.globalAlpha = s.dim ? 0.4 : 1;
  ctx.beginPath();
  ctx.arc(x, y, r, 0, Math.PI * 2);
  ctx.fillStyle = s.flash ? "#ffffff" : s.color;
  ctx.fill();
  ctx.lineWidth = s.self ? 5 : 2;
  ctx.strokeStyle = s.self ? "#ffd479" : "#0b1019";
  ctx.stroke();
  ctx.fillStyle = "#08121f";
  ctx.font = `700 ${Math.round(r * 0.9)}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(s.label.slice(0, 1).toUpperCase(), x, y + 1);
  ctx.restore();
}

interface Box {
  left: number;
  top: number;
  right: number;
  bottom: number;
}

/** Labels drawn in the current frame (world units), so later ones avoid them; Stage.beginFrame clears them. */
const placed = new WeakMap<CanvasRenderingContext2D, Box[]>();

export function clearLabels(ctx: CanvasRenderingContext2D): void {
  placed.set(ctx, []);
}

const overlaps = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;

/**
 * A name, and a short line under it (hearts, status), above a figure: the label's foot at `y`. Where
 * that spot is past the canvas's edge or taken by a label of this frame, the label goes below the
 * figure (its top at `below`), then further up or down, so labels never stack and never cover their
 * own hearts; near a side edge it slides along the edge instead of being cut off.
 */
export function drawName(ctx: CanvasRenderingContext2D, x: number, y: number, text: string, sub?: string, size = 16, below?: number): void {
  ctx.save();
  ctx.font = `600 ${size}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  const subSize = Math.round(size * 0.8);
  const half = Math.max(ctx.measureText(text).width, sub ? ctx.measureText(sub).width * 0.8 : 0) / 2 + 4;
  const extra = sub ? subSize + 4 : 2;
  const m = ctx.getTransform();
  const edge: Box = { left: -m.e / m.a, top: -m.f / m.d, right: (ctx.canvas.width - m.e) / m.a, bottom: (ctx.canvas.height - m.f) / m.d };
  if (edge.right - edge.left > 2 * half) x = Math.min(edge.right - half, Math.max(edge.left + half, x));
  const boxAt = (baseline: number): Box => ({ left: x - half, right: x + half, top: baseline - size - 2, bottom: baseline + extra });
  const height = size + 2 + extra;
  const spots: number[] = [];
  for (let k = 0; k < 4; k++) {
    spots.push(y - extra - k * height);
    if (below !== undefined) spots.push(below + size + 2 + k * height);
  }
  const taken = placed.get(ctx) ?? [];
  const inside = (b: Box) => b.top >= edge.top && b.bottom <= edge.bottom;
  const baseline =
    spots.find((s) => inside(boxAt(s)) && !taken.some((t) => overlaps(t, boxAt(s)))) ??
    spots.find((s) => inside(boxAt(s))) ??
    Math.max(edge.top + size + 2, y - extra);
  taken.push(boxAt(baseline));
  placed.set(ctx, taken);
  ctx.lineWidth = 4;
  ctx.strokeStyle = "#0b1019";
  ctx.strokeText(text, x, baseline);
  ctx.fillStyle = "#eef2fa";
  ctx.fillText(text, x, baseline);
  if (sub) {
    ctx.font = `500 ${subSize}px system-ui, sans-serif`;
    ctx.textBaseline = "top";
    ctx.strokeText(sub, x, baseline + 2);
    ctx.fillStyle = "#ffd479";
    ctx.fillText(sub, x, baseline + 2);
  }
  ctx.restore();
}

export function drawDot(ctx: CanvasRenderingContext2D, x: number, y: number, r: number, color: string, glow = false): void {
  ctx.save();
  if (glow) {
    ctx.shadowColor = color;
    ctx.shadowBlur = r * 2;
  }
  ctx.beginPath();
  ctx.arc(x, y, r, 0, Math.PI * 2);
  ctx.fillStyle = color;
  ctx.fill();
  ctx.restore();
}

/** A straight-flying bullet simulated locally from where and when it was fired. */
export interface FlyingBullet {
  x0: number;
  y0: number;
  dx: number;
  dy: number;
  speed: number;
  born: number;
  lifeMs: number;
  color: string;
}

export function bulletAt(b: FlyingBullet, now: number): { x: number; y: number } {
  const t = (now - b.born) / 1000;
  return { x: b.x0 + b.dx * b.speed * t, y: b.y0 + b.dy * b.speed * t };
}
