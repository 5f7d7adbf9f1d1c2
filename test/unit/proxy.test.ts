// Issue 23, "HTTP": forwarded headers count only from the trusted proxy (loopback, as Express's
// "trust proxy" setting); from any other peer they are the client's own words.
import express from "express";
import { describe, expect, it } from "vitest";
import { clientAddress, isTrustedProxy, requestHost, TRUST_PROXY } from "../../src/http/proxy.js";
import { dropUntrustedForwarding } from "../../src/http/edge.js";
import { crossSiteWriteGuard, OriginPolicy } from "../../src/http/cors.js";

const fakeRequest = (remoteAddress: string, headers: Record<string, string>, method = "PUT") => ({
  method,
  headers: { ...headers },
  socket: { remoteAddress },
  get(name: string) {
    return (this.headers as Record<string, string>)[name.toLowerCase()];
  },
});

describe("the trusted proxy", () => {
  it("is exactly what Express trusts", () => {
    const app = express();
    app.set("trust proxy", TRUST_PROXY);
    const trusts = app.get("trust proxy fn") as (address: string, hop: number) => boolean;
    for (const address of ["127.0.0.1", "127.9.9.9", "::1", "::ffff:127.0.0.1", "10.0.0.1", "192.0.2.2", "::ffff:10.0.0.1", "fd00::2", "1.127.0.0"]) {
      expect(isTrustedProxy(address), address).toBe(trusts(address, 0));
    }
  });

  it("names the client: the peer, or the nearest forwarded hop behind the trusted proxy", () => {
    expect(clientAddress(fakeRequest("203.0.113.9", { "x-forwarded-for": "10.1.1.1" }) as never)).toBe("203.0.113.9");
    expect(clientAddress(fakeRequest("127.0.0.1", { "x-forwarded-for": "6.6.6.6, 10.1.1.1" }) as never)).toBe("10.1.1.1");
    expect(clientAddress(fakeRequest("127.0.0.1", {}) as never)).toBe("127.0.0.1");
  });

  it("takes the forwarded host only from the trusted proxy", () => {
    expect(requestHost(fakeRequest("203.0.113.9", { host: "game.test", "x-forwarded-host": "evil.test" }) as never)).toBe("game.test");
    expect(requestHost(fakeRequest("127.0.0.1", { host: "127.0.0.1:8500", "x-forwarded-host": "game.test" }) as never)).toBe("game.test");
  });

  it("the edge drops forwarding headers a non-proxy peer sent, and keeps the proxy's", () => {
    const stranger = fakeRequest("203.0.113.9", { host: "game.test", "x-forwarded-host": "evil.test", "x-forwarded-for": "1.2.3.4", "x-real-ip": "1.2.3.4", forwarded: "for=1.2.3.4" });
    dropUntrustedForwarding(stranger as never);
    expect(stranger.headers).toEqual({ host: "game.test" });
    const proxy = fakeRequest("127.0.0.1", { host: "game.test", "x-forwarded-host": "game.test", "x-forwarded-for": "1.2.3.4" });
    dropUntrustedForwarding(proxy as never);
    expect(proxy.headers).toEqual({ host: "game.test", "x-forwarded-host": "game.test", "x-forwarded-for": "1.2.3.4" });
  });
});

describe("the cross-site write guard", () => {
  const guard = crossSiteWriteGuard(new OriginPolicy(["https://app.test"]));
  const verdict = (req: ReturnType<typeof fakeRequest>) =>
    new Promise<number | undefined>((resolve) => guard(req as never, {} as never, (err?: unknown) => resolve((err as { status?: number } | undefined)?.status)));

  it("does not let a non-proxy peer pass an evil origin off as the server's own with X-Forwarded-Host", async () => {
    expect(await verdict(fakeRequest("203.0.113.9", { host: "game.test", origin: "http://evil.test" }))).toBe(403);
    expect(await verdict(fakeRequest("203.0.113.9", { host: "game.test", origin: "http://evil.test", "x-forwarded-host": "evil.test" }))).toBe(403);
  });

  it("still admits the server's own origin as the trusted proxy forwards it, and listed origins", async () => {
    expect(await verdict(fakeRequest("127.0.0.1", { host: "127.0.0.1:8500", origin: "https://game.test", "x-forwarded-host": "game.test" }))).toBeUndefined();
    expect(await verdict(fakeRequest("203.0.113.9", { host: "game.test", origin: "http://game.test" }))).toBeUndefined();
    expect(await verdict(fakeRequest("203.0.113.9", { host: "game.test", origin: "https://app.test" }))).toBeUndefined();
  });
});
