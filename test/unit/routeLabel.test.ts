import type { Request } from "express";
import { describe, expect, it } from "vitest";
import { routeLabel } from "../../src/http/requestLog.js";

const req = (route?: string) => ({ route: route === undefined ? undefined : { path: route } }) as unknown as Request;

describe("route labels of the HTTP metrics", () => {
  it("are mount + route pattern, never the raw path", () => {
    expect(routeLabel(req("/room/:room_id"), "/api/boss/room/Xy12", 200)).toBe("/api/boss/room/:room_id");
    expect(routeLabel(req("/"), "/api/snakes/", 200)).toBe("/api/snakes/");
    expect(routeLabel(req("/health"), "/health", 200)).toBe("/health");
    expect(routeLabel(req("/:operation"), "/api/public/get_users", 401)).toBe("/api/public/:operation");
  });

  it("name the router when its middleware answered before a route, and fold unknown paths into one", () => {
    expect(routeLabel(req(), "/api/boss/join", 401)).toBe("/api/boss/*");
    expect(routeLabel(req(), "/play/app.js", 200)).toBe("/play/*");
    expect(routeLabel(req(), "/wp-admin/setup.php", 404)).toBe("unmatched");
    expect(routeLabel(req(), "/api/snakes/nothing", 404)).toBe("unmatched");
  });
});
