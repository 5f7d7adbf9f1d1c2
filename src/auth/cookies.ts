// The session cookies, read and written with the `cookie` package: one place for the parsing of a
// Cookie header (HTTP requests and the WebSocket upgrade of a room join) and for the attributes of
// the Set-Cookie that carries a session (HttpOnly, SameSite=Lax, Path=/, Secure when configured).
import type { Response } from "express";
import { parseCookie, stringifySetCookie } from "cookie";

/** The named cookie of a Cookie header (the first one when repeated), percent-decoded. */
export function readCookie(header: string | null | undefined, name: string): string | undefined {
  return header ? parseCookie(header)[name] : undefined;
}

/** Sets a session cookie that lives as long as its token. */
export function setSessionCookie(res: Response, name: string, token: string, secure: boolean, maxAgeSeconds: number): void {
  res.append("Set-Cookie", stringifySetCookie({ name, value: token, maxAge: maxAgeSeconds, expires: new Date(Date.now() + maxAgeSeconds * 1000), ...sessionAttributes(secure) }));
}

/** Tells the browser to drop a session cookie (same attributes, expired). */
export function clearSessionCookie(res: Response, name: string, secure: boolean): void {
  res.append("Set-Cookie", stringifySetCookie({ name, value: "", expires: new Date(0), ...sessionAttributes(secure) }));
}

const sessionAttributes = (secure: boolean) => ({ httpOnly: true, sameSite: "lax", secure, path: "/" }) as const;
