import { createHash, randomBytes, scrypt, timingSafeEqual } from "node:crypto";
import { promisify } from "node:util";
import { TOKEN_PREFIX, type TokenKind } from "@maity/domain";

const scryptAsync = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: { N: number; r: number; p: number; maxmem: number },
) => Promise<Buffer>;
const SCRYPT = { N: 16384, r: 8, p: 1, keylen: 32 };

/** scrypt from node:crypto; stored as scrypt$N$r$p$salt$hash (base64url). */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, SCRYPT.keylen, {
    N: SCRYPT.N,
    r: SCRYPT.r,
    p: SCRYPT.p,
    maxmem: 64 * 1024 * 1024,
  });
  return ["scrypt", SCRYPT.N, SCRYPT.r, SCRYPT.p, salt.toString("base64url"), hash.toString("base64url")].join("$");
}

export async function verifyPassword(password: string, stored: string | null): Promise<boolean> {
  // Without a stored hash, still spend the same work so timing does not tell whether the account exists.
  const parts = (stored ?? "").split("$");
  const valid = parts.length === 6 && parts[0] === "scrypt";
  const [N, r, p] = valid ? parts.slice(1, 4).map(Number) : [SCRYPT.N, SCRYPT.r, SCRYPT.p];
  const salt = valid ? Buffer.from(parts[4] ?? "", "base64url") : randomBytes(16);
  const expected = valid ? Buffer.from(parts[5] ?? "", "base64url") : randomBytes(SCRYPT.keylen);
  const actual = await scryptAsync(password, salt, expected.length, {
    N: N ?? SCRYPT.N,
    r: r ?? SCRYPT.r,
    p: p ?? SCRYPT.p,
    maxmem: 64 * 1024 * 1024,
  });
  return valid && actual.length === expected.length && timingSafeEqual(actual, expected);
}

export const sha256 = (value: string): string => createHash("sha256").update(value).digest("hex");

/** A fresh secret: shown once, stored only as its SHA-256. */
export function mintSecret(kind: TokenKind | "session"): { secret: string; hash: string } {
  const body = randomBytes(32).toString("base64url");
  const secret = kind === "session" ? body : `${TOKEN_PREFIX[kind]}${body}`;
  return { secret, hash: sha256(secret) };
}
