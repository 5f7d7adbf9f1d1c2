// The chaos harness's watchman: it is told (over IPC) the process group of every Redis, PostgreSQL
// and game server a test file starts, and when the test file's process goes without stopping them
// (killed, crashed, Ctrl-C), its IPC channel closes and this kills them all. Redis and PostgreSQL
// cannot load test/helpers/exitWithParent.mjs, and a game server the test stopped with SIGSTOP could
// not act on it either: SIGCONT and SIGKILL to each group reach them whatever state they are in.
const groups = new Set();

function killAll() {
  for (const pgid of groups) {
    for (const signal of ["SIGCONT", "SIGKILL"]) {
      try {
        process.kill(-pgid, signal);
      } catch {
        // already gone
      }
    }
  }
  groups.clear();
}

process.on("message", (message) => {
  if (message?.watch) groups.add(message.watch);
  if (message?.forget) groups.delete(message.forget);
  if (message?.killAll) {
    killAll();
    process.send?.({ killed: true });
  }
});
process.once("disconnect", () => {
  killAll();
  process.exit(0);
});
for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"]) process.on(signal, () => (killAll(), process.exit(0)));
