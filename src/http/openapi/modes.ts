// OpenAPI: GET /api/modes/status.
import { jsonResponse, type PathsObject } from "./common.js";

const modeStatus = {
  type: "object",
  required: ["totalPlayers", "activeRooms", "openSlots"],
  properties: {
    totalPlayers: { type: "integer", description: "Players connected to the mode's rooms, on every process, whatever phase a room is in (finished rooms count until their players leave)" },
    activeRooms: { type: "integer", description: "Rooms of the mode with at least one client" },
    openSlots: { type: "integer", description: "Free seats in existing, unlocked, public rooms (0 when every room is full)" },
  },
};

export const modesPaths: PathsObject = {
  "/api/modes/status": {
    get: {
      tags: ["modes"],
      operationId: "getModesStatus",
      summary: "Live players, active rooms and open seats of every real-time mode (no authentication)",
      security: [],
      responses: {
        200: jsonResponse("Counted from the matchmaker's room listings (every process when scaled out)", {
          type: "object",
          required: ["boss", "pvp", "slitherrush"],
          properties: { boss: modeStatus, pvp: modeStatus, slitherrush: modeStatus },
        }),
      },
    },
  },
};
