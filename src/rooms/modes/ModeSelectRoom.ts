// The mode selection page's live feed ("mode_select"): no account needed, many viewers (a signed-in
// one is shown online here to its teachers). It pushes
// pvp_status, slitherrush_status and boss_status (each with viewerCount) once on join, and then to
// everyone whenever a number changed, at most twice a second.
import type { AuthContext, Client } from "@colyseus/core";
import { resolveRoomIdentity, type Identity } from "../../auth/identity.js";
import { appContext } from "../../context.js";
import { modeSelectInbound, type Mode, type ModeSelectOutbound, type ModeStatusPayload } from "../../protocol/modes.js";
import { liveStatus, type LiveStatus } from "../../shared/modeStatus.js";
import { MessageGuard } from "../kit/guard.js";
import { KitRoom } from "../kit/room.js";
import { moveAlong } from "../kit/drain.js";
import { isDependencyUnavailable } from "../../dependencies.js";

/** A viewer's identity is kept only to say it is online on the mode page (src/shared/online.ts). */
type ViewerAuth = { identity?: Identity };
type ViewerClient = Client<{ messages: ModeSelectOutbound; auth: ViewerAuth }>;

/** Viewers per mode_select room; matchmaking opens another when one is full. */
export const MODE_SELECT_MAX_CLIENTS = 500;
/** The status is read (one listing query) and pushed on change at most this often. */
export const STATUS_PUSH_INTERVAL_MS = 500;

const MESSAGE_OF: Record<Mode, "boss_status" | "pvp_status" | "slitherrush_status"> = {
  boss: "boss_status",
  pvp: "pvp_status",
  slitherrush: "slitherrush_status",
};

export class ModeSelectRoom extends KitRoom<{ client: ViewerClient }> {
  maxClients = MODE_SELECT_MAX_CLIENTS;
  private guard!: MessageGuard<ViewerClient, typeof modeSelectInbound>;
  /** What each viewer last got, per mode (JSON), so unchanged numbers are not sent again. */
  private lastPushed = new Map<Mode, string>();
  private latest?: LiveStatus;

  /** Anyone may watch; a signed-in viewer is shown online on the mode page to its teachers. */
  static async onAuth(_token: string | undefined, _options: unknown, context: AuthContext): Promise<ViewerAuth> {
    try {
      return { identity: await resolveRoomIdentity(appContext(), context.headers?.get("cookie")) };
    } catch {
      return {}; // the database is away: the viewer watches anyway, nobody's online state is told
    }
  }

  onCreate() {
    const guard = (this.guard = new MessageGuard<ViewerClient, typeof modeSelectInbound>(this, modeSelectInbound, { log: this.log }));
    guard.on("pvp_get_status", (client) => void this.sendOne(client, "pvp"));
    guard.on("slitherrush_get_status", (client) => void this.sendOne(client, "slitherrush"));
    guard.on("boss_get_status", (client) => void this.sendOne(client, "boss"));
    guard.rejectUnknown();
    this.clock.setInterval(() => void this.pushChanges(), STATUS_PUSH_INTERVAL_MS);
  }

  async onJoin(client: ViewerClient) {
    const status = await this.refresh();
    for (const mode of Object.keys(MESSAGE_OF) as Mode[]) client.send(MESSAGE_OF[mode], payload(status, mode));
  }

  onLeave(client: ViewerClient) {
    this.guard.forget(client);
  }

  /** A stopping process: viewers are told to matchmake again, on another process (kit/drain.ts). */
  onBeforeShutdown() {
    void moveAlong(this);
  }

  private async refresh(): Promise<LiveStatus> {
    this.latest = await liveStatus();
    return this.latest;
  }

  private async sendOne(client: ViewerClient, mode: Mode): Promise<void> {
    client.send(MESSAGE_OF[mode], payload(this.latest ?? (await this.refresh()), mode));
  }

  private async pushChanges(): Promise<void> {
    if (this.clients.length === 0) return;
    let status: LiveStatus;
    try {
      status = await this.refresh();
    } catch (err) {
      // Redis away: already logged once per interval (src/dependencies.ts); the viewers keep the last numbers.
      if (!isDependencyUnavailable(err)) this.log.warn({ err }, "could not read the room listings for the mode status");
      return;
    }
    for (const mode of Object.keys(MESSAGE_OF) as Mode[]) {
      const body = payload(status, mode);
      const key = JSON.stringify(body);
      if (this.lastPushed.get(mode) === key) continue;
      this.lastPushed.set(mode, key);
      this.broadcast(MESSAGE_OF[mode], body);
    }
  }
}

function payload(status: LiveStatus, mode: Mode): ModeStatusPayload {
  return { ...status.modes[mode], viewerCount: status.viewers };
}
