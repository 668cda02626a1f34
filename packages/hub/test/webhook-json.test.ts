import { createHash } from "node:crypto";
import {
  type ContextEnvelope,
  type HistoryTurn,
  joinInstructions,
  type ReplyPolicy,
  roomInstructions,
  type UpdatesEvent,
  type WebhookDelivery,
} from "@maity/domain";
import { describe, expect, it } from "vitest";
import { bodyBytes, bodyTemplate, instructionsJson } from "../src/delivery/webhookJson.ts";

// 004 §11 (B-162…B-177): a body made from a fan-out's shared template is, byte for byte, the
// JSON.stringify of the whole WebhookDelivery as each delivery was built alone — for every agent,
// whatever its verdict, file count, place in the roster or the room's reply policy.
const participants: ContextEnvelope["participants"] = [
  { id: "hum-ann", name: "Ann \u2028 \u{1F600}", kind: "user", role: "owner", visiting: null },
  { id: "agt-1", name: "Claude", kind: "agent", role: "member", description: 'General — "quoted"', visiting: null },
  {
    id: "agt-2",
    name: "Ops \u00e9",
    kind: "agent",
    role: "member",
    description: "Deploys",
    visiting: { homeBay: "Other", sponsor: { id: "hum-bob", name: "Bob" } },
  },
  { id: "agt-3", name: "Third", kind: "agent", role: "member", visiting: null },
];
const event = {
  type: "message",
  conversationId: "cnv-1",
  conversation: { id: "cnv-1", type: "GROUP", title: "Release \u{1F680}" },
  project: { id: "prj-1", name: "Maity", version: 0 },
  message: { id: "evt-9", content: 'Ship it\n\u0007 now \\ "ok"', senderId: "hum-ann", shouldRespond: false },
} as unknown as UpdatesEvent;
const history = [
  { id: "evt-7", senderId: "agt-1", senderName: "Claude", senderType: "AGENT", content: "é \ud83d", createdAt: "x" },
  {
    id: "evt-8",
    senderId: "hum-ann",
    senderName: "Ann",
    senderType: "USER",
    content: "hi",
    createdAt: "y",
    replyTo: null,
  },
] as unknown as HistoryTurn[];

function room(policy: ReplyPolicy, designated: string | null) {
  const shared: Omit<ContextEnvelope, "you" | "instructions" | "instructionsSha256"> = {
    conversation: { id: "cnv-1", type: "GROUP" as const, title: "Release \u{1F680}" },
    project: { id: "prj-1", name: "Maity", version: 0 },
    participants,
    policy: { rule: policy, effectiveRule: policy, policyApplies: true, maxAgentRounds: 2 },
  };
  const forReader = roomInstructions({
    conversation: { type: "GROUP", title: "Release \u{1F680}" },
    roster: participants.map((p) => ({
      id: p.id,
      name: p.name,
      kind: p.kind === "agent" ? "agent" : "human",
      description: p.description ?? "",
      visiting: p.visiting ?? null,
    })),
    policy,
    designatedAgentId: designated,
    maxAgentRounds: 2,
    customRules: "Be brief.\n\u2029 Really.",
  });
  return { shared, forReader };
}

describe("webhook bodies from a fan-out's template", () => {
  for (const [policy, designated] of [
    ["OPEN", null],
    ["ORCHESTRATOR", "agt-2"],
    ["DEDICATED", "agt-1"],
    ["MENTIONS", null],
  ] as const)
    it(`B-164 B-168 ${policy}: every agent's body is JSON.stringify of the body built alone`, () => {
      const { shared, forReader } = room(policy, designated);
      const encode = instructionsJson();
      for (const replyTo of [undefined, { id: "evt-3", senderId: "agt-1", senderType: "AGENT", preview: "é" }]) {
        const sender = { id: "hum-ann", name: "Ann", type: "USER" } as unknown as WebhookDelivery["sender"];
        const template = bodyTemplate({
          event,
          sender,
          replyTo: replyTo as WebhookDelivery["replyTo"],
          envelope: shared,
          history,
        });
        for (const [i, agent] of ["agt-1", "agt-2", "agt-3", "agt-gone"].entries()) {
          const shouldRespond = i % 2 === 0;
          const fileCount = i * 7;
          const you = {
            id: agent,
            name: participants.find((p) => p.id === agent)?.name ?? agent,
            isOrchestrator: policy === "ORCHESTRATOR" && designated === agent,
          };
          const pieces = forReader({ id: you.id, name: you.name });
          const text = joinInstructions(pieces);
          const instructionsSha256 = createHash("sha256").update(text).digest("hex");
          const context: ContextEnvelope = { ...shared, you, instructions: text, instructionsSha256 };
          const message = { ...event.message, shouldRespond };
          const project = {
            ...event.project,
            notes: {
              pinned: i ? [{ id: "note-1", title: "Tiers \u{1F680}", version: i }] : [],
              shelfCount: i,
              fileCount,
            },
          };
          const alone: WebhookDelivery = {
            event: "message.created",
            deliveryId: `wd-${agent}`,
            conversationId: event.conversationId,
            conversation: event.conversation,
            project,
            message,
            sender,
            replyTo: replyTo as WebhookDelivery["replyTo"],
            participants: context.participants,
            instructions: context.instructions,
            instructionsSha256,
            context,
            you: { ...context.you, shouldRespond },
            history,
          };
          const bytes = bodyBytes(template, {
            deliveryId: `wd-${agent}`,
            project,
            message: Buffer.from(JSON.stringify(message)),
            shouldRespond,
            you,
            instructions: encode(pieces),
            instructionsSha256,
          });
          expect(bytes.toString()).toBe(JSON.stringify(alone));
          expect(bytes.equals(Buffer.from(JSON.stringify(alone)))).toBe(true);
        }
      }
    });
});
