// Stand-in for zod inside the browser bundle (scripts/build-play.mjs swaps it in). The protocol
// modules define the server's inbound zod schemas next to the message names; the client uses only
// the names and the types, never the schemas (the server validates), so the bundle leaves zod's
// ~440 KB out. Building a schema yields an inert chainable value; parsing with one throws.
const PARSERS = new Set(["parse", "safeParse", "parseAsync", "safeParseAsync", "spa"]);

const inert: any = new Proxy(function () {}, {
  get(_target, prop) {
    if (typeof prop === "symbol") return undefined;
    if (PARSERS.has(prop)) {
      return () => {
        throw new Error("zod is not bundled in the /play client: validate on the server");
      };
    }
    return inert;
  },
  apply: () => inert,
  construct: () => inert,
});

export const z = inert;
export default inert;
