import { describe, expect, it } from "vitest";
import { ephemeralFileKeys, fileKeys } from "../src/files/keys.ts";
import { memoryBlobStore } from "../src/files/store.ts";

// The file key — names encrypted at rest (B-184), download URLs signed and expiring (B-185).

describe("B-184 file names are encrypted at rest", () => {
  const keys = ephemeralFileKeys();
  it("round-trips, never shows the name, and differs each time (a fresh IV)", () => {
    const a = keys.encryptName("Q3 forecast (final).xlsx");
    const b = keys.encryptName("Q3 forecast (final).xlsx");
    expect(a).not.toBe(b);
    expect(a).not.toContain("forecast");
    expect(keys.decryptName(a)).toBe("Q3 forecast (final).xlsx");
  });
  it("another key, or a changed ciphertext, reads nothing (no throw)", () => {
    const cipher = keys.encryptName("plan.pdf");
    expect(ephemeralFileKeys().decryptName(cipher)).toBeNull();
    const flipped = `${cipher.slice(0, -2)}${cipher.at(-2) === "A" ? "B" : "A"}${cipher.at(-1)}`;
    expect(keys.decryptName(flipped)).toBeNull();
    expect(keys.decryptName("")).toBeNull();
  });
});

describe("B-185 a signed URL works until it expires, and only as issued", () => {
  const keys = fileKeys(new Uint8Array(32).fill(7));
  const now = new Date("2026-12-05T10:00:00Z");
  const { path, expiresAt } = keys.signedPath("att-0123456789ab", now);
  const url = new URL(path, "http://127.0.0.1");
  const exp = url.searchParams.get("exp") ?? "";
  const sig = url.searchParams.get("sig") ?? "";
  it("names the signed content route and expires in about an hour", () => {
    expect(url.pathname).toBe("/api/files/att-0123456789ab");
    expect(expiresAt.getTime() - now.getTime()).toBe(3600_000);
    expect(keys.verify("att-0123456789ab", exp, sig, now)).toBe(true);
  });
  it("is refused after expiry", () => {
    expect(keys.verify("att-0123456789ab", exp, sig, new Date(expiresAt.getTime()))).toBe(false);
  });
  it("is refused with any one character changed: the id, the expiry or the signature", () => {
    for (let i = 0; i < sig.length; i++) {
      const changed = `${sig.slice(0, i)}${sig[i] === "a" ? "b" : "a"}${sig.slice(i + 1)}`;
      expect(keys.verify("att-0123456789ab", exp, changed, now)).toBe(false);
    }
    expect(keys.verify("att-0123456789ac", exp, sig, now)).toBe(false);
    expect(keys.verify("att-0123456789ab", String(Number(exp) + 1), sig, now)).toBe(false);
    expect(keys.verify("att-0123456789ab", "soon", sig, now)).toBe(false);
  });
  it("another server key signs differently", () => {
    expect(fileKeys(new Uint8Array(32).fill(8)).verify("att-0123456789ab", exp, sig, now)).toBe(false);
  });
});

describe("the in-memory BlobStore", () => {
  it("puts, gets, lists and deletes", async () => {
    const store = memoryBlobStore();
    await store.put("a/1", new Uint8Array([1, 2, 3]), 3, "application/octet-stream");
    const stream = await store.get("a/1");
    const chunks: Buffer[] = [];
    for await (const c of stream ?? []) chunks.push(Buffer.from(c as Uint8Array));
    expect([...Buffer.concat(chunks)]).toEqual([1, 2, 3]);
    const keys: string[] = [];
    for await (const k of store.list("a/")) keys.push(k.key);
    expect(keys).toEqual(["a/1"]);
    await store.delete("a/1");
    expect(await store.get("a/1")).toBeNull();
    await store.delete("a/1");
  });
});
