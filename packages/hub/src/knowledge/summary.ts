import {
  checkCitations,
  citedIds,
  EMPTY_SUMMARY,
  eventId,
  SUMMARY_LABEL,
  SUMMARY_REGENERATE_AFTER,
  type SummaryCore,
  type SummaryMessage,
  type SummaryRecord,
  seqOfMessageId,
} from "@maity/domain";
import type { SqlExecutor, SqlRunner } from "@maity/db";
import type { LiveBus } from "../delivery/bus.ts";
import type { SummaryGenerator } from "./summaryGenerators.ts";

// The rolling summary's store (004 §6, B-105…B-113; DESIGN §4b "Summary"): one record per chat,
// regenerated in the background once SUMMARY_REGENERATE_AFTER messages lie past its boundary —
// heard on the bus as messages are written, or noticed by a read. A read never waits for a
// generator and never fails because of one: it is served the last record (or none) and the raw
// tail (summaryReads.ts). One regeneration runs per chat across every instance (a claim on the row);
// each write is compare-and-swap on the record's version, so two regenerations never lose one.
// Every cited id is checked here, whichever generator wrote it.

export interface SummarySettings {
  /** How long a claim holds before another instance may take the chat over (default 2 min). */
  claimMs?: number;
  /** After a failed generation, how long before the chat is tried again (default 1 min). */
  retryMs?: number;
  /** Where a failure is told (default: one line on stderr). */
  log?: (line: string) => void;
}

/** What a read needs of a chat's summary: the record (checked again now) and how far behind it is. */
export interface SummaryState {
  record: SummaryRecord | null;
  throughSeq: number;
  /** The first message the record drew on: a reader whose history starts above it is not served it. */
  fromSeq: number;
  /** Messages past the boundary, counted up to SUMMARY_REGENERATE_AFTER. */
  behind: number;
  /** A message at or before the boundary was redacted after the record was made: it is being rebuilt. */
  redactedSince: boolean;
}

type Row = {
  version: number | null;
  record: SummaryCore | string | null;
  through_seq: number | null;
  through_created_at: Date | string | null;
  from_seq: number | null;
  generated_at: Date | string | null;
  generator: string | null;
  behind: number;
  redacted_since: boolean;
};

const iso = (v: Date | string) => (v instanceof Date ? v : new Date(v)).toISOString();
const json = <T>(v: T | string): T => (typeof v === "string" ? (JSON.parse(v) as T) : v);

/**
 * The chat's record, how many messages (not the hub's quiet lines) lie past it — counted up to the
 * threshold, walking the chat's index in order so it stops there — and whether a message inside it
 * was redacted since (the partial index of redacted events: a cost that never grows with the chat).
 */
const STATE_SQL = `
SELECT s.version, s.record, s.through_seq, s.through_created_at, s.from_seq, s.generated_at, s.generator,
  (SELECT count(*) FROM (SELECT 1 FROM events e
     WHERE e.conversation_id = $1 AND e.kind = 'message' AND e.from_id <> 'system' AND NOT e.redacted
       AND e.seq > coalesce(s.through_seq, 0) ORDER BY e.seq LIMIT ${SUMMARY_REGENERATE_AFTER}) x)::int AS behind,
  coalesce(EXISTS (SELECT 1 FROM events e JOIN redactions r ON r.event_seq = e.seq
     WHERE e.conversation_id = $1 AND e.redacted AND e.seq <= s.through_seq AND r.at > s.generated_at), false)
    AS redacted_since
FROM (SELECT $1::text AS k) one LEFT JOIN conversation_summaries s ON s.conversation_id = one.k`;

/** Of the given seqs, the unredacted messages of the chat (not quiet lines) at or before `through`. */
const CITABLE_SQL = `
SELECT seq FROM events WHERE conversation_id = $1 AND kind = 'message' AND from_id <> 'system' AND NOT redacted
  AND seq = ANY($2::int[]) AND seq <= $3`;

/** What a generator reads: the chat's messages after a seq, with their senders' names. */
const MESSAGES_SQL = `
SELECT e.seq, e.body, e.sent_at, e.reply_to_seq, coalesce(h.display_name, a.handle, e.from_id) AS name,
  coalesce(h.handle, a.handle, '') AS handle
FROM events e LEFT JOIN humans h ON h.id = e.from_id LEFT JOIN agents a ON a.id = e.from_id
WHERE e.conversation_id = $1 AND e.kind = 'message' AND e.from_id <> 'system' AND NOT e.redacted
  AND e.seq > $2 AND coalesce(e.body, '') <> ''
ORDER BY e.seq LIMIT $3`;

