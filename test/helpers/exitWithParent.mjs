// Loaded (node --import) into every server and command the tests start. When the test runner dies
// without stopping its children (killed, Ctrl-C, crashed), their IPC channel closes and they stop
// too, instead of lingering on their ports and in the shared Redis to disturb the next run.
if (process.channel) {
  process.channel.unref(); // the channel alone must not keep a finished command alive
  process.once("disconnect", () => process.kill(process.pid, "SIGTERM"));
}
