// The teacher's dashboard (#/teacher, docs/teachers.md): the teacher's classes (create, join code,
// roster import), the live roster with every figure the game records per student (polled every 2 s
// while the tab is visible), what the class gets wrong most, the CSV export, and the help actions
// for one student. The server checks every request; this screen only hides what a role cannot do.
import { go, type Screen } from "../app.js";
import {
  ApiError,
  describeError,
  fetchText,
  teacherApi,
  type ClassQuestions,
  type ClassSummary,
  type RosterAccount,
  type StudentFigures,
} from "../api.js";
import { announce, ask, download, field, fmt, h, modal, replace } from "../dom.js";
import { session } from "../session.js";
import { TOPIC_TITLES } from "../../../../src/game/questionBank.js";

/** How often the roster is asked for while the tab is visible. */
export const ROSTER_POLL_MS = 2000;
/** The per-topic and per-question view changes slowly: every fifth roster poll. */
const QUESTIONS_EVERY = 5;

const MODE_LABELS: Record<string, string> = {
  boss: "Boss battle",
  boss_lobby: "Boss lobby",
  pvp: "PvP duel",
  slitherrush: "SlitherRush",
  mode_select: "Mode selection",
};

export function modeLabel(mode: string): string {
  return MODE_LABELS[mode] ?? mode;
}

/** A topic as people read it ("Loops"), whether the server sends its key or its title. */
export function topicTitle(topic: string): string {
  return (TOPIC_TITLES as Record<string, string>)[topic] ?? topic;
}

export function onlineText(online: StudentFigures["online"]): string {
  return online ? `online — in ${modeLabel(online.mode)}` : "offline";
}

