// /monitor: the Colyseus monitor (@colyseus/monitor) for the operator, behind basic auth with the
// failure limit of ./operatorAuth.ts. The monitor's own GET /monitor/api/room/call would run any
// room method a URL names (a GET, so any link, image or prefetch could dispose a room or edit its
// state); it is replaced here: actions only by POST, which the app-wide cross-site guard covers,
// and only the two that end something the operator chose (a room, one client). Editing a room's
// state or sending players messages in the server's name are not offered at all.
import express, { Router, type Request, type Response } from "express";
import { matchMaker } from "@colyseus/core";
import { z } from "zod";
import type { AppContext } from "../context.js";
import { AppError } from "../errors.js";
import { roomIdSchema } from "../protocol/common.js";
import { text } from "../protocol/text.js";
import { monitorAuth, type operatorAuthLimiter } from "./operatorAuth.js";
import { parseWith } from "./validate.js";

/** What the monitor may do to a room: dispose it ("disconnect"), or drop one client (by the label the monitor lists). */
export const MONITOR_ROOM_ACTIONS = ["disconnect", "_forceClientDisconnect"] as const;

const roomCallSchema = z
  .object({
    roomId: roomIdSchema.min(1),
    method: z.enum(MONITOR_ROOM_ACTIONS),
    args: z.array(text({ max: 256 })).max(1).default([]),
  })
  .strict();

export async function monitorRoutes(ctx: AppContext, limiter: ReturnType<typeof operatorAuthLimiter>): Promise<express.RequestHandler[]> {
  const { monitorUser, monitorPassword } = ctx.config;
  const { monitor } = await import("@colyseus/monitor");
  const actions = Router();
  actions.post("/api/room/call", async (req: Request, res: Response) => {
    const call = parseWith(roomCallSchema, req.body);
    ctx.logger.info({ room_id: call.roomId, method: call.method }, "monitor action");
    try {
      res.json((await matchMaker.remoteRoomCall(call.roomId, call.method, call.args)) ?? {});
    } catch {
      throw new AppError(404, "room_not_found", `Room ${call.roomId} is not available anymore`);
    }
  });
  actions.all("/api/room/call", (_req, res) => {
    res.setHeader("Allow", "POST");
    throw new AppError(405, "method_not_allowed", `Room actions take POST with {"roomId","method","args"}; method is one of ${MONITOR_ROOM_ACTIONS.join(", ")}`);
  });
  return [monitorAuth(limiter, monitorUser!, monitorPassword!), actions, monitor() as express.RequestHandler];
}
