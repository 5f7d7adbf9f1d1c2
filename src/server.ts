// The game server: Colyseus (WebSocket + matchmaking) and Express on one HTTP server.
import type { AddressInfo } from "node:net";
import { defineServer, type RegisteredHandler, type Server } from "@colyseus/core";
import type { AppContext } from "./context.js";
import { configureExpress } from "./http/app.js";
import { OriginPolicy, installColyseusCors, upgradeOriginGuard } from "./http/cors.js";
import { gameRooms } from "./rooms/index.js";
import { colyseusLogger } from "./colyseusLogger.js";
import { trackLocalRooms } from "./rooms/kit/metrics.js";
import { BatchingWebSocketTransport } from "./transport.js";
import { answerUnparsableRequest } from "./http/clientError.js";
import { startDeadProcessChecks } from "./shared/deadProcesses.js";

export interface GameServer {
  server: Server;
  port: number;
  /** Stops matchmaking, lets rooms finish (onBeforeShutdown/onDispose), closes sockets. */
  shutdown(): Promise<void>;
}

export interface GameServerOptions {
  port: number;
  host?: string;
  /** Extra rooms (tests). */
  rooms?: Record<string, RegisteredHandler>;
  /** Serve POST /admin/commands to bearers of this token (the embedded database's owner). */
  adminToken?: string;
}

/** Inbound WebSocket frame limit; every message is small JSON-like msgpack. */
export const MAX_WS_PAYLOAD = 16 * 1024;

export async function startGameServer(ctx: AppContext, options: GameServerOptions): Promise<GameServer> {
  const { config } = ctx;
  const policy = new OriginPolicy(config.corsOrigins, config.publicAddress);
  installColyseusCors(policy);

  const transport = new BatchingWebSocketTransport({
    pingInterval: 3000,
    pingMaxRetries: 2,
    maxPayload: MAX_WS_PAYLOAD,
    beforeUpgrade: upgradeOriginGuard(policy, ctx.logger),
  });

  let presence, driver;
  if (config.redisUrl) {
    const [{ RedisPresence }, { RedisDriver }] = await Promise.all([import("@colyseus/redis-presence"), import("@colyseus/redis-driver")]);
    presence = new RedisPresence(config.redisUrl);
    driver = new RedisDriver(config.redisUrl);
  }

  const server = defineServer({
    transport,
    presence,
    driver,
    publicAddress: config.publicAddress,
    greet: false,
    gracefullyShutdown: false,
    logger: colyseusLogger(ctx.logger),
    rooms: { ...gameRooms(), ...options.rooms },
    express: (app) => configureExpress(app, ctx, { adminToken: options.adminToken }),
  });

  const http = transport.server!;
  http.on("clientError", answerUnparsableRequest);
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    http.once("error", onError);
    server.listen(options.port, options.host).then(
      () => {
        http.off("error", onError);
        resolve();
      },
      reject,
    );
  });
  trackLocalRooms();
  const port = (http.address() as AddressInfo).port;
  const stopChecks = config.redisUrl ? startDeadProcessChecks(ctx.matchSeats, ctx.logger) : () => {};
  return {
    server,
    port,
    shutdown: () => {
      stopChecks();
      return server.gracefullyShutdown(false);
    },
  };
}
