import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import sharp from "sharp";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ImageRefusal, processImage } from "../src/files/images.ts";
import { sniffType } from "../src/files/sniff.ts";

// 004 v1.18 (B-189 … B-196): stored photos are upright, ≤ 1600 px, stripped of metadata, JPEG unless their
// transparency is used; what cannot be improved is kept byte for byte. Every image is made here with sharp.

const solid = (width: number, height: number, alpha?: number) =>
  sharp({
    create: {
      width,
      height,
      channels: alpha === undefined ? 3 : 4,
      background: { r: 40, g: 120, b: 200, ...(alpha === undefined ? {} : { alpha }) },
    },
  });

/** A PNG with a fully transparent left half: its alpha channel is used. */
async function transparentPng(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 4);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const i = (y * width + x) * 4;
      raw[i] = 200;
      raw[i + 1] = 50;
      raw[i + 2] = 50;
      raw[i + 3] = x < width / 2 ? 0 : 255;
    }
  }
  return sharp(raw, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}

/** A three-frame GIF: a tall strip of three colours cut into pages. */
async function animatedGif(): Promise<Buffer> {
  const frames = await Promise.all(
    ["#ff0000", "#00ff00", "#0000ff"].map((background) =>
      sharp({ create: { width: 40, height: 40, channels: 3, background } })
        .png()
        .toBuffer(),
    ),
  );
  const strip = await sharp({ create: { width: 40, height: 120, channels: 3, background: "#000" } })
    .composite(frames.map((input, i) => ({ input, top: i * 40, left: 0 })))
    .raw()
    .toBuffer();
  return sharp(strip, { raw: { width: 40, height: 120, channels: 3, pageHeight: 40 } })
    .gif({ loop: 0, delay: [100, 100, 100] })
    .toBuffer();
}

describe("processImage", () => {
  it("B-190 B-191: a 4000×3000 phone photo (orientation 6, GPS) is stored upright, 1200×1600, stripped", async () => {
    const photo = await solid(4000, 3000)
      .jpeg({ quality: 95 })
      // withMetadata sets the orientation (and an sRGB ICC profile); withExif adds the GPS position.
      .withMetadata({ orientation: 6 })
      .withExif({
        IFD0: { Make: "Phone" },
        IFD3: { GPSLatitudeRef: "N", GPSLatitude: "51/1 30/1 0/1" },
      })
      .toBuffer();
    const before = await sharp(photo).metadata();
    expect(before.orientation).toBe(6);
    expect(before.exif?.toString("latin1")).toContain("Phone");
    expect(before.icc).toBeDefined();

    const out = await processImage(photo, { fileName: "IMG_0001.jpeg", original: false });
    expect(out.mimeType).toBe("image/jpeg");
    expect(out.fileName).toBe("IMG_0001.jpeg");
    expect([out.width, out.height]).toEqual([1200, 1600]);
    const after = await sharp(out.bytes).metadata();
    expect([after.format, after.width, after.height]).toEqual(["jpeg", 1200, 1600]);
    expect(after.exif).toBeUndefined();
    expect(after.xmp).toBeUndefined();
    expect(after.icc).toBeUndefined();
    expect(after.orientation).toBeUndefined();
    expect(out.bytes.length).toBeLessThan(photo.length);
    expect(out.thumbhash).toMatch(/^[A-Za-z0-9+/]+=*$/);
  });

  it("B-191: a PNG whose transparency is used stays PNG", async () => {
    const png = await transparentPng(2000, 1000);
    const out = await processImage(png, { fileName: "logo.png", original: false });
    expect(out.mimeType).toBe("image/png");
    expect(out.fileName).toBe("logo.png");
    expect([out.width, out.height]).toEqual([1600, 800]);
    const after = await sharp(out.bytes).metadata();
    expect([after.format, after.hasAlpha]).toEqual(["png", true]);
  });

  it("B-191 B-195: an opaque PNG (alpha channel unused) becomes JPEG, chart.png → chart.jpg", async () => {
    const png = await solid(2400, 1200, 1).png().toBuffer();
    expect((await sharp(png).metadata()).hasAlpha).toBe(true);
    const out = await processImage(png, { fileName: "chart.png", original: false });
    expect(out.mimeType).toBe("image/jpeg");
    expect(out.fileName).toBe("chart.jpg");
    expect([out.width, out.height]).toEqual([1600, 800]);
    expect((await sharp(out.bytes).metadata()).format).toBe("jpeg");
  });

  it("B-192: an animated GIF is stored as sent", async () => {
    const gif = await animatedGif();
    expect((await sharp(gif).metadata()).pages).toBe(3);
    const out = await processImage(gif, { fileName: "party.gif", original: false });
    expect(out.bytes.equals(gif)).toBe(true);
    expect(out.mimeType).toBe("image/gif");
    expect(out.fileName).toBe("party.gif");
    expect([out.width, out.height]).toEqual([40, 40]);
  });

  it("B-192: a small JPEG without metadata is stored as sent", async () => {
    const jpeg = await solid(800, 600).jpeg({ quality: 90 }).toBuffer();
    const meta = await sharp(jpeg).metadata();
    expect([meta.exif, meta.icc, meta.xmp]).toEqual([undefined, undefined, undefined]);
    const out = await processImage(jpeg, { fileName: "small.jpg", original: false });
    expect(out.bytes.equals(jpeg)).toBe(true);
    expect([out.mimeType, out.fileName, out.width, out.height]).toEqual(["image/jpeg", "small.jpg", 800, 600]);
    expect(out.thumbhash).not.toBeNull();
  });

  it("B-193: original keeps the exact bytes, metadata and all", async () => {
    const photo = await solid(3000, 2000)
      .jpeg()
      .withExif({ IFD0: { Make: "Phone" } })
      .toBuffer();
    const out = await processImage(photo, { fileName: "diagram.jpg", original: true });
    expect(out.bytes.equals(photo)).toBe(true);
    expect([out.mimeType, out.fileName, out.width, out.height]).toEqual(["image/jpeg", "diagram.jpg", 3000, 2000]);
  });

  it("B-196: a decompression bomb (8000×8000 = 64 MP of one colour, tiny on disk) is refused", async () => {
    const bomb = await sharp({
      create: { width: 8000, height: 8000, channels: 3, background: "#ffffff" },
      limitInputPixels: false,
    })
      .png({ compressionLevel: 9 })
      .toBuffer();
    expect(bomb.length).toBeLessThan(1_000_000);
    const refused = await processImage(bomb, { fileName: "bomb.png", original: false }).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(ImageRefusal);
    expect((refused as ImageRefusal).code).toBe("image_too_large");
    expect((refused as ImageRefusal).message).toMatch(/too many/);
    // B-196: asking for the original does not get around the limit.
    await expect(processImage(bomb, { fileName: "bomb.png", original: true })).rejects.toMatchObject({
      code: "image_too_large",
    });
  }, 30_000);
});

