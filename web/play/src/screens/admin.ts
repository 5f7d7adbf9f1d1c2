// The admin's screen (#/admin, docs/teachers.md): find any account by part of its name, export one
// (everything the database holds about it, as a JSON file), erase one (after typing its name), and
// read and filter the audit log of every teacher and admin action.
import { go, type Screen } from "../app.js";
import { ApiError, describeError, teacherApi, type AdminAccount, type AuditEntry, type AuditFilter } from "../api.js";
import { announce, download, field, h, modal, replace } from "../dom.js";
import { session } from "../session.js";

function expired(): void {
  session.expired();
  go("signin");
}
/** Said on the document after an action of this screen, so the audit log shows it. */
const AUDIT_CHANGED = "audit-changed";
const isSessionError = (err: unknown) => err instanceof ApiError && err.status === 401;

/** The audit entries matching every filter (each a case-insensitive part of its field). */
export function filterAudit(entries: AuditEntry[], filter: AuditFilter): AuditEntry[] {
  const has = (value: unknown, part: string | undefined) => !part || String(value ?? "").toLowerCase().includes(part.toLowerCase());
  return entries.filter((e) => has(e.actor.name ?? e.actor.role, filter.actor) && has(e.action, filter.action) && has(e.target?.name ?? (e.target ? `#${e.target.id}` : ""), filter.target));
}

export const adminScreen: Screen = {
  title: "Accounts and audit log",
  needs: "admin",
  nav: "Accounts",
  mount(root) {
    const status = h("p", { class: "status-line", role: "status", id: "admin-status" });
    const say = (text: string) => {
      status.textContent = text;
      announce(text);
    };
    const unmounted = new AbortController();
    root.append(h("h1", {}, "Accounts and audit log"), status, accountsPanel(say), auditPanel(say, unmounted.signal));
    return () => unmounted.abort();
  },
};

function accountsPanel(say: (text: string) => void): HTMLElement {
  const q = h("input", { id: "account-q", type: "search", name: "q", maxlength: 64, autocomplete: "off", placeholder: "part of a username or name" });
  const results = h("div", { id: "account-results" }, h("p", { class: "muted" }, "Search by part of a username (or leave it empty for the newest accounts)."));
  const form = h("form", { class: "row", role: "search", "aria-label": "Find accounts" }, h("div", { class: "grow" }, field("Find an account", q)), h("button", { type: "submit" }, "Search"));
  const search = async () => {
    try {
      const found = await teacherApi.searchAccounts(q.value.trim());
      const { accounts, truncated } = found;
      replace(
        results,
        accounts.length ? accountsTable(accounts, say, search) : h("p", { class: "muted" }, `No account matches “${q.value.trim()}”.`),
        truncated ? h("p", { class: "hint" }, "More accounts match: type more of the name.") : null,
      );
    } catch (err) {
      if (isSessionError(err)) return expired();
      replace(results, h("p", { class: "error-text", role: "alert" }, describeError(err)));
    }
  };
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void search();
  });
  void search();
  return h("section", { class: "panel", "aria-labelledby": "accounts-h" }, h("h2", { id: "accounts-h" }, "Accounts"), form, results);
}

function accountsTable(accounts: AdminAccount[], say: (text: string) => void, refresh: () => Promise<void>): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { id: "account-table" },
      h("caption", { class: "visually-hidden" }, "Accounts found"),
      h("thead", {}, h("tr", {}, ...["Username", "Role", "Name", "Created", "Status", "Actions"].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        ...accounts.map((a) =>
          h(
            "tr",
            { "data-account": a.id },
            h("th", { scope: "row" }, a.username),
            h("td", {}, a.role),
            h("td", {}, a.displayName ?? ""),
            h("td", {}, new Date(a.createdAt).toLocaleDateString()),
            h("td", {}, [a.locked ? "locked" : "", a.muted ? "muted" : ""].filter(Boolean).join(" · ") || "–"),
            h(
              "td",
              { class: "actions" },
              h("button", { type: "button", class: "secondary", "aria-label": `Export ${a.username}`, onclick: () => void exportAccount(a, say) }, "Export"),
              h("button", { type: "button", class: "danger", "aria-label": `Erase ${a.username}`, onclick: () => eraseDialog(a, say, refresh) }, "Erase"),
            ),
          ),
        ),
      ),
    ),
  );
}

async function exportAccount(a: AdminAccount, say: (text: string) => void): Promise<void> {
  try {
    const data = await teacherApi.exportAccount(a.id);
    download(`account-${a.username}.json`, JSON.stringify(data, null, 2) + "\n", "application/json");
    say(`Everything stored about ${a.username} was downloaded as JSON.`);
    document.dispatchEvent(new Event(AUDIT_CHANGED));
  } catch (err) {
    if (isSessionError(err)) return expired();
    say(describeError(err));
  }
}

