// A contender for the data folder lock, driven line by line over stdin (test/unit/dbLock.test.ts):
// "go DIR AT" tries to take DIR's lock once the wall clock reaches AT (ms, fractional) and answers
// "held", "in use: MESSAGE" or "error: MESSAGE"; "release" lets go of what it holds.
import { createInterface } from "node:readline";
import { acquireDataDirLock, DatabaseInUseError } from "../../src/db/lock.js";

let release = () => {};
const now = () => performance.timeOrigin + performance.now();
for await (const line of createInterface({ input: process.stdin })) {
  const [command, dir, at] = line.split(" ");
  if (command === "release") {
    release();
    release = () => {};
    process.stdout.write("released\n");
    continue;
  }
  while (now() < Number(at)) {
    /* spin: both contenders start within microseconds */
  }
  try {
    release = acquireDataDirLock(dir);
    process.stdout.write("held\n");
  } catch (err) {
    const message = (err as Error).message.replace(/\n/g, " ");
    process.stdout.write(err instanceof DatabaseInUseError ? `in use: ${message}\n` : `error: ${message}\n`);
  }
}
