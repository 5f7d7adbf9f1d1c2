// `npm run admin`: the operator commands (./main.ts) as a process. ./stdout.ts comes first: it
// sends whatever a library prints to stderr, so stdout carries results only.
import { err, out } from "./stdout.js";
import { loadDotEnv } from "../config.js";
import { runAdmin } from "./main.js";

loadDotEnv();
// Exit explicitly: stdout and stderr are synchronous for files and pipes, so nothing is lost.
process.exit(await runAdmin(process.argv.slice(2), { env: process.env, out, err }));
