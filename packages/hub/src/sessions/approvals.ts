import { randomBytes } from "node:crypto";
import {
  type ApprovalState,
  type ApprovalView,
  approvalFallback,
  checkDecision,
  eventId,
  HubError,
  humanId,
  type requestApprovalInput,
} from "@maity/domain";
import type { Db } from "@maity/db";
import type { z } from "zod";
import type { AgentCaller, Caller } from "../access/caller.ts";
import { resolveConversation } from "../access/resolve.ts";
import type { KeyRow } from "../access/visibility.ts";
import type { AgentService } from "../agents/service.ts";
import type { LiveBus } from "../delivery/bus.ts";
import type { MessagesService } from "../messages/service.ts";
import { executorOf, writeQuietLine } from "../messages/quiet.ts";
import { publishChanged } from "../messages/reactions.ts";

// Approvals (issue 30, DESIGN §4e, B-313): request_approval posts a decision card (card.decision)
// addressed to ONE person and its row in the same write (nothing half-written); await_approval holds
// until that person decides or the wait ends; only the approver decides, once — in the dashboard's
// card or POST /api/approvals/{id}. The decision is a quiet line under the card ("Olga approved: …").

const notFound = () => HubError.notFound("approval not found").named("APPROVAL_NOT_FOUND");
const APPROVAL_SELECT = {
  id: true,
  sessionId: true,
  conversationId: true,
  eventSeq: true,
  approverId: true,
  question: true,
  options: true,
  status: true,
  choice: true,
  decidedById: true,
  decidedAt: true,
} as const;
type Row = {
  id: string;
  sessionId: string;
  conversationId: string;
  eventSeq: number;
  approverId: string;
  question: string;
  options: string[];
  status: string;
  choice: string | null;
  decidedById: string | null;
  decidedAt: Date | null;
};

