// The OpenAPI 3.1 document of the game server's REST API, served at GET /api/openapi.json.
import { errorBody, type PathsObject } from "./common.js";
import { authPaths, workspaceSessionPaths } from "./auth.js";
import { bossPaths, bossSchemas } from "./boss.js";
import { modesPaths } from "./modes.js";
import { progressPaths } from "./progress.js";
import { pvpPaths, pvpSchemas } from "./pvp.js";
import { slitherrushPaths } from "./slitherrush.js";
import { workspaceOpenApiPaths } from "./workspace.js";
import { classesPaths } from "./classes.js";

const sections: PathsObject[] = [authPaths, progressPaths, bossPaths, pvpPaths, slitherrushPaths, modesPaths, classesPaths, workspaceOpenApiPaths as PathsObject, workspaceSessionPaths];
const schemas: Record<string, unknown>[] = [{ Error: errorBody }, bossSchemas, pvpSchemas];

export function openApiDocument(): Record<string, unknown> {
  return {
    openapi: "3.1.0",
    info: {
      title: "Snakes game backend",
      version: "0.1.0",
      description: "Board game progress, boss battle, PvP statistics, accounts and the workspace platform API. Real-time messages are documented in docs/messages.md.",
    },
    servers: [{ url: "/" }],
    security: [{ sessionCookie: [] }],
    components: {
      securitySchemes: {
        sessionCookie: { type: "apiKey", in: "cookie", name: "jwt", description: "JWT (HS256, claims _uid, sid, sep); the name follows JWT_COOKIE_NAME" },
        workspaceSessionCookie: { type: "apiKey", in: "cookie", name: "jwt_workspace", description: "A workspace user's session (JWT, audience workspace); the name is JWT_COOKIE_NAME + \"_workspace\"" },
      },
      schemas: Object.assign({}, ...schemas),
    },
    paths: Object.assign({}, ...sections),
  };
}
