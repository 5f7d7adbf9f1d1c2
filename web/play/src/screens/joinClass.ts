// "Join a class" (#/join): a student enters the code their teacher handed out
// (POST /api/classes/join). The sign-up form has the same field; a code it could not use lands here.
import { go, type Screen } from "../app.js";
import { api, ApiError, describeError } from "../api.js";
import { announce, field, h } from "../dom.js";
import { session } from "../session.js";

/** What the student typed, as the server compares it: no spaces, capitals. */
export function normaliseClassCode(code: string): string {
  return code.replace(/\s+/g, "").toUpperCase();
}

/** A readable sentence for a refused code (the server's own words: "No class has this code: check it with your teacher…"). */
export function joinClassError(err: unknown): string {
  if (err instanceof ApiError && err.status === 403 && err.code === "forbidden") return "Only a student's account can join a class.";
  return describeError(err);
}

/** Set by the sign-up form when the account was made but the code was refused. */
let pendingNotice: string | null = null;
export function noticeOnJoinScreen(text: string): void {
  pendingNotice = text;
}

export function classCodeInput(id: string): HTMLInputElement {
  return h("input", { id, name: "class-code", autocomplete: "off", autocapitalize: "characters", spellcheck: "false", maxlength: 16, inputmode: "text" });
}

export const joinClassScreen: Screen = {
  title: "Join a class",
  needs: "student",
  nav: "Join a class",
  mount(root, params) {
    const code = classCodeInput("join-code-input");
    code.required = true;
    code.value = params.get("code") ?? "";
    const message = h("p", { class: "error-text", role: "alert", id: "join-error" }, pendingNotice ?? "");
    pendingNotice = null;
    const done = h("p", { class: "ok-text", role: "status", id: "join-done" });
    const submit = h("button", { type: "submit" }, "Join");
    const form = h(
      "form",
      { class: "panel narrow", "aria-labelledby": "join-h" },
      h("h2", { id: "join-h" }, "Enter your class code"),
      field("Class code", code, "Your teacher gives you a short code, e.g. K7QM2XP."),
      message,
      done,
      h("div", { class: "row" }, submit, h("button", { type: "button", class: "secondary", onclick: () => go("home") }, "Back to progress")),
    );
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      message.textContent = "";
      done.textContent = "";
      submit.disabled = true;
      try {
        const { class: joined } = await api.joinClass(normaliseClassCode(code.value));
        done.textContent = `You are in ${joined.name}. Your teacher can now see your progress.`;
        announce(done.textContent);
        code.value = "";
      } catch (err) {
        if (err instanceof ApiError && err.status === 401) {
          session.expired();
          return go("signin");
        }
        message.textContent = joinClassError(err);
        code.focus();
      } finally {
        submit.disabled = false;
      }
    });
    root.append(h("h1", {}, "Join a class"), form);
    code.focus();
  },
};
