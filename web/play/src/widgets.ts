// Pieces the game screens share: the chat panel and the controls help.
import { h } from "./dom.js";
import { CHAT_MAX_LENGTH } from "../../../src/game/chat.js";

export interface ChatPanel {
  element: HTMLElement;
  /** A line from a player, or a system notice when `from` is null. */
  add(from: string | null, text: string): void;
  onSend(fn: (text: string) => void): void;
}

export function chatPanel(title = "Chat"): ChatPanel {
  const log = h("ul", { class: "chat-log", role: "log", "aria-live": "polite", "aria-label": `${title} messages`, id: "chat-log" });
  const input = h("input", { id: "chat-input", maxlength: CHAT_MAX_LENGTH, autocomplete: "off" });
  const form = h(
    "form",
    { "aria-label": "Send a chat message" },
    h("label", { for: "chat-input" }, "Message"),
    h("div", { class: "row" }, h("div", { class: "grow" }, input), h("button", { type: "submit" }, "Send")),
  );
  return {
    element: h("section", { class: "panel", "aria-labelledby": "chat-h" }, h("h2", { id: "chat-h" }, title), log, form),
    add(from, text) {
      log.append(from ? h("li", {}, h("span", { class: "from" }, `${from}: `), text) : h("li", { class: "system" }, text));
      while (log.children.length > 100) log.firstElementChild!.remove();
      log.scrollTop = log.scrollHeight;
    },
    onSend(fn) {
      form.addEventListener("submit", (e) => {
        e.preventDefault();
        const text = input.value.trim();
        if (!text) return;
        fn(text);
        input.value = "";
      });
    },
  };
}

export function controlsHelp(...lines: Array<Array<Node | string>>): HTMLElement {
  return h(
    "section",
    { class: "panel controls-help", "aria-labelledby": "controls-h" },
    h("h2", { id: "controls-h" }, "Controls"),
    ...lines.map((parts) => h("p", {}, ...parts)),
  );
}

export const kbd = (text: string) => h("kbd", {}, text);

/**
 * The panels beside the arena (players, chat, leaderboard, help): folded on a small screen, where
 * they sit below the arena, so opening them never moves it; open beside it on a wide one.
 */
export function sidePanels(summary: string, ...panels: HTMLElement[]): HTMLElement {
  // Touch screens fold them too: a tablet's arena takes the width (style.css).
  const wide = window.matchMedia("(min-width: 901px) and (min-height: 501px)").matches && !window.matchMedia("(pointer: coarse)").matches;
  return h("details", { class: "side fold", open: wide }, h("summary", {}, summary), h("div", { class: "fold-body" }, ...panels));
}

/** The controls help's line for fingers. */
export const TOUCH_HELP = ["Touch: drag on the left half to move; hold on the right half to shoot: on the arena at your finger, beside it at the target (drag to aim)."];
