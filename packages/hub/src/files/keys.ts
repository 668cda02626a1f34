import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { SIGNED_URL_TTL_SECONDS } from "@maity/domain";

// The file key: one 32-byte server secret (MAITY_FILE_KEY, or generated into the data
// folder on first start) from which two keys are derived — one encrypts file names at rest
// (AES-256-GCM, B-184), one signs download URLs (HMAC-SHA256, B-185). Deriving keeps a signature
// from ever being usable as a ciphertext key and the reverse.

/** The route a signed URL names; `exp` (Unix seconds) and `sig` ride in its query. */
export const SIGNED_CONTENT_PATH = "/api/files";

export interface FileKeys {
  encryptName(name: string): string;
  /** The name, or null when the ciphertext was not made with this key (never throws). */
  decryptName(cipher: string): string | null;
  /** `/api/files/<id>?exp=…&sig=…`: relative, the caller prefixes the base URL it answers on. */
  signedPath(attachmentId: string, now?: Date, ttlSeconds?: number): { path: string; expiresAt: Date };
  /** Whether `sig` signs this id until `exp`, and `exp` has not passed. Constant-time. */
  verify(attachmentId: string, exp: string, sig: string, now?: Date): boolean;
}

export function fileKeys(secret: Uint8Array): FileKeys {
  if (secret.byteLength !== 32) throw new Error("the file key is 32 bytes");
  const derive = (label: string) => createHmac("sha256", secret).update(label).digest();
  const nameKey = derive("maity file names v1");
  const urlKey = derive("maity signed urls v1");
  const signature = (id: string, exp: number) =>
    createHmac("sha256", urlKey).update(`${id}\n${exp}`).digest("base64url");
  return {
    encryptName(name) {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", nameKey, iv);
      const body = Buffer.concat([cipher.update(name, "utf8"), cipher.final()]);
      return Buffer.concat([iv, cipher.getAuthTag(), body]).toString("base64url");
    },
    decryptName(text) {
      try {
        const raw = Buffer.from(text, "base64url");
        const decipher = createDecipheriv("aes-256-gcm", nameKey, raw.subarray(0, 12));
        decipher.setAuthTag(raw.subarray(12, 28));
        return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString("utf8");
      } catch {
        return null;
      }
    },
    signedPath(attachmentId, now = new Date(), ttlSeconds = SIGNED_URL_TTL_SECONDS) {
      const exp = Math.floor(now.getTime() / 1000) + ttlSeconds;
      const path = `${SIGNED_CONTENT_PATH}/${attachmentId}?exp=${exp}&sig=${signature(attachmentId, exp)}`;
      return { path, expiresAt: new Date(exp * 1000) };
    },
    verify(attachmentId, exp, sig, now = new Date()) {
      if (!/^\d{1,12}$/.test(exp)) return false;
      const expires = Number(exp);
      if (expires * 1000 <= now.getTime()) return false;
      const expected = Buffer.from(signature(attachmentId, expires));
      const given = Buffer.from(sig);
      return given.length === expected.length && timingSafeEqual(given, expected);
    },
  };
}

/** A key for a hub built without one (tests): random, so nothing signed survives the process. */
export const ephemeralFileKeys = (): FileKeys => fileKeys(randomBytes(32));
