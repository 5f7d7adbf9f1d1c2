// "A session of this subject ended": every process caches who may hold a session for a few
// seconds (src/auth/sessions.ts), so the process that ends sessions tells the others to forget
// what they cached. Scaled out this goes through Redis pub/sub; a single process needs no message.
import type { Redis } from "ioredis";
import type { Logger } from "../ops/logger.js";
import { isRedisUnreachable, type RedisLink } from "./redisLink.js";

export interface SessionEvents {
  /** Tells every other process that the subject's sessions changed. */
  publish(subjectKey: string): void;
  /** Calls `handler` for changes published by any process. */
  onChange(handler: (subjectKey: string) => void): void;
  close(): Promise<void>;
}

/** One process: nobody else caches sessions. */
export class LocalSessionEvents implements SessionEvents {
  publish(): void {}
  onChange(): void {}
  async close(): Promise<void> {}
}

const CHANNEL = "sessions:changed";

export class RedisSessionEvents implements SessionEvents {
  private readonly subscriber: Redis;
  private readonly handlers: Array<(subjectKey: string) => void> = [];

  constructor(
    private readonly redis: Redis,
    private readonly link: RedisLink,
    private readonly logger: Logger,
  ) {
    // A subscribed connection can do nothing else: its own connection. Its subscription is made on
    // every (re)connection: ioredis restores only the subscriptions it saw succeed, and a
    // subscribed connection refuses the ready check (INFO), hence no ready check.
    this.subscriber = link.watch("session-events", redis.duplicate({ enableReadyCheck: false }));
    this.subscriber.on("message", (_channel: string, key: string) => this.handlers.forEach((h) => h(key)));
    this.subscriber.on("ready", () => {
      this.subscriber.subscribe(CHANNEL).catch((err) => this.link.failed(err));
    });
  }

  /** Settles once the subscription is in place. */
  async ready(): Promise<void> {
    await this.subscriber.subscribe(CHANNEL);
  }

  publish(subjectKey: string): void {
    this.redis.publish(CHANNEL, subjectKey).catch((err) => {
      // Redis away: its failure is already reported once per interval; the other processes' caches
      // forget this session within their few seconds anyway (src/auth/sessions.ts).
      if (isRedisUnreachable(err)) this.link.failed(err);
      else this.logger.warn({ err }, "session events: could not publish");
    });
  }

  onChange(handler: (subjectKey: string) => void): void {
    this.handlers.push(handler);
  }

  async close(): Promise<void> {
    await this.subscriber.quit().catch(() => this.subscriber.disconnect());
  }
}
