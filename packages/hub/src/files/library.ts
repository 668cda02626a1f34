import type { Readable } from "node:stream";
import {
  type Attachment,
  attachmentLinkFailed,
  attachmentTypeOf,
  eventId,
  HubError,
  historyFloorOf,
  isVisiting,
  type LibraryListing,
  type ProjectRef,
  type ProjectAttachment,
  type ProjectLibraryFile,
} from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import { isProjectAdmin, memberProject, projectOf } from "../access/resolve.ts";
import type { AgentCaller, Caller } from "../access/caller.ts";
import { type KeyRow, readKeys } from "../access/visibility.ts";
import type { FileKeys } from "./keys.ts";
import type { Signer } from "./render.ts";
import type { BlobStore } from "./store.ts";

// The file library (v1.7, v1.17, B-203…B-210), the Maity attachment reads (§8.7: readable by whoever
// reads the message, M-142, M-163) and redaction's file half (§8.5, M-039). The bytes are read and
// deleted through the BlobStore directly until hub.files takes it over.

const fileSelect = {
  id: true,
  uploaderId: true,
  bayId: true,
  blobKey: true,
  mimeType: true,
  sizeBytes: true,
  nameCipher: true,
  thumbhash: true,
  width: true,
  height: true,
  createdAt: true,
  eventSeq: true,
  conversationId: true,
  libraryProjectId: true,
  linkedAt: true,
  deletedAt: true,
} as const;
type FileRow = {
  id: string;
  uploaderId: string;
  bayId: string;
  blobKey: string;
  mimeType: string;
  sizeBytes: number;
  nameCipher: string;
  thumbhash: string | null;
  width: number | null;
  height: number | null;
  createdAt: Date;
  eventSeq: number | null;
  conversationId: string | null;
  libraryProjectId: string | null;
  linkedAt: Date | null;
  deletedAt: Date | null;
};

/** The most files one listing answers (newest first). */
const LISTING_MAX = 1000;

/** §8.5, M-039: tombstones a redacted message's files in the redaction's transaction; their blob keys. */
export async function tombstoneFiles(tx: Tx, seq: number): Promise<string[]> {
  const files = await tx.attachment.findMany({
    where: { eventSeq: seq, deletedAt: null },
    select: { id: true, blobKey: true },
  });
  if (files.length === 0) return [];
  await tx.attachment.updateMany({ where: { id: { in: files.map((f) => f.id) } }, data: { deletedAt: new Date() } });
  return files.map((f) => f.blobKey);
}

/** After the tombstones commit: the bytes go. A failed delete leaves an orphan the sweep removes. */
export async function deleteBlobs(blobs: BlobStore, keys: string[]): Promise<void> {
  await Promise.all(keys.map((key) => blobs.delete(key).catch(() => {})));
}

/** §8.7 metadata of a stored file; B-183: its type from the stored mime type, never the sender's claim. */
export const metadataOf = (
  f: Pick<FileRow, "id" | "mimeType" | "sizeBytes" | "thumbhash" | "width" | "height">,
): Attachment => ({
  id: f.id,
  type: attachmentTypeOf(f.mimeType),
  mime_type: f.mimeType,
  size: f.sizeBytes,
  thumbhash: f.thumbhash,
  width: f.width,
  height: f.height,
});

