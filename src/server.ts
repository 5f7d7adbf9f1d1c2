// The game server: Colyseus (WebSocket + matchmaking) and Express on one HTTP server. Its definition
// (rooms, routes, transport, presence) has @colyseus/tools' shape, so `npm start` and the tests serve
// the same one: `npm start` listens on it here, the tests boot() it with @colyseus/testing.
import type { AddressInfo } from "node:net";
import type { RequestListener } from "node:http";
import { defineServer, type RegisteredHandler, type Server } from "@colyseus/core";
import type { ConfigOptions } from "@colyseus/tools";
import type { AppContext } from "./context.js";
import { configureExpress } from "./http/app.js";
import { OriginPolicy, installColyseusCors, upgradeOriginGuard } from "./http/cors.js";
import { gameRooms } from "./rooms/index.js";
import { colyseusLogger } from "./ops/colyseusLogger.js";
import { trackLocalRooms } from "./rooms/kit/metrics.js";
import { BatchingWebSocketTransport } from "./net/transport.js";
import { answerUnparsableRequest } from "./http/clientError.js";
import { ConnectionCounts, createGameHttpServer, guardRequests, guardUpgrades } from "./http/edge.js";
import { TEST_ROOM_OPTIONS, type MatchmakeRoom } from "./http/matchmake.js";
import { roomProtocols } from "./protocol/rooms.js";
import { startDeadProcessChecks } from "./shared/deadProcesses.js";
import { setDrainLimit } from "./rooms/kit/drain.js";
import { PARTY_MOVING, partyKey } from "./rooms/slitherrush/matchmaking.js";
import { activeRedisLink } from "./shared/redisLink.js";

export interface GameServer {
  server: Server;
  port: number;
  /**
   * Colyseus' graceful shutdown: the process leaves matchmaking at once, its rooms are locked and
   * drain (running duels and boss battles play on for at most `drainMs`, others tell their players
   * to move; src/rooms/kit/drain.ts), seats are written, then sockets close.
   */
  shutdown(drainMs?: number): Promise<void>;
  /** This process's rooms that are still open (what a shutdown still waits for). */
  openRooms(): { room: string; roomId: string; clients: number }[];
}

export interface GameServerOptions {
  port: number;
  host?: string;
  /** Extra rooms (tests). */
  rooms?: Record<string, RegisteredHandler>;
  /** Serves the definition (default: defineServer + listen on port and host); tests pass @colyseus/testing's boot(). */
  listen?: (definition: GameServerDefinition) => Promise<Server>;
}

/** @colyseus/tools' ConfigOptions without its type-only markers ("~rooms", "~routes"). */
export type GameServerDefinition = Omit<ConfigOptions, "~rooms" | "~routes">;

/** Inbound WebSocket frame limit; every message is small JSON-like msgpack. */
export const MAX_WS_PAYLOAD = 16 * 1024;

/** The server's definition: everything but where it listens. */
export async function gameServerDefinition(ctx: AppContext, options: Pick<GameServerOptions, "rooms">): Promise<GameServerDefinition> {
  const { config } = ctx;
  const policy = new OriginPolicy(config.corsOrigins, config.publicAddress);
  installColyseusCors(policy);

  const http = createGameHttpServer();
  const transport = new BatchingWebSocketTransport({
    server: http,
    pingInterval: 3000,
    pingMaxRetries: 2,
    maxPayload: MAX_WS_PAYLOAD,
    beforeUpgrade: upgradeOriginGuard(policy, ctx.logger),
    logger: ctx.logger,
    maxBacklogBytes: config.maxClientBacklogBytes,
  });
  guardUpgrades(http, new ConnectionCounts(config.maxConnectionsPerAddress), ctx.logger, ctx.proxies);

  let presence, driver;
  const link = config.redisUrl ? activeRedisLink() : undefined;
  if (link) {
    // Failures of every Redis connection now mark Redis down (503s, /ready) and are logged once per interval.
    link.bind(ctx.dependencies);
    // Loaded only when scaled out: the presence and driver on our connections (src/shared/redisColyseus.ts).
    ({ presence, driver } = await (await import("./shared/redisColyseus.js")).colyseusOnRedis(link));
  }

  const rooms = gameRooms();
  // What /matchmake checks per room type: the protocol's join options and create policy; a room only
  // a test adds is taken with any options.
  const matchmakeRooms: Record<string, MatchmakeRoom> = Object.fromEntries([
    ...Object.keys(options.rooms ?? {}).map((name) => [name, { joinOptions: TEST_ROOM_OPTIONS, create: "anyone" } as const]),
    ...Object.keys(rooms).map((name) => [name, roomProtocols[name]]),
  ]);
  return {
    options: { presence, driver, publicAddress: config.publicAddress, greet: false, gracefullyShutdown: false, logger: colyseusLogger(ctx.logger) },
    rooms: { ...rooms, ...options.rooms },
    // Our transport brings its own HTTP server; @colyseus/tools' offer of one is not needed.
    initializeTransport: () => transport,
    initializeExpress: (app) => configureExpress(app, ctx, { roomNames: Object.keys(rooms), matchmakeRooms }),
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
  // Colyseus bound its router on listening; /matchmake now goes through Express's guards instead.
  guardRequests(http, server.transport.getExpressApp!() as unknown as RequestListener, ctx.proxies);
  const localRooms = trackLocalRooms();
  const port = (http.address() as AddressInfo).port;
  // Scaled out: Redis probed twice a second, and what this process owns there republished on its return.
  const stopRedis = config.redisUrl ? (await import("./shared/redisColyseus.js")).startRedisRecovery(ctx, localRooms, [{ pattern: partyKey("*"), keep: [PARTY_MOVING] }]) : () => {};
  const stopChecks = config.redisUrl ? startDeadProcessChecks(ctx.matchSeats, ctx.logger) : () => {};
  return {
    server,
    port,
    shutdown: (drainMs = 0) => {
      stopChecks();
      stopRedis();
      setDrainLimit(drainMs);
      return server.gracefullyShutdown(false);
    },
    openRooms: () => [...localRooms].map((r) => ({ room: r.roomName, roomId: r.roomId, clients: r.clients.length })),
  };
}
