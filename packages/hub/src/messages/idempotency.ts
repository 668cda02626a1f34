import { createHash } from "node:crypto";
import { HubError } from "@maity/domain";

/** The key and the hash of the request it names (the same key with another request is refused). */
export function idempotencyOf(key: string | null | undefined, request: unknown): Idempotency | null {
  if (key === null || key === undefined) return null;
  if (key.length < 1 || key.length > 200) throw HubError.invalid({ idempotency_key: "1–200 characters" });
  return { key, hash: createHash("sha256").update(JSON.stringify(request)).digest("hex") };
}

/** Idempotency keys live this long: a repeat within it answers the first message. */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;

/** The caller's key and the hash of what it asked, for a send that may be retried. */
export interface Idempotency {
  key: string;
  hash: string;
}
