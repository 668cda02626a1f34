import type { Db } from "@maity/db";
import { renderAgentEvents, toUpdatesEvent } from "../messages/agentView.ts";
import type { LogEvent, LogLoader } from "./bus.ts";
import { logMessageSelect, renderMessage } from "../messages/service.ts";

// Reading the log back into the bus's events: only to fill a gap (a NOTIFY lost or late) or a stub
// (a payload too large for NOTIFY), once per process for all its listeners (bus.ts).

const GAP_LOAD_MAX = 5000;

export function logLoader(db: Db): LogLoader {
  return async (after, upTo) => {
    const rows = await db.event.findMany({
      where: { seq: { gt: after, lte: upTo } },
      orderBy: { seq: "asc" },
      take: GAP_LOAD_MAX,
      select: {
        ...logMessageSelect,
        audience: { select: { memberId: true } },
        conversation: {
          select: {
            ...logMessageSelect.conversation.select,
            project: {
              select: {
                id: true,
                name: true,
                bayId: true,
                briefVersion: true,
                slug: true,
                bay: { select: { handle: true } },
              },
            },
          },
        },
      },
    });
    const messages = new Map(
      (
        await renderAgentEvents(
          db,
          rows.filter((r) => r.kind === "message"),
        )
      ).map((r) => [r.row.seq, r]),
    );
    let prev = after;
    return rows.map((row): LogEvent => {
      const c = row.conversation;
      const rendered = messages.get(row.seq);
      const event: LogEvent = {
        type: "event",
        seq: row.seq,
        prev,
        kind: row.kind,
        sentAt: row.sentAt.toISOString(),
        conversationId: c?.publicId ?? null,
        project: c ? { owner: c.project.bay.handle, slug: c.project.slug } : null,
        audience: row.audience.map((a) => a.memberId),
        // A redaction reason shows to its redactor and admins only: a loaded copy carries none.
        ...(rendered
          ? {
              maity: renderMessage(row, { id: "", admin: false }),
              agent: { event: toUpdatesEvent(rendered), respond: rendered.respond },
            }
          : {}),
      };
      prev = row.seq;
      return event;
    });
  };
}
