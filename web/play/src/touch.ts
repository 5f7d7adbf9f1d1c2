// Touch controls for the game screens, as twin-stick shooters and .io games do them. The zone is the
// stage (the canvas and, on a phone in portrait, the pad below it):
// - a finger that lands on its LEFT half is a floating stick (its centre where it landed): dragging
//   moves (boss, PvP) or steers (SlitherRush);
// - a finger on its RIGHT half shoots for as long as it stays down. Boss and PvP: landed on the
//   arena, it aims at the point under the finger (and follows it); landed beside the arena, it is
//   an aiming stick, aimed at the boss / the opponent until dragged. SlitherRush shoots ahead.
// Both fingers work at once. Only `pointerType: "touch"` is read here: mouse and pen stay with
// GameInput (input.ts), so a device with both uses both. What the fingers do is drawn on a layer
// over the stage (no pointer events of its own).
import { h } from "./dom.js";

export interface Vec {
  x: number;
  y: number;
}

/** Pixels a finger must travel before a stick counts. */
const DEAD_ZONE = 10;
/** How far the knob is drawn from the stick's centre at most. */
const KNOB_RANGE = 48;

interface Finger {
  id: number;
  start: Vec;
  at: Vec;
  /** Right finger that landed on the arena: aims at the point under it. */
  onArena: boolean;
}

export class TouchControls {
  private left: Finger | null = null;
  private right: Finger | null = null;
  private readonly off: Array<() => void> = [];
  private readonly layer: HTMLElement;
  private readonly base: HTMLElement;
  private readonly knob: HTMLElement;
  private readonly aimBase: HTMLElement;
  private readonly aimKnob: HTMLElement;
  /** A finger has touched the game: the hints can go. */
  used = false;

  constructor(
    private readonly zone: HTMLElement,
    private readonly canvas: HTMLCanvasElement,
  ) {
    this.base = h("div", { class: "touch-stick" });
    this.knob = h("div", { class: "touch-knob" });
    this.aimBase = h("div", { class: "touch-stick fire" });
    this.aimKnob = h("div", { class: "touch-knob fire" });
    this.layer = h("div", { class: "touch-layer", "aria-hidden": "true" }, this.base, this.knob, this.aimBase, this.aimKnob);
    zone.append(this.layer);
    zone.classList.add("touch-zone");
    const on = <K extends keyof HTMLElementEventMap>(target: HTMLElement | Window, type: K, fn: (e: HTMLElementEventMap[K]) => void, options?: AddEventListenerOptions) => {
      target.addEventListener(type, fn as EventListener, options);
      this.off.push(() => target.removeEventListener(type, fn as EventListener, options));
    };
    on(zone, "pointerdown", (e) => this.down(e));
    on(zone, "pointermove", (e) => this.move(e));
    on(zone, "pointerup", (e) => this.up(e));
    on(zone, "pointercancel", (e) => this.up(e));
    // No scrolling, zooming, selection or emulated mouse clicks from a finger on the game; the
    // dialogs over the arena (results, death notice) keep their taps.
    on(zone, "touchstart", (e) => this.isGame(e.target) && e.preventDefault(), { passive: false });
    on(zone, "touchmove", (e) => this.isGame(e.target) && e.preventDefault(), { passive: false });
    on(window, "blur", () => this.release());
    this.render();
  }

  /** Unit-length movement from the left stick, or null while it rests (or no finger is on it). */
  get direction(): Vec | null {
    return this.left ? unitBeyondDeadZone(this.left) : null;
  }

  /** A finger is on the right half. */
  get firing(): boolean {
    return this.right !== null;
  }

  /** Client coordinates to aim at: the finger, when it landed on the arena. */
  get aimPoint(): Vec | null {
    return this.right?.onArena ? this.right.at : null;
  }

  /** Unit aiming direction of the right stick once dragged (a finger beside the arena). */
  get aimDirection(): Vec | null {
    return this.right && !this.right.onArena ? unitBeyondDeadZone(this.right) : null;
  }

