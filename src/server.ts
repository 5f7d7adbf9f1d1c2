// The game server: Colyseus (WebSocket + matchmaking) and Express on one HTTP server. Its definition
// (rooms, routes, transport, presence) has @colyseus/tools' shape, so `npm start` and the tests serve
// the same one: `npm start` listens on it here, the tests boot() it with @colyseus/testing.
import type { AddressInfo } from "node:net";
import { defineServer, type RegisteredHandler, type Server } from "@colyseus/core";
import type { ConfigOptions } from "@colyseus/tools";
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
  /** Serves the definition (default: defineServer + listen on port and host); tests pass @colyseus/testing's boot(). */
  listen?: (definition: GameServerDefinition) => Promise<Server>;
}

/** @colyseus/tools' ConfigOptions without its type-only markers ("~rooms", "~routes"). */
export type GameServerDefinition = Omit<ConfigOptions, "~rooms" | "~routes">;

/** Inbound WebSocket frame limit; every message is small JSON-like msgpack. */
export const MAX_WS_PAYLOAD = 16 * 1024;

/** The server's definition: everything but where it listens. */
export async function gameServerDefinition(ctx: AppContext, options: Pick<GameServerOptions, "rooms" | "adminToken">): Promise<GameServerDefinition> {
  const { config } = ctx;
  const policy = new OriginPolicy(config.corsOrigins, config.publicAddress);
  installColyseusCors(policy);

  const transport = new BatchingWebSocketTransport({
    pingInterval: 3000,
    pingMaxRetries: 2,
    maxPayload: MAX_WS_PAYLOAD,
    beforeUpgrade: upgradeOriginGuard(policy, ctx.logger),
    logger: ctx.logger,
  });

  let presence, driver;
  if (config.redisUrl) {
    const [{ RedisPresence }, { RedisDriver }] = await Promise.all([import("@colyseus/redis-presence"), import("@colyseus/redis-driver")]);
    presence = new RedisPresence(config.redisUrl);
    driver = new RedisDriver(config.redisUrl);
  }

  const rooms = gameRooms();
  return {
    options: { presence, driver, publicAddress: config.publicAddress, greet: false, gracefullyShutdown: false, logger: colyseusLogger(ctx.logger) },
    rooms: { ...rooms, ...options.rooms },
    // Our transport brings its own HTTP server; @colyseus/tools' offer of one is not needed.
    initializeTransport: () => transport,
    initializeExpress: (app) => configureExpress(app, ctx, { roomNames: Object.keys(rooms), adminToken: options.adminToken }),
  };
}

/** What @colyseus/tools' listen() does with a definition, bound to `host` too (tools' listen has no host). */
async function listenOn(definition: GameServerDefinition, port: number, host: string | undefined): Promise<Server> {
  const server = defineServer({
    ...definition.options,
    rooms: definition.rooms,
    express: definition.initializeExpress,
    transport: definition.initializeTransport!({}),
  });
  const http = server.transport.server!;
  await new Promise<void>((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    http.once("error", onError);
    server.listen(port, host).then(
      () => {
        http.off("error", onError);
        resolve();
      },
      reject,
    );
  });
  return server;
}

export async function startGameServer(ctx: AppContext, options: GameServerOptions): Promise<GameServer> {
  const { config } = ctx;
  const definition = await gameServerDefinition(ctx, options);
  const server = await (options.listen ?? ((d) => listenOn(d, options.port, options.host)))(definition);
  const http = server.transport.server!;
  http.on("clientError", answerUnparsableRequest);
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
