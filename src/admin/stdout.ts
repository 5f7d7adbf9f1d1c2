// Imported first by the admin CLI: its stdout carries results only (JSON lines scripts parse), so
// anything a library prints with console.log/info/debug goes to stderr instead.
console.log = console.error;
console.info = console.error;
console.debug = console.error;

/** One result line on stdout. */
export const out = (line: string): void => {
  process.stdout.write(`${line}\n`);
};

/** A message for the operator on stderr. */
export const err = (line: string): void => {
  process.stderr.write(`${line}\n`);
};
