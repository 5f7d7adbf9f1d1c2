// Everything Express serves on the game server's port, in order. Colyseus' own router answers
// /matchmake/* before this app sees a request.
import express, { type Application } from "express";
import { basicAuth } from "@colyseus/core";
import type { AppContext } from "../context.js";
import { requestLog } from "./requestLog.js";
import { statusRoutes } from "./statusRoutes.js";
import { authRoutes, originalClientUserRoutes } from "./authRoutes.js";
import { workspaceSessionRoutes } from "./workspaceSessionRoutes.js";
import { adminRoutes } from "./adminRoutes.js";
import { metricsConfigured, metricsRoutes } from "./metricsRoutes.js";
import { progressRoutes } from "./progressRoutes.js";
import { bossRoutes } from "./bossRoutes.js";
import { slitherrushRoutes } from "./slitherrushRoutes.js";
import { modesRoutes } from "./modesRoutes.js";
import { pvpRoutes } from "./pvpRoutes.js";
import { classRoutes } from "./classRoutes.js";
import { workspaceRoutes } from "./workspaceRoutes.js";
import { adminAccountRoutes, studentRoutes } from "./accountHelpRoutes.js";
import { playClientRoutes, preparePlayClient } from "./playClient.js";
import { jsonErrorHandler, notFoundHandler } from "./errorHandler.js";
import { JSON_BODY_LIMIT } from "./limits.js";
import { crossSiteWriteGuard, OriginPolicy } from "./cors.js";
import { openApiDocument } from "./openapi/index.js";
import { matchmakeRoutes, type MatchmakeRoom } from "./matchmake.js";
import { TRUST_PROXY } from "./proxy.js";

export interface ExpressOptions {
  /** The game's rooms by their contract names, for GET /: server.ts composes rooms and routes, so routes never import rooms. */
  roomNames: readonly string[];
  /** What /matchmake checks per room type (composed by server.ts from the protocol table). */
  matchmakeRooms: Readonly<Record<string, MatchmakeRoom>>;
  adminToken?: string;
}

export async function configureExpress(app: Application, ctx: AppContext, options: ExpressOptions): Promise<void> {
  const { config, logger } = ctx;
  app.disable("x-powered-by");
  app.set("trust proxy", TRUST_PROXY);
  app.use(requestLog(logger));
  // Colyseus' matchmaking route, guarded (src/http/edge.ts sends it here): its own body parser and error shape.
  app.use("/matchmake", matchmakeRoutes(ctx, options.matchmakeRooms));
  if (options.adminToken) app.use(adminRoutes(ctx, options.adminToken)); // before express.json: its own body limit
  if (metricsConfigured(config)) app.use(metricsRoutes(config));
  app.use("/api/public", workspaceRoutes(ctx)); // before express.json: parses its own bodies so JSON errors get {"error_message"}
  // Cookie- and basic-auth-authenticated areas (the workspace API authenticates by key pair in the body).
  app.use(["/api/auth", "/api/workspace", "/api/snakes", "/api/boss", "/api/pvp", "/api/classes", "/api/students", "/api/admin", "/monitor"], crossSiteWriteGuard(new OriginPolicy(config.corsOrigins, config.publicAddress)));
  app.use(express.json({ limit: JSON_BODY_LIMIT, strict: true }));

  app.get("/", (_req, res) => {
    res.json({
      service: "snakes-game",
      endpoints: {
        health: "/health",
        ready: "/ready",
        metrics: "/metrics",
        openapi: "/api/openapi.json",
        auth: "/api/auth",
        progress: "/api/snakes",
        boss: "/api/boss",
        slitherrush: "/api/slitherrush",
        modes: "/api/modes/status",
        pvp: "/api/pvp",
        classes: "/api/classes",
        students: "/api/students/:id/(password-reset|lock|unlock|mute|unmute|logout)",
        admin: "/api/admin/(accounts|audit)",
        workspace: "/api/public/:operation",
        play: "/play/",
        matchmake: "/matchmake/:method/:room",
        rooms: options.roomNames,
      },
    });
  });
  const openapi = openApiDocument();
  app.get("/api/openapi.json", (_req, res) => {
    res.json(openapi);
  });
  app.use(statusRoutes(ctx));
  app.use("/api/auth", authRoutes(ctx));
  app.use("/api/user", originalClientUserRoutes(ctx));
  app.use("/api/workspace", workspaceSessionRoutes(ctx));
  app.use("/api/snakes", progressRoutes(ctx));
  app.use("/api/boss", bossRoutes(ctx));
  app.use("/api/slitherrush", slitherrushRoutes(ctx));
  app.use("/api/modes", modesRoutes());
  app.use("/api/pvp", pvpRoutes(ctx));
  app.use(classRoutes(ctx)); // full paths: POST /api/classes is documented without a trailing slash
  app.use("/api/students", studentRoutes(ctx));
  app.use("/api/admin", adminAccountRoutes(ctx));
  app.use("/play", playClientRoutes(await preparePlayClient(logger)));

  if (config.monitorUser && config.monitorPassword) {
    const { monitor } = await import("@colyseus/monitor");
    app.use("/monitor", monitor({ use: [basicAuth({ users: { [config.monitorUser]: config.monitorPassword } })] }) as express.RequestHandler);
  }
  if (config.nodeEnv === "development") {
    // The playground advertises every room's message types to joining clients: development only.
    const { playground } = await import("@colyseus/playground");
    app.use("/playground", playground() as express.RequestHandler);
  }

  app.use(notFoundHandler);
  app.use(jsonErrorHandler(logger, ctx.storage));
}
