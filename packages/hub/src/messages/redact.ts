import { HubError, isHubError, type Message, type ProjectRef, type redactInput, seqOfText } from "@maity/domain";
import type { z } from "zod";
import type { Db } from "@maity/db";
import { conversationNotFound, projectOf, refuseObserver, resolveConversation } from "../access/resolve.ts";
import { takeAppendLock } from "../delivery/append.ts";
import type { LiveBus } from "../delivery/bus.ts";
import { REDACTION_COUNTERS_SQL } from "../conversations/counters.ts";
import type { Caller } from "../access/caller.ts";
import { deleteBlobs, tombstoneFiles } from "../files/library.ts";
import type { BlobStore } from "../files/store.ts";
import type { KeyRow } from "../access/visibility.ts";
import { messageSelect, readerOf, renderMessage } from "./render.ts";

// The redaction path (§8.5, §9.2): who may redact, erasing the message's bytes and files, the live
// feed's notice.

export function messageRedaction(db: Db, bus: LiveBus, blobs: BlobStore | undefined) {
  return {
    /**
     * §8.5 / §9.2 Redaction: a human participant (or party) redacts; in a closed chat its former
     * human participants still do. No agent and no observer redacts. The bytes go: body and
     * mentions are erased in the log, the message keeps its seq.
     */
    async redact(
      caller: Caller,
      ref: ProjectRef,
      conversationId: string,
      seqParam: string,
      data: z.output<typeof redactInput>,
    ): Promise<Message> {
      const seq = seqOfText(seqParam);
      const row = await resolveRedactor(caller, ref, conversationId);
      if (seq === null) throw HubError.notFound("message not found");
      const redacted = await db.$transaction(async (tx) => {
        // Under the append lock: a write's counters and this one's never wait on each other (counters.ts).
        await takeAppendLock(tx);
        const event = await tx.event.findFirst({
          where: { seq, conversationId: row.key, kind: "message" },
          select: { seq: true, redacted: true },
        });
        if (!event) throw HubError.notFound("message not found");
        let blobKeys: string[] = [];
        if (!event.redacted) {
          // §9.2: mentions_unread counts messages that mention the reader; the erased mentions no longer do.
          await tx.$executeRawUnsafe(REDACTION_COUNTERS_SQL, seq);
          await tx.event.update({ where: { seq }, data: { redacted: true, body: null, mentions: [] } });
          await tx.redaction.create({ data: { eventSeq: seq, byId: caller.id, reason: data.reason ?? null } });
          // §8.5, M-039: the files are tombstoned with the redaction; their bytes go once it commits.
          blobKeys = await tombstoneFiles(tx, seq);
        }
        const audience = await tx.eventAudience.findMany({ where: { eventSeq: seq }, select: { memberId: true } });
        return {
          event: await tx.event.findUniqueOrThrow({ where: { seq }, select: messageSelect }),
          audience: audience.map((a) => a.memberId),
          changed: !event.redacted,
          blobKeys,
        };
      });
      if (blobs) await deleteBlobs(blobs, redacted.blobKeys);
      if (redacted.changed)
        bus.publish({
          type: "redaction",
          seq,
          conversationId: row.id,
          project: { owner: row.projectOwner, slug: row.projectSlug },
          audience: redacted.audience,
        });
      return renderMessage(redacted.event, await readerOf(db, caller, row.projectId));
    },
  };

  /**
   * The conversation for a redaction. A human participant or party redacts; in a closed chat its
   * former human participants still do — also one now reading along through its agent (§9.2
   * Closing). Agents and other observers do not (§8.5).
   */
  async function resolveRedactor(caller: Caller, ref: ProjectRef, conversationId: string): Promise<KeyRow> {
    const row = await resolveConversation(db, caller, ref, conversationId).catch((error: unknown) => {
      if (isHubError(error) && error.code === "not_found") return null;
      throw error;
    });
    if (row && row.access !== "observer") {
      if (caller.kind !== "human") throw HubError.forbidden("humans_only", "no agent redacts (§8.5)");
      return row;
    }
    if (caller.kind === "human") {
      const project = await projectOf(db, ref);
      const closed =
        project &&
        (await db.conversation.findFirst({
          where: {
            projectId: project.id,
            publicId: conversationId,
            kind: "group",
            closedAt: { not: null },
            participations: { some: { memberId: caller.id } },
          },
          select: {
            id: true,
            publicId: true,
            projectId: true,
            createdAt: true,
            createdById: true,
            closedAt: true,
            closedReason: true,
            title: true,
          },
        }));
      if (closed)
        return {
          ...(row ?? emptyRow),
          key: closed.id,
          id: closed.publicId,
          kind: "group",
          projectId: closed.projectId,
          access: "participant",
          title: closed.title,
          createdById: closed.createdById,
          createdAt: closed.createdAt,
          closedAt: closed.closedAt,
          closedReason: closed.closedReason,
        };
    }
    if (row) refuseObserver(row);
    throw conversationNotFound();
  }
}
const emptyRow: KeyRow = {
  key: "",
  id: "",
  kind: "group",
  projectId: "",
  projectOwner: "",
  projectSlug: "",
  projectName: "",
  projectVersion: 0,
  projectArchived: false,
  access: "participant",
  windowSeq: 0,
  marker: null,
  title: null,
  createdById: null,
  createdAt: new Date(0),
  closedAt: null,
  closedReason: null,
  agentId: null,
  agentJoinedAt: null,
  policy: { replyPolicy: "MENTIONS", designatedAgentId: null, maxAgentRounds: 2, customRules: null },
  last: null,
  unread: null,
  mentionsUnread: null,
  pinned: false,
};