export function libraryService(db: Db, blobs: BlobStore, keys: FileKeys) {
  /** Untrusted content (§10): the uploader chose it; an undecryptable name reads as "file". */
  const nameOf = (f: FileRow) => keys.decryptName(f.nameCipher) ?? "file";

  async function agentFileScope(agent: AgentCaller, row: KeyRow, attachmentId?: string) {
    const [owner, project] = await Promise.all([
      db.human.findUniqueOrThrow({ where: { id: agent.ownerId }, select: { bayId: true } }),
      db.project.findUniqueOrThrow({ where: { id: row.projectId }, select: { bayId: true, shareWithVisitors: true } }),
    ]);
    const visiting = isVisiting(owner.bayId, project.bayId);
    // v1.17: a visitor reads the library only when the project shares with visitors, never another chat's files.
    const library = !visiting || project.shareWithVisitors;
    const rooms = visiting
      ? [row]
      : (await readKeys(db, agent, { projectId: row.projectId, observed: false, lean: true })).filter(
          (r) => r.access === "participant" || r.key === row.key,
        );
    // B-301: a visitor's placement floor (0 when its sponsor shared the earlier history), else its window.
    const placed = visiting
      ? await db.participation.findFirst({
          where: { conversationId: row.key, memberId: agent.id, leftAt: null },
          select: { historyFloor: true },
        })
      : null;
    const floors = new Map(
      rooms.map((r) => [
        r.key,
        historyFloorOf(visiting, (r.key === row.key ? placed?.historyFloor : null) ?? r.windowSeq),
      ]),
    );
    return {
      /** Newest first, at most LISTING_MAX: the listing's page (the count reads the same rows). */
      query: {
        orderBy: [{ linkedAt: "desc" as const }, { id: "asc" as const }],
        take: LISTING_MAX,
        where: {
          deletedAt: null,
          ...(attachmentId ? { id: attachmentId } : {}),
          OR: [
            { conversationId: { in: [...floors.keys()] }, eventSeq: { not: null } },
            ...(library ? [{ libraryProjectId: row.projectId }] : []),
          ],
        },
      },
      /** A chat's file only within the agent's readable history of it; a library file always. */
      readable: (f: { libraryProjectId: string | null; eventSeq: number | null; conversationId: string | null }) =>
        f.libraryProjectId !== null || (f.eventSeq ?? 0) > (floors.get(f.conversationId ?? "") ?? Infinity),
      titles: new Map(rooms.map((r) => [r.key, r.title])),
    };
  }

  /**
   * The files an agent may list from `row` (B-205, B-206, B-210): sent files of this chat and — unless
   * it is visiting — the project's library (a visitor too when the project shares with visitors) and
   * the project's other chats it is in now (never a visitor), each within its readable history.
   */
  async function agentFileRows(agent: AgentCaller, row: KeyRow, attachmentId?: string) {
    const scope = await agentFileScope(agent, row, attachmentId);
    const files = await db.attachment.findMany({ ...scope.query, select: fileSelect });
    return { files: files.filter(scope.readable), titles: scope.titles };
  }

  return {
    /** B-168: the webhook's `project.notes.fileCount` — what this agent's list_files here would list. */
    async agentFileCount(agent: AgentCaller, row: KeyRow): Promise<number> {
      // The listing's rows and order, but only the columns the history rule reads (every webhook body counts).
      const scope = await agentFileScope(agent, row);
      const files = await db.attachment.findMany({
        ...scope.query,
        select: { libraryProjectId: true, eventSeq: true, conversationId: true },
      });
      return files.filter(scope.readable).length;
    },
    /** GET /conversations/:id/attachments (B-203…B-210): no URLs, on purpose. */
    async agentListing(agent: AgentCaller, row: KeyRow): Promise<LibraryListing> {
      const { files, titles } = await agentFileRows(agent, row);
      const listed = files.map((f) => ({
        attachmentId: f.id,
        fileName: nameOf(f),
        type: attachmentTypeOf(f.mimeType),
        mimeType: f.mimeType,
        sizeBytes: f.sizeBytes,
        // B-208: a library file belongs to no message.
        messageId: f.eventSeq === null ? null : eventId(f.eventSeq),
        senderId: f.uploaderId,
        createdAt: (f.linkedAt ?? f.createdAt).toISOString(),
        source:
          f.libraryProjectId !== null
            ? { kind: "project" as const }
            : {
                kind: "chat" as const,
                conversationId: f.conversationId ?? "",
                title: titles.get(f.conversationId ?? "") ?? null,
              },
      }));
      return {
        conversationId: row.key,
        // Every Maity conversation lives in a project (DESIGN §1): the listing is a project listing (B-207).
        scope: "project",
        files: listed,
        total: listed.length,
        totalBytes: listed.reduce((sum, f) => sum + f.sizeBytes, 0),
      };
    },

    /** GET /conversations/:id/attachments/:attachmentId/link (B-204): one fresh signed URL; null outside the listing. */
    async agentLink(agent: AgentCaller, row: KeyRow, attachmentId: string, sign: Signer, now = new Date()) {
      const { files } = await agentFileRows(agent, row, attachmentId);
      const f = files[0];
      if (!f) return null;
      const url = sign(f.id);
      const exp = Number(new URL(url, "http://x").searchParams.get("exp"));
      return {
        attachmentId: f.id,
        fileName: nameOf(f),
        mimeType: f.mimeType,
        sizeBytes: f.sizeBytes,
        url,
        expiresAt: new Date(Number.isFinite(exp) && exp > 0 ? exp * 1000 : now.getTime()).toISOString(),
      };
    },

    /** POST …/library (v1.17): a member adds one of their own unsent uploads to the project's library. */
    async add(caller: Caller, ref: ProjectRef, attachmentId: string): Promise<ProjectLibraryFile> {
      const project = await memberProject(db, caller, ref);
      const linked = await db.attachment.updateMany({
        where: {
          id: attachmentId,
          uploaderId: caller.id,
          bayId: project.bayId,
          eventSeq: null,
          libraryProjectId: null,
          deletedAt: null,
        },
        data: { libraryProjectId: project.id, linkedAt: new Date() },
      });
      // The same refusal whichever reason (B-202's rule, kept on the Maity surface).
      if (linked.count !== 1) throw attachmentLinkFailed();
      const f = await db.attachment.findUniqueOrThrow({ where: { id: attachmentId }, select: fileSelect });
      return libraryFileOf(f);
    },

    /** GET …/library: the project's library, newest first (members). */
    async list(caller: Caller, ref: ProjectRef): Promise<ProjectLibraryFile[]> {
      const project = await memberProject(db, caller, ref);
      const files = await db.attachment.findMany({
        where: { libraryProjectId: project.id, deletedAt: null },
        orderBy: [{ linkedAt: "desc" }, { id: "asc" }],
        take: LISTING_MAX,
        select: fileSelect,
      });
      return files.map(libraryFileOf);
    },

    /** DELETE …/library/{id}: its uploader or a project admin; the bytes are deleted, the row tombstoned. */
    async remove(caller: Caller, ref: ProjectRef, attachmentId: string): Promise<void> {
      const project = await memberProject(db, caller, ref);
      const f = await db.attachment.findFirst({
        where: { id: attachmentId, libraryProjectId: project.id, deletedAt: null },
        select: fileSelect,
      });
      if (!f) throw HubError.notFound("file not found");
      if (f.uploaderId !== caller.id && !(caller.kind === "human" && (await isProjectAdmin(db, project.id, caller.id))))
        throw HubError.forbidden("not_uploader", "only its uploader or a project admin removes a library file");
      await db.attachment.update({ where: { id: f.id }, data: { deletedAt: new Date() } });
      await deleteBlobs(blobs, [f.blobKey]);
    },

    /** GET …/attachments/{id}: §8.7 metadata with the name, for whoever reads it; else not_found alike. */
    async get(caller: Caller, ref: ProjectRef, attachmentId: string): Promise<ProjectAttachment> {
      const { file, conversation } = await readable(caller, ref, attachmentId);
      return {
        ...metadataOf(file),
        file_name: nameOf(file),
        conversation_id: conversation?.id ?? null,
        seq: file.eventSeq,
        deleted: file.deletedAt !== null,
      };
    },

    /** GET …/attachments/{id}/content: the bytes; a deleted file is not found (M-039). */
    async content(
      caller: Caller,
      ref: ProjectRef,
      attachmentId: string,
    ): Promise<{ stream: Readable; mimeType: string; size: number; fileName: string }> {
      const { file } = await readable(caller, ref, attachmentId);
      const stream = file.deletedAt === null ? await blobs.get(file.blobKey) : null;
      if (!stream) throw HubError.notFound("file not found");
      return { stream, mimeType: file.mimeType, size: file.sizeBytes, fileName: nameOf(file) };
    },
  };

  function libraryFileOf(f: FileRow): ProjectLibraryFile {
    return {
      ...metadataOf(f),
      file_name: nameOf(f),
      uploader_id: f.uploaderId,
      added_at: (f.linkedAt ?? f.createdAt).toISOString(),
    };
  }

  /**
   * A file `caller` may read in this project (M-142, M-163): a sent file to whoever sees its chat —
   * participants, history included, and observers (a non-member owner reading along); a library file
   * to the project's members; an unsent upload to its uploader. Anyone else: not_found, like a missing id.
   */
  async function readable(caller: Caller, ref: ProjectRef, attachmentId: string) {
    const notFound = () => HubError.notFound("file not found");
    const project = await projectOf(db, ref);
    if (!project || attachmentId.length > 100) throw notFound();
    const file = await db.attachment.findUnique({ where: { id: attachmentId }, select: fileSelect });
    if (!file) throw notFound();
    if (file.eventSeq !== null && file.conversationId !== null) {
      const [row] = await readKeys(db, caller, {
        projectId: project.id,
        observed: true,
        conversationKey: file.conversationId,
        lean: true,
      });
      if (!row) throw notFound();
      return { file, conversation: row };
    }
    if (file.libraryProjectId !== null) {
      if (file.libraryProjectId !== project.id) throw notFound();
      await memberProject(db, caller, ref).catch(() => {
        throw notFound();
      });
      return { file, conversation: null };
    }
    const project_ = await db.project.findUniqueOrThrow({ where: { id: project.id }, select: { bayId: true } });
    if (file.uploaderId !== caller.id || file.bayId !== project_.bayId) throw notFound();
    return { file, conversation: null };
  }
}
export type LibraryService = ReturnType<typeof libraryService>;
