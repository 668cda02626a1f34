import { randomBytes } from "node:crypto";
import {
  FRESH_CLEAR_WINDOW_MS,
  FRESH_RELAY_WAIT_MS,
  FRESH_START_AUTO_PERCENT,
  type FreshStartView,
  freshStateOf,
  HANDOFF_NOTE_WINDOW_MS,
  handoffPrompt,
  HubError,
  relayStepAllowed,
  type relayHandoffReport,
} from "@maity/domain";
import type { Db } from "@maity/db";
import type { z } from "zod";
import type { AgentCaller, DeviceCaller, HumanCaller } from "../access/caller.ts";
import { readKeys } from "../access/visibility.ts";
import type { LiveBus } from "../delivery/bus.ts";
import { executorOf, writeQuietLine } from "../messages/quiet.ts";

// A fresh start with a handoff (004 §18, B-289…B-296), the server's side: the person asks (the
// session's owner alone; never for a session visiting another Bay), the session saves a handoff
// note with the handoffId (notes.ts calls takeHandoffNote in the note's own transaction), and only
// then may the relay hosting the session report it cleared, then fresh. Every state is a row: a
// restart (kill -9) loses nothing, and the rule "nothing cleared without a saved note" is a row check.

const notFound = () => HubError.notFound("session not found");
const handoffNotFound = () => HubError.notFound("no such fresh start of a session this computer hosts");

type FreshRow = {
  id: string;
  sessionId: string;
  conversationId: string;
  projectId: string;
  state: string;
  noteId: string | null;
  result: string | null;
  createdAt: Date;
  expiresAt: Date;
  noteSavedAt: Date | null;
};
const FRESH_SELECT = {
  id: true,
  sessionId: true,
  conversationId: true,
  projectId: true,
  state: true,
  noteId: true,
  result: true,
  createdAt: true,
  expiresAt: true,
  noteSavedAt: true,
} as const;

