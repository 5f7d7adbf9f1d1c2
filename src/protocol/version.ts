// Which Colyseus client SDKs speak this server's protocol (docs/clients.md), and the check of the
// version a client may declare when it joins. Colyseus 0.18 changed the join handshake and the
// state frames: an SDK of another minor version cannot decode them. Nothing in the 0.18 handshake
// says which SDK a client runs, so a client declares it with the `sdk_version` join option (any SDK
// passes join options through); the server refuses another minor version before seating it, with a
// message naming the SDKs that work. GET /api/version says the same for a client that asks first.
import { z } from "zod";

/** The Colyseus protocol this server speaks: SDKs of this minor version (any patch) work. */
export const COLYSEUS_PROTOCOL = "0.18";
/** The join option (and its limits) by which a client declares its SDK's version. */
export const SDK_VERSION_OPTION = "sdk_version";

export interface SdkSupport {
  engine: string;
  sdk: string;
  /** The versions that speak this server's protocol, "none" when there is no such SDK yet. */
  versions: string;
  note?: string;
}

/** Per engine, the SDK that speaks protocol 0.18 (details and caveats: docs/clients.md). */
export const SUPPORTED_SDKS: readonly SdkSupport[] = [
  { engine: "Web / JavaScript / TypeScript", sdk: "npm @colyseus/sdk", versions: "0.18.x" },
  { engine: "Unity / C#", sdk: "NuGet Colyseus", versions: "0.18.x" },
  { engine: "C / C++ (native)", sdk: "the Colyseus native C SDK", versions: "0.18.x" },
  { engine: "Flutter / Dart", sdk: "the Colyseus Flutter SDK", versions: "0.18.x" },
  { engine: "Cocos Creator", sdk: "the Colyseus Cocos SDK", versions: "0.18.x" },
  { engine: "Defold / Lua", sdk: "the Colyseus Defold SDK", versions: "none", note: "0.18 support is an open pull request; 0.17 and older cannot decode this server's frames" },
  { engine: "Haxe", sdk: "the Colyseus Haxe SDK", versions: "none", note: "no SDK speaks 0.18 yet" },
];

export const sdkVersionSchema = z
  .string()
  .max(64)
  .regex(/^\d+\.\d+(\.\d+)?([-+][0-9A-Za-z.+-]*)?$/, "a version such as 0.18.4");

/** The SDKs that work, in one sentence (what a refusal says). */
export function workingSdks(): string {
  return SUPPORTED_SDKS.filter((s) => s.versions !== "none")
    .map((s) => `${s.engine}: ${s.sdk} ${s.versions}`)
    .join("; ");
}

/** Why a client declaring SDK `version` cannot play here, or undefined when it can. */
export function sdkVersionRefusal(version: string): string | undefined {
  const [major, minor] = version.split(/[.+-]/);
  if (`${Number(major)}.${Number(minor)}` === COLYSEUS_PROTOCOL) return undefined;
  const side = Number(major) * 1000 + Number(minor) < 18 ? "older than" : "newer than";
  return `SDK ${version} is ${side} this server's Colyseus protocol ${COLYSEUS_PROTOCOL}: use an SDK of version ${COLYSEUS_PROTOCOL}.x (${workingSdks()}). See GET /api/version and docs/clients.md.`;
}

/** GET /api/version: what this server runs and which clients it takes. */
export const versionResponseSchema = z.object({
  server: z.string().describe("This server's version (package.json)"),
  protocol: z.object({
    colyseus: z.string().describe("The Colyseus protocol: SDKs of this minor version work"),
    schema: z.string().describe("@colyseus/schema major.minor of the state encoding"),
    slitherrush_snapshot: z.number().int().describe("The slitherrush_state snapshot layout's version byte"),
  }),
  packages: z.record(z.string(), z.string()).describe("The installed server packages that fix the wire format"),
  sdk_version_option: z.literal(SDK_VERSION_OPTION).describe("The join option by which a client declares its SDK version"),
  sdks: z.array(
    z.object({ engine: z.string(), sdk: z.string(), versions: z.string(), note: z.string().optional() }),
  ),
});
export type VersionResponse = z.infer<typeof versionResponseSchema>;
