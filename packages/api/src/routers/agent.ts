import {
  type AgentOperation,
  type AgentOperationName,
  type AgentOperationOutput,
  agentOperations as ops,
  featuresOf,
  HubError,
  isHubError,
} from "@maity/domain";
import { CursorExpired, type Hub, isOriginalFlag, signAgentMessage, signerOf } from "@maity/hub";
import type { z } from "zod";
import { agentProcedure, preauthProcedure, router, toTRPCError } from "../trpc.ts";
import { agentPollProcedures } from "./polls.ts";

// The agent API (004 §2–§7, §11) as procedures of the one router: each is an operation of
// @maity/domain's table (method, path, input, output), served by the REST adapter in the
// protocol's error style and documented by the one OpenAPI generator. Input is parsed here, at the
// edge; the hub's services take the typed values.

type Out<K extends AgentOperationName> = Promise<AgentOperationOutput<K>>;

type Respond = { respond?: (output: never) => { status: number; body: unknown } };
/** The procedure of an agent's operation: its meta and its input schema. */
const operation = <O extends AgentOperation>(op: O, extra: Respond = {}) =>
  agentProcedure.meta({ agent: { ...op, ...extra } }).input(op.input as O["input"]);
/** The pre-auth pairing routes: anyone may call them, within a budget per address. */
const preauth = <O extends AgentOperation>(op: O) => preauthProcedure.meta({ agent: op }).input(op.input as O["input"]);

/** B-181, B-185: signs a reader's files on MAITY_PUBLIC_URL, else the request's own origin (ctx.baseUrl). */
const signerFor = (ctx: { hub: Hub; baseUrl?: string | undefined }) =>
  signerOf(ctx.hub.fileKeys, ctx.baseUrl ?? ctx.hub.publicUrl ?? "");

/** B-038, B-100: a room the agent is not in — known or not — is NOT_PARTICIPANT, never "not found". */
const notParticipant = () =>
  toTRPCError(
    HubError.forbidden("not_participant", "you are not a participant of this conversation", {
      agentCode: "NOT_PARTICIPANT",
    }),
  );

/** A send and whether it repeats an earlier one (Idempotency-Key or clientMessageId: 200, not 201). */
type Sent = { replayed: boolean; message: AgentOperationOutput<"send"> };

