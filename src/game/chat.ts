// Chat text as the server relays it: no control or direction-override characters, no angle brackets
// (so clients that render HTML stay safe), collapsed whitespace, bounded length.

export const CHAT_MAX_LENGTH = 280;

export function sanitizeChatText(raw: string, maxLength = CHAT_MAX_LENGTH): string {
  return raw
    .normalize("NFKC")
    .replace(/\s+/g, " ")
    .replace(/[\p{Cc}<>]|(?!\u200d)\p{Cf}/gu, "")
    .replace(/ {2,}/g, " ")
    .trim()
    .slice(0, maxLength)
    .trim();
}
