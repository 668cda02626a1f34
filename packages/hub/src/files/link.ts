import { type Attachment, attachmentLinkFailed } from "@maity/domain";
import type { Db, SqlExecutor } from "@maity/db";
import type { Caller } from "../access/caller.ts";
import type { KeyRow } from "../access/visibility.ts";
import { metadataOf } from "./library.ts";

// Linking a send's files to its message (B-198…B-202, M-030): all or nothing. The rows are read before
// the write (to render the §8.7 metadata the message carries) and linked inside the message's
// transaction with one guarded UPDATE, so a race (the same upload sent twice at once) rolls it back.

/**
 * The write's `attachments` and `within` for these ids, or {} when there are none. Every id must be the
 * caller's own unsent, undeleted upload; else 409, never naming which id (B-202), and nothing is
 * written. An upload belongs to its uploader until it is linked and then to the room's Bay (issue 29):
 * a visiting agent sends its own file into a room it was placed in like anyone in it. `retryable`:
 * the send carries an idempotency key.
 */
/** What the write takes from a send's files: their metadata and the link, run in the message's transaction. */
export interface LinkedFiles {
  attachments?: Attachment[];
  within?: (tx: SqlExecutor, seq: number, sentAt: Date) => Promise<void>;
}

export async function linkAttachments(
  db: Db,
  caller: Caller,
  row: KeyRow,
  ids: string[],
  retryable = false,
): Promise<LinkedFiles> {
  if (ids.length === 0) return {};
  const [project, files] = await Promise.all([
    db.project.findUniqueOrThrow({ where: { id: row.projectId }, select: { bayId: true } }),
    db.attachment.findMany({
      where: { id: { in: ids } },
      select: {
        id: true,
        bayId: true,
        uploaderId: true,
        mimeType: true,
        sizeBytes: true,
        thumbhash: true,
        width: true,
        height: true,
        eventSeq: true,
        libraryProjectId: true,
        deletedAt: true,
      },
    }),
  ]);
  const byId = new Map(files.map((f) => [f.id, f]));
  const linkable = (id: string) => {
    const f = byId.get(id);
    return (
      f !== undefined &&
      f.uploaderId === caller.id &&
      f.eventSeq === null &&
      f.libraryProjectId === null &&
      f.deletedAt === null
    );
  };
  if (!ids.every(linkable)) {
    // A retried send (same idempotency key) answers its first message, whose files are
    // linked already; the write replays before `within`, which refuses anything else.
    if (retryable)
      return {
        within: async () => {
          throw attachmentLinkFailed();
        },
      };
    throw attachmentLinkFailed();
  }
  const attachments: Attachment[] = ids.map((id) => metadataOf(byId.get(id) as (typeof files)[number]));
  const within = async (tx: SqlExecutor, seq: number, sentAt: Date) => {
    // Position = render order; the guard repeats the checks, so a concurrent link counts short.
    const linked = await tx.query<{ id: string }>(
      `UPDATE attachments SET event_seq = $1, conversation_id = $2, linked_at = $3::timestamp,
         position = array_position($4::text[], id) - 1, bay_id = $6
       WHERE id = ANY($4::text[]) AND event_seq IS NULL AND library_project_id IS NULL
         AND deleted_at IS NULL AND uploader_id = $5
       RETURNING id`,
      [seq, row.key, sentAt.toISOString(), ids, caller.id, project.bayId],
    );
    if (linked.length !== ids.length) throw attachmentLinkFailed();
  };
  return { attachments, within };
}
