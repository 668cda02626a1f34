import {
  agentName,
  type ConversationItem,
  cutPreview,
  type DirectItem,
  type GroupItem,
  type GroupView,
  meatProxyFields,
  replyPolicyOf,
  ringOf,
} from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import {
  type KeyRow,
  observersOf,
  type ParticipantRow,
  type Relation,
  readParticipants,
} from "../access/visibility.ts";

// What a visible conversation looks like (§9.1 direct item, §9.2 group view, §9.3 list item): the
// rows the read model chose (access/visibility.ts), rendered for one reader or for an event payload.

/** The reader of a rendering; null renders for an event payload, where meat_proxy_chat is nobody's. */
export type Reader = { id: string } | null;

function listParticipant(p: ParticipantRow, reader: Reader) {
  if (p.kind === "agent")
    return {
      member_id: p.memberId,
      kind: "agent" as const,
      handle: p.handle,
      name: agentName(p.ownerHandle ?? "", p.handle),
      // DESIGN §4b: the agent's ring, null when it never reported or its report is over 24 h old.
      context: ringOf(p.context, Date.now()),
      // DESIGN §4c: a visitor's placement (its Bay, its sponsor, what it reads, who wakes it); else null.
      visiting: p.placement
        ? {
            home_bay: p.placement.homeBay,
            sponsor: p.placement.sponsor,
            history: p.placement.history,
            wake: p.placement.wake,
          }
        : null,
      // DESIGN §4e: a terminal session carries its person (present only for sessions).
      ...(p.session ? { session: p.session } : {}),
    };
  const meat = meatProxyFields(
    { lead: p.lead, hands: p.hands, note: p.note },
    p.meatProxyChat,
    reader?.id === p.memberId,
  );
  return { member_id: p.memberId, kind: "human" as const, handle: p.handle, ...meat };
}

function lastMessage(row: KeyRow) {
  if (!row.last) return null;
  const redacted = row.last.redacted || row.last.body === null;
  return {
    seq: row.last.seq,
    from: row.last.from,
    body: redacted || row.last.body === null ? null : cutPreview(row.last.body),
    sent_at: row.last.sentAt.toISOString(),
    redacted,
  };
}

/** A §9.3 list item (the direct one is also the §9.1 GET answer). */
export function renderItem(row: KeyRow, participants: ParticipantRow[], reader: Reader): ConversationItem {
  const common = {
    id: row.id,
    last_message_at: row.last?.sentAt.toISOString() ?? null,
    pinned: row.pinned,
    last_message: lastMessage(row),
  };
  if (row.kind === "direct") {
    // The human party first, then the agent (§9.3 example).
    const ordered = [...participants].sort((a, b) => (a.kind === b.kind ? 0 : a.kind === "human" ? -1 : 1));
    const item: DirectItem = {
      ...common,
      kind: "direct",
      agent_id: row.agentId ?? row.id,
      title: null,
      participants: ordered.map((p) => listParticipant(p, reader)),
      access: "party",
      closed_at: null,
      unread: row.unread ?? 0,
      mentions_unread: 0,
    };
    return orderDirect(item);
  }
  const item: GroupItem = {
    id: row.id,
    kind: "group",
    title: row.title,
    created_at: row.createdAt.toISOString(),
    participants: participants.map((p) => listParticipant(p, reader)),
    observers: observersOf(participants),
    access: row.access === "observer" ? "observer" : "participant",
    closed_at: row.closedAt?.toISOString() ?? null,
    last_message_at: common.last_message_at,
    unread: row.access === "observer" ? null : (row.unread ?? 0),
    mentions_unread: row.access === "observer" ? null : (row.mentionsUnread ?? 0),
    pinned: row.pinned,
    last_message: common.last_message,
  };
  return item;
}

/** Field order as the §9.3 example shows it (JSON readers see the spec's shape). */
function orderDirect(item: DirectItem): DirectItem {
  return {
    id: item.id,
    kind: item.kind,
    agent_id: item.agent_id,
    title: item.title,
    participants: item.participants,
    access: item.access,
    closed_at: item.closed_at,
    last_message_at: item.last_message_at,
    unread: item.unread,
    mentions_unread: item.mentions_unread,
    pinned: item.pinned,
    last_message: item.last_message,
  };
}

/** The §9.2 conversation view of a group chat. */
export function renderView(
  row: Pick<
    KeyRow,
    "id" | "title" | "createdById" | "createdAt" | "closedAt" | "closedReason" | "pinned" | "policy"
  > & { access: Relation },
  participants: ParticipantRow[],
  reader: Reader,
): GroupView {
  return {
    id: row.id,
    kind: "group",
    title: row.title,
    created_by: row.createdById ?? "",
    created_at: row.createdAt.toISOString(),
    participants: participants.map((p) => ({
      ...listParticipant(p, reader),
      owner_id: p.kind === "agent" ? p.ownerId : null,
      joined_at: p.joinedAt.toISOString(),
    })),
    observers: observersOf(participants),
    closed_at: row.closedAt?.toISOString() ?? null,
    closed_reason: row.closedReason === "no_human" ? "no_human" : null,
    access: row.access === "observer" ? "observer" : "participant",
    pinned: row.pinned,
    // 004 §4: the policy its managers set (PATCH …/conversations/{id}).
    reply_policy: replyPolicyOf(row.policy.replyPolicy),
    designated_agent_id: row.policy.designatedAgentId,
    max_agent_rounds: row.policy.maxAgentRounds,
    custom_rules: row.policy.customRules,
  };
}

/** The view as it stands in a conversation_created/_updated payload: no caller's access, no pin (§9.3). */
export async function payloadView(tx: Tx | Db, conversationKey: string): Promise<Record<string, unknown>> {
  const c = await tx.conversation.findUniqueOrThrow({
    where: { id: conversationKey },
    select: {
      publicId: true,
      title: true,
      createdById: true,
      createdAt: true,
      closedAt: true,
      closedReason: true,
      replyPolicy: true,
      designatedAgentId: true,
      maxAgentRounds: true,
      customRules: true,
    },
  });
  const participants = (await readParticipants(tx, [conversationKey])).get(conversationKey) ?? [];
  const {
    access: _access,
    pinned: _pinned,
    ...view
  } = renderView(
    {
      id: c.publicId,
      title: c.title,
      createdById: c.createdById,
      createdAt: c.createdAt,
      closedAt: c.closedAt,
      closedReason: c.closedReason,
      pinned: false,
      access: "participant",
      policy: {
        replyPolicy: c.replyPolicy,
        designatedAgentId: c.designatedAgentId,
        maxAgentRounds: c.maxAgentRounds,
        customRules: c.customRules,
      },
    },
    participants,
    null,
  );
  return view;
}