/** Erasing is final: the admin types the account's name to unlock the button. */
function eraseDialog(a: AdminAccount, say: (text: string) => void, refresh: () => Promise<void>): void {
  const typed = h("input", { id: "erase-confirm", autocomplete: "off", spellcheck: "false" });
  const erase = h("button", { type: "submit", class: "danger", disabled: true }, `Erase ${a.username}`);
  const error = h("p", { class: "error-text", role: "alert" });
  typed.addEventListener("input", () => (erase.disabled = typed.value.trim() !== a.username));
  const form = h(
    "form",
    { "aria-label": `Erase ${a.username}` },
    h("p", {}, `This deletes the account ${a.username} and everything about it: progress, answers, battles, classes, sessions. It cannot be undone, and a restore of an older backup does not bring it back.`),
    field(`Type ${a.username} to confirm`, typed),
    error,
    h("div", { class: "row" }, erase, h("button", { type: "button", class: "secondary", onclick: () => dialog.close() }, "Cancel")),
  );
  form.addEventListener("submit", async (e) => {
    e.preventDefault();
    if (typed.value.trim() !== a.username) return;
    erase.disabled = true;
    try {
      await teacherApi.eraseAccount(a.id);
      dialog.close();
      say(`${a.username} was erased.`);
      document.dispatchEvent(new Event(AUDIT_CHANGED));
      await refresh();
    } catch (err) {
      if (isSessionError(err)) return expired();
      error.textContent = describeError(err);
      erase.disabled = false;
    }
  });
  const dialog = modal(`Erase ${a.username}?`, form);
  typed.focus();
}

function auditPanel(say: (text: string) => void, unmounted: AbortSignal): HTMLElement {
  const inputs = {
    actor: h("input", { id: "audit-actor", name: "actor", maxlength: 64, autocomplete: "off" }),
    action: h("input", { id: "audit-action", name: "action", maxlength: 64, autocomplete: "off", placeholder: "e.g. lock" }),
    target: h("input", { id: "audit-target", name: "target", maxlength: 64, autocomplete: "off" }),
  };
  const list = h("div", { id: "audit-results" }, h("p", { class: "muted" }, "Loading…"));
  const form = h(
    "form",
    { class: "filters", "aria-label": "Filter the audit log" },
    field("Who", inputs.actor),
    field("Action", inputs.action),
    field("On whom", inputs.target),
    h("div", { class: "field" }, h("button", { type: "submit" }, "Reload")),
  );
  // The server pages by id; the filters apply to what is loaded (200 entries a page), so that any
  // part of a name or an action matches ("lock" finds student.lock and student.unlock).
  let loaded: AuditEntry[] = [];
  let nextBefore: number | null = null;
  const older = h("button", { type: "button", class: "secondary", hidden: true, onclick: () => void load(true) }, "Load older entries");
  const show = () => {
    const filter: AuditFilter = { actor: inputs.actor.value.trim(), action: inputs.action.value.trim(), target: inputs.target.value.trim() };
    const shown = filterAudit(loaded, filter);
    replace(list, shown.length ? auditTable(shown) : h("p", { class: "muted" }, loaded.length ? "No entry matches." : "Nothing recorded yet."), h("p", { class: "hint" }, `${shown.length} of ${loaded.length} entries loaded`), older);
    older.hidden = nextBefore === null;
  };
  const load = async (more = false) => {
    try {
      const page = await teacherApi.audit(more ? nextBefore : null);
      loaded = more ? [...loaded, ...page.entries] : page.entries;
      nextBefore = page.next_before;
      show();
    } catch (err) {
      if (isSessionError(err)) return expired();
      replace(list, h("p", { class: "error-text", role: "alert" }, describeError(err)));
      say(describeError(err));
    }
  };
  for (const input of Object.values(inputs)) input.addEventListener("input", show);
  document.addEventListener(AUDIT_CHANGED, () => void load(), { signal: unmounted });
  form.addEventListener("submit", (e) => {
    e.preventDefault();
    void load();
  });
  void load();
  return h("section", { class: "panel", "aria-labelledby": "audit-h" }, h("h2", { id: "audit-h" }, "Audit log"), form, list);
}

function auditTable(entries: AuditEntry[]): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      { id: "audit-table", class: "audit" },
      h("caption", { class: "visually-hidden" }, "Audit log, newest first"),
      h("thead", {}, h("tr", {}, ...["When", "Who", "Action", "On whom", "From", "Result", "Detail"].map((c) => h("th", { scope: "col" }, c)))),
      h(
        "tbody",
        {},
        ...entries.map((e) =>
          h(
            "tr",
            {},
            h("td", { class: "nowrap" }, new Date(e.at).toLocaleString()),
            h("td", {}, e.actor.name ?? "the operator", h("span", { class: "muted small" }, ` (${e.actor.role})`)),
            h("td", {}, e.action),
            h("td", {}, e.target ? (e.target.name ?? `#${e.target.id} (erased)`) : "–", e.class_id !== null ? h("span", { class: "muted small" }, ` · class ${e.class_id}`) : null),
            h("td", {}, e.address ?? "–"),
            h("td", { class: /ok|success/i.test(e.result) ? "ok-text" : "error-text" }, e.result),
            h("td", { class: "detail" }, e.detail === undefined || e.detail === null ? "" : typeof e.detail === "string" ? e.detail : JSON.stringify(e.detail)),
          ),
        ),
      ),
    ),
  );
}
