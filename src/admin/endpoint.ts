// How `npm run admin` reaches a server that holds the embedded database. The server publishes
// DATA_DIR/admin.json (its pid, a loopback URL and a random token; mode 0600, so only the server's
// user can read it) while it runs, and serves POST /admin/commands for bearers of that token. The
// command finds the file through the same DATA_DIR, so it always talks to the server that owns
// that database, never to another one.
import { randomBytes } from "node:crypto";
import { readFileSync, renameSync, unlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import type { CommandResult, PreparedCommand } from "./commands.js";

export interface AdminEndpoint {
  pid: number;
  url: string;
  token: string;
}

export const ADMIN_COMMANDS_PATH = "/admin/commands";
export const adminEndpointFile = (dataDir: string) => join(dataDir, "admin.json");
export const newAdminToken = () => randomBytes(32).toString("base64url");

/** Writes the endpoint file (atomically, owner-only); returns the function that removes it. */
export function publishAdminEndpoint(dataDir: string, endpoint: AdminEndpoint): () => void {
  const file = adminEndpointFile(dataDir);
  const content = JSON.stringify(endpoint);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, content, { mode: 0o600 });
  renameSync(tmp, file);
  let removed = false;
  return () => {
    if (removed) return;
    removed = true;
    try {
      if (readFileSync(file, "utf8") === content) unlinkSync(file);
    } catch {
      /* already gone */
    }
  };
}

export function readAdminEndpoint(dataDir: string): AdminEndpoint | undefined {
  try {
    const parsed = JSON.parse(readFileSync(adminEndpointFile(dataDir), "utf8")) as Partial<AdminEndpoint>;
    if (Number.isInteger(parsed.pid) && typeof parsed.url === "string" && typeof parsed.token === "string") return parsed as AdminEndpoint;
  } catch {
    /* none, or unreadable */
  }
  return undefined;
}

/** Runs a prepared command inside the server that publishes `endpoint`. */
export async function runInServer(endpoint: AdminEndpoint, command: PreparedCommand): Promise<CommandResult> {
  const res = await fetch(new URL(ADMIN_COMMANDS_PATH, endpoint.url), {
    method: "POST",
    headers: { "content-type": "application/json", authorization: `Bearer ${endpoint.token}` },
    body: JSON.stringify(command),
  });
  const body = (await res.json().catch(() => undefined)) as (CommandResult & { error?: { message?: string } }) | undefined;
  if (res.ok && body && Array.isArray(body.stdout)) return body;
  throw new Error(`the running server (pid ${endpoint.pid}) refused the command: ${res.status} ${body?.error?.message ?? ""}`.trim());
}
