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

export function drawName(ctx: CanvasRenderingContext2D, x: number, y: number, text: string, sub?: string, size = 16): void {
  ctx.save();
  ctx.font = `600 ${size}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "bottom";
  // Kept inside the canvas: a label near an edge slides along it instead of being cut off.
  const half = Math.max(ctx.measureText(text).width, sub ? ctx.measureText(sub).width * 0.8 : 0) / 2 + 4;
  const m = ctx.getTransform();
  const left = -m.e / m.a;
  const right = (ctx.canvas.width - m.e) / m.a;
  if (right - left > 2 * half) x = Math.min(right - half, Math.max(left + half, x));
  y = Math.max(-m.f / m.d + size + 2, y);
  ctx.lineWidth = 4;
  ctx.strokeStyle = "#0b1019";
  ctx.strokeText(text, x, y);
  ctx.fillStyle = "#eef2fa";
  ctx.fillText(text, x, y);
  if (sub) {
    ctx.font = `500 ${Math.round(size * 0.8)}px system-ui, sans-serif`;
    ctx.textBaseline = "top";
    ctx.strokeText(sub, x, y + 2);
    ctx.fillStyle = "#ffd479";
    ctx.fillText(sub, x, y + 2);
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
