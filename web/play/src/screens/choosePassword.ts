// "Choose your own password" (#/password): an account signed in with a password a teacher, an admin
// or the operator handed out (a roster import, a reset, `admin create-account`) replaces it before
// the menu or the dashboard (docs/auth.md#one-time-passwords). POST /api/auth/password.
import { go, homeOf, type Screen } from "../app.js";
import { ApiError, describeError } from "../api.js";
import { announce, field, h } from "../dom.js";
import { session } from "../session.js";

const MIN_LENGTH = 8;

/** What is wrong with the two new passwords before asking the server, in words a child reads; null when nothing. */
export function newPasswordProblem(current: string, next: string, repeated: string): string | null {
  if (next.length < MIN_LENGTH) return `Your new password needs at least ${MIN_LENGTH} characters.`;
  if (next !== repeated) return "The two new passwords are not the same. Type it again in both boxes.";
  if (current && next === current) return "Choose a new password: it must differ from the one you were given.";
  return null;
}

export const choosePasswordScreen: Screen = {
  title: "Choose your own password",
  needs: "account",
  mount(root) {
    if (!session.mustChoosePassword) return go(homeOf(session.player));
    const known = session.issuedPassword;
    // After a page load the handed-out password is no longer in memory: ask for it once more.
    const current = h("input", { id: "choose-current", name: "current-password", type: "password", autocomplete: "current-password", required: true });
    const next = h("input", { id: "choose-new", name: "new-password", type: "password", autocomplete: "new-password", required: true, minlength: MIN_LENGTH });
    const repeated = h("input", { id: "choose-repeat", name: "repeat-password", type: "password", autocomplete: "new-password", required: true, minlength: MIN_LENGTH });
    const message = h("p", { class: "error-text", role: "alert", id: "choose-error" });
    const submit = h("button", { type: "submit" }, "Save my password");
    const form = h(
      "form",
      { class: "panel narrow", "aria-labelledby": "choose-h", novalidate: true },
      h("h2", { id: "choose-h" }, "Your new password"),
      h(
        "p",
        { class: "muted" },
        "The password you signed in with was given to you, so someone else knows it. Choose one only you know; the one you were given then stops working.",
      ),
      known === null ? field("The password you were given", current) : null,
      field("New password", next, `At least ${MIN_LENGTH} characters, different from the one you were given`),
      field("New password again", repeated, "The same once more, so a typo cannot lock you out"),
      message,
      h("div", { class: "row" }, submit),
    );
    form.addEventListener("submit", async (e) => {
      e.preventDefault();
      message.textContent = "";
      const currentValue = known ?? current.value;
      if (!currentValue) {
        message.textContent = "Type the password you were given first.";
        return current.focus();
      }
      const problem = newPasswordProblem(currentValue, next.value, repeated.value);
      if (problem) {
        message.textContent = problem;
        return (next.value.length < MIN_LENGTH || next.value === currentValue ? next : repeated).focus();
      }
      submit.disabled = true;
      try {
        const player = await session.choosePassword(currentValue, next.value);
        announce("Your new password is saved.");
        go(homeOf(player));
      } catch (err) {
        if (err instanceof ApiError && err.status === 401 && err.code !== "invalid_credentials") {
          session.expired();
          return go("signin");
        }
        message.textContent =
          err instanceof ApiError && err.code === "invalid_credentials" ? "The password you were given is not right. Check it and try again." : describeError(err);
        (known === null && err instanceof ApiError && err.code === "invalid_credentials" ? current : next).focus();
      } finally {
        submit.disabled = false;
      }
    });
    root.append(h("h1", {}, "Choose your own password"), form);
    (known === null ? current : next).focus();
  },
};
