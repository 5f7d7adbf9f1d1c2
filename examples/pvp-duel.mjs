// A full PvP duel between two guests, written from docs/messages.md and docs/pvp.md alone, with
// nothing but @colyseus/sdk: both join `pvp` (quick play pairs them), both send `pvp_ready`, Ada
// walks towards Bo with `pvp_move` (one message walks at most 112.5 px, so she sends one every
// 50 ms), then shoots along +x with `pvp_shoot` until Bo is knocked out (`pvp_battle_end`).
//
//   node examples/pvp-duel.mjs [http://127.0.0.1:8500]
//
// Runs inside this repository after `npm install` (it needs only @colyseus/sdk), against a running
// server (`npm run dev`). test/integration/examples.test.ts runs it against a test server in `npm test`.
import { Client } from "@colyseus/sdk";

const MOVE_EVERY_MS = 50; // "send every 50 ms or per frame"
const SHOOT_EVERY_MS = 300; // under the 4 shots/s sustained fire rate

/** Resolves once `done()` is true (checked every 20 ms). */
async function until(done, what, timeoutMs = 10_000) {
  for (const start = Date.now(); !done(); await new Promise((r) => setTimeout(r, 20))) {
    if (Date.now() - start > timeoutMs) throw new Error(`${what}: not within ${timeoutMs} ms`);
  }
}

/** Joins as a guest: a guest brings its `bullets` (at most 30; without them it has 0 and cannot ready). */
async function joinAsGuest(endpoint, username, log) {
  const room = await new Client(endpoint).joinOrCreate("pvp", { username, bullets: 30 });
  // What this player knows, from the messages the docs list (handlers exist before anything arrives).
  const self = { x: 0, y: 0, number: 0, paired: false, started: false, moves: 0, end: null, errors: [] };
  room.onMessage("pvp_room_state", (s) => Object.assign(self, { x: s.self.x, y: s.self.y, number: s.self.player_number, paired: s.opponent !== null }));
  room.onMessage("pvp_opponent_joined", () => (self.paired = true));
  room.onMessage("pvp_match_ready", () => (self.paired = true));
  room.onMessage("pvp_battle_start", () => (self.started = true));
  room.onMessage("pvp_self_position", (p) => Object.assign(self, { x: p.x, y: p.y, moves: self.moves + 1 }));
  room.onMessage("pvp_battle_end", (end) => (self.end = end));
  room.onMessage("error", (e) => {
    self.errors.push(e);
    log(`${username}: error ${e.code} (${e.type}): ${e.message}`);
  });
  // Development servers send this on join (the playground's message list): not for game clients.
  room.onMessage("__playground_message_types", () => {});
  // Everything else the duel sends is not needed here; handled, so the SDK does not warn.
  room.onMessage("*", () => {});
  return { room, self };
}

/**
 * Plays one duel; resolves with what `pvp_battle_end` said and how far Ada walked.
 * @param {string} endpoint the server, e.g. http://127.0.0.1:8500
 */
export async function playDuel(endpoint, log = console.log) {
  const ada = await joinAsGuest(endpoint, "Ada", log);
  const bo = await joinAsGuest(endpoint, "Bo", log);
  try {
    // Paired: the ready check. Both ready; the battle starts (both back at their spawns, 5 lives).
    await until(() => ada.self.paired && bo.self.paired, "paired");
    ada.room.send("pvp_ready", {});
    bo.room.send("pvp_ready", {});
    await until(() => ada.self.started && bo.self.started, "pvp_battle_start");
    const from = { x: ada.self.x, y: ada.self.y };
    log(`battle: Ada (player ${ada.self.number}) at (${from.x}, ${from.y})`);

    // Walk 200 px towards the wall: `pvp_move` is a target, and one message walks at most 112.5 px.
    const target = { x: from.x + (ada.self.number === 1 ? 200 : -200), y: from.y };
    while (Math.abs(ada.self.x - target.x) > 1) {
      const answered = ada.self.moves + 1;
      ada.room.send("pvp_move", target);
      await until(() => ada.self.moves >= answered, "pvp_self_position");
      await new Promise((r) => setTimeout(r, MOVE_EVERY_MS));
    }
    const walked = Math.hypot(ada.self.x - from.x, ada.self.y - from.y);
    log(`Ada walked ${walked} px to (${ada.self.x}, ${ada.self.y})`);

    // Shoot straight at Bo (same y, over the wall) until the duel ends.
    const dx = ada.self.number === 1 ? 1 : -1;
    for (const start = Date.now(); !ada.self.end; await new Promise((r) => setTimeout(r, SHOOT_EVERY_MS))) {
      if (Date.now() - start > 20_000) throw new Error("no pvp_battle_end within 20 s");
      ada.room.send("pvp_shoot", { dx, dy: 0 });
    }
    const end = ada.self.end;
    log(`battle end: ${end.reason}, winner ${end.winner === ada.room.sessionId ? "Ada" : "Bo"}`);
    return { end, walked, ada: ada.room.sessionId, bo: bo.room.sessionId, errors: [...ada.self.errors, ...bo.self.errors] };
  } finally {
    await Promise.all([ada.room.leave(), bo.room.leave()]);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  playDuel(process.argv[2] ?? "http://127.0.0.1:8500").then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