  dispose(): void {
    for (const off of this.off.splice(0)) off();
    this.layer.remove();
    this.zone.classList.remove("touch-zone");
  }

  // ----------------------------------------------------------------------------------------------

  /** Touches on the arena and the pad are the game's; those on a dialog, a button or a field are not. */
  private isGame(target: EventTarget | null): boolean {
    const el = target as Element | null;
    return !el?.closest?.(".overlay:not([hidden]), button, input, a, select, textarea");
  }

  /**
   * Where the stage has no room beside the arena (a tablet, a phone in landscape), the strip of
   * thumb hints over the arena's foot counts as beside it: a finger there shoots at the target
   * instead of covering it.
   */
  private onHintStrip(at: Vec): boolean {
    const pad = this.zone.querySelector(".touch-pad");
    if (!pad || getComputedStyle(pad).position !== "absolute") return false;
    const r = pad.getBoundingClientRect();
    return r.height > 0 && at.y >= r.top && at.y <= r.bottom;
  }

  private down(e: PointerEvent): void {
    if (e.pointerType !== "touch" || !this.isGame(e.target)) return;
    e.preventDefault();
    const rect = this.zone.getBoundingClientRect();
    const at = { x: e.clientX, y: e.clientY };
    const finger: Finger = { id: e.pointerId, start: at, at, onArena: e.target === this.canvas && !this.onHintStrip(at) };
    if (at.x < rect.left + rect.width / 2) {
      if (this.left) return;
      this.left = finger;
    } else {
      if (this.right) return;
      this.right = finger;
    }
    this.used = true;
    this.zone.classList.add("touched");
    (e.target as Element).setPointerCapture?.(e.pointerId);
    this.render();
  }

  private move(e: PointerEvent): void {
    const finger = this.finger(e.pointerId);
    if (!finger) return;
    e.preventDefault();
    finger.at = { x: e.clientX, y: e.clientY };
    this.render();
  }

  private up(e: PointerEvent): void {
    if (this.left?.id === e.pointerId) this.left = null;
    if (this.right?.id === e.pointerId) this.right = null;
    this.render();
  }

  private release(): void {
    this.left = this.right = null;
    this.render();
  }

  private finger(id: number): Finger | null {
    return this.left?.id === id ? this.left : this.right?.id === id ? this.right : null;
  }

  /** Draws each stick where its finger landed, its knob towards the finger. */
  private render(): void {
    const rect = this.zone.getBoundingClientRect();
    place(this.base, this.knob, this.left, rect);
    place(this.aimBase, this.aimKnob, this.right && !this.right.onArena ? this.right : null, rect);
  }
}

function unitBeyondDeadZone(f: Finger): Vec | null {
  const dx = f.at.x - f.start.x;
  const dy = f.at.y - f.start.y;
  const len = Math.hypot(dx, dy);
  return len < DEAD_ZONE ? null : { x: dx / len, y: dy / len };
}

function place(base: HTMLElement, knob: HTMLElement, f: Finger | null, rect: DOMRect): void {
  base.hidden = knob.hidden = !f;
  if (!f) return;
  const dx = f.at.x - f.start.x;
  const dy = f.at.y - f.start.y;
  const k = Math.min(1, KNOB_RANGE / (Math.hypot(dx, dy) || 1));
  base.style.transform = `translate(${f.start.x - rect.left}px, ${f.start.y - rect.top}px)`;
  knob.style.transform = `translate(${f.start.x - rect.left + dx * k}px, ${f.start.y - rect.top + dy * k}px)`;
}

/** The hint under the arena on touch screens: where each thumb goes. */
export function touchPad(left: string, right: string): HTMLElement {
  return h("div", { class: "touch-pad", "aria-hidden": "true" }, h("span", { class: "touch-hint" }, left), h("span", { class: "touch-hint fire" }, right));
}
