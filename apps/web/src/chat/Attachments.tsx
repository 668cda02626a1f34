"use client";
import type { Attachment } from "@maity/domain";
import { imageBox, sizeWords } from "../wording/mediaView";
import { buttonVariants, Dialog, DialogContent, Skeleton } from "@maity/ui";
import { useQuery } from "@tanstack/react-query";
import { Download, File, FileArchive, FileSpreadsheet, FileText, Presentation } from "lucide-react";
import { useMemo, useState } from "react";
import { thumbHashToDataURL } from "thumbhash";
import { useTRPC } from "../trpc";
import { contentUrl } from "./mediaApi";

type Where = { owner: string; slug: string };

/** The ThumbHash (base64) as a data URL: the placeholder until the image loads (v1.18, B-196). */
function placeholder(thumbhash: string | null): string | undefined {
  if (!thumbhash) return undefined;
  try {
    return thumbHashToDataURL(Uint8Array.from(atob(thumbhash), (c) => c.charCodeAt(0)));
  } catch {
    return undefined;
  }
}

/** The file's name is not on the message (B-184): it comes from `attachments.get`, read once per file. */
function useFileName(where: Where, id: string) {
  const trpc = useTRPC();
  return useQuery({
    ...trpc.attachments.get.queryOptions({ owner: where.owner, slug: where.slug, attachment_id: id }),
    staleTime: Number.POSITIVE_INFINITY,
    select: (a) => a.file_name,
  });
}

function iconFor(mime: string) {
  if (mime === "application/zip") return FileArchive;
  if (mime === "text/csv" || mime.includes("spreadsheet")) return FileSpreadsheet;
  if (mime.includes("presentation")) return Presentation;
  if (mime === "application/pdf" || mime.startsWith("text/") || mime.includes("word")) return FileText;
  return File;
}

function InlineImage(props: { where: Where; a: Attachment; author: string; max: number; onOpen: () => void }) {
  const { a } = props;
  const name = useFileName(props.where, a.id);
  const [loaded, setLoaded] = useState(false);
  const [failed, setFailed] = useState(false);
  const box = imageBox(a.width, a.height, props.max);
  const thumb = useMemo(() => placeholder(a.thumbhash), [a.thumbhash]);
  const alt = name.data ?? `Image from ${props.author}`;
  return (
    <button
      type="button"
      onClick={props.onOpen}
      aria-label={`Open ${alt} full size`}
      className="relative block max-w-full overflow-hidden rounded-md border border-line bg-surface-2"
      style={
        box
          ? {
              width: box.width,
              aspectRatio: `${box.width} / ${box.height}`,
              backgroundImage: !loaded && thumb ? `url(${thumb})` : undefined,
              backgroundSize: "cover",
            }
          : { maxWidth: props.max }
      }
    >
      {failed ? (
        <span className="absolute inset-0 flex items-center justify-center bg-surface-2/80 p-2 text-xs text-muted">
          The image could not be loaded.
        </span>
      ) : null}
      {/* biome-ignore lint/performance/noImgElement: the hub's own bytes, sized from the metadata; no optimiser */}
      <img
        src={contentUrl(props.where.owner, props.where.slug, a.id)}
        alt={alt}
        loading="lazy"
        decoding="async"
        onLoad={() => setLoaded(true)}
        onError={() => setFailed(true)}
        className="block h-full w-full object-cover"
        style={{ opacity: loaded ? 1 : 0 }}
      />
    </button>
  );
}

function FileRow(props: { where: Where; a: Attachment }) {
  const { a } = props;
  const name = useFileName(props.where, a.id);
  const Icon = iconFor(a.mime_type);
  const label = name.data ?? (name.isPending ? null : "File");
  return (
    <div className="flex max-w-sm items-center gap-3 rounded-md border border-line bg-surface px-3 py-2">
      <Icon className="size-6 shrink-0 text-muted" aria-hidden />
      <div className="min-w-0 flex-1">
        {label === null ? (
          <Skeleton className="h-4 w-32" />
        ) : (
          <p className="truncate text-sm font-medium" title={label}>
            {label}
          </p>
        )}
        <p className="text-xs text-muted">
          {sizeWords(a.size)} · {a.mime_type}
        </p>
      </div>
      <a
        href={contentUrl(props.where.owner, props.where.slug, a.id, true)}
        download={name.data ?? true}
        aria-label={`Download ${label ?? "the file"}`}
        className={buttonVariants({ variant: "ghost", size: "icon" })}
      >
        <Download aria-hidden />
      </a>
    </div>
  );
}

/**
 * A message's files (§8.7, M-030): images inline (a grid when there are several, the ThumbHash as
 * placeholder, a click opens the full image), other files as download rows named by the metadata.
 */
export function Attachments(props: { where: Where; attachments: Attachment[]; author: string }) {
  const images = props.attachments.filter((a) => a.type === "image");
  const files = props.attachments.filter((a) => a.type !== "image");
  const [open, setOpen] = useState<Attachment | null>(null);
  if (!props.attachments.length) return null;
  const max = images.length > 1 ? 200 : 320;
  return (
    <div className="mt-1 flex flex-col gap-2">
      {images.length ? (
        <ul className={images.length > 1 ? "grid max-w-md grid-cols-2 gap-1.5" : "flex"} aria-label="Images">
          {images.map((a) => (
            <li key={a.id}>
              <InlineImage where={props.where} a={a} author={props.author} max={max} onOpen={() => setOpen(a)} />
            </li>
          ))}
        </ul>
      ) : null}
      {files.length ? (
        <ul className="flex flex-col gap-1.5" aria-label="Files">
          {files.map((a) => (
            <li key={a.id}>
              <FileRow where={props.where} a={a} />
            </li>
          ))}
        </ul>
      ) : null}
      <Dialog open={open !== null} onOpenChange={(o) => !o && setOpen(null)}>
        {open ? <FullImage where={props.where} a={open} author={props.author} /> : null}
      </Dialog>
    </div>
  );
}

function FullImage(props: { where: Where; a: Attachment; author: string }) {
  const name = useFileName(props.where, props.a.id);
  const alt = name.data ?? `Image from ${props.author}`;
  return (
    <DialogContent title={alt} description={null} className="max-w-[min(96vw,1600px)]">
      {/* biome-ignore lint/performance/noImgElement: the hub's own bytes at full size */}
      <img
        src={contentUrl(props.where.owner, props.where.slug, props.a.id)}
        alt={alt}
        className="mx-auto max-h-[75dvh] w-auto max-w-full object-contain"
      />
      <a
        className="self-start text-sm text-accent underline"
        href={contentUrl(props.where.owner, props.where.slug, props.a.id, true)}
        download={name.data ?? true}
      >
        Download {sizeWords(props.a.size)}
      </a>
    </DialogContent>
  );
}
