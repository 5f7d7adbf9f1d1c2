// A minimal room for testing the shared onAuth helper end to end.
import { Room, type AuthContext, type Client } from "@colyseus/core";
import { appContext } from "../../src/context.js";
import { resolveRoomIdentity, type Identity } from "../../src/auth/identity.js";

export class IdentityRoom extends Room<{ client: Client<{ auth: Identity }> }> {
  static async onAuth(_token: string | undefined, options: { name?: unknown }, context: AuthContext) {
    return resolveRoomIdentity(appContext(), context.headers.get("cookie"), options?.name);
  }
  messages = {
    whoami: (client: Client<{ auth: Identity }>) => client.auth,
  };
}