export function freshStartService(db: Db, bus: LiveBus) {
  /** The person's own session (hidden = missing for anyone else), with where it lives. */
  async function ownSession(person: HumanCaller, sessionId: string) {
    const session = await db.agentSession.findUnique({
      where: { agentId: sessionId },
      select: {
        agentId: true,
        humanId: true,
        bayId: true,
        name: true,
        endedAt: true,
        agent: { select: { handle: true } },
      },
    });
    if (!session || session.humanId !== person.id || session.endedAt) throw notFound();
    return session;
  }

  /** A fresh start of `session` (its person `personId`), asked by `requestedBy` (the person, or "auto"). */
  async function begin(
    session: { agentId: string; bayId: string; name: string },
    personId: string,
    conversationId: string | undefined,
    requestedBy: string,
  ): Promise<FreshStartView> {
    const [home, agent] = await Promise.all([
      db.human.findUniqueOrThrow({ where: { id: personId }, select: { bayId: true } }),
      db.agent.findUniqueOrThrow({ where: { id: session.agentId }, select: { handle: true } }),
    ]);
    if (session.bayId !== home.bayId)
      throw new HubError("conflict", "a session visiting another Bay cannot be started fresh there", {
        reason: "visiting",
      });
    const caller: AgentCaller = {
      kind: "agent",
      id: session.agentId,
      handle: agent.handle,
      ownerId: personId,
      instanceId: null,
    };
    const rooms = await readKeys(db, caller, { projectId: null, observed: false, lean: true });
    const room = conversationId
      ? rooms.find((r) => r.key === conversationId || r.id === conversationId)
      : rooms.filter((r) => r.closedAt === null).sort((a, b) => (b.last?.seq ?? 0) - (a.last?.seq ?? 0))[0];
    if (!room)
      throw HubError.invalid(
        { conversation_id: "not_in_it" },
        "the session is in no such conversation: the note is written from one of its rooms",
      );
    const now = new Date();
    const row = await db.$transaction(async (tx) => {
      // One at a time: the session's row is locked while its fresh starts are looked at.
      await tx.$queryRawUnsafe("SELECT agent_id FROM agent_sessions WHERE agent_id = $1 FOR UPDATE", session.agentId);
      // A fresh start whose note window ran out is over: cancelled, never cleared (B-293).
      await tx.freshStart.updateMany({
        where: { sessionId: session.agentId, state: "awaiting_note", expiresAt: { lte: now } },
        data: { state: "cancelled", finishedAt: now },
      });
      // A saved note no relay cleared within the hour: given up (freshStateOf says so too).
      await tx.freshStart.updateMany({
        where: {
          sessionId: session.agentId,
          state: { in: ["note_saved", "cleared"] },
          noteSavedAt: { lte: new Date(now.getTime() - FRESH_RELAY_WAIT_MS) },
        },
        data: { state: "cancelled", finishedAt: now },
      });
      const open = await tx.freshStart.findFirst({
        where: { sessionId: session.agentId, state: { in: ["awaiting_note", "note_saved"] } },
        select: { id: true },
      });
      if (open)
        throw new HubError("conflict", "a fresh start of this session is under way already", { reason: "under_way" });
      return tx.freshStart.create({
        data: {
          id: `hnd_${randomBytes(12).toString("base64url")}`,
          sessionId: session.agentId,
          conversationId: room.key,
          projectId: room.projectId,
          requestedBy,
          expiresAt: new Date(now.getTime() + HANDOFF_NOTE_WINDOW_MS),
        },
        select: FRESH_SELECT,
      });
    });
    return view(row, session);
  }

  function view(row: FreshRow, session: { agentId: string; name: string }): FreshStartView {
    return {
      handoff_id: row.id,
      session: { id: session.agentId, name: session.name },
      conversation_id: row.conversationId,
      state: freshStateOf(row, new Date()),
      created_at: row.createdAt.toISOString(),
      expires_at: row.expiresAt.toISOString(),
      note_id: row.noteId,
      result: row.result,
      prompt: handoffPrompt({ handoffId: row.id, conversationId: row.conversationId, date: row.createdAt }),
    };
  }

  return {
    /**
     * POST /api/sessions/{id}/fresh-start (B-289, B-294): the owner asks; the note is written from
     * `conversation_id` (a room the session is in) or the session's latest room. One at a time.
     */
    async request(person: HumanCaller, input: { session_id: string; conversation_id?: string | undefined }) {
      const session = await ownSession(person, input.session_id);
      return begin(session, person.id, input.conversation_id, person.id);
    },

    /**
     * B-289: a usage reading of a session at 95 % or more starts a fresh start by itself when its
     * person let it (fresh_start_at_95) and none is under way. A visiting session never (B-294).
     */
    async onReading(agent: AgentCaller, percent: number): Promise<void> {
      if (!agent.session || percent < FRESH_START_AUTO_PERCENT) return;
      const session = await db.agentSession.findUnique({
        where: { agentId: agent.id },
        select: { agentId: true, humanId: true, bayId: true, name: true, endedAt: true, freshAt95: true },
      });
      if (!session?.freshAt95 || session.endedAt) return;
      await begin(session, session.humanId, undefined, "auto").catch((error: unknown) => {
        // Under way already, visiting, or in no room: nothing starts by itself.
        if (!(error instanceof HubError)) throw error;
      });
    },

    /** GET /api/me/sessions: the person's live terminal sessions, each Bay, device and fresh start. */
    async mine(person: HumanCaller) {
      const sessions = await db.agentSession.findMany({
        where: { humanId: person.id, endedAt: null },
        select: {
          agentId: true,
          name: true,
          bayId: true,
          deviceId: true,
          runtime: true,
          joinedAt: true,
          freshAt95: true,
        },
        orderBy: { joinedAt: "desc" },
      });
      const [bays, devices, fresh] = await Promise.all([
        db.bay.findMany({ where: { id: { in: sessions.map((s) => s.bayId) } }, select: { id: true, handle: true } }),
        db.device.findMany({
          where: { id: { in: sessions.map((s) => s.deviceId) } },
          select: { id: true, label: true },
        }),
        db.freshStart.findMany({
          where: { sessionId: { in: sessions.map((s) => s.agentId) } },
          orderBy: { createdAt: "desc" },
          select: FRESH_SELECT,
        }),
      ]);
      const home = await db.human.findUniqueOrThrow({ where: { id: person.id }, select: { bayId: true } });
      const now = new Date();
      return {
        items: sessions.map((s) => {
          const latest = fresh.find((f) => f.sessionId === s.agentId);
          return {
            id: s.agentId,
            name: s.name,
            bay: { id: s.bayId, name: bays.find((b) => b.id === s.bayId)?.handle ?? s.bayId },
            /** B-294: visiting another Bay, it is never started fresh there. */
            visiting: s.bayId !== home.bayId,
            device: { id: s.deviceId, label: devices.find((d) => d.id === s.deviceId)?.label ?? null },
            runtime: s.runtime,
            last_joined_at: s.joinedAt.toISOString(),
            fresh_start_at_95: s.freshAt95,
            fresh_start: latest ? { handoff_id: latest.id, state: freshStateOf(latest, now) } : null,
          };
        }),
      };
    },

    /** GET /api/sessions/{id}/fresh-start: the latest fresh start of the person's session. */
    async latest(person: HumanCaller, sessionId: string): Promise<FreshStartView> {
      const session = await ownSession(person, sessionId);
      const row = await db.freshStart.findFirst({
        where: { sessionId },
        orderBy: { createdAt: "desc" },
        select: FRESH_SELECT,
      });
      if (!row) throw HubError.notFound("no fresh start of this session");
      return view(row, session);
    },

    /** PATCH /api/sessions/{id} {fresh_start_at_95} (B-289): the person lets it happen by itself at 95 %. */
    async setAutomatic(person: HumanCaller, sessionId: string, on: boolean) {
      const session = await ownSession(person, sessionId);
      await db.agentSession.update({ where: { agentId: session.agentId }, data: { freshAt95: on } });
      return { id: session.agentId, name: session.name, fresh_start_at_95: on };
    },

    /** GET /api/device-api/handoff (B-296): the fresh starts of the sessions this device's relay hosts. */
    async relayPending(device: DeviceCaller) {
      // The live sessions this device's relay hosts in this Bay, then their fresh starts (never the hub's all).
      const hosted = await db.agentSession.findMany({
        where: { humanId: device.id, deviceId: device.deviceId, bayId: device.bay.id, endedAt: null },
        select: { agentId: true, name: true },
      });
      const rows = await db.freshStart.findMany({
        where: {
          sessionId: { in: hosted.map((h) => h.agentId) },
          state: { in: ["awaiting_note", "note_saved", "cleared"] },
        },
        select: FRESH_SELECT,
        orderBy: { createdAt: "asc" },
      });
      const names = new Map(hosted.map((s) => [s.agentId, s.name]));
      const now = new Date();
      return {
        items: rows
          .filter((r) => names.has(r.sessionId) && freshStateOf(r, now) !== "cancelled")
          .map((r) => ({
            handoffId: r.id,
            session: names.get(r.sessionId) ?? "",
            conversationId: r.conversationId,
            state: freshStateOf(r, now),
            prompt: handoffPrompt({ handoffId: r.id, conversationId: r.conversationId, date: r.createdAt }),
            expiresAt: (r.noteSavedAt
              ? new Date(r.noteSavedAt.getTime() + FRESH_CLEAR_WINDOW_MS)
              : r.expiresAt
            ).toISOString(),
            noteId: r.noteId,
          })),
      };
    },

    /**
     * POST /api/device-api/handoff (B-292, B-293, B-296): the hosting relay reports the session cleared
     * (only after a saved note), then fresh (the quiet line); another device's report is not found.
     */
    async relayReport(device: DeviceCaller, input: z.output<typeof relayHandoffReport>) {
      const outcome = await db.$transaction(async (tx) => {
        const [row] = await tx.$queryRawUnsafe<
          { session_id: string; state: string; expires_at: Date; conversation_id: string; note_saved_at: Date | null }[]
        >(
          "SELECT session_id, state, expires_at, conversation_id, note_saved_at FROM fresh_starts WHERE id = $1 FOR UPDATE",
          input.handoffId,
        );
        const host = row
          ? await tx.agentSession.findFirst({
              where: {
                agentId: row.session_id,
                deviceId: device.deviceId,
                bayId: device.bay.id,
                humanId: device.id,
                endedAt: null,
              },
              select: { agentId: true, agent: { select: { handle: true, ownerId: true } } },
            })
          : null;
        if (!row || !host) throw handoffNotFound();
        const state = freshStateOf(
          {
            state: row.state,
            expiresAt: new Date(row.expires_at),
            noteSavedAt: row.note_saved_at === null ? null : new Date(row.note_saved_at),
          },
          new Date(),
        );
        if (!relayStepAllowed(state, input.step))
          throw new HubError(
            "conflict",
            input.step === "cleared"
              ? "nothing is cleared without a saved handoff note"
              : "the session is reported fresh only after it was cleared",
            { reason: state },
          );
        const now = new Date().toISOString();
        if (input.step === "cleared") {
          await tx.$executeRawUnsafe(
            "UPDATE fresh_starts SET state = 'cleared', cleared_at = coalesce(cleared_at, $2::timestamp) WHERE id = $1",
            input.handoffId,
            now,
          );
          return { state: "cleared" as const, line: null };
        }
        await tx.$executeRawUnsafe(
          "UPDATE fresh_starts SET state = 'fresh', result = $2, finished_at = $3::timestamp WHERE id = $1",
          input.handoffId,
          input.result ?? null,
          now,
        );
        if (state === "fresh") return { state: "fresh" as const, line: null };
        const session: AgentCaller = {
          kind: "agent",
          id: host.agentId,
          handle: host.agent.handle,
          ownerId: host.agent.ownerId,
          instanceId: null,
        };
        const [room] = await readKeys(tx, session, {
          conversationKey: row.conversation_id,
          observed: false,
          lean: true,
        });
        const line = room
          ? await writeQuietLine(executorOf(tx), room, {
              type: "context.handoff",
              actor: host.agentId,
              subject: `${input.handoffId}:fresh`,
              body: `${host.agent.handle} started fresh from its handoff note`,
            })
          : null;
        return { state: "fresh" as const, line };
      });
      if (outcome.line) bus.publish(outcome.line);
      return { handoffId: input.handoffId, state: outcome.state };
    },
  };
}
export type FreshStartService = ReturnType<typeof freshStartService>;
