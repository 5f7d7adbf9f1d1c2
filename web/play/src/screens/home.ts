// The player's progress summary (square, bullets, lives, sections, lessons) with buttons that drive
// the progress API, and the way into the modes. The real board game decides rewards by its quizzes;
// this client claims fixed amounts within the server's bounds, enough to reach the boss.
import { go, type Screen } from "../app.js";
import { api, ApiError, type ProgressState } from "../api.js";
import { announce, field, fmt, h, replace } from "../dom.js";
import { session } from "../session.js";
import { ALL_LESSONS, CHARACTERS, MAX_BULLETS_PER_QUESTION, type Character } from "../../../../src/game/progress.js";
import { GUEST_MAX_BULLETS, MIN_BULLETS_TO_JOIN } from "../../../../src/game/boss/constants.js";

/** Bullets this client claims for a completed lesson (server bound: 0..20, paid once). */
export const LESSON_REWARD = 5;
/** Bullets claimed for a correct answer (server bound: 0..10, paid once per square). */
export const ANSWER_REWARD = MAX_BULLETS_PER_QUESTION;

export const homeScreen: Screen = {
  title: "Progress",
  needs: "player",
  nav: "Progress",
  async mount(root) {
    const player = session.player!;
    if (player.kind === "guest") return guestHome(root, player.name);
    const status = h("p", { class: "status-line", role: "status" });
    const body = h("div");
    root.append(h("h1", {}, `Progress of ${player.user.username}`), status, body);
    const show = (p: ProgressState, unvisited: number[]) => replace(body, ...progressView(p, unvisited, act));
    const act = async (label: string, call: () => Promise<ProgressState>) => {
      status.textContent = "";
      try {
        const p = await call();
        const { unvisited_squares } = await api.unvisitedSquares();
        show(p, unvisited_squares);
        status.textContent = `${label}: you have ${p.total_bullets} bullets.`;
        announce(status.textContent);
      } catch (err) {
        if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return expired();
        status.textContent = (err as Error).message;
      }
    };
    try {
      const [p, u] = await Promise.all([api.progress(), api.unvisitedSquares()]);
      show(p, u.unvisited_squares);
    } catch (err) {
      if (err instanceof ApiError && (err.status === 401 || err.status === 403)) return expired();
      throw err;
    }
  },
};

function expired(): void {
  session.expired();
  go("signin");
}

type Act = (label: string, call: () => Promise<ProgressState>) => Promise<void>;

function progressView(p: ProgressState, unvisited: number[], act: Act): Node[] {
  const stats = h(
    "dl",
    { class: "stats" },
    stat("Square", `${p.current_square} / 100`),
    stat("Bullets", fmt.format(p.total_bullets), "bullets"),
    stat("Lives", `${p.lives} / 5`),
    stat("Sections", p.unlocked_sections.join(", ")),
    stat("Lessons", `${p.completed_lessons.length} / ${ALL_LESSONS.length}`),
    stat("Status", p.game_status + (p.champion_at ? " · champion" : "")),
    stat("Boss battles", `${p.boss_battle_attempts} fought, ${p.boss_victories} won`),
  );

  const lessons = h(
    "ul",
    { class: "lessons", "aria-label": "Lessons" },
    ...ALL_LESSONS.map((n) => {
      const done = p.completed_lessons.includes(n);
      return h(
        "li",
        {},
        h("span", {}, `Lesson ${n}`),
        done
          ? h("span", { class: "tag done" }, "completed")
          : h(
              "button",
              { type: "button", "aria-label": `Complete lesson ${n} (+${LESSON_REWARD} bullets)`, onclick: () => act(`Lesson ${n} completed`, () => api.completeLesson(n, LESSON_REWARD)) },
              `Complete (+${LESSON_REWARD} bullets)`,
            ),
      );
    }),
  );

  const next = unvisited[0];
  const question = next
    ? h(
        "div",
        { class: "row" },
        h("span", {}, `Question square ${next}:`),
        h("button", { type: "button", onclick: () => act(`Square ${next} answered correctly`, () => api.answerQuestion(next, true, ANSWER_REWARD)) }, `Answer square ${next} correctly (+${ANSWER_REWARD})`),
        h("button", { type: "button", class: "secondary", onclick: () => act(`Square ${next} answered wrongly`, () => api.answerQuestion(next, false, 0)) }, `Answer square ${next} wrongly`),
      )
    : h("p", { class: "ok-text" }, "Every question square is answered.");

  const select = h("select", { id: "character" }, ...CHARACTERS.map((c) => h("option", { value: c, selected: c === p.character }, c)));
  select.addEventListener("change", () => void act(`Character set to ${select.value}`, () => api.setCharacter(select.value as Character)));

  const canFight = p.total_bullets >= MIN_BULLETS_TO_JOIN;
  return [
    h("section", { class: "panel", "aria-labelledby": "summary-h" }, h("h2", { id: "summary-h" }, "Summary"), stats, field("Character", select)),
    h(
      "div",
      { class: "grid" },
      h("section", { class: "panel", "aria-labelledby": "lessons-h" }, h("h2", { id: "lessons-h" }, "Lessons"), lessons),
      h(
        "section",
        { class: "panel", "aria-labelledby": "questions-h" },
        h("h2", { id: "questions-h" }, "Question squares"),
        h("p", { class: "muted" }, `${50 - unvisited.length} of 50 answered. A correct first answer pays ${ANSWER_REWARD} bullets.`),
        question,
      ),
      h(
        "section",
        { class: "panel", "aria-labelledby": "play-h" },
        h("h2", { id: "play-h" }, "Play"),
        ...playButtons(canFight, p.total_bullets),
      ),
    ),
  ];
}

/** The way into each mode; filled by the modes as they exist. */
export function playButtons(canFightBoss: boolean, bullets: number | null): Node[] {
  return [
    h("p", { class: canFightBoss ? "ok-text" : "muted", id: "boss-readiness" }, canFightBoss ? "You can fight the boss." : `The boss needs ${MIN_BULLETS_TO_JOIN} bullets; you have ${bullets ?? 0}.`),
    h(
      "div",
      { class: "row" },
      h("button", { type: "button", onclick: () => go("modes") }, "Choose a mode"),
      h("button", { type: "button", class: "secondary", disabled: !canFightBoss, onclick: () => go("boss") }, "Fight the boss"),
    ),
  ];
}

function guestHome(root: HTMLElement, name: string): void {
  root.append(
    h("h1", {}, `Welcome, ${name}`),
    h(
      "section",
      { class: "panel" },
      h("h2", {}, "Playing as a guest"),
      h("p", {}, `Guests are never saved. You enter the boss battle with ${GUEST_MAX_BULLETS} bullets (the guest limit).`),
      h("p", { class: "muted" }, "Sign in or create an account to keep progress, earn bullets and appear on the leaderboards."),
      ...playButtons(true, GUEST_MAX_BULLETS),
    ),
  );
}

function stat(label: string, value: string, id?: string): HTMLElement {
  return h("div", { class: "stat" }, h("dt", {}, label), h("dd", { id: id ? `stat-${id}` : undefined }, value));
}
