// A canvas that fills its box, keeps the world's aspect ratio and is sharp on high-DPI screens,
// with a world → screen camera and one requestAnimationFrame loop.
import { clearLabels } from "./sprites.js";

export interface View {
  /** World rectangle shown: left, top, width, height. */
  x: number;
  y: number;
  width: number;
  height: number;
}

export class Stage {
  readonly ctx: CanvasRenderingContext2D;
  view: View;
  private raf = 0;
  private resizeObserver: ResizeObserver;
  private cssWidth = 0;

  constructor(
    readonly canvas: HTMLCanvasElement,
    /** Aspect ratio (width / height) of what is shown. */
    private aspect: number,
  ) {
    this.ctx = canvas.getContext("2d")!;
    this.view = { x: 0, y: 0, width: aspect * 100, height: 100 };
    this.resizeObserver = new ResizeObserver(() => this.resize());
    this.resizeObserver.observe(canvas.parentElement ?? canvas);
    window.addEventListener("resize", this.onWindowResize);
    this.resize();
  }

  private readonly onWindowResize = () => this.resize();

  /** As wide as its box, but never taller than what is left of the window below its top (and below it in its box). */
  private resize(): void {
    const box = this.canvas.parentElement ?? this.canvas;
    const top = this.canvas.getBoundingClientRect().top + window.scrollY;
    // What the stage holds below the canvas in the flow (the touch pad) stays on screen too.
    const below = Array.from(box.children).reduce((sum, el) => (el !== this.canvas && getComputedStyle(el).position === "static" ? sum + el.getBoundingClientRect().height + 8 : sum), 0);
    // The page ends at <main>'s padding below the canvas: no more, or the page would scroll.
    const main = this.canvas.closest("main");
    const margin = main ? parseFloat(getComputedStyle(main).paddingBottom) + 2 : 16;
    const heightLeft = Math.max(240, window.innerHeight - top - margin - below);
    const width = Math.max(240, Math.floor(Math.min(box.clientWidth, heightLeft * this.aspect)));
    if (width === this.cssWidth && this.canvas.width === Math.round(width * Math.min(window.devicePixelRatio || 1, 3))) return;
    this.cssWidth = width;
    const dpr = Math.min(window.devicePixelRatio || 1, 3); // sharp on phones (2-3) too
    this.canvas.style.width = `${width}px`;
    this.canvas.style.height = `${Math.round(width / this.aspect)}px`;
    this.canvas.width = Math.round(width * dpr);
    this.canvas.height = Math.round((width / this.aspect) * dpr);
  }

  /** Canvas pixels per world unit. */
  get scale(): number {
    return this.canvas.width / this.view.width;
  }

  /** A font size in world units that is at least `cssPx` CSS pixels on screen. */
  fontSize(worldPx: number, cssPx = 12): number {
    const cssPerWorld = this.canvas.getBoundingClientRect().width / this.view.width || 1;
    return Math.max(worldPx, cssPx / cssPerWorld);
  }

  /** Sets the transform so drawing happens in world coordinates. */
  beginFrame(background: string): void {
    const { ctx } = this;
    ctx.setTransform(1, 0, 0, 1, 0, 0);
    ctx.fillStyle = background;
    ctx.fillRect(0, 0, this.canvas.width, this.canvas.height);
    const s = this.scale;
    ctx.setTransform(s, 0, 0, s, -this.view.x * s, -this.view.y * s);
    clearLabels(ctx);
  }

  /** Pointer position (client pixels) → world coordinates. */
  toWorld(clientX: number, clientY: number): { x: number; y: number } {
    const rect = this.canvas.getBoundingClientRect();
    return {
      x: this.view.x + ((clientX - rect.left) / rect.width) * this.view.width,
      y: this.view.y + ((clientY - rect.top) / rect.height) * this.view.height,
    };
  }

  start(frame: (now: number, dt: number) => void): void {
    let last = performance.now();
    const loop = (now: number) => {
      const dt = Math.min(0.1, (now - last) / 1000); // a background tab must not teleport anything
      last = now;
      frame(now, dt);
      this.raf = requestAnimationFrame(loop);
    };
    this.raf = requestAnimationFrame(loop);
  }

  stop(): void {
    cancelAnimationFrame(this.raf);
    this.resizeObserver.disconnect();
    window.removeEventListener("resize", this.onWindowResize);
  }
}
