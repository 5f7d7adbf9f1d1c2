// What members receive while others toggle their presence (docs/security.md, "Presence"): guests
// join one boss_lobby (or boss room); T of them alternate leave/join (away/returned in the boss
// room) at R messages per second, under the room's 30/s message budget; every other member counts
// the messages and bytes it receives per second, and how long each toggler stayed connected.
//
//   npm run loadtest:presence-flood -- --url http://127.0.0.1:8500 [--room boss_lobby|boss]
//     [--members 11] [--togglers 1] [--rate 24] [--duration 5]
//
// Measure a server started as `npm start` starts it (pinned: taskset -c 0), this client on core 1.
import { parseArgs } from "node:util";
import { Client, type Room } from "@colyseus/sdk";

const { values } = parseArgs({
  options: {
    url: { type: "string" },
    room: { type: "string", default: "boss_lobby" },
    members: { type: "string", default: "11" },
    togglers: { type: "string", default: "1" },
    rate: { type: "string", default: "24" },
    duration: { type: "string", default: "5" },
  },
});
if (!values.url) throw new Error("--url http://host:port of a running server is required");
const roomName = values.room!;
if (roomName !== "boss_lobby" && roomName !== "boss") throw new Error("--room is boss_lobby or boss");
const members = Number(values.members);
const togglerCount = Number(values.togglers);
const rate = Number(values.rate);
const durationMs = Number(values.duration) * 1000;

interface Member {
  room: Room;
  messages: number;
  bytes: number;
  byType: Map<string, number>;
  closedAt?: number;
  closeCode?: number;
}

const client = new Client(values.url);
const joined: Member[] = [];
let measuring = false;
const options = roomName === "boss" ? { bullets: 30 } : {};
const first = await client.joinOrCreate(roomName, options);
for (let i = 0; i < members; i++) {
  const room = i === 0 ? first : await client.joinById(first.roomId, options);
  const member: Member = { room, messages: 0, bytes: 0, byType: new Map() };
  // Every frame's size as it arrives (messages and state patches alike).
  const ws = (room.connection as unknown as { transport: { ws: { onmessage: (e: { data: ArrayBuffer }) => void } } }).transport.ws;
  const deliver = ws.onmessage;
  ws.onmessage = (event) => {
    if (measuring) member.bytes += event.data.byteLength;
    deliver(event);
  };
  room.onMessage("*", (type) => {
    if (!measuring) return;
    member.messages++;
    member.byType.set(String(type), (member.byType.get(String(type)) ?? 0) + 1);
  });
  room.onLeave((code) => {
    member.closedAt = performance.now();
    member.closeCode = code;
  });
  joined.push(member);
}

const togglers = joined.slice(members - togglerCount);
const observers = joined.slice(0, members - togglerCount);
const [off, on] = roomName === "boss" ? ["boss_player_away", "boss_player_returned"] : ["boss_leave_lobby", "boss_join_lobby"];
measuring = true;
const start = performance.now();
let sent = 0;
const timer = setInterval(() => {
  for (const t of togglers) if (t.closedAt === undefined) t.room.send(sent % 2 === 0 ? off : on, roomName === "boss" ? { room_id: first.roomId } : {});
  sent++;
}, 1000 / rate);
await new Promise((r) => setTimeout(r, durationMs));
clearInterval(timer);
measuring = false;
const seconds = (performance.now() - start) / 1000;

const perObserver = (f: (m: Member) => number) => observers.reduce((sum, m) => sum + f(m), 0) / observers.length / seconds;
const byType: Record<string, number> = {};
for (const m of observers) for (const [type, n] of m.byType) byType[type] = (byType[type] ?? 0) + n;
for (const type of Object.keys(byType)) byType[type] = Math.round((byType[type] / observers.length / seconds) * 100) / 100;
const report = {
  room: roomName,
  members,
  togglers: togglerCount,
  rate_per_toggler: rate,
  seconds: Math.round(seconds * 10) / 10,
  per_observer_messages_per_s: Math.round(perObserver((m) => m.messages) * 100) / 100,
  per_observer_kb_per_s: Math.round(perObserver((m) => m.bytes) / 10.24) / 100,
  per_observer_by_type_per_s: byType,
  togglers_cut: togglers.map((t) => (t.closedAt === undefined ? null : { code: t.closeCode, after_ms: Math.round(t.closedAt - start) })),
};
console.log(JSON.stringify(report));
await Promise.all(joined.filter((m) => m.closedAt === undefined).map((m) => m.room.leave()));
process.exit(0);
