import { readFileSync, writeFileSync, readdirSync, unlinkSync, statfsSync } from "node:fs";
import { openDatabase } from "./src/db/client.ts";
const f = readdirSync("node_modules/.cache/snakes-test").find((n) => !n.includes("older"))!;
const db = await openDatabase({ pgliteDataDir: "/tmp/dfx/mnt/pglite", pgliteLoadDataDir: new Blob([readFileSync("node_modules/.cache/snakes-test/" + f)]) });
const s = statfsSync("/tmp/dfx/mnt");
console.log("free", s.bavail * s.bsize);
writeFileSync("/tmp/dfx/mnt/filler", Buffer.alloc(Number(s.bavail * s.bsize) - 200_000));
await db.prisma.user.create({ data: { username: "a", passwordHash: "x" } });
for (let i = 0; i < 3000; i++) {
  try {
    await db.prisma.gameProgress.upsert({ where: { userId: 1 }, create: { userId: 1 }, update: { timePlayed: i, visitedSquares: Array.from({ length: 50 }, (_, j) => j) } });
  } catch (err) {
    console.log("i", i, (err as any).constructor.name, (err as any).code, JSON.stringify((err as any).meta), String((err as Error).message).slice(0, 600));
    break;
  }
}
unlinkSync("/tmp/dfx/mnt/filler");
try { await db.prisma.gameProgress.update({ where: { userId: 1 }, data: { timePlayed: 99999 } }); console.log("resumed ok"); } catch (e) { console.log("after free:", String(e).slice(0, 300)); }
await db.close();
process.exit(0);
