// A tiny element builder: h("button", { class: "x", onclick: fn }, "text"). No framework: the client
// stays readable for anyone starting their own from it.
type Child = Node | string | number | null | undefined | false;
type Attrs = Record<string, string | number | boolean | null | undefined | ((event: any) => void)>;

export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs = {}, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value === undefined || value === null || value === false) continue;
    if (typeof value === "function") el.addEventListener(key.replace(/^on/, ""), value);
    else if (key === "text") el.textContent = String(value);
    else if (value === true) el.setAttribute(key, "");
    else el.setAttribute(key, String(value));
  }
  append(el, ...children);
  return el;
}

export function append(parent: Node, ...children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    parent.appendChild(typeof child === "object" ? child : document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function replace(parent: Element, ...children: Child[]): void {
  parent.replaceChildren();
  append(parent, ...children);
}

/** Says something to screen-reader users (polite live region). */
export function announce(text: string): void {
  const region = document.getElementById("announcer");
  if (region) region.textContent = text;
}

/** A labelled form field: <div><label for>…</label><input id>…</div>. */
export function field(label: string, input: HTMLInputElement | HTMLSelectElement, hint?: string): HTMLDivElement {
  const hintEl = hint ? h("p", { class: "hint", id: `${input.id}-hint` }, hint) : null;
  if (hintEl) input.setAttribute("aria-describedby", hintEl.id);
  return h("div", { class: "field" }, h("label", { for: input.id }, label), input, hintEl);
}

export const fmt = new Intl.NumberFormat("en");

/** "1 life", "2 lives". */
export function plural(n: number, one: string, many: string): string {
  return `${n} ${n === 1 ? one : many}`;
}

/** The own name with "(you)": a guest's "(guest)" tag goes, so it never reads "Ann (guest) (you)". */
export function youName(username: string): string {
  return `${username.replace(/ \(guest\)$/, "")} (you)`;
}

/**
 * Shows a notice in a status line; `fresh` restarts its fade where the layout fades notices
 * (style.css). A notice of something under way ("Connection lost: reconnecting…") stays up.
 */
export function notify(line: HTMLElement, text: string): void {
  if (text === line.textContent) return; // the same notice again (a repeated status) keeps its clock
  line.textContent = text;
  line.classList.remove("fresh");
  if (!text || text.includes("…")) return;
  void line.offsetWidth; // a new animation, not the running one
  line.classList.add("fresh");
}

/**
 * A modal dialog (<dialog>.showModal(): Esc closes it, focus stays inside, the page behind is inert).
 * It removes itself when closed and gives the focus back to what had it.
 */
export function modal(title: string, ...body: Child[]): HTMLDialogElement {
  const back = document.activeElement as HTMLElement | null;
  const headingId = `dialog-h-${Math.random().toString(36).slice(2, 8)}`;
  const dialog = h(
    "dialog",
    { class: "panel modal", "aria-labelledby": headingId },
    h("div", { class: "modal-head" }, h("h2", { id: headingId }, title), h("button", { type: "button", class: "secondary", "aria-label": "Close", onclick: () => dialog.close() }, "Close")),
    ...body,
  );
  dialog.addEventListener("close", () => {
    dialog.remove();
    back?.focus?.();
  });
  document.body.append(dialog);
  dialog.showModal();
  return dialog;
}

/** Saves `text` as a file the browser downloads (a CSV, a JSON export). */
export function download(filename: string, text: string, type: string): void {
  const url = URL.createObjectURL(new Blob([text], { type }));
  const a = h("a", { href: url, download: filename, class: "visually-hidden" }, filename);
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/** A yes/no question in a modal dialog (the focus starts on the safe answer). */
export function ask(question: string, yes: string, { danger = false, no = "Cancel" } = {}): Promise<boolean> {
  return new Promise((resolve) => {
    let answer = false;
    const keep = h("button", { type: "button", class: "secondary", onclick: () => dialog.close() }, no);
    const dialog = modal(
      "Please confirm",
      h("p", {}, question),
      h("div", { class: "row" }, h("button", { type: "button", class: danger ? "danger" : undefined, onclick: () => ((answer = true), dialog.close()) }, yes), keep),
    );
    dialog.classList.add("ask");
    keep.focus();
    dialog.addEventListener("close", () => resolve(answer));
  });
}
