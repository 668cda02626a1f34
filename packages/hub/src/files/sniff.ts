import { readFile } from "node:fs/promises";
import { type AllowedMimeType, isAllowedMimeType } from "@maity/domain";
import { fileTypeFromFile } from "file-type";

// B-187, OQ-B-32: the stored type comes from the bytes, never the client's claim. A name whose extension
// names a different type is refused rather than silently corrected, so a mislabelled file never reaches
// anyone under a type it is not.

export interface SniffedType {
  ok: true;
  mimeType: AllowedMimeType;
  /** The canonical extension of the sniffed type (jpg, png, pdf, docx, txt, csv …). */
  ext: string;
}

export interface SniffRefusal {
  ok: false;
  code: "type_mismatch" | "unsupported_type";
  message: string;
}

/** Each allowed type and the extensions a name may carry for it; the first is canonical. */
const EXTENSIONS: Record<AllowedMimeType, readonly string[]> = {
  "image/jpeg": ["jpg", "jpeg"],
  "image/png": ["png"],
  "image/gif": ["gif"],
  "image/webp": ["webp"],
  "application/pdf": ["pdf"],
  "application/msword": ["doc"],
  "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ["docx"],
  "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ["xlsx"],
  "application/vnd.openxmlformats-officedocument.presentationml.presentation": ["pptx"],
  "application/vnd.ms-excel": ["xls"],
  "application/vnd.ms-powerpoint": ["ppt"],
  "text/plain": ["txt"],
  "text/csv": ["csv"],
  "application/zip": ["zip"],
};

/** B-187: the old Office formats share one container (CFB); only the name tells them apart. */
const CFB_BY_EXTENSION: Record<string, AllowedMimeType> = {
  doc: "application/msword",
  xls: "application/vnd.ms-excel",
  ppt: "application/vnd.ms-powerpoint",
};

const extensionOf = (name: string): string | null => {
  const dot = name.lastIndexOf(".");
  return dot > 0 && dot < name.length - 1 ? name.slice(dot + 1).toLowerCase() : null;
};

/** Every extension some allowed type owns: only these can disagree with the bytes. */
const KNOWN_EXTENSIONS = new Set(Object.values(EXTENSIONS).flat());

const isText = (bytes: Buffer): boolean => {
  if (bytes.includes(0)) return false;
  try {
    new TextDecoder("utf-8", { fatal: true }).decode(bytes);
    return true;
  } catch {
    return false;
  }
};

/**
 * B-187: the type of the file at `path`, sniffed from its bytes and checked against the allow-list and
 * the extension of `claimedName`. A refusal is returned, not thrown: it is an answer for the uploader.
 */
export async function sniffType(path: string, claimedName: string): Promise<SniffedType | SniffRefusal> {
  const claimedExt = extensionOf(claimedName);
  const detected = await fileTypeFromFile(path);
  let mimeType: string;
  let label: string;
  if (detected === undefined) {
    // B-187: text has no magic number — valid UTF-8 without NUL bytes is text; anything else unknown.
    if (!isText(await readFile(path))) {
      return {
        ok: false,
        code: "unsupported_type",
        message: "This file's type could not be recognised, so it cannot be uploaded.",
      };
    }
    mimeType = claimedExt === "csv" ? "text/csv" : "text/plain";
    label = "text";
  } else if (detected.ext === "cfb" && claimedExt !== null && claimedExt in CFB_BY_EXTENSION) {
    mimeType = CFB_BY_EXTENSION[claimedExt] as AllowedMimeType;
    label = claimedExt.toUpperCase();
  } else {
    mimeType = detected.mime;
    label = detected.ext.toUpperCase();
  }
  if (!isAllowedMimeType(mimeType)) {
    return {
      ok: false,
      code: "unsupported_type",
      message: `This file is ${label} (${mimeType}), a type that cannot be uploaded.`,
    };
  }
  const allowed = EXTENSIONS[mimeType];
  if (claimedExt !== null && KNOWN_EXTENSIONS.has(claimedExt) && !allowed.includes(claimedExt)) {
    return {
      ok: false,
      code: "type_mismatch",
      message:
        `The file is named .${claimedExt} but its contents are ${label} (${mimeType}); ` +
        "rename it or send the right file.",
    };
  }
  return { ok: true, mimeType, ext: allowed[0] as string };
}
