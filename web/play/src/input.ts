// Keyboard and mouse for the game canvases. Keys count only while the focus is on the canvas or on
// nothing in particular, so typing in the chat never moves the player and Space on a focused button
// still presses that button. Fingers are not a mouse here: touch pointers belong to TouchControls
// (touch.ts), so a device with both uses both.
export class GameInput {
  private readonly keys = new Set<string>();
  /** Last pointer position (client pixels), while the pointer is over the canvas. */
  private pointer: { x: number; y: number } | null = null;
  pointerDown = false;
  private readonly off: Array<() => void> = [];

  constructor(
    private readonly canvas: HTMLCanvasElement,
    private readonly toWorld: (clientX: number, clientY: number) => { x: number; y: number },
    private readonly onKey: (code: string) => void = () => {},
  ) {
    const on = <K extends keyof WindowEventMap>(target: Window | HTMLElement, type: K, fn: (e: WindowEventMap[K]) => void) => {
      target.addEventListener(type, fn as EventListener);
      this.off.push(() => target.removeEventListener(type, fn as EventListener));
    };
    on(window, "keydown", (e) => {
      if (!this.accepts(e)) return;
      if (GAME_KEYS.has(e.code)) e.preventDefault();
      if (!e.repeat) this.onKey(e.code);
      this.keys.add(e.code);
    });
    on(window, "keyup", (e) => this.keys.delete(e.code));
    on(window, "blur", () => {
      this.keys.clear();
      this.pointerDown = false;
    });
    on(canvas, "pointermove", (e) => {
      if (e.pointerType !== "touch") this.pointer = { x: e.clientX, y: e.clientY };
    });
    on(canvas, "pointerleave", () => {
      if (!this.pointerDown) this.pointer = null;
    });
    on(canvas, "pointerdown", (e) => {
      if (e.button !== 0 || e.pointerType === "touch") return;
      canvas.focus();
      this.pointer = { x: e.clientX, y: e.clientY };
      this.pointerDown = true;
      canvas.setPointerCapture?.(e.pointerId);
    });
    on(canvas, "pointerup", (e) => {
      if (e.pointerType !== "touch") this.pointerDown = false;
    });
    on(canvas, "contextmenu", (e) => e.preventDefault());
  }

  private accepts(e: KeyboardEvent): boolean {
    if (e.ctrlKey || e.metaKey || e.altKey) return false;
    const target = e.target as HTMLElement | null;
    return !target || target === this.canvas || target === document.body || target.id === "main";
  }

  /** Where the pointer is in world coordinates now (the camera may have moved since it did). */
  get aim(): { x: number; y: number } | null {
    return this.pointer && this.toWorld(this.pointer.x, this.pointer.y);
  }

  down(...codes: string[]): boolean {
    return codes.some((c) => this.keys.has(c));
  }

  /** Unit-length movement intent from WASD / arrow keys, or null. */
  direction(): { x: number; y: number } | null {
    const x = (this.down("KeyD", "ArrowRight") ? 1 : 0) - (this.down("KeyA", "ArrowLeft") ? 1 : 0);
    const y = (this.down("KeyS", "ArrowDown") ? 1 : 0) - (this.down("KeyW", "ArrowUp") ? 1 : 0);
    if (!x && !y) return null;
    const len = Math.hypot(x, y);
    return { x: x / len, y: y / len };
  }

  dispose(): void {
    for (const off of this.off.splice(0)) off();
  }
}

const GAME_KEYS = new Set(["ArrowUp", "ArrowDown", "ArrowLeft", "ArrowRight", "Space", "KeyW", "KeyA", "KeyS", "KeyD"]);