export function approvalService(db: Db, bus: LiveBus, messages: MessagesService, agents: AgentService) {
  async function names(ids: string[]): Promise<Map<string, string>> {
    const [humans, sessions] = await Promise.all([
      db.human.findMany({ where: { id: { in: ids } }, select: { id: true, displayName: true } }),
      db.agent.findMany({
        where: { id: { in: ids } },
        select: { id: true, handle: true, owner: { select: { handle: true } } },
      }),
    ]);
    return new Map([
      ...humans.map((h) => [h.id, h.displayName] as const),
      ...sessions.map((a) => [a.id, `${a.owner.handle}/${a.handle}`] as const),
    ]);
  }

  async function state(row: Row): Promise<ApprovalState> {
    const known = await names([row.approverId, ...(row.decidedById ? [row.decidedById] : [])]);
    const person = (id: string) => ({ id, name: known.get(id) ?? id });
    return {
      approvalId: row.id,
      status: row.status as ApprovalState["status"],
      choice: row.choice,
      by: row.decidedById ? person(row.decidedById) : null,
      question: row.question,
      options: row.options,
      approver: person(row.approverId),
      conversationId: row.conversationId,
      messageId: eventId(row.eventSeq),
      decidedAt: row.decidedAt?.toISOString() ?? null,
    };
  }

  /** The approval as a person who can read its room sees it; anyone else meets it as missing. */
  async function forReader(caller: Caller, approvalId: string): Promise<{ row: Row; room: KeyRow }> {
    const row = await db.approval.findUnique({ where: { id: approvalId }, select: APPROVAL_SELECT });
    if (!row) throw notFound();
    const conversation = await db.conversation.findUniqueOrThrow({
      where: { id: row.conversationId },
      select: { publicId: true, project: { select: { slug: true, bay: { select: { handle: true } } } } },
    });
    const ref = { owner: conversation.project.bay.handle, slug: conversation.project.slug };
    const room = await resolveConversation(db, caller, ref, conversation.publicId, { lean: true }).catch(
      (error: unknown) => {
        if (error instanceof HubError && error.code === "not_found") throw notFound();
        throw error;
      },
    );
    if (room.key !== row.conversationId) throw notFound();
    return { row, room };
  }

  return {
    /** request_approval: the card from the session, to one person of the room (its own by default). */
    async request(session: AgentCaller, input: z.output<typeof requestApprovalInput>): Promise<ApprovalState> {
      const room = await agents.room(session, input.conversationId, true);
      if (!room) throw HubError.notFound("conversation not found").named("NOT_PARTICIPANT");
      const wanted = input.approver ?? session.ownerId;
      const approverId = wanted.startsWith("hum-") ? wanted : humanId(wanted.replace(/^@/, "").toLowerCase());
      const [inRoom, approver] = await Promise.all([
        db.participation.findFirst({
          where: { conversationId: room.key, memberId: approverId, leftAt: null },
          select: { id: true },
        }),
        db.human.findUnique({ where: { id: approverId }, select: { handle: true, displayName: true } }),
      ]);
      if (!inRoom || !approver)
        throw HubError.invalid(
          { approver: "not_in_room" },
          "the approver is a person in this room (a member id or @handle); by default your own person",
        );
      const id = `apr-${randomBytes(12).toString("base64url")}`;
      const options = input.options ?? [];
      const payload = {
        approvalId: id,
        question: input.question,
        options,
        approver: { id: approverId, name: approver.displayName },
        askedBy: session.id,
      };
      const written = await messages.writeIn(session, room, {
        body: approvalFallback(approver.handle, input.question, options),
        metadata: { type: "card.decision" },
        card: { type: "card.decision", payload },
        within: async (tx, seq) => {
          await tx.query(
            `INSERT INTO approvals (id, session_id, conversation_id, event_seq, approver_id, question, options)
             VALUES ($1, $2, $3, $4, $5, $6, $7::text[])`,
            [id, session.id, room.key, seq, approverId, input.question, options],
          );
        },
      });
      return state({
        id,
        sessionId: session.id,
        conversationId: room.key,
        eventSeq: written.message.seq,
        approverId,
        question: input.question,
        options,
        status: "pending",
        choice: null,
        decidedById: null,
        decidedAt: null,
      });
    },

    /**
     * await_approval: the session's own approval, held up to `wait` seconds for the decision (a
     * decision on any instance reaches it by the bus's message_changed; a re-read decides).
     */
    async await(session: AgentCaller, approvalId: string, wait: number, signal?: AbortSignal): Promise<ApprovalState> {
      const read = () => db.approval.findUnique({ where: { id: approvalId }, select: APPROVAL_SELECT });
      let row = await read();
      if (!row || row.sessionId !== session.id) throw notFound();
      const until = Date.now() + wait * 1000;
      while (row.status === "pending" && Date.now() < until && !signal?.aborted) {
        const seq = row.eventSeq;
        await new Promise<void>((resolve) => {
          const done = () => {
            clearTimeout(timer);
            unsubscribe();
            signal?.removeEventListener("abort", done);
            resolve();
          };
          // A second's re-read too: a decision published while the bus was down is still found.
          const timer = setTimeout(done, Math.min(1000, Math.max(0, until - Date.now())));
          const unsubscribe = bus.subscribe((m) => {
            if (m.type === "message_changed" && m.seq === seq) done();
          }, "message_changed");
          signal?.addEventListener("abort", done, { once: true });
        });
        row = (await read()) ?? row;
      }
      return state(row);
    },

    /** GET /api/approvals/{id}: the card's state for a reader of its room; `can_decide` for its approver. */
    async view(caller: Caller, approvalId: string): Promise<ApprovalView> {
      const { row } = await forReader(caller, approvalId);
      return viewOf(row, caller.id);
    },

    /** POST /api/approvals/{id}: the approver decides, once; the room reads it as a quiet line. */
    async decide(
      caller: Caller,
      input: { approval_id: string; decision: "approved" | "denied"; choice?: string | undefined },
    ): Promise<ApprovalView> {
      const { row, room } = await forReader(caller, input.approval_id);
      const verdict = checkDecision(row, caller.id, input.decision, input.choice);
      if (!verdict.ok) {
        if (verdict.reason === "not_approver")
          throw HubError.forbidden("not_approver", "only the person the approval asks decides it");
        if (verdict.reason === "decided")
          throw new HubError("conflict", `this approval was ${row.status} already`, { reason: "decided" });
        throw HubError.invalid(
          { choice: row.options.length && input.decision === "approved" ? "one_of_the_options" : "not_expected" },
          row.options.length && input.decision === "approved"
            ? `approve with one of: ${row.options.join(", ")}`
            : "a choice comes only with an approval that offers options",
        );
      }
      const decider = caller.kind === "human" ? caller.name : caller.handle;
      const line = await db.$transaction(async (tx) => {
        const done = await tx.approval.updateMany({
          where: { id: row.id, status: "pending" },
          data: { status: input.decision, choice: verdict.choice, decidedById: caller.id, decidedAt: new Date() },
        });
        if (done.count !== 1)
          throw new HubError("conflict", "this approval was decided already", { reason: "decided" });
        return writeQuietLine(executorOf(tx), room, {
          type: "approval.decided",
          actor: caller.id,
          subject: row.id,
          body:
            input.decision === "approved"
              ? `${decider} approved${verdict.choice ? `: ${verdict.choice}` : ""} — ${row.question}`
              : `${decider} denied — ${row.question}`,
        });
      });
      if (line) bus.publish(line);
      await publishChanged(db, bus, room, row.eventSeq, "approval");
      const after = await db.approval.findUniqueOrThrow({ where: { id: row.id }, select: APPROVAL_SELECT });
      return viewOf(after, caller.id);
    },
  };

  async function viewOf(row: Row, readerId: string): Promise<ApprovalView> {
    const known = await names([row.approverId, row.sessionId, ...(row.decidedById ? [row.decidedById] : [])]);
    const person = (id: string) => ({ id, name: known.get(id) ?? id });
    return {
      id: row.id,
      status: row.status as ApprovalView["status"],
      choice: row.choice,
      decided_by: row.decidedById ? person(row.decidedById) : null,
      decided_at: row.decidedAt?.toISOString() ?? null,
      question: row.question,
      options: row.options,
      approver: person(row.approverId),
      asked_by: person(row.sessionId),
      can_decide: row.status === "pending" && row.approverId === readerId,
    };
  }
}
export type ApprovalService = ReturnType<typeof approvalService>;
