// Requests Node's HTTP parser refuses before Express sees them (a URL or headers over its 16 KB
// limit, a malformed request line) get the service's JSON error body instead of Node's empty one.
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";

export function answerUnparsableRequest(err: Error & { code?: string }, socket: Duplex): void {
  if (err.code === "ECONNRESET" || !socket.writable) {
    socket.destroy();
    return;
  }
  const [status, code, message] =
    err.code === "HPE_HEADER_OVERFLOW"
      ? [431, "headers_too_large", "The request's URL or headers are too large"]
      : err.code === "ERR_HTTP_REQUEST_TIMEOUT"
        ? [408, "request_timeout", "The request was not received in time"]
        : [400, "bad_request", "Malformed HTTP request"];
  const body = JSON.stringify({ error: { code, message } });
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
