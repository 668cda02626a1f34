import { z } from "zod";
import { text } from "./text.ts";

// The project brief (spec 004 v1.15, B-261…B-274; DESIGN §4b): room text people write for every
// agent of the project. Its version grows by one only when its text changes — a rename, or a PUT of
// the same text, leaves it (B-262) — so an agent's prompt cache and its "handed" record hold.

/** At most this many characters (Unicode code points), DESIGN §4b. */
export const BRIEF_MAX_CHARS = 20_000;

/** A brief of only whitespace is no brief: the same as removing it (B-266 hands `brief: null`). */
export const normalizeBrief = (brief: string | null): string | null =>
  brief === null || brief.trim() === "" ? null : brief;

/** PUT /api/projects/{owner}/{slug}/brief */
export const briefInput = z.object({
  brief: text()
    .refine((s) => [...s].length <= BRIEF_MAX_CHARS, `at most ${BRIEF_MAX_CHARS} characters`)
    .nullable(),
});

/** The brief as people read it: null and version 0 before the first one. */
export const briefOutput = z.object({
  brief: z.string().nullable(),
  version: z.number().int().nonnegative(),
  updated_at: z.string().nullable(),
  /** The person who wrote the current version (member id); null before the first one. */
  updated_by: z.string().nullable(),
});
export type BriefView = z.output<typeof briefOutput>;

/** PATCH /api/projects/{owner}/{slug} (DESIGN §4b): what the project shares with visiting agents. */
export const projectSharingInput = z.object({ share_with_visitors: z.boolean({ error: "true or false" }) });
export const projectSharingOutput = z.object({ share_with_visitors: z.boolean() });

/** GET /api/agent-api/conversations/:id/project (B-271): the room's project and its brief. */
export const agentProjectSchema = z.object({
  id: z.string(),
  name: z.string(),
  /** Grows only when the brief's text changes (B-262); 0 before the first brief. */
  version: z.number().int().nonnegative(),
  brief: z.string().nullable(),
});
export type AgentProject = z.output<typeof agentProjectSchema>;
