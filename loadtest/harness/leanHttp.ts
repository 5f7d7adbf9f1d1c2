// A lean HTTP/1.1 keep-alive connection for closed-loop load: one request in flight, the request
// bytes written at once, the response parsed in place (Content-Length or chunked). fetch() costs
// the client several times what the request costs this server, so with it the client would be the
// limit.
import { connect, type Socket } from "node:net";

export interface HttpReply {
  status: number;
  bytes: number;
  body: Buffer;
}

export class LeanHttpConnection {
  private readonly socket: Socket;
  private buffer: Buffer | null = null;
  private waiting: { resolve: (r: HttpReply) => void; reject: (e: Error) => void } | null = null;
  private readonly ready: Promise<void>;

  constructor(private readonly base: URL) {
    this.socket = connect({ host: base.hostname, port: Number(base.port || 80) });
    this.socket.setNoDelay(true);
    this.ready = new Promise((resolve, reject) => {
      this.socket.once("connect", resolve);
      this.socket.once("error", reject);
    });
    this.socket.on("data", (chunk: Buffer) => this.onData(chunk));
    this.socket.on("error", (err) => this.waiting?.reject(err));
    this.socket.on("close", () => this.waiting?.reject(new Error("connection closed")));
  }

  /** Builds the bytes of one request (once; a scenario may reuse them for every request). */
  static request(method: string, base: URL, path: string, headers: Record<string, string> = {}, body?: unknown): Buffer {
    const payload = body === undefined ? null : Buffer.from(JSON.stringify(body));
    const lines = [`${method} ${path} HTTP/1.1`, `Host: ${base.host}`, "Connection: keep-alive"];
    for (const [k, v] of Object.entries(headers)) lines.push(`${k}: ${v}`);
    if (payload) lines.push("Content-Type: application/json", `Content-Length: ${payload.length}`);
    const head = Buffer.from(lines.join("\r\n") + "\r\n\r\n", "latin1");
    return payload ? Buffer.concat([head, payload]) : head;
  }

  async send(request: Buffer): Promise<HttpReply> {
    await this.ready;
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.socket.write(request);
    });
  }

  close(): void {
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    const buf = this.buffer ? Buffer.concat([this.buffer, chunk]) : chunk;
    this.buffer = buf;
    const headEnd = buf.indexOf("\r\n\r\n");
    if (headEnd < 0) return;
    const head = buf.toString("latin1", 0, headEnd);
    const status = Number(head.slice(9, 12));
    const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
    let body: Buffer;
    let total: number;
    if (length) {
      total = headEnd + 4 + Number(length[1]);
      if (buf.length < total) return;
      body = buf.subarray(headEnd + 4, total);
    } else if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
      const parts: Buffer[] = [];
      let o = headEnd + 4;
      for (;;) {
        const lineEnd = buf.indexOf("\r\n", o);
        if (lineEnd < 0) return;
        const size = parseInt(buf.toString("latin1", o, lineEnd), 16);
        if (buf.length < lineEnd + 2 + size + 2) return;
        parts.push(buf.subarray(lineEnd + 2, lineEnd + 2 + size));
        o = lineEnd + 2 + size + 2;
        if (size === 0) break;
      }
      total = o;
      body = Buffer.concat(parts);
    } else {
      total = headEnd + 4;
      body = Buffer.alloc(0);
    }
    this.buffer = buf.length > total ? buf.subarray(total) : null;
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.resolve({ status, bytes: total, body });
  }
}
