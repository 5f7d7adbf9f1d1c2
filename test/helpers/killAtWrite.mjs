// Fault injection (node --import): SIGKILLs the process just before its N-th write under a folder,
// counted across this process and its children (the count lives in a file they all append to).
//   KILL_ROOT      only writes to paths under this folder count (the runtime's own caches do not)
//   KILL_COUNTER   the file holding the count (one byte per write)
//   KILL_AT        the write to die before (1-based); unset or 0: only count
//   KILL_LOG       optional: a file that gets one line per write, "N PATH" (where the sweep looks
//                  for the writes that matter most, such as the commits of a migration)
// A write is anything that changes the folder: writing to a file opened there, creating, renaming,
// linking, truncating, removing, copying.
import fs from "node:fs";
import { syncBuiltinESMExports } from "node:module";
import { resolve } from "node:path";

const root = process.env.KILL_ROOT && resolve(process.env.KILL_ROOT) + "/";
if (root && process.env.KILL_COUNTER) {
  const killAt = Number(process.env.KILL_AT ?? 0);
  const original = { writeSync: fs.writeSync, fstatSync: fs.fstatSync, openSync: fs.openSync };
  const counter = original.openSync(process.env.KILL_COUNTER, "a");
  const log = process.env.KILL_LOG ? original.openSync(process.env.KILL_LOG, "a") : undefined;
  const paths = new Map(); // descriptor → path, for the log
  const tick = (path) => {
    original.writeSync(counter, "x");
    const n = original.fstatSync(counter).size;
    if (log !== undefined) original.writeSync(log, `${n} ${process.pid} ${path}\n`);
    if (killAt > 0 && n === killAt) process.kill(process.pid, "SIGKILL");
  };
  const under = (path) => {
    if (typeof path !== "string" && !(path instanceof URL) && !Buffer.isBuffer(path)) return false;
    return (resolve(String(path instanceof URL ? path.pathname : path)) + "/").startsWith(root);
  };
  const ours = new Set(); // descriptors of files opened under the root for writing
  const writesFlags = (flags) => (typeof flags === "number" ? (flags & 3) !== 0 || (flags & fs.constants.O_CREAT) !== 0 : /[wa+]/.test(flags ?? "r"));

  fs.openSync = function (path, flags, ...rest) {
    const counted = under(path) && writesFlags(flags);
    if (counted && (typeof flags === "number" ? flags & fs.constants.O_CREAT : /[wa]/.test(flags))) tick(String(path));
    const fd = original.openSync.call(this, path, flags, ...rest);
    if (counted) {
      ours.add(fd);
      paths.set(fd, String(path));
    }
    return fd;
  };
  const closeSync = fs.closeSync;
  fs.closeSync = function (fd) {
    ours.delete(fd);
    paths.delete(fd);
    return closeSync.call(this, fd);
  };
  for (const name of ["writeSync", "write", "writev", "writevSync", "ftruncateSync", "ftruncate"]) {
    const fn = fs[name];
    fs[name] = function (fd, ...rest) {
      if (ours.has(fd)) tick(paths.get(fd));
      return (name === "writeSync" ? original.writeSync : fn).call(this, fd, ...rest);
    };
  }
  const byPath = ["writeFileSync", "writeFile", "appendFileSync", "appendFile", "renameSync", "rename", "unlinkSync", "unlink", "rmSync", "rm", "rmdirSync", "rmdir", "mkdirSync", "mkdir", "linkSync", "link", "truncateSync", "truncate", "cpSync", "cp", "copyFileSync", "copyFile", "symlinkSync"];
  for (const name of byPath) {
    const fn = fs[name];
    fs[name] = function (a, b, ...rest) {
      if (under(a) || (typeof b === "string" && under(b))) tick(`${name} ${String(a)}`);
      return fn.call(this, a, b, ...rest);
    };
  }
  for (const name of ["writeFile", "appendFile", "rename", "unlink", "rm", "rmdir", "mkdir", "link", "truncate", "cp", "copyFile"]) {
    const fn = fs.promises[name];
    fs.promises[name] = function (a, b, ...rest) {
      if (under(a) || (typeof b === "string" && under(b))) tick(`${name} ${String(a)}`);
      return fn.call(this, a, b, ...rest);
    };
  }
  syncBuiltinESMExports();
}
