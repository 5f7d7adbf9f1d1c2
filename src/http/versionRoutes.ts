// GET /api/version: this server's version, the Colyseus protocol it speaks and the client SDKs that
// speak it (src/protocol/version.ts, docs/clients.md): a client can check before it joins.
import { existsSync, readFileSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { Router } from "express";
import { SNAPSHOT_VERSION } from "../game/slitherrush/wireFormat.js";
import { COLYSEUS_PROTOCOL, SDK_VERSION_OPTION, SUPPORTED_SDKS, type VersionResponse } from "../protocol/version.js";

const require = createRequire(import.meta.url);
/** The packages whose versions fix what travels on the wire. */
const WIRE_PACKAGES = ["@colyseus/core", "@colyseus/schema", "@colyseus/sdk", "@colyseus/ws-transport"];

/** An installed package's version (its package.json, found above its entry point: not every package exports it). */
function installedVersion(name: string): string {
  let dir = dirname(require.resolve(name));
  while (!existsSync(join(dir, "package.json")) || JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).name !== name) {
    const up = dirname(dir);
    if (up === dir) return "unknown";
    dir = up;
  }
  return JSON.parse(readFileSync(join(dir, "package.json"), "utf8")).version as string;
}

export function versionDocument(): VersionResponse {
  const packages = Object.fromEntries(WIRE_PACKAGES.map((name) => [name, installedVersion(name)]));
  const own = JSON.parse(readFileSync(new URL("../../package.json", import.meta.url), "utf8")) as { version: string };
  return {
    server: own.version,
    protocol: { colyseus: COLYSEUS_PROTOCOL, schema: packages["@colyseus/schema"].split(".").slice(0, 2).join("."), slitherrush_snapshot: SNAPSHOT_VERSION },
    packages,
    sdk_version_option: SDK_VERSION_OPTION,
    sdks: SUPPORTED_SDKS.map((s) => ({ ...s })),
  };
}

export function versionRoutes(): Router {
  const router = Router();
  const document = versionDocument(); // fixed for the life of the process
  router.get("/version", (_req, res) => {
    res.json(document);
  });
  return router;
}
