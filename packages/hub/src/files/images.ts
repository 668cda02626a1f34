import { IMAGE_MAX_EDGE } from "@maity/domain";
import sharp from "sharp";
import { rgbaToThumbHash } from "thumbhash";

// B-190 … B-196 (004 v1.18): what an uploaded photo is stored as. Photos are shrunk, turned upright and
// stripped of EXIF/GPS/XMP before anyone else can fetch them; what cannot be improved is kept as sent.

/** B-196: a decompression bomb (a tiny file of huge dimensions) is refused before it is decoded. */
export const IMAGE_MAX_INPUT_PIXELS = 50_000_000;
/** B-191: the quality photos are re-encoded at. */
const JPEG_QUALITY = 80;
/** B-194: thumbhash works on a small version; 100 px is its documented maximum. */
const THUMBHASH_EDGE = 100;

export type StoredImageType = "image/jpeg" | "image/png" | "image/gif" | "image/webp";

export interface ProcessedImage {
  bytes: Buffer;
  mimeType: StoredImageType;
  /** B-195: the name, its extension changed to match the stored type (chart.png → chart.jpg). */
  fileName: string;
  width: number;
  height: number;
  /** B-194: base64; null when no preview could be computed. */
  thumbhash: string | null;
}

/** A reason the image is not stored, for the uploader. */
export class ImageRefusal extends Error {
  constructor(
    readonly code: "image_too_large" | "unsupported_type",
    message: string,
  ) {
    super(message);
    this.name = "ImageRefusal";
  }
}

const MIME_BY_FORMAT: Record<string, StoredImageType> = {
  jpeg: "image/jpeg",
  png: "image/png",
  gif: "image/gif",
  webp: "image/webp",
};
const EXT_BY_MIME: Record<StoredImageType, string> = {
  "image/jpeg": "jpg",
  "image/png": "png",
  "image/gif": "gif",
  "image/webp": "webp",
};
const NAME_EXTS_BY_MIME: Record<StoredImageType, readonly string[]> = {
  "image/jpeg": ["jpg", "jpeg"],
  "image/png": ["png"],
  "image/gif": ["gif"],
  "image/webp": ["webp"],
};

/** B-195: keep the name when its extension already fits (photo.jpeg stays), else swap or add one. */
export function renameForType(fileName: string, mimeType: StoredImageType): string {
  const dot = fileName.lastIndexOf(".");
  const stem = dot > 0 ? fileName.slice(0, dot) : fileName;
  const ext = dot > 0 ? fileName.slice(dot + 1).toLowerCase() : "";
  return NAME_EXTS_BY_MIME[mimeType].includes(ext) ? fileName : `${stem}.${EXT_BY_MIME[mimeType]}`;
}

const tooLarge = () =>
  new ImageRefusal(
    "image_too_large",
    `This image has more than ${IMAGE_MAX_INPUT_PIXELS.toLocaleString("en")} pixels, too many to process.`,
  );

/** sharp names its pixel limit only in the message; turn that one error into the refusal. */
async function guarded<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof Error && /pixel limit/i.test(err.message)) throw tooLarge();
    throw err;
  }
}

const open = (input: Buffer) => sharp(input, { limitInputPixels: IMAGE_MAX_INPUT_PIXELS });

/** B-194: the first page, upright, at most 100 px, as raw RGBA. */
async function thumbhashOf(bytes: Buffer): Promise<string | null> {
  try {
    const { data, info } = await open(bytes)
      .rotate()
      .resize(THUMBHASH_EDGE, THUMBHASH_EDGE, { fit: "inside" })
      .ensureAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    return Buffer.from(rgbaToThumbHash(info.width, info.height, data)).toString("base64");
  } catch {
    // A preview is a nicety: an image sharp cannot thumbnail is still stored.
    return null;
  }
}

/**
 * B-190 … B-196: the bytes to store for an uploaded image, whose type was already sniffed (B-187).
 * Throws ImageRefusal for an image over the pixel limit or one sharp does not read as JPEG/PNG/GIF/WebP.
 */
export async function processImage(
  input: Buffer,
  { fileName, original }: { fileName: string; original: boolean },
): Promise<ProcessedImage> {
  const meta = await guarded(() => open(input).metadata());
  const mimeType = meta.format === undefined ? undefined : MIME_BY_FORMAT[meta.format];
  if (mimeType === undefined || meta.width === undefined || meta.height === undefined) {
    throw new ImageRefusal("unsupported_type", "This file is not a JPEG, PNG, GIF or WebP image.");
  }
  const pageHeight = meta.pageHeight ?? meta.height;
  // B-196: metadata() reads only the header; refuse here too so no path decodes a bomb.
  if (meta.width * pageHeight > IMAGE_MAX_INPUT_PIXELS) throw tooLarge();
  const sideways = (meta.orientation ?? 1) >= 5;
  const width = sideways ? pageHeight : meta.width;
  const height = sideways ? meta.width : pageHeight;
  const asSent = async (): Promise<ProcessedImage> => ({
    bytes: input,
    mimeType,
    fileName: renameForType(fileName, mimeType),
    width,
    height,
    thumbhash: await thumbhashOf(input),
  });

  // B-193: the sender asked for the exact bytes. B-192: re-encoding an animation would freeze or bloat it.
  if (original || (meta.pages ?? 1) > 1) return asSent();
  // B-192: nothing to shrink and nothing to strip (orientation lives in EXIF, so it is covered too).
  const carriesMetadata = Boolean(meta.exif || meta.xmp || meta.icc || meta.iptc);
  if (Math.max(width, height) <= IMAGE_MAX_EDGE && !carriesMetadata) return asSent();

  // B-191: PNG only when some pixel is actually see-through; an unused alpha channel becomes JPEG.
  const transparent = meta.hasAlpha && !(await guarded(() => open(input).stats())).isOpaque;
  // B-190: upright, long edge ≤ 1600, never enlarged. sharp writes no metadata unless asked (B-190).
  const pipeline = open(input)
    .rotate()
    .resize(IMAGE_MAX_EDGE, IMAGE_MAX_EDGE, { fit: "inside", withoutEnlargement: true });
  const encoded = transparent
    ? pipeline.png({ compressionLevel: 9 })
    : pipeline.flatten({ background: "#ffffff" }).jpeg({ quality: JPEG_QUALITY, mozjpeg: true });
  const { data, info } = await guarded(() => encoded.toBuffer({ resolveWithObject: true }));
  const storedType: StoredImageType = transparent ? "image/png" : "image/jpeg";
  return {
    bytes: data,
    mimeType: storedType,
    fileName: renameForType(fileName, storedType),
    width: info.width,
    height: info.height,
    thumbhash: await thumbhashOf(data),
  };
}
