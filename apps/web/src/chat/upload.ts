"use client";
import { ATTACHMENTS_PER_MESSAGE_MAX, UPLOAD_EXTENSIONS, UPLOAD_HARD_CAP_BYTES } from "@maity/domain";
import { attachRefusal } from "../wording/mediaView";
import { useCallback, useEffect, useRef, useState } from "react";
import { type HumanUploadAnswer, uploadFile } from "./mediaApi";

/** The file picker's `accept`: the extensions the hub takes (B-214, OQ-B-32). */
export const ACCEPT = UPLOAD_EXTENSIONS.map((e) => `.${e}`).join(",");

export type PendingFile = {
  key: string;
  name: string;
  size: number;
  /** A local object URL for an image's thumbnail (revoked when the chip goes). */
  preview: string | null;
  progress: number;
  state: "uploading" | "done" | "failed";
  error: string | null;
  answer: HumanUploadAnswer | null;
};

/**
 * The composer's files: each starts uploading when added (XHR, with progress), can be
 * removed before sending (an upload in flight is aborted), and is refused in words before the hub
 * when it would be (type, size, more than ten). The hub sweeps uploads never sent (B-197).
 */
export function useUploads(owner: string, slug: string) {
  const [files, setFiles] = useState<PendingFile[]>([]);
  const [refusals, setRefusals] = useState<string[]>([]);
  const aborts = useRef(new Map<string, AbortController>());
  const count = useRef(0);
  const update = useCallback(
    (key: string, patch: Partial<PendingFile>) =>
      setFiles((fs) => fs.map((f) => (f.key === key ? { ...f, ...patch } : f))),
    [],
  );
  const add = useCallback(
    (incoming: File[]) => {
      const said: string[] = [];
      const added: PendingFile[] = [];
      let attached = count.current;
      for (const file of incoming) {
        const refusal = attachRefusal(
          file,
          attached,
          UPLOAD_HARD_CAP_BYTES,
          ATTACHMENTS_PER_MESSAGE_MAX,
          UPLOAD_EXTENSIONS,
        );
        if (refusal) {
          said.push(refusal);
          continue;
        }
        attached++;
        const key = `${Date.now()}-${Math.random().toString(36).slice(2)}`;
        const controller = new AbortController();
        aborts.current.set(key, controller);
        added.push({
          key,
          name: file.name,
          size: file.size,
          preview: file.type.startsWith("image/") ? URL.createObjectURL(file) : null,
          progress: 0,
          state: "uploading",
          error: null,
          answer: null,
        });
        uploadFile(owner, slug, file, (progress) => update(key, { progress }), { signal: controller.signal })
          .then((answer) => update(key, { state: "done", progress: 100, answer }))
          .catch((e: unknown) => {
            if (e instanceof DOMException && e.name === "AbortError") return;
            update(key, { state: "failed", error: e instanceof Error ? e.message : String(e) });
          })
          .finally(() => aborts.current.delete(key));
      }
      count.current = attached;
      setRefusals(said);
      if (added.length) setFiles((fs) => [...fs, ...added]);
    },
    [owner, slug, update],
  );
  const remove = useCallback((key: string) => {
    aborts.current.get(key)?.abort();
    count.current = Math.max(0, count.current - 1);
    setFiles((fs) => {
      const gone = fs.find((f) => f.key === key);
      if (gone?.preview) URL.revokeObjectURL(gone.preview);
      return fs.filter((f) => f.key !== key);
    });
  }, []);
  const clear = useCallback(() => {
    setFiles((fs) => {
      for (const f of fs) if (f.preview) URL.revokeObjectURL(f.preview);
      return [];
    });
    count.current = 0;
    setRefusals([]);
  }, []);
  useEffect(() => {
    const map = aborts.current;
    return () => {
      for (const c of map.values()) c.abort();
    };
  }, []);
  return {
    files,
    refusals,
    add,
    remove,
    clear,
    dismissRefusals: () => setRefusals([]),
    uploading: files.some((f) => f.state === "uploading"),
    failed: files.some((f) => f.state === "failed"),
    ids: files.flatMap((f) => (f.answer ? [f.answer.id] : [])),
  };
}
