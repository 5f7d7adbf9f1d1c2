// npm run loadtest:profile -- DIR|FILE.cpuprofile [--top N] [--inclusive [TEXT]]
// Summarises a V8 CPU profile (node --cpu-prof, written by `npm run loadtest -- … --profile DIR`):
// the busy time grouped by what the server was doing (socket writes, frame/message encoding, inbound
// decode, validation, simulation, schema encoding, persistence, other), then self time by package
// and by function, so "where does the time go" has a plain answer.
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";

interface Node {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: Node[];
  samples: number[];
  timeDeltas: number[];
}

const target = process.argv[2];
if (!target) {
  console.error("usage: npm run loadtest:profile -- DIR|FILE.cpuprofile [--top N]");
  process.exit(2);
}
const topIndex = process.argv.indexOf("--top");
const top = topIndex > 0 ? Number(process.argv[topIndex + 1]) : 30;
const file = statSync(target).isDirectory()
  ? readdirSync(target)
      .filter((f) => f.endsWith(".cpuprofile"))
      .map((f) => join(target, f))
      .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)[0]
  : target;
if (!file) throw new Error(`no .cpuprofile in ${target}`);
const profile = JSON.parse(readFileSync(file, "utf8")) as Profile;

const selfUs = new Map<number, number>();
profile.samples.forEach((id, i) => selfUs.set(id, (selfUs.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
const total = [...selfUs.values()].reduce((a, b) => a + b, 0);
const byId = new Map(profile.nodes.map((n) => [n.id, n]));

/** The server's own code: src/ when run through tsx, .run/ (the same files, built) under `npm start`. */
const SOURCE = /\/(src|\.run)\//;

/** node_modules/<package> (scoped too), src/…, node:…, or (native) for V8/GC entries. */
function origin(url: string): string {
  if (!url) return "(native/V8)";
  const nm = url.lastIndexOf("node_modules/");
  if (nm >= 0) {
    const parts = url.slice(nm + 13).split("/");
    return parts[0].startsWith("@") ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith("node:")) return "node core";
  const src = SOURCE.exec(url);
  if (src) return `src/${url.slice(src.index + src[0].length).split("/")[0]}`;
  const lt = url.indexOf("/loadtest/");
  return lt >= 0 ? "loadtest" : url;
}

const fn = new Map<string, number>();
const pkg = new Map<string, number>();
for (const [id, us] of selfUs) {
  const { callFrame: f } = byId.get(id)!;
  const where = f.url ? `${f.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(src|\.run)\//, "src/").replace(/^file:\/\/.*?\/loadtest\//, "loadtest/")}:${f.lineNumber + 1}` : "";
  const key = `${f.functionName || "(anonymous)"} ${where}`.trim();
  fn.set(key, (fn.get(key) ?? 0) + us);
  const o = origin(f.url);
  pkg.set(o, (pkg.get(o) ?? 0) + us);
}
// Inclusive time: each function counted once per sample in which it is on the stack.
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const keyOf = (n: Node) => {
  const f = n.callFrame;
  const where = f.url ? `${f.url.replace(/^.*node_modules\//, "").replace(/^file:\/\/.*?\/(src|\.run)\//, "src/").replace(/^file:\/\/.*?\/loadtest\//, "loadtest/")}:${f.lineNumber + 1}` : "";
  return `${f.functionName || "(anonymous)"} ${where}`.trim();
};
const inclusive = new Map<string, number>();
for (const [id, us] of selfUs) {
  const seen = new Set<string>();
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const key = keyOf(byId.get(at)!);
    if (seen.has(key)) continue;
    seen.add(key);
    inclusive.set(key, (inclusive.get(key) ?? 0) + us);
  }
}

// What the server was doing: each sample goes to the group of the innermost frame on its stack that
// belongs to one (a msgpack pack called from a room handler is encoding, not the handler). Idle
// samples are left out; "other" is what matched nothing (room glue, GC, the profiler itself).
const GROUPS: Array<[string, (fn: string, url: string) => boolean]> = [
  // A room's own code (its handlers, its tick) is glue: what it calls is grouped by itself.
  ["other", (_fn, url) => /(?:src|\.run)\/rooms\/[a-z]+\/[A-Z][A-Za-z]*Room\.[jt]s/.test(url)],
  ["socket writes", (fn, url) => fn === "writeBuffer" || fn === "writev" || fn === "writevGeneric" || /stream_base_commons|node:net|streams\/writable/.test(url) || (/\/(src|\.run)\/transport\.[jt]s$/.test(url) && /flush/.test(fn))],
  ["frame/message encoding", (fn, url) => /msgpackr\/pack|ws-transport|\/ws\/lib\/sender|(?:src|\.run)\/transport\.[jt]s|(?:src|\.run)\/rooms\/kit\/outbox|@colyseus\/core\/build\/(Protocol|Transport)\.mjs|slitherrush\/(snapshotEncoder|byteWriter)/.test(url) || /^(broadcast|broadcastMessageType|send|sendBytes|enqueueRaw|raw)$/.test(fn)],
  ["inbound decode", (fn, url) => fn === "onStreamRead" || /msgpackr\/unpack|\/ws\/lib\/(receiver|buffer-util)|RoomMessages\.mjs/.test(url) || fn === "_onMessage"],
  ["validation", (_fn, url) => /\/zod\/|(?:src|\.run)\/rooms\/kit\/(guard|inputs)\.[jt]s|(?:src|\.run)\/protocol\//.test(url)],
  ["simulation", (_fn, url) => /\/(src|\.run)\/game\//.test(url)],
  ["schema encoding", (fn, url) => /@colyseus\/schema|SchemaSerializer|(?:src|\.run)\/rooms\/[a-z]+\/state\.[jt]s|(?:src|\.run)\/rooms\/kit\/sync\.[jt]s/.test(url) || fn === "broadcastPatch"],
  ["persistence", (_fn, url) => /prisma|pglite|pg\/lib|ioredis|(?:src|\.run)\/stores\/|(?:src|\.run)\/rooms\/kit\/(ledger|seats)\.[jt]s/.test(url)],
];
const grouped = new Map<string, number>(GROUPS.map(([name]) => [name, 0]));
let busy = 0;
for (const [id, us] of selfUs) {
  const leaf = byId.get(id)!.callFrame.functionName;
  if (leaf === "(idle)") continue;
  busy += us;
  let group = "other";
  find: for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const f = byId.get(at)!.callFrame;
    for (const [name, test] of GROUPS) {
      if (test(f.functionName, f.url)) {
        group = name;
        break find;
      }
    }
  }
  grouped.set(group, grouped.get(group)! + us);
}

const pct = (us: number) => `${((us / total) * 100).toFixed(1).padStart(5)} %`;
const list = (m: Map<string, number>, n: number) =>
  [...m]
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([k, us]) => `${pct(us)}  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`)
    .join("\n");
const groupLines = [...grouped]
  .sort((a, b) => b[1] - a[1])
  .map(([k, us]) => `${((us / busy) * 100).toFixed(1).padStart(5)} %  ${(us / 1000).toFixed(0).padStart(7)} ms  ${k}`)
  .join("\n");
console.log(`${file}: ${(total / 1e6).toFixed(1)} s sampled, ${(busy / 1e6).toFixed(1)} s busy\n\nbusy time by group:\n${groupLines}\n\nself time by origin:\n${list(pkg, 15)}\n\nself time by function (top ${top}):\n${list(fn, top)}`);
const grep = process.argv.indexOf("--inclusive");
if (grep > 0) {
  const filter = process.argv[grep + 1] ?? "";
  const rows = new Map([...inclusive].filter(([k]) => k.includes(filter)));
  console.log(`\ninclusive time${filter ? ` (functions matching "${filter}")` : ""}:\n${list(rows, top)}`);
}

// Allocations (the .heapprofile the harness writes beside the CPU profile: sampled every 64 KiB,
// collected objects included): bytes allocated per function, i.e. where the garbage comes from.
interface HeapNode {
  callFrame: Node["callFrame"];
  selfSize: number;
  children: HeapNode[];
}
const heapFile = file.replace(/\.cpuprofile$/, ".heapprofile");
if (heapFile !== file && existsSync(heapFile)) {
  const { head } = JSON.parse(readFileSync(heapFile, "utf8")) as { head: HeapNode };
  const bytes = new Map<string, number>();
  let all = 0;
  const walk = (n: HeapNode) => {
    if (n.selfSize) {
      const key = keyOf(n as unknown as Node);
      bytes.set(key, (bytes.get(key) ?? 0) + n.selfSize);
      all += n.selfSize;
    }
    for (const c of n.children) walk(c);
  };
  walk(head);
  const seconds = total / 1e6;
  const rows = [...bytes]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([k, b]) => `${((b / all) * 100).toFixed(1).padStart(5)} %  ${(b / 2 ** 20 / seconds).toFixed(2).padStart(7)} MB/s  ${k}`)
    .join("\n");
  console.log(`\nallocated by function (${(all / 2 ** 20 / seconds).toFixed(1)} MB/s sampled, top ${top}):\n${rows}`);
}