/** "45 s", "12 min", "1 h 05 min". */
export function duration(seconds: number): string {
  if (seconds < 60) return `${Math.round(seconds)} s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 60) return `${minutes} min`;
  return `${Math.floor(minutes / 60)} h ${String(minutes % 60).padStart(2, "0")} min`;
}

/** "now", "3 min ago", "yesterday 14:02"… for a timestamp, relative to `now`. */
export function ago(iso: string | null, now = Date.now()): string {
  if (!iso) return "never";
  const seconds = Math.max(0, (now - Date.parse(iso)) / 1000);
  if (seconds < 60) return "just now";
  if (seconds < 3600) return `${Math.floor(seconds / 60)} min ago`;
  if (seconds < 86_400) return `${Math.floor(seconds / 3600)} h ago`;
  return new Date(iso).toLocaleDateString();
}

/** Share answered wrongly, "–" when nothing was answered. */
export function wrongShare(right: number, wrong: number): string {
  const total = right + wrong;
  return total ? `${Math.round((100 * wrong) / total)} %` : "–";
}

function accuracy(right: number, wrong: number): string {
  const total = right + wrong;
  return total ? `${Math.round((100 * right) / total)} %` : "–";
}

function nameOf(s: Pick<StudentFigures, "username" | "displayName">): string {
  return s.displayName && s.displayName !== s.username ? `${s.displayName} (${s.username})` : s.username;
}

function csvCell(value: string): string {
  return /[",\r\n]/.test(value) || /^[=+\-@]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

/** The printable list of new accounts and their one-time passwords, made from the import's answer. */
export function passwordsCsv(className: string, accounts: RosterAccount[]): string {
  const rows = [["class", "username", "display_name", "password"], ...accounts.map((a) => [className, a.username, a.displayName ?? "", a.password])];
  return rows.map((r) => r.map(csvCell).join(",")).join("\r\n") + "\r\n";
}

function fileName(name: string): string {
  return name.replace(/[^A-Za-z0-9_-]+/g, "-").replace(/^-|-$/g, "") || "class";
}

function expired(): void {
  session.expired();
  go("signin");
}

function isSessionError(err: unknown): boolean {
  return err instanceof ApiError && (err.status === 401 || (err.status === 403 && err.code !== "forbidden"));
}

export const teacherScreen: Screen = {
  title: "Teacher's dashboard",
  needs: "teacher",
  nav: "Classes",
  async mount(root, params) {
    const status = h("p", { class: "status-line", role: "status", id: "dash-status" });
    const tabs = h("div", { class: "class-tabs", role: "list", "aria-label": "Your classes" });
    const body = h("div", { id: "class-view" });
    root.append(h("h1", {}, "Your classes"), h("section", { class: "panel classes-bar", "aria-label": "Classes" }, tabs, createClassForm()), status, body);

    let classes: ClassSummary[] = [];
    let stopView: (() => void) | undefined;
    const say = (text: string) => {
      status.textContent = text;
      announce(text);
    };

    const renderTabs = (selected: ClassSummary | undefined) =>
      replace(
        tabs,
        ...(classes.length
          ? classes.map((c) =>
              h(
                "div",
                { role: "listitem" },
                h("button", { type: "button", class: c.id === selected?.id ? "tab" : "tab secondary", "aria-current": c.id === selected?.id ? "true" : undefined, onclick: () => go("teacher", { class: String(c.id) }) }, c.name),
              ),
            )
          : [h("p", { class: "muted" }, "No class yet: create one below, then hand out its join code or import a roster.")]),
      );

    function createClassForm(): HTMLElement {
      const name = h("input", { id: "new-class-name", name: "class-name", required: true, maxlength: 64, autocomplete: "off", placeholder: "e.g. 7B Computing" });
      const form = h(
        "form",
        { class: "row create-class", "aria-label": "Create a class" },
        h("div", { class: "grow" }, field("New class", name)),
        h("button", { type: "submit" }, "Create class"),
      );
      form.addEventListener("submit", async (e) => {
        e.preventDefault();
        try {
          const { class: created } = await teacherApi.createClass(name.value.trim());
          name.value = "";
          say(`Class “${created.name}” created. Its join code is ${created.code ?? "shown below"}.`);
          go("teacher", { class: String(created.id) });
        } catch (err) {
          if (isSessionError(err)) return expired();
          say(describeError(err));
          name.focus();
        }
      });
      return form;
    }

    try {
      classes = (await teacherApi.classes()).classes;
    } catch (err) {
      if (isSessionError(err)) return expired();
      throw err;
    }
    const selected = classes.find((c) => String(c.id) === params.get("class")) ?? classes[0];
    renderTabs(selected);
    if (selected) stopView = classView(body, selected, say, (updated) => {
      classes = classes.map((c) => (c.id === updated.id ? { ...c, ...updated } : c));
      renderTabs(updated);
    });
    return () => stopView?.();
  },
};

/** One class: its code, roster import, live roster, what it gets wrong. Returns the cleanup. */
function classView(root: HTMLElement, klass: ClassSummary, say: (text: string) => void, changed: (c: ClassSummary) => void): () => void {
  let current = klass;
  const code = h("strong", { class: "join-code", id: "join-code" }, current.code ?? "…");
  const updated = h("span", { class: "muted", id: "roster-updated" }, "");
  const tbody = h("tbody", { id: "roster-body" });
  const empty = h("p", { class: "muted", id: "roster-empty", hidden: true }, "No students yet. Hand out the join code, or import a roster.");
  const topicsBox = h("div", { id: "class-topics" }, h("p", { class: "muted" }, "Loading…"));
  const questionsBox = h("div", { id: "class-questions" });
  const rows = new Map<number, RosterRow>();
  let students: StudentFigures[] = [];

  const rotate = async () => {
    if (!(await ask(`Make a new join code for “${current.name}”? The old code stops working; students already in the class stay in it.`, "Make a new code"))) return;
    try {
      current = { ...current, ...(await teacherApi.rotateCode(current.id)).class };
      code.textContent = current.code ?? "";
      changed(current);
      say(`New join code for ${current.name}: ${current.code}.`);
    } catch (err) {
      if (isSessionError(err)) return expired();
      say(describeError(err));
    }
  };
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(current.code ?? "");
      say(`Join code ${current.code} copied.`);
    } catch {
      say(`Copying is not allowed here: the code is ${current.code}.`);
    }
  };
  const exportCsv = async () => {
    try {
      download(`${fileName(current.name)}-figures.csv`, await fetchText(teacherApi.studentsCsvUrl(current.id), "text/csv"), "text/csv");
      say("The roster's figures were downloaded as CSV.");
    } catch (err) {
      if (isSessionError(err)) return expired();
      say(describeError(err));
    }
  };

  const headers: Array<[string, string?]> = [
    ["Student"],
    ["Now"],
    ["Lessons", "num"],
    ["Squares right / wrong", "num"],
    ["Accuracy", "num"],
    ["Bullets", "num"],
    ["Boss won / fought", "num"],
    ["PvP won / lost", "num"],
    ["Slither­Rush best", "num"],
    ["Time played", "num"],
    ["Last seen"],
  ];
  replace(
    root,
    h(
      "section",
      { class: "panel", "aria-labelledby": "class-h" },
      h(
        "div",
        { class: "class-head" },
        h("h2", { id: "class-h" }, current.name),
        h("p", { class: "code-line" }, h("span", {}, "Join code "), code),
        h(
          "div",
          { class: "row" },
          h("button", { type: "button", class: "secondary", onclick: copy }, "Copy code"),
          h("button", { type: "button", class: "secondary", onclick: rotate }, "New code"),
          h("button", { type: "button", class: "secondary", onclick: exportCsv }, "Export figures (CSV)"),
        ),
      ),
      h("p", { class: "muted" }, "Students enter the code in /play (at sign-up, or “Join a class” in the menu). Or import a roster below."),
      rosterImport(current, say, () => void poll()),
    ),
    h(
      "section",
      { class: "panel", "aria-labelledby": "roster-h" },
      h("div", { class: "row spread" }, h("h2", { id: "roster-h" }, "Students"), updated),
      empty,
      h(
        "div",
        { class: "table-wrap" },
        h(
          "table",
          { class: "roster", id: "roster" },
          h("caption", { class: "visually-hidden" }, `Students of ${current.name}, updated every few seconds`),
          h("thead", {}, h("tr", {}, ...headers.map(([label, cls]) => h("th", { scope: "col", class: cls }, label)))),
          tbody,
        ),
      ),
      h("p", { class: "hint" }, "Select a student's name to see their topics and to help them (new password, lock, mute, end sessions, remove)."),
    ),
    h(
      "section",
      { class: "panel", "aria-labelledby": "wrong-h" },
      h("h2", { id: "wrong-h" }, "What the class gets wrong"),
      h("div", { class: "grid wrong-grid" }, h("div", {}, h("h3", {}, "By topic"), topicsBox), h("div", {}, h("h3", {}, "Questions answered wrongly most"), questionsBox)),
    ),
  );

  const showStudents = (list: StudentFigures[]) => {
    students = list;
    const seen = new Set<number>();
    let previous: HTMLTableRowElement | null = null;
    for (const s of list) {
      seen.add(s.id);
      let row = rows.get(s.id);
      if (!row) {
        row = rosterRow(s, () => openStudent(s.id));
        rows.set(s.id, row);
      }
      row.update(s);
      // Keep the server's order without re-inserting rows that are already in place (focus stays).
      const expected: Element | null = previous ? previous.nextElementSibling : tbody.firstElementChild;
      if (expected !== row.element) tbody.insertBefore(row.element, expected);
      previous = row.element;
    }
    for (const [id, row] of rows) if (!seen.has(id)) (row.element.remove(), rows.delete(id));
    empty.hidden = list.length > 0;
    updated.textContent = `${list.filter((s) => s.online).length} of ${list.length} online · updated ${new Date().toLocaleTimeString()}`;
  };

  const openStudent = (id: number) => {
    const s = students.find((x) => x.id === id);
    if (s) studentDialog(current, s, say, () => void poll());
  };

  let timer: ReturnType<typeof setTimeout> | undefined;
  let stopped = false;
  let polls = 0;
  let inFlight = false;
  async function poll(): Promise<void> {
    clearTimeout(timer);
    if (stopped || inFlight) return;
    inFlight = true;
    try {
      const answer = await teacherApi.students(current.id);
      if (stopped) return;
      if (answer.class?.code && answer.class.code !== current.code) {
        current = { ...current, ...answer.class };
        code.textContent = current.code ?? "";
      }
      showStudents(answer.students);
      if (polls++ % QUESTIONS_EVERY === 0) showQuestions(await teacherApi.questions(current.id));
    } catch (err) {
      if (isSessionError(err)) return expired();
      updated.textContent = `Not updated: ${describeError(err)}`;
    } finally {
      inFlight = false;
      if (!stopped && document.visibilityState === "visible") timer = setTimeout(() => void poll(), ROSTER_POLL_MS);
    }
  }
  const showQuestions = (q: ClassQuestions) => {
    replace(topicsBox, topicsTable(q.topics, "class-topic-table"));
    const worst = [...q.questions].filter((x) => x.wrong > 0).sort((a, b) => b.wrong - a.wrong || b.wrong / (b.right + b.wrong) - a.wrong / (a.right + a.wrong) || a.square - b.square).slice(0, 10);
    replace(
      questionsBox,
      worst.length
        ? h(
            "div",
            { class: "table-wrap" },
            h(
              "table",
              { id: "class-question-table" },
              h("caption", { class: "visually-hidden" }, "Questions answered wrongly most"),
              h("thead", {}, h("tr", {}, h("th", { scope: "col", class: "num" }, "Square"), h("th", { scope: "col" }, "Question"), h("th", { scope: "col", class: "num" }, "Right"), h("th", { scope: "col", class: "num" }, "Wrong"))),
              h(
                "tbody",
                {},
                ...worst.map((x) =>
                  h("tr", {}, h("td", { class: "num" }, x.square), h("td", {}, h("span", {}, x.question), h("span", { class: "muted small" }, ` · ${topicTitle(x.topic)}`)), h("td", { class: "num" }, x.right), h("td", { class: "num bad" }, x.wrong)),
                ),
              ),
            ),
          )
        : h("p", { class: "muted" }, "No wrong answers yet."),
    );
  };
  // Polling stops while the tab is hidden and starts again, at once, when it shows.
  const visibility = () => {
    if (document.visibilityState === "visible") void poll();
    else clearTimeout(timer);
  };
  document.addEventListener("visibilitychange", visibility);
  void poll();
  return () => {
    stopped = true;
    clearTimeout(timer);
    document.removeEventListener("visibilitychange", visibility);
    document.querySelectorAll("dialog.modal").forEach((d) => (d as HTMLDialogElement).close());
  };
}

/** Topics sorted by the share answered wrongly. */
function topicsTable(topics: ClassQuestions["topics"], id: string): HTMLElement {
  const sorted = [...topics].sort((a, b) => b.wrong / Math.max(1, b.right + b.wrong) - a.wrong / Math.max(1, a.right + a.wrong) || b.wrong - a.wrong);
  if (!sorted.some((t) => t.right + t.wrong > 0)) return h("p", { class: "muted" }, "No answers yet.");
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { id },
      h("caption", { class: "visually-hidden" }, "Answers by topic, the most often wrong first"),
      h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Topic"), h("th", { scope: "col", class: "num" }, "Right"), h("th", { scope: "col", class: "num" }, "Wrong"), h("th", { scope: "col" }, "Wrong share"))),
      h(
        "tbody",
        {},
        ...sorted.map((t) => {
          const total = t.right + t.wrong;
          return h(
            "tr",
            {},
            h("td", {}, topicTitle(t.topic)),
            h("td", { class: "num" }, t.right),
            h("td", { class: "num" }, t.wrong),
            h("td", {}, h("span", { class: "share" }, h("meter", { min: 0, max: 100, low: 34, high: 67, optimum: 0, value: total ? Math.round((100 * t.wrong) / total) : 0, "aria-hidden": "true" }), wrongShare(t.right, t.wrong))),
          );
        }),
      ),
    ),
  );
}

interface RosterRow {
  element: HTMLTableRowElement;
  update(s: StudentFigures): void;
}

function rosterRow(first: StudentFigures, open: () => void): RosterRow {
  const name = h("button", { type: "button", class: "link", "aria-haspopup": "dialog", onclick: open });
  const flags = h("span", { class: "flags" });
  const cells = Array.from({ length: 10 }, (_, i) => h("td", { class: i >= 1 && i <= 8 ? "num" : undefined }));
  cells[0].classList.add("presence");
  const element = h("tr", { "data-student": first.id }, h("th", { scope: "row" }, name, flags), ...cells);
  const set = (el: HTMLElement, text: string) => {
    if (el.textContent !== text) el.textContent = text;
  };
  return {
    element,
    update(s) {
      set(name, nameOf(s));
      name.setAttribute("aria-label", `${nameOf(s)}: details and help`);
      set(flags, [s.locked ? "locked" : "", s.muted ? "muted" : ""].filter(Boolean).join(" · "));
      const values = [
        onlineText(s.online),
        fmt.format(s.lessonsCompleted),
        `${fmt.format(s.squaresRight)} / ${fmt.format(s.squaresWrong)}`,
        accuracy(s.squaresRight, s.squaresWrong),
        fmt.format(s.bullets),
        `${s.bossVictories} / ${s.bossAttempts}`,
        `${s.pvpWon} / ${s.pvpLost}`,
        fmt.format(s.slitherrushBest),
        duration(s.secondsPlayed),
        s.online ? "now" : ago(s.lastSeenAt),
      ];
      values.forEach((v, i) => set(cells[i], v));
      cells[0].classList.toggle("online", !!s.online);
      cells[9].title = s.lastSeenAt ? new Date(s.lastSeenAt).toLocaleString() : "";
    },
  };
}

/** Import a roster: paste CSV or pick a file; the new one-time passwords are shown once. */
function rosterImport(klass: ClassSummary, say: (text: string) => void, imported: () => void): HTMLElement {
  const text = h("textarea", { id: "roster-csv", rows: 5, spellcheck: "false", "aria-describedby": "roster-csv-hint", placeholder: "username,display_name\nada.l,Ada\nalan.t,Alan" });
  const file = h("input", { id: "roster-file", type: "file", accept: ".csv,text/csv,text/plain" });
  const error = h("p", { class: "error-text", role: "alert", id: "roster-error" });
  const result = h("div", { id: "roster-result" });
  file.addEventListener("change", async () => {
    const chosen = file.files?.[0];
    if (chosen) text.value = await chosen.text();
  });
  const submit = h("button", { type: "submit" }, "Create the accounts");
  const form = h(
    "form",
    { "aria-label": "Import a roster" },
    h("div", { class: "field" }, h("label", { for: "roster-csv" }, "Roster (CSV)"), text, h("p", { class: "hint", id: "roster-csv-hint" }, "A header row “username” or “username,display_name”, then one student a line. Usernames: 3–32 of A–Z a–z 0–9 _ . -")),
    h("div", { class: "row" }, h("div", { class: "field grow" }, h("label", { for: "roster-file" }, "…or a CSV file"), file), submit),
    error,
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    error.textContent = "";
    if (!text.value.trim()) {
      error.textContent = "Paste the roster or choose a file first.";
      return text.focus();
    }
    submit.disabled = true;
    try {
      const { students } = await teacherApi.importRoster(klass.id, text.value);
      text.value = "";
      file.value = "";
      const csv = passwordsCsv(klass.name, students);
      replace(
        result,
        h(
          "div",
          { class: "one-time", role: "region", "aria-labelledby": "one-time-h" },
          h("h3", { id: "one-time-h" }, `${students.length} accounts created: their passwords, shown this once`),
          h("p", {}, "Download or print this list now and hand each student their line; nobody can show these passwords again (a new one can be made with “New password”)."),
          h(
            "div",
            { class: "row" },
            h("button", { type: "button", onclick: () => download(`${fileName(klass.name)}-passwords.csv`, csv, "text/csv") }, "Download printable CSV"),
            h("button", { type: "button", class: "secondary", onclick: () => window.print() }, "Print"),
            h("button", { type: "button", class: "secondary", onclick: () => replace(result) }, "Hide the passwords"),
          ),
          h(
            "div",
            { class: "table-wrap" },
            h(
              "table",
              { id: "one-time-passwords" },
              h("thead", {}, h("tr", {}, h("th", { scope: "col" }, "Username"), h("th", { scope: "col" }, "Name"), h("th", { scope: "col" }, "Password"))),
              h("tbody", {}, ...students.map((s) => h("tr", {}, h("td", {}, s.username), h("td", {}, s.displayName ?? ""), h("td", {}, h("code", {}, s.password))))),
            ),
          ),
        ),
      );
      say(`${students.length} accounts created in ${klass.name}.`);
      imported();
    } catch (err) {
      if (isSessionError(err)) return expired();
      error.textContent = describeError(err);
    } finally {
      submit.disabled = false;
    }
  });
  return h("details", { class: "import", id: "roster-import" }, h("summary", {}, "Import a roster"), h("div", { class: "fold-body" }, form, result));
}

/** One student's figures by topic and the help actions. */
function studentDialog(klass: ClassSummary, s: StudentFigures, say: (text: string) => void, changed: () => void): void {
  const message = h("div", { class: "dialog-message", role: "status", id: "student-message" });
  let state = { locked: s.locked, muted: s.muted };
  const act = async (label: string, call: () => Promise<unknown>, after?: (answer: unknown) => void) => {
    replace(message);
    try {
      const answer = await call();
      after?.(answer);
      if (!after) replace(message, h("p", { class: "ok-text" }, label));
      say(`${s.username}: ${label}`);
      changed();
    } catch (err) {
      if (isSessionError(err)) return expired();
      replace(message, h("p", { class: "error-text", role: "alert" }, describeError(err)));
    }
  };
  const lock = h("button", { type: "button", class: "secondary" });
  const mute = h("button", { type: "button", class: "secondary" });
  const paint = () => {
    lock.textContent = state.locked ? "Unlock" : "Lock";
    mute.textContent = state.muted ? "Unmute in chat" : "Mute in chat";
  };
  paint();
  lock.addEventListener("click", () => {
    const to = state.locked ? "unlock" : "lock";
    void act(to === "lock" ? "locked: cannot sign in, and is closed out of the game" : "unlocked", () => teacherApi.studentAction(s.id, to), () => {
      state = { ...state, locked: to === "lock" };
      paint();
      replace(message, h("p", { class: "ok-text" }, to === "lock" ? `${s.username} is locked out.` : `${s.username} may sign in again.`));
    });
  });
  mute.addEventListener("click", () => {
    const to = state.muted ? "unmute" : "mute";
    void act(to === "mute" ? "muted in chat" : "unmuted", () => teacherApi.studentAction(s.id, to), () => {
      state = { ...state, muted: to === "mute" };
      paint();
      replace(message, h("p", { class: "ok-text" }, to === "mute" ? `${s.username} is muted: the chat refuses their messages.` : `${s.username} may chat again.`));
    });
  });
  const reset = h("button", { type: "button" }, "New password");
  reset.addEventListener("click", async () => {
    if (!(await ask(`Give ${s.username} a new password? The old one stops working, their sessions end and their game closes.`, "Make a new password"))) return;
    void act("new password made", () => teacherApi.resetPassword(s.id), (answer) => {
      const { password } = answer as { password: string };
      replace(
        message,
        h(
          "div",
          { class: "one-time" },
          h("p", {}, `New one-time password for ${s.username} (shown this once):`),
          h("p", {}, h("code", { class: "password", id: "new-password" }, password)),
        ),
      );
    });
  });
  const logout = h("button", { type: "button", class: "secondary" }, "End sessions");
  logout.addEventListener("click", () => void act("sessions ended: signed out everywhere", () => teacherApi.studentAction(s.id, "logout")));
  const remove = h("button", { type: "button", class: "danger" }, "Remove from class");
  remove.addEventListener("click", async () => {
    const sure = await ask(`Remove ${nameOf(s)} from ${klass.name}? Their account and progress stay; you will no longer see them here.`, "Remove from class", { danger: true, no: "Keep" });
    if (sure) void act("removed from the class", () => teacherApi.removeStudent(klass.id, s.id), () => dialog.close());
  });

  const figures: Array<[string, string]> = [
    ["Now", onlineText(s.online)],
    ["Last seen", s.online ? "now" : ago(s.lastSeenAt)],
    ["Lessons", fmt.format(s.lessonsCompleted)],
    ["Squares", `${s.squaresRight} right, ${s.squaresWrong} wrong`],
    ["Bullets", fmt.format(s.bullets)],
    ["Boss", `${s.bossVictories} won of ${s.bossAttempts}`],
    ["PvP", `${s.pvpWon} won, ${s.pvpLost} lost`],
    ["SlitherRush best", fmt.format(s.slitherrushBest)],
    ["Time played", duration(s.secondsPlayed)],
  ];
  const dialog = modal(
    nameOf(s),
    h("p", { class: "muted" }, [s.locked ? "Locked" : "", s.muted ? "Muted in chat" : ""].filter(Boolean).join(" · ") || `In ${klass.name}`),
    h("dl", { class: "stats compact" }, ...figures.map(([k, v]) => h("div", { class: "stat" }, h("dt", {}, k), h("dd", {}, v)))),
    h("h3", {}, "Help"),
    h("div", { class: "row actions" }, reset, lock, mute, logout, remove),
    message,
    h("h3", {}, "By topic"),
    topicsTable(s.topics, "student-topic-table"),
  );
  dialog.id = "student-dialog";
}
