// Drawing the boss arena in world coordinates (1100 × 600; players below y = top).
import type { Bounds } from "../../../../src/game/boss/constants.js";
import { drawDot, drawFigure, drawName, CHARACTER_COLORS } from "../render/sprites.js";
import { youName } from "../dom.js";

export const POWERUP_STYLE: Record<string, { color: string; letter: string; name: string }> = {
  damage: { color: "#ff7b7b", letter: "D", name: "double damage" },
  speed: { color: "#7cc4ff", letter: "S", name: "speed" },
  rapidfire: { color: "#ffd479", letter: "R", name: "+15 bullets" },
  heal: { color: "#7ee0a1", letter: "+", name: "heal" },
};

export function drawArena(ctx: CanvasRenderingContext2D, b: Bounds): void {
  ctx.fillStyle = "#141b2b";
  ctx.fillRect(0, 0, b.width, b.top);
  ctx.fillStyle = "#101826";
  ctx.fillRect(0, b.top, b.width, b.height - b.top);
  ctx.strokeStyle = "#3a4768";
  ctx.lineWidth = 2;
  ctx.setLineDash([10, 8]);
  ctx.beginPath();
  ctx.moveTo(0, b.top);
  ctx.lineTo(b.width, b.top);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.strokeRect(1, 1, b.width - 2, b.height - 2);
}

export function drawBoss(ctx: CanvasRenderingContext2D, x: number, y: number, r: number, pattern: string, health: number, max: number, flash: boolean, fontSize = 18): void {
  ctx.save();
  ctx.shadowColor = "#ff5d7a";
  ctx.shadowBlur = flash ? 40 : 18;
  ctx.beginPath();
  ctx.arc(x, y, r, 0, Math.PI * 2);
  ctx.fillStyle = flash ? "#ffd0d8" : "#c2334f";
  ctx.fill();
  ctx.restore();
  // eyes
  ctx.fillStyle = "#0b1019";
  drawDot(ctx, x - r * 0.35, y - r * 0.15, r * 0.12, "#0b1019");
  drawDot(ctx, x + r * 0.35, y - r * 0.15, r * 0.12, "#0b1019");
  // health ring
  const share = max > 0 ? Math.max(0, health / max) : 0;
  ctx.lineWidth = 6;
  ctx.strokeStyle = "#3a4768";
  ctx.beginPath();
  ctx.arc(x, y, r + 8, 0, Math.PI * 2);
  ctx.stroke();
  ctx.strokeStyle = share > 0.3 ? "#7ee0a1" : "#ff9b9b";
  ctx.beginPath();
  ctx.arc(x, y, r + 8, -Math.PI / 2, -Math.PI / 2 + share * Math.PI * 2);
  ctx.stroke();
  drawName(ctx, x, y - r - 12, `Boss · ${pattern}`, undefined, fontSize, y + r + 12);
}

export interface PlayerDrawing {
  x: number;
  y: number;
  username: string;
  character: string;
  lives: number;
  status: string;
  away: boolean;
  connected: boolean;
  damage_boost: boolean;
  speed_boost: boolean;
}

export function drawPlayer(ctx: CanvasRenderingContext2D, p: PlayerDrawing, r: number, self: boolean, flash: boolean, fontSize = 16): void {
  const dead = p.status === "dead";
  drawFigure(ctx, p.x, p.y, r, {
    color: CHARACTER_COLORS[p.character] ?? "#b7c1d9",
    label: p.character,
    self,
    dim: dead || p.away || !p.connected,
    flash,
  });
  if (p.damage_boost || p.speed_boost) {
    ctx.save();
    ctx.strokeStyle = p.damage_boost ? "#ff7b7b" : "#7cc4ff";
    ctx.lineWidth = 3;
    ctx.setLineDash([6, 6]);
    ctx.beginPath();
    ctx.arc(p.x, p.y, r + 7, 0, Math.PI * 2);
    ctx.stroke();
    ctx.restore();
  }
  const sub = dead ? "defeated" : !p.connected ? "reconnecting…" : p.away ? "away" : "♥".repeat(Math.max(0, p.lives));
  drawName(ctx, p.x, p.y - r - 9, self ? youName(p.username) : p.username, sub, fontSize, p.y + r + 9);
}

export function drawPowerup(ctx: CanvasRenderingContext2D, x: number, y: number, type: string, now: number): void {
  const style = POWERUP_STYLE[type] ?? { color: "#eef2fa", letter: "?", name: type };
  const pulse = 16 + Math.sin(now / 180) * 2;
  drawDot(ctx, x, y, pulse, style.color, true);
  ctx.fillStyle = "#08121f";
  ctx.font = "800 18px system-ui, sans-serif";
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  ctx.fillText(style.letter, x, y + 1);
}
