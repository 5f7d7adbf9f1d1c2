// Two guests fight the boss for 30 s, written from docs/messages.md and docs/boss-battle.md alone,
// with nothing but @colyseus/sdk: both join `boss` with their bullets (a guest without them has 0
// and is refused: 403), each walks back and forth along the bottom of the arena with
// `boss_player_move` every 100 ms and shoots at the boss (its position in the synchronized state)
// with `boss_player_shoot` four times a second while it has bullets.
//
//   node examples/boss-battle.mjs [http://127.0.0.1:8500] [seconds]
//
// Runs inside this repository after `npm install` (it needs only @colyseus/sdk), against a running
// server (`npm run dev`). test/integration/examples.test.ts runs it against a test server in `npm test`.
import { Client } from "@colyseus/sdk";

const MOVE_EVERY_MS = 100; // "send every 50–100 ms"
const SHOOT_EVERY_MS = 250; // under the 5 shots/s sustained fire rate

/** Joins as a guest: quick play, or the battle `roomId`. A guest brings its `bullets` (capped at 30). */
async function joinAsGuest(endpoint, username, log, roomId) {
  const client = new Client(endpoint);
  const options = { username, bullets: 30 };
  const room = await (roomId ? client.joinById(roomId, options) : client.joinOrCreate("boss", options));
  const me = { username, x: 0, y: 0, start: null, maxDistance: 0, shots: 0, damage: 0, lives: 5, bullets: 30, dead: false, errors: [] };
  const moved = (p) => {
    Object.assign(me, { x: p.x, y: p.y });
    me.start ??= { x: p.x, y: p.y };
    me.maxDistance = Math.max(me.maxDistance, Math.hypot(p.x - me.start.x, p.y - me.start.y));
  };
  room.onMessage("boss_room_state", (s) => moved(s.self));
  room.onMessage("boss_self_position", moved);
  room.onMessage("boss_health_update", (h) => {
    if (h.attacker_sid === room.sessionId) me.damage += h.damage;
  });
  room.onMessage("boss_player_damaged", (d) => {
    if (d.player.sid === room.sessionId) me.lives = d.player.lives;
  });
  room.onMessage("boss_player_died", (d) => {
    if (d.player.sid === room.sessionId) me.dead = true;
  });
  room.onMessage("error", (e) => {
    me.errors.push(e);
    log(`${username}: error ${e.code} (${e.type}): ${e.message}`);
  });
  room.onMessage("__playground_message_types", () => {}); // development servers only
  room.onMessage("*", () => {}); // the rest of the battle's news is not needed here
  return { room, me };
}

/**
 * Two guests in one battle for `seconds`; resolves with what each did and the boss's health.
 * @param {string} endpoint the server, e.g. http://127.0.0.1:8500
 */
export async function fightBoss(endpoint, seconds = 30, log = console.log) {
  const first = await joinAsGuest(endpoint, "Cy", log);
  const second = await joinAsGuest(endpoint, "Di", log, first.room.roomId); // the same battle, by its id
  const players = [first, second];
  const timers = [];
  try {
    players.forEach(({ room, me }, i) => {
      // Walk along the bottom: players stand in y ∈ [top + 35, height − 35] = [235, 565]; x ∈ [35, 1065].
      let leg = 0;
      timers.push(
        setInterval(() => {
          if (me.dead || !me.start) return;
          leg++;
          const x = 300 + i * 500 + (leg % 20 < 10 ? 200 : -200);
          room.send("boss_player_move", { x, y: 520 });
        }, MOVE_EVERY_MS),
      );
      timers.push(
        setInterval(() => {
          const boss = room.state?.boss;
          const self = room.state?.players?.get(room.sessionId);
          if (me.dead || !boss || !self || self.bullets === 0 || room.state.phase !== "battle") return;
          const dx = boss.x - self.x;
          const dy = boss.y - self.y;
          if (dx === 0 && dy === 0) return; // no direction: the server would answer no_direction
          room.send("boss_player_shoot", { dx, dy });
          me.shots++;
        }, SHOOT_EVERY_MS),
      );
    });
    await new Promise((r) => setTimeout(r, seconds * 1000));
    const health = first.room.state.boss_health;
    const summary = players.map(({ room, me }) => {
      const self = room.state.players.get(room.sessionId);
      return { sid: room.sessionId, username: self?.username, maxDistance: me.maxDistance, shots: me.shots, fired: self?.bullets_fired, hits: self?.bullets_hit, damage: me.damage, lives: self?.lives, errors: me.errors };
    });
    for (const p of summary) log(`${p.username}: walked up to ${Math.round(p.maxDistance)} px, ${p.fired} fired, ${p.hits} hits, ${p.damage} damage, ${p.lives} lives`);
    log(`boss health ${health} / ${first.room.state.max_health}`);
    return { roomId: first.room.roomId, health, players: summary };
  } finally {
    timers.forEach(clearInterval);
    await Promise.all(players.map(({ room }) => room.leave()));
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  fightBoss(process.argv[2] ?? "http://127.0.0.1:8500", Number(process.argv[3] ?? 30)).then(
    () => process.exit(0),
    (err) => {
      console.error(err);
      process.exit(1);
    },
  );
}
