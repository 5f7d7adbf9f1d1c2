// Serves the /play reference web client (web/play, bundled into web/play/dist) from the game
// server's own origin, so the session cookie and the WebSocket upgrade need no configuration.
// `npm install` builds the bundle; start-up builds it again when it is missing or stale.
import { existsSync } from "node:fs";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import express, { Router } from "express";
import type { Logger } from "../ops/logger.js";

/** The repository root: this file sits at src/http/ (or dist/http/ when compiled). */
const ROOT = join(import.meta.dirname, "../..");
const BUILD_SCRIPT = join(ROOT, "scripts/build-play.mjs");

interface PlayBuilder {
  PLAY_OUT_DIR: string;
  playClientIsStale(): boolean;
  buildPlayClient(): Promise<{ outDir: string; bytes: number }>;
}

/**
 * Builds the bundle when it is missing or older than its sources. A failed build is logged and the
 * rest of the server still starts; /play then answers 503 with the reason.
 */
export async function preparePlayClient(logger: Logger): Promise<{ dir: string; error?: string }> {
  const builder = (await import(pathToFileURL(BUILD_SCRIPT).href)) as PlayBuilder;
  if (!builder.playClientIsStale()) return { dir: builder.PLAY_OUT_DIR };
  const started = performance.now();
  try {
    const { bytes } = await builder.buildPlayClient();
    logger.info({ kib: Math.round(bytes / 1024), ms: Math.round(performance.now() - started) }, "built the /play web client");
    return { dir: builder.PLAY_OUT_DIR };
  } catch (err) {
    const message = (err as Error).message;
    logger.warn({ reason: message }, "could not build the /play web client; /play answers 503");
    return { dir: builder.PLAY_OUT_DIR, error: existsSync(join(builder.PLAY_OUT_DIR, "app.js")) ? undefined : message };
  }
}

// Same-origin everything; the WebSocket may go to another process's public address when scaled
// out, hence ws:/wss: in connect-src.
const CONTENT_SECURITY_POLICY = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self' ws: wss:",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join("; ");

export function playClientRoutes(client: { dir: string; error?: string }): Router {
  const router = Router();
  router.use((req, res, next) => {
    res.setHeader("Content-Security-Policy", CONTENT_SECURITY_POLICY);
    res.setHeader("X-Content-Type-Options", "nosniff");
    // "/play" → "/play/" so the page's relative URLs (app.js, style.css) resolve under /play/.
    if (req.originalUrl === "/play" || req.originalUrl.startsWith("/play?")) return res.redirect(301, "/play/" + req.originalUrl.slice(5));
    if (client.error) {
      res.status(503).json({ error: { code: "client_not_built", message: `The /play client could not be built: ${client.error}` } });
      return;
    }
    next();
  });
  // index.html must not be cached (it names the bundle); the bundle revalidates by ETag.
  router.use(express.static(client.dir, { index: "index.html", maxAge: 0, redirect: false }));
  return router;
}
