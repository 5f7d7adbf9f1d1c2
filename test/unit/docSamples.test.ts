// Code samples for client authors import what a client outside this checkout can import: packages
// (`@colyseus/sdk`, `snakes-game-backend/protocol`), never a path into the server's source. (That the
// samples importing the protocol package type-check against it: protocolPackage.pglite-only.test.ts.)
// Docs about the server's own code (room-kit.md: building a room; play-client.md's /play sources)
// may show in-repository paths.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";

const clientDocs = ["README.md", "docs/messages.md", "docs/pvp.md", "docs/boss-battle.md", "docs/slitherrush.md", "docs/netcode.md", "docs/play-client.md", "docs/clients.md"];

describe("client-facing samples import packages only", () => {
  it.each(clientDocs)("%s", (doc) => {
    const text = readFileSync(new URL(`../../${doc}`, import.meta.url), "utf8");
    for (const block of text.matchAll(/```(?:ts|js|mjs|typescript|javascript)\n([\s\S]*?)```/g)) {
      for (const [, from] of block[1].matchAll(/\bfrom\s+["']([^"']+)["']/g)) {
        const line = text.slice(0, block.index).split("\n").length;
        expect(from.startsWith(".") || from.startsWith("/") || from.includes("src/"), `${doc}:${line} imports "${from}", a path inside the server checkout`).toBe(false);
      }
    }
  });
});
