// Issue 23, "HTTP": forwarded headers count only from the trusted proxies (TRUST_PROXY, default
// loopback, exactly as Express's "trust proxy" setting); from any other peer they are the client's
// own words. Issue 40: TRUST_PROXY names a proxy on another host.
import express from "express";
import { describe, expect, it } from "vitest";
import { addressKey, clientAddress, isTrustedProxy, parseTrustProxy, requestHost, TRUST_PROXY, TrustedProxies } from "../../src/net/proxy.js";
import { loadConfig } from "../../src/config.js";
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
    dropUntrustedForwarding(stranger as never, new TrustedProxies());
    expect(stranger.headers).toEqual({ host: "game.test" });
    const proxy = fakeRequest("127.0.0.1", { host: "game.test", "x-forwarded-host": "game.test", "x-forwarded-for": "1.2.3.4" });
    dropUntrustedForwarding(proxy as never, new TrustedProxies());
    expect(proxy.headers).toEqual({ host: "game.test", "x-forwarded-host": "game.test", "x-forwarded-for": "1.2.3.4" });
  });
});

describe("TRUST_PROXY: a proxy on another host (issue 40)", () => {
  const parsed = parseTrustProxy("10.0.0.5, 10.1.0.0/16");
  const nginx = new TrustedProxies("list" in parsed ? parsed.list : []);

  it("counts X-Forwarded-For from the listed addresses and CIDRs only, as Express computes req.ip", () => {
    const app = express();
    app.set("trust proxy", nginx.trusts);
    const expressTrusts = app.get("trust proxy fn") as (a: string, i: number) => boolean;
    for (const a of ["10.0.0.5", "10.1.2.3", "10.0.0.6", "127.0.0.1", "::ffff:10.0.0.5", "192.0.2.1"]) expect(nginx.isTrusted(a), a).toBe(expressTrusts(a, 0));
    expect(nginx.clientAddress(fakeRequest("10.0.0.5", { "x-forwarded-for": "198.51.100.20" }) as never)).toBe("198.51.100.20");
    expect(nginx.clientAddress(fakeRequest("::ffff:10.0.0.5", { "x-forwarded-for": "198.51.100.20" }) as never)).toBe("198.51.100.20");
    // Through two listed proxies: the nearest hop that is not one of them; a forged first entry does not count.
    expect(nginx.clientAddress(fakeRequest("10.0.0.5", { "x-forwarded-for": "6.6.6.6, 198.51.100.21, 10.1.9.9" }) as never)).toBe("198.51.100.21");
    // Loopback is no longer trusted once TRUST_PROXY names the proxy; neither is any other peer.
    expect(nginx.clientAddress(fakeRequest("127.0.0.1", { "x-forwarded-for": "198.51.100.22" }) as never)).toBe("127.0.0.1");
    expect(nginx.clientAddress(fakeRequest("192.0.2.9", { "x-forwarded-for": "198.51.100.22" }) as never)).toBe("192.0.2.9");
    expect(nginx.requestHost(fakeRequest("10.0.0.5", { host: "10.0.0.7:8500", "x-forwarded-host": "game.test" }) as never)).toBe("game.test");
    expect(nginx.requestHost(fakeRequest("192.0.2.9", { host: "game.test", "x-forwarded-host": "evil.test" }) as never)).toBe("game.test");
  });

  it("the edge keeps the listed proxy's forwarding headers and drops everyone else's", () => {
    const fromNginx = fakeRequest("10.0.0.5", { host: "game.test", "x-forwarded-for": "1.2.3.4" });
    dropUntrustedForwarding(fromNginx as never, nginx);
    expect(fromNginx.headers).toEqual({ host: "game.test", "x-forwarded-for": "1.2.3.4" });
    const fromLoopback = fakeRequest("127.0.0.1", { host: "game.test", "x-forwarded-for": "1.2.3.4" });
    dropUntrustedForwarding(fromLoopback as never, nginx);
    expect(fromLoopback.headers).toEqual({ host: "game.test" });
  });

  it("is validated at start-up: addresses, CIDRs and Express's names; never 'trust everyone'", () => {
    const dir = `/tmp/trust-proxy-test-${process.pid}`;
    expect(loadConfig({ DATA_DIR: dir }).trustProxy).toEqual(["loopback"]);
    expect(loadConfig({ DATA_DIR: dir, TRUST_PROXY: "10.0.0.5, 10.1.0.0/16,loopback, fd00::/8" }).trustProxy).toEqual(["10.0.0.5", "10.1.0.0/16", "loopback", "fd00::/8"]);
    for (const bad of ["true", "*", "2", "10.0.0.300", "nginx.internal", "10.0.0.0/33"]) {
      expect(() => loadConfig({ DATA_DIR: dir, TRUST_PROXY: bad }), bad).toThrow(/TRUST_PROXY: /);
    }
  });

  it("per-address limits count an IPv6 client by its /64 and an IPv4-mapped one as IPv4", () => {
    expect(addressKey("2001:db8:1:2:aaaa::1")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8:1:2:bbbb:cccc:dddd:eeee")).toBe("2001:db8:1:2::/64");
    expect(addressKey("2001:db8::1")).toBe("2001:db8:0:0::/64");
    expect(addressKey("::1")).toBe("0:0:0:0::/64");
    expect(addressKey("::ffff:198.51.100.7")).toBe("198.51.100.7");
    expect(addressKey("198.51.100.7")).toBe("198.51.100.7");
  });
});

describe("the cross-site write guard", () => {
  const guard = crossSiteWriteGuard(new OriginPolicy(["https://app.test"]), new TrustedProxies());
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