export const agentRouter = router({
  me: operation(ops.me).query(({ ctx }): Out<"me"> => ctx.hub.agents.me(ctx.caller)),
  conversations: operation(ops.conversations).query(
    async ({ ctx }): Out<"conversations"> => ({ conversations: await ctx.hub.agents.rooms(ctx.caller) }),
  ),
  project: operation(ops.project).query(async ({ ctx, input }): Out<"project"> => {
    const row = await ctx.hub.agents.room(ctx.caller, input.conversationId, true);
    if (!row) throw notParticipant();
    return ctx.hub.brief.forAgent(ctx.caller, row);
  }),
  context: operation(ops.context).query(async ({ ctx, input }): Out<"context"> => {
    const context = await ctx.hub.agents.context(ctx.caller, input.conversationId, featuresOf(input.features));
    if (!context) throw notParticipant();
    return context;
  }),
  // v1.9 (B-323): a persistent agent enters its Bay's shared Sessions group.
  joinSessionGroup: operation(ops.joinSessionGroup).mutation(
    ({ ctx }): Out<"joinSessionGroup"> => ctx.hub.sessions.joinSessionGroup(ctx.caller),
  ),
  // v1.16 context reports: compact_end and session_start re-arm the brief and the notes (B-254, B-270).
  contextReport: operation(ops.contextReport).mutation(({ ctx, input }): Out<"contextReport"> => {
    const { idempotencyKey, ...report } = input;
    return ctx.hub.memory.report(ctx.caller, report, idempotencyKey ?? null);
  }),
  // §6 the rolling summary: never waits for its generator (B-111); not in the room → NOT_PARTICIPANT (B-038).
  summary: operation(ops.summary).query(async ({ ctx, input }): Out<"summary"> => {
    const answer = await ctx.hub.summaries.forAgent(ctx.caller, input.conversationId);
    if (!answer) throw notParticipant();
    // B-185: the tail's files signed afresh, on the base URL this reader uses.
    const sign = signerFor(ctx);
    return { ...answer, messages: answer.messages.map((m) => signAgentMessage(m, sign)) };
  }),
  // v1.17 notes (B-241…B-248): a room the agent is not in is NOT_PARTICIPANT (B-038).
  notes: operation(ops.notes).query(async ({ ctx, input }): Out<"notes"> => {
    const list = await ctx.hub.notes.agentList(ctx.caller, input.conversationId);
    if (!list) throw notParticipant();
    return list;
  }),
  noteCreate: operation(ops.noteCreate).mutation(async ({ ctx, input }): Out<"noteCreate"> => {
    const note = await ctx.hub.notes.agentCreate(ctx.caller, input);
    if (!note) throw notParticipant();
    return note;
  }),
  noteGet: operation(ops.noteGet).query(
    ({ ctx, input }): Out<"noteGet"> => ctx.hub.notes.agentGet(ctx.caller, input.noteId, input.conversationId),
  ),
  notePatch: operation(ops.notePatch).mutation(
    ({ ctx, input }): Out<"notePatch"> => ctx.hub.notes.agentPatch(ctx.caller, input),
  ),
  messages: operation(ops.messages).query(async ({ ctx, input }): Out<"messages"> => {
    const { conversationId, ...query } = input;
    const page = await ctx.hub.agents.poll(ctx.caller, conversationId, query);
    if (!page) throw notParticipant();
    // B-185: every read signs its files afresh, on the base URL this reader uses.
    const sign = signerFor(ctx);
    return { ...page, messages: page.messages.map((m) => signAgentMessage(m, sign)) };
  }),
  // B-116: not in the room → 404, the same as an unknown id.
  send: operation(ops.send, {
    respond: (out: Sent) => ({ status: out.replayed ? 200 : 201, body: out.message }),
  }).mutation(async ({ ctx, input }): Promise<Sent> => {
    const { conversationId, idempotencyKey, ...data } = input;
    const sent = await ctx.hub.agents.send(ctx.caller, conversationId, data, idempotencyKey ?? null);
    return { ...sent, message: signAgentMessage(sent.message, signerFor(ctx)) };
  }),
  typing: operation(ops.typing).mutation(async ({ ctx, input }): Out<"typing"> => {
    await ctx.hub.agents.typing(ctx.caller, input.conversationId);
    return { ok: true };
  }),
  // B-203…B-210: the file library; a room the agent is not in is NOT_PARTICIPANT (B-038), a file outside it 404.
  files: operation(ops.files).query(async ({ ctx, input }): Out<"files"> => {
    const row = await ctx.hub.agents.room(ctx.caller, input.conversationId);
    if (!row) throw notParticipant();
    return ctx.hub.library.agentListing(ctx.caller, row);
  }),
  fileLink: operation(ops.fileLink).query(async ({ ctx, input }): Out<"fileLink"> => {
    const row = await ctx.hub.agents.room(ctx.caller, input.conversationId);
    if (!row) throw notParticipant();
    const link = await ctx.hub.library.agentLink(ctx.caller, row, input.attachmentId, signerFor(ctx));
    if (!link) throw toTRPCError(HubError.notFound("no such file in this conversation's listing"));
    return link;
  }),
  // DESIGN §4d: only what the agent may read now; a room it is not in matches nothing (hidden = none found).
  search: operation(ops.search).query(async ({ ctx, input }): Out<"search"> => {
    const found = await ctx.hub.search.agent(ctx.caller, input);
    // B-185: the files of what it finds, signed like every read's.
    const sign = signerFor(ctx);
    return { ...found, results: found.results.map((r) => ({ ...r, message: signAgentMessage(r.message, sign) })) };
  }),
  agents: operation(ops.agents).query(
    async ({ ctx }): Out<"agents"> => ({ agents: await ctx.hub.agents.directory(ctx.caller) }),
  ),
  contact: operation(ops.contact).mutation(
    async ({ ctx, input }): Out<"contact"> =>
      signAgentMessage(await ctx.hub.agents.contact(ctx.caller, input), signerFor(ctx)),
  ),
  updates: operation(ops.updates).query(async ({ ctx, input }): Out<"updates"> => {
    // The held call watches its token; revoked or rotated meanwhile, it answers the
    // 401 a revoked token gets (B-011), and no event written after the revocation.
    const watch = await ctx.hub.auth.watch(ctx.caller, ctx.credential ?? null);
    try {
      const page = await ctx.hub.feed.updates(
        ctx.caller,
        input as z.output<typeof ops.updates.input>,
        ctx.signal,
        watch,
      );
      const sign = signerFor(ctx);
      return { ...page, events: page.events.map((e) => ({ ...e, message: signAgentMessage(e.message, sign) })) };
    } catch (error) {
      // B-138: the one error a poller must handle, as the spec writes it.
      if (error instanceof CursorExpired || (error as Error | null)?.name === "CursorExpired")
        throw toTRPCError(
          new HubError("conflict", "cursor_expired", { reason: "cursor_expired" }, { agentCode: "CURSOR_EXPIRED" }),
        );
      if (isHubError(error)) throw toTRPCError(error);
      throw error;
    } finally {
      watch.stop();
    }
  }),
  webhookSet: operation(ops.webhookSet).mutation(
    ({ ctx, input }): Out<"webhookSet"> => ctx.hub.webhooks.set(ctx.caller, input),
  ),
  webhookGet: operation(ops.webhookGet).query(({ ctx }): Out<"webhookGet"> => ctx.hub.webhooks.get(ctx.caller)),
  webhookRemove: operation(ops.webhookRemove).mutation(async ({ ctx }): Out<"webhookRemove"> => {
    await ctx.hub.webhooks.remove(ctx.caller);
    return null;
  }),
  // B-186: multipart, REST only — the adapter hands over the body stream (ctx.rest).
  upload: operation(ops.upload).mutation(async ({ ctx, input }): Out<"upload"> => {
    if (!ctx.rest) throw toTRPCError(HubError.notFound("no such procedure"));
    const { attachmentId, size, mimeType, thumbhash, fileName } = await ctx.hub.files.uploadMultipart(ctx.caller, {
      body: ctx.rest.body,
      contentType: ctx.rest.contentType,
      original: isOriginalFlag(input.original),
    });
    return { attachmentId, size, mimeType, thumbhash, fileName };
  }),
  pair: preauth(ops.pair).mutation(({ ctx, input }): Out<"pair"> => ctx.hub.pairing.redeem(input, ctx.baseUrl ?? "")),
  link: preauth(ops.link).mutation(
    ({ ctx, input }): Out<"link"> => ctx.hub.pairing.createLink(input, ctx.baseUrl ?? ""),
  ),
  linkPoll: preauth(ops.linkPoll).mutation(({ ctx, input }): Out<"linkPoll"> => {
    const { id, ...secret } = input;
    return ctx.hub.pairing.pollLink(id, secret, ctx.baseUrl ?? "");
  }),
  // v1.12 polls (B-226 … B-240) and reactions (routers/polls.ts).
  ...agentPollProcedures,
});