/** The chat behind a bus event (owner, slug, public id), when it has moved by this many messages. */
const KEY_SQL = `
SELECT c.id FROM conversations c JOIN projects p ON p.id = c.project_id JOIN bays b ON b.id = p.bay_id
WHERE b.handle = $1 AND p.slug = $2 AND c.public_id = $3`;

/** A chat another instance is regenerating is not looked at again by this one for this long. */
const HELD_REST_MS = 1_000;

/** A bus event for a chat counts towards a look at its summary; every this many, the hub looks. */
const LOOK_EVERY = 10;

export function summaryStore(sql: SqlRunner, generator: SummaryGenerator, settings: SummarySettings = {}) {
  const claimMs = settings.claimMs ?? 120_000;
  const retryMs = settings.retryMs ?? 60_000;
  const log = settings.log ?? ((line: string) => console.error(line));
  const running = new Map<string, Promise<void>>();
  const stop = new AbortController();

  /** The ids of `core` that are citable now, by id. */
  async function citable(tx: SqlExecutor, key: string, core: SummaryCore, through: number) {
    const ids = citedIds(core);
    const seqs = ids.map(seqOfMessageId).filter((s): s is number => s !== null);
    if (!seqs.length) return new Map<string, number>();
    const rows = await tx.query<{ seq: number }>(CITABLE_SQL, [key, seqs, through]);
    return new Map(rows.map((r) => [eventId(Number(r.seq)), Number(r.seq)]));
  }

  async function messagesAfter(key: string, after: number, limit: number): Promise<SummaryMessage[]> {
    const rows = await sql.query<{
      seq: number;
      body: string;
      sent_at: Date | string;
      reply_to_seq: number | null;
      name: string;
      handle: string;
    }>(MESSAGES_SQL, [key, after, limit]);
    return rows.map((r) => ({
      id: eventId(Number(r.seq)),
      seq: Number(r.seq),
      senderName: r.name,
      senderHandle: r.handle,
      text: r.body,
      createdAt: iso(r.sent_at),
      replyToId: r.reply_to_seq === null ? null : eventId(Number(r.reply_to_seq)),
    }));
  }

  /**
   * One regeneration of the chat, if no other instance is running one and its last failure is old
   * enough: the messages after the boundary in chunks, each chunk one generator call and one
   * compare-and-swap write. A record made before a redaction inside it is rebuilt from the start.
   */
  async function regenerate(key: string): Promise<"written" | "held" | "failed"> {
    const now = new Date();
    await sql.query(
      "INSERT INTO conversation_summaries (conversation_id, updated_at) VALUES ($1, $2::timestamp) ON CONFLICT DO NOTHING",
      [key, now.toISOString()],
    );
    const [claimed] = await sql.query<{ version: number }>(
      `UPDATE conversation_summaries SET claimed_at = $2::timestamp
       WHERE conversation_id = $1 AND (claimed_at IS NULL OR claimed_at < $3::timestamp)
         AND (failed_at IS NULL OR failed_at < $4::timestamp)
       RETURNING version`,
      [
        key,
        now.toISOString(),
        new Date(now.getTime() - claimMs).toISOString(),
        new Date(now.getTime() - retryMs).toISOString(),
      ],
    );
    if (!claimed) return "held";
    let version = Number(claimed.version);
    const release = (failure: string | null) =>
      sql.query(
        `UPDATE conversation_summaries SET claimed_at = NULL, failed_at = $3::timestamp, failure = $4
         WHERE conversation_id = $1 AND claimed_at = $2::timestamp`,
        [key, now.toISOString(), failure === null ? null : new Date().toISOString(), failure],
      );
    try {
      const [state] = await sql.query<Row>(STATE_SQL, [key]);
      const rebuild = state?.redacted_since === true;
      let previous = state?.record && !rebuild ? json<SummaryCore>(state.record) : null;
      let after = previous ? Number(state?.through_seq ?? 0) : 0;
      for (let round = 0; round < 10 && !stop.signal.aborted; round++) {
        const messages = await messagesAfter(key, after, generator.chunk);
        const last = messages.at(-1);
        const first = messages[0];
        if (!last || !first) break;
        const made = await generator.generate(previous, messages, stop.signal);
        const checked = checkCitations(made, await citable(sql, key, made, last.seq), last.seq);
        const [written] = await sql.query<{ version: number }>(
          `UPDATE conversation_summaries SET version = version + 1, record = $3::jsonb, through_seq = $4,
             through_created_at = $5::timestamp, from_seq = CASE WHEN $6 THEN $7 ELSE coalesce(from_seq, $7) END,
             generated_at = $8::timestamp, generator = $9, failed_at = NULL, failure = NULL, updated_at = $8::timestamp
           WHERE conversation_id = $1 AND version = $2 RETURNING version`,
          [
            key,
            version,
            JSON.stringify(checked),
            last.seq,
            last.createdAt,
            previous === null,
            first.seq,
            new Date().toISOString(),
            generator.name,
          ],
        );
        // Another regeneration wrote first (this one's claim had lapsed): its record stands.
        if (!written) return "held";
        version = Number(written.version);
        previous = checked;
        after = last.seq;
        if (messages.length < generator.chunk) break;
      }
      await release(null);
      return "written";
    } catch (error) {
      const failure = stop.signal.aborted ? "stopped" : ((error as Error)?.message ?? String(error)).slice(0, 500);
      if (!stop.signal.aborted) log(`maity: the summary of conversation ${key} was not made: ${failure}`);
      await release(failure).catch(() => {});
      return "failed";
    }
  }

  /**
   * Until when a chat is not kicked again by this process: after its generator failed (the retry
   * pause) or another instance held it — so a chat whose provider is down costs a read nothing more.
   */
  const resting = new Map<string, number>();

  /** Starts a regeneration of the chat in the background (one at a time per chat in this process). */
  function kick(key: string): void {
    if (running.has(key) || stop.signal.aborted || Date.now() < (resting.get(key) ?? 0)) return;
    const job = regenerate(key)
      .then((outcome) => {
        if (resting.size > 10_000) resting.clear();
        if (outcome === "written") resting.delete(key);
        else resting.set(key, Date.now() + (outcome === "failed" ? retryMs : Math.min(retryMs, HELD_REST_MS)));
      })
      .catch((error) => log(`maity: the summary of conversation ${key} failed: ${(error as Error)?.message}`))
      .finally(() => running.delete(key));
    running.set(key, job);
  }

  return {
    regenerate,
    kick,

    /** The chat's record as a read serves it: its citations checked against the chat as it is now. */
    async state(key: string): Promise<SummaryState> {
      const [row] = await sql.query<Row>(STATE_SQL, [key]);
      const behind = Number(row?.behind ?? 0);
      const redactedSince = row?.redacted_since === true;
      if (behind >= SUMMARY_REGENERATE_AFTER || redactedSince) kick(key);
      if (!row?.record || row.through_seq === null || row.generated_at === null || row.through_created_at === null)
        return { record: null, throughSeq: 0, fromSeq: 0, behind, redactedSince };
      const throughSeq = Number(row.through_seq);
      const stored = { ...EMPTY_SUMMARY, ...json<SummaryCore>(row.record) };
      const checked = checkCitations(stored, await citable(sql, key, stored, throughSeq), throughSeq);
      const record: SummaryRecord = {
        label: SUMMARY_LABEL,
        // A narrative made before a redaction may quote the message: withheld until the rebuild.
        ...{ ...checked, narrative: redactedSince ? "" : checked.narrative },
        through_message_id: eventId(throughSeq),
        through_created_at: iso(row.through_created_at),
        generated_at: iso(row.generated_at),
        generator: row.generator ?? "extractive",
      };
      return { record, throughSeq, fromSeq: Number(row.from_seq ?? throughSeq), behind, redactedSince };
    },

    /**
     * Hears the chats' messages on the bus (every instance hears every write): each LOOK_EVERY
     * messages of a chat, one look at how far its summary is behind. Returns the stop.
     */
    watch(bus: LiveBus): () => void {
      const heard = new Map<string, number>();
      return bus.subscribe((m) => {
        if (m.type !== "event" || m.kind !== "message" || !m.project || !m.conversationId) return;
        const chat = `${m.project.owner}\u0000${m.project.slug}\u0000${m.conversationId}`;
        const count = (heard.get(chat) ?? 0) + 1;
        if (count < LOOK_EVERY) {
          heard.set(chat, count);
          return;
        }
        heard.delete(chat);
        const { owner, slug } = m.project;
        sql
          .query<{ id: string }>(KEY_SQL, [owner, slug, m.conversationId])
          .then(async ([row]) => {
            if (!row || running.has(row.id)) return;
            const [state] = await sql.query<Row>(STATE_SQL, [row.id]);
            if (Number(state?.behind ?? 0) >= SUMMARY_REGENERATE_AFTER) kick(row.id);
          })
          .catch((error) => log(`maity: a summary look failed: ${(error as Error)?.message}`));
      });
    },

    /** Waits until no regeneration runs in this process (tests, benches, close). */
    async settle(): Promise<void> {
      while (running.size) await Promise.all([...running.values()]);
    },

    /** Stops the running generations (their claims are released) and waits for them. */
    async close(): Promise<void> {
      stop.abort();
      while (running.size) await Promise.all([...running.values()]);
    },
  };
}
export type SummaryStore = ReturnType<typeof summaryStore>;
