"use client";
// Every call the dashboard makes for attachments, polls and reactions, in one module.
// Typed tRPC where the procedures are on main (messages.post with `attachments`, attachments.get,
// polls.*, reactions.*). The upload is a REST multipart route (files-core), sent by XHR for its
// progress; its answer is parsed with domain's `projectUploadSchema`.
import {
  type Attachment,
  type Message,
  type Poll,
  type ProjectUpload,
  projectUploadSchema,
  type Reaction,
  reactionSchema,
} from "@maity/domain";
import { uploadErrorWords } from "../wording/mediaView";
import { z } from "zod";
import type { useTRPCClient } from "../trpc";

export type ChatRef = { owner: string; slug: string; conversation_id: string };
type Client = ReturnType<typeof useTRPCClient>;

export type HumanUploadAnswer = ProjectUpload;

const base = (owner: string, slug: string) =>
  `/api/projects/${encodeURIComponent(owner)}/${encodeURIComponent(slug)}/attachments`;

/** The bytes of an attachment (cookie-authenticated; images inline, `download` for a file). */
export const contentUrl = (owner: string, slug: string, id: string, download = false): string =>
  `${base(owner, slug)}/${encodeURIComponent(id)}/content${download ? "?download=1" : ""}`;

/**
 * Uploads one file with XMLHttpRequest, for its progress (fetch has no upload progress). Same
 * origin, session cookie; `original` keeps the exact bytes (v1.18). Resolves with the hub's answer
 * or rejects with words naming the file (OQ-B-12: 413, 415, 400 in the Maity error style).
 */
export function uploadFile(
  owner: string,
  slug: string,
  file: File,
  onProgress: (percent: number) => void,
  options: { original?: boolean; signal?: AbortSignal } = {},
): Promise<HumanUploadAnswer> {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", base(owner, slug));
    xhr.withCredentials = true;
    xhr.responseType = "text";
    xhr.upload.onprogress = (e) => {
      if (e.lengthComputable) onProgress(Math.round((e.loaded / e.total) * 100));
    };
    xhr.onload = () => {
      let body: unknown = null;
      try {
        body = JSON.parse(xhr.responseText);
      } catch {}
      if (xhr.status === 201 || xhr.status === 200) {
        const parsed = projectUploadSchema.safeParse(body);
        if (parsed.success) resolve(parsed.data);
        else reject(new Error(`${file.name} could not be uploaded: the hub's answer was not understood.`));
        return;
      }
      const message = (body as { error?: { message?: string } } | null)?.error?.message ?? null;
      reject(new Error(uploadErrorWords(file.name, xhr.status, message)));
    };
    xhr.onerror = () => reject(new Error(uploadErrorWords(file.name, 0, null)));
    xhr.onabort = () => reject(new DOMException("cancelled", "AbortError"));
    options.signal?.addEventListener("abort", () => xhr.abort());
    const form = new FormData();
    if (options.original) form.append("original", "1");
    form.append("file", file, file.name);
    xhr.send(form);
  });
}

/** Sends a message with files: their ids in render order (1–10); the body may be "" then (files-messages). */
export const postWithAttachments = (
  client: Client,
  input: ChatRef & { body: string; reply_to: number | null; attachments: string[] },
): Promise<{ message: Message }> => client.messages.post.mutate(input);

// ---- polls and reactions: typed, on main ------------------------------------------------------------

export const createPoll = (
  client: Client,
  ref: ChatRef,
  poll: { question: string; options: string[]; allow_multiple: boolean },
): Promise<Message> => client.polls.create.mutate({ ...ref, ...poll });

// Strict inputs: a poll is named by the project and its id alone (a chat ref's conversation_id is refused).
export const votePoll = (
  client: Client,
  ref: { owner: string; slug: string },
  pollId: string,
  option_indexes: number[],
): Promise<Poll> => client.polls.vote.mutate({ owner: ref.owner, slug: ref.slug, poll_id: pollId, option_indexes });

export const closePoll = (client: Client, ref: { owner: string; slug: string }, pollId: string): Promise<Poll> =>
  client.polls.close.mutate({ owner: ref.owner, slug: ref.slug, poll_id: pollId });

export async function setReaction(
  client: Client,
  ref: ChatRef,
  seq: number,
  emoji: string,
  on: boolean,
): Promise<Reaction[]> {
  const input = { ...ref, seq, emoji };
  const out = on ? await client.reactions.add.mutate(input) : await client.reactions.remove.mutate(input);
  return z.array(reactionSchema).parse(out);
}

export type { Attachment };
