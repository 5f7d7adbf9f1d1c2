// GET /metrics: the Prometheus registry (src/ops/metrics.ts) in the text exposition format. Scrapers
// authenticate with the monitor's basic-auth credentials (MONITOR_USER / MONITOR_PASSWORD) or with
// `Authorization: Bearer METRICS_TOKEN`; with neither configured the route is not mounted. Wrong
// credentials count against the operator sign-in limit per address (./operatorAuth.ts).
import { createHash, timingSafeEqual } from "node:crypto";
import { Router, type Request, type Response } from "express";
import type { Config } from "../config.js";
import { AppError } from "../errors.js";
import { registry } from "../ops/metrics.js";
import { basicMatcher, countFailure, refuseWhileLimited } from "./operatorAuth.js";
import type { FixedWindowLimiter } from "./rateLimit.js";

const digest = (text: string) => createHash("sha256").update(text).digest();
const same = (a: string, b: Buffer) => timingSafeEqual(digest(a), b);

export function metricsConfigured(config: Pick<Config, "metricsToken" | "monitorUser" | "monitorPassword">): boolean {
  return Boolean(config.metricsToken || (config.monitorUser && config.monitorPassword));
}

export function metricsRoutes(config: Pick<Config, "metricsToken" | "monitorUser" | "monitorPassword">, failures: FixedWindowLimiter): Router {
  const router = Router();
  const token = config.metricsToken ? digest(config.metricsToken) : undefined;
  const basic = config.monitorUser && config.monitorPassword ? basicMatcher(config.monitorUser, config.monitorPassword) : undefined;

  const authorized = (req: Request): boolean => {
    const [scheme, value] = (req.get("authorization") ?? "").split(" ", 2);
    if (token && /^bearer$/i.test(scheme) && value) return same(value, token);
    if (basic && /^basic$/i.test(scheme) && value) return basic(req.get("authorization"));
    return false;
  };

  router.get("/metrics", async (req: Request, res: Response) => {
    // The monitor's password opens this too: the same failure limit, shared with /monitor.
    await refuseWhileLimited(failures, req, res);
    if (!authorized(req)) {
      await countFailure(failures, req, res);
      if (basic) res.setHeader("WWW-Authenticate", 'Basic realm="metrics"');
      throw new AppError(401, "unauthenticated", "Metrics need the monitor credentials or METRICS_TOKEN");
    }
    res.setHeader("Content-Type", registry.contentType);
    res.send(await registry.metrics());
  });
  return router;
}