describe("sniffType", () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), "maity-sniff-"));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });
  const file = async (name: string, bytes: Buffer | string) => {
    const path = join(dir, name);
    await writeFile(path, bytes);
    return path;
  };

  it("B-187: PDF bytes named .png are refused as a mismatch", async () => {
    const path = await file("a", "%PDF-1.4\n1 0 obj\n<< /Type /Catalog >>\nendobj\ntrailer\n%%EOF\n");
    const result = await sniffType(path, "scan.png");
    expect(result).toMatchObject({ ok: false, code: "type_mismatch" });
    expect(!result.ok && result.message).toMatch(/named \.png.*PDF/);
    expect(await sniffType(path, "scan.pdf")).toEqual({ ok: true, mimeType: "application/pdf", ext: "pdf" });
  });

  it("B-187: an executable renamed .pdf is refused as unsupported", async () => {
    const path = await file("b", Buffer.concat([Buffer.from("MZ\x90\x00"), Buffer.alloc(256)]));
    const result = await sniffType(path, "invoice.pdf");
    expect(result).toMatchObject({ ok: false, code: "unsupported_type" });
    expect(!result.ok && result.message).toMatch(/cannot be uploaded/);
  });

  it("B-187: a CSV is text/csv, the same text under another name text/plain", async () => {
    const path = await file("c", "name,amount\nÅsa,12\nBob,7\n");
    expect(await sniffType(path, "budget.csv")).toEqual({ ok: true, mimeType: "text/csv", ext: "csv" });
    expect(await sniffType(path, "notes.txt")).toEqual({ ok: true, mimeType: "text/plain", ext: "txt" });
    expect(await sniffType(path, "budget.png")).toMatchObject({ ok: false, code: "type_mismatch" });
  });

  it("B-187: binary without a known signature is refused", async () => {
    const path = await file("d", Buffer.from([0x01, 0x00, 0xff, 0xfe, 0x13, 0x37, 0x00, 0x42]));
    expect(await sniffType(path, "blob.txt")).toMatchObject({ ok: false, code: "unsupported_type" });
  });

  it("B-187: a real PNG is accepted as image/png", async () => {
    const path = await file("e.png", await solid(10, 10).png().toBuffer());
    expect(await sniffType(path, "chart.png")).toEqual({ ok: true, mimeType: "image/png", ext: "png" });
    expect(await sniffType(path, "chart")).toEqual({ ok: true, mimeType: "image/png", ext: "png" });
  });
});
