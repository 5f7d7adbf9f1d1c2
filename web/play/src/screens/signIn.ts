// Sign in, create an account, or play as a guest.
import { go, type Screen } from "../app.js";
import { api, ApiError } from "../api.js";
import { classCodeInput, joinClassError, noticeOnJoinScreen, normaliseClassCode } from "./joinClass.js";
import { homeOf } from "../app.js";
import { announce, field, h } from "../dom.js";
import { session } from "../session.js";

export const signInScreen: Screen = {
  title: "Sign in",
  needs: "nobody",
  mount(root) {
    root.append(
      h("h1", {}, "Play Snakes"),
      h("p", { class: "muted" }, "Sign in to keep your progress, or play as a guest (nothing is saved)."),
      h("div", { class: "grid" }, accountForm("signin"), accountForm("register"), guestForm()),
    );
  },
};

function accountForm(kind: "signin" | "register"): HTMLElement {
  const register = kind === "register";
  const username = h("input", { id: `${kind}-username`, name: "username", autocomplete: "username", required: true, maxlength: register ? 32 : 64 });
  const password = h("input", {
    id: `${kind}-password`,
    name: "password",
    type: "password",
    autocomplete: register ? "new-password" : "current-password",
    required: true,
    minlength: register ? 8 : undefined,
  });
  if (register) {
    username.minLength = 3;
    username.pattern = "[A-Za-z0-9_.\\-]+";
  }
  const classCode = register ? classCodeInput("register-class-code") : null;
  const message = h("p", { class: "error-text", role: "alert", id: `${kind}-error` });
  const submit = h("button", { type: "submit" }, register ? "Create account" : "Sign in");
  const form = h(
    "form",
    { class: "panel", "aria-labelledby": `${kind}-heading` },
    h("h2", { id: `${kind}-heading` }, register ? "Create an account" : "Sign in"),
    field("Username", username, register ? "3–32 letters, digits, _ . -" : undefined),
    field("Password", password, register ? "At least 8 characters" : undefined),
    classCode ? field("Class code (optional)", classCode, "From your teacher; you can also join later") : null,
    message,
    submit,
  );
  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    message.textContent = "";
    submit.disabled = true;
    try {
      await session.signIn(username.value.trim(), password.value, register);
      announce(`Signed in as ${session.username}`);
      const code = classCode ? normaliseClassCode(classCode.value) : "";
      if (code) {
        try {
          const { class: joined } = await api.joinClass(code);
          announce(`Signed in as ${session.username}, in class ${joined.name}`);
        } catch (err) {
          // The account exists: the code can be fixed on the join screen.
          noticeOnJoinScreen(`Your account is ready, but the class code was not accepted: ${joinClassError(err)}`);
          return go("join", { code });
        }
      }
      go(homeOf(session.player));
    } catch (err) {
      message.textContent = describe(err);
      password.focus();
    } finally {
      submit.disabled = false;
    }
  });
  return form;
}

function guestForm(): HTMLElement {
  const name = h("input", { id: "guest-name", name: "guest-name", maxlength: 24, autocomplete: "nickname", placeholder: "e.g. Ada" });
  const form = h(
    "form",
    { class: "panel", "aria-labelledby": "guest-heading" },
    h("h2", { id: "guest-heading" }, "Play as a guest"),
    field("Display name", name, "Shown with “(guest)”; nothing is saved"),
    h("button", { type: "submit", class: "secondary" }, "Play as guest"),
  );
  form.addEventListener("submit", (event) => {
    event.preventDefault();
    session.playAsGuest(name.value);
    announce(`Playing as guest ${session.username}`);
    go("home");
  });
  return form;
}

function describe(err: unknown): string {
  if (err instanceof ApiError) {
    const problems = (err.details?.problems as Array<{ message?: string }> | undefined)?.map((p) => p.message).filter(Boolean);
    return problems?.length ? problems.join("; ") : err.message;
  }
  return "The server could not be reached. Try again.";
}
