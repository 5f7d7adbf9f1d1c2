// OpenAPI: GET /api/version (src/http/versionRoutes.ts), from the zod schema clients share.
import { z } from "zod";
import { versionResponseSchema } from "../../protocol/version.js";
import { jsonResponse, type PathsObject } from "./common.js";

const { $schema: _ignored, ...versionSchema } = z.toJSONSchema(versionResponseSchema, { target: "draft-2020-12", io: "output" }) as Record<string, unknown>;

export const versionPaths: PathsObject = {
  "/api/version": {
    get: {
      tags: ["status"],
      operationId: "getVersion",
      summary: "This server's version, the Colyseus protocol it speaks and the client SDKs that speak it (no authentication)",
      description: "A client of another Colyseus minor version cannot decode this server's frames: see docs/clients.md. Join with the option sdk_version to be refused with a readable reason instead.",
      security: [],
      responses: { 200: jsonResponse("The versions", versionSchema) },
    },
  },
};
