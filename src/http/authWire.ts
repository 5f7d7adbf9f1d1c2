// The wire shape of the account the /api/auth routes answer with: the routes build it, the OpenAPI
// document is generated from it (src/http/openapi/auth.ts) and the tests check answers against it.
import { z } from "zod";

export const publicAccount = z
  .object({
    id: z.number().int(),
    username: z.string(),
    created_at: z.iso.datetime(),
    role: z.enum(["student", "teacher", "admin"]).describe("What the account may do (docs/teachers.md#roles); a client shows teachers and admins their screens"),
    password_change_required: z
      .boolean()
      .describe(
        "True while the password is one a teacher, an admin or the operator issued (a roster import, a password reset, `admin create-account`); POST /api/auth/password with a password of the account's own makes it false. A client asks for a new password before anything else (docs/auth.md#one-time-passwords); the game routes still answer meanwhile",
      ),
  })
  .strict();
export type PublicAccount = z.infer<typeof publicAccount>;

export const accountResponse = z.object({ user: publicAccount }).strict();
export const passwordChangedResponse = z.object({ user: publicAccount, message: z.string() }).strict();
