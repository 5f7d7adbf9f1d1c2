// Champions (everyone who ever completed the game) and the bullet leaderboard, plus the player's
// own boss battle record.
import type { Screen } from "../app.js";
import { api } from "../api.js";
import { fmt, h } from "../dom.js";
import { session } from "../session.js";

export const boardsScreen: Screen = {
  title: "Champions and leaderboards",
  needs: "account",
  nav: "Champions",
  async mount(root) {
    const [champions, leaderboard, stats] = await Promise.all([api.champions(20), api.leaderboard(10), api.bossStats()]);
    const me = session.username;
    root.append(
      h("h1", {}, "Champions and leaderboards"),
      h(
        "div",
        { class: "grid" },
        h(
          "section",
          { class: "panel", "aria-labelledby": "champions-h" },
          h("h2", { id: "champions-h" }, `Hall of champions (${champions.count})`),
          champions.champions.length
            ? table(
                "Champions, by first completion",
                ["#", "Player", "Character", "Completed"],
                champions.champions.map((c, i) => [String(champions.offset + i + 1), c.username, c.character, new Date(c.completed_at!).toLocaleString()]),
                me,
              )
            : h("p", { class: "muted" }, "Nobody has completed the game yet. Defeat the boss to be the first."),
        ),
        h(
          "section",
          { class: "panel", "aria-labelledby": "leaderboard-h" },
          h("h2", { id: "leaderboard-h" }, "Leaderboard by bullets"),
          table(
            "Top players by bullets",
            ["Rank", "Player", "Bullets", "Square"],
            leaderboard.leaderboard.map((e) => [String(e.rank), e.username, fmt.format(e.total_bullets), String(e.current_square)]),
            me,
          ),
        ),
        h(
          "section",
          { class: "panel", "aria-labelledby": "mystats-h" },
          h("h2", { id: "mystats-h" }, "Your boss battles"),
          h(
            "dl",
            { class: "stats" },
            ...[
              ["Battles", stats.battles_joined],
              ["Won", stats.battles_won],
              ["Win rate", `${stats.win_rate}%`],
              ["Damage dealt", stats.total_damage_dealt],
              ["Best damage", stats.best_damage],
            ].map(([k, v]) => h("div", { class: "stat" }, h("dt", {}, String(k)), h("dd", {}, String(v)))),
          ),
        ),
      ),
    );
  },
};

const NUMERIC = new Set(["#", "Rank", "Bullets", "Square"]);

function table(caption: string, headers: string[], rows: string[][], me: string): HTMLElement {
  return h(
    "div",
    { class: "table-wrap" },
    h(
      "table",
      {},
      h("caption", { class: "visually-hidden" }, caption),
      h("thead", {}, h("tr", {}, ...headers.map((c) => h("th", { scope: "col", class: NUMERIC.has(c) ? "num" : undefined }, c)))),
      h(
        "tbody",
        {},
        ...rows.map((r) =>
          h("tr", { "aria-current": r[1] === me ? "true" : undefined }, ...r.map((cell, i) => h("td", { class: NUMERIC.has(headers[i]) ? "num" : undefined }, cell))),
        ),
      ),
    ),
  );
}
