import { projectRef, text } from "@maity/domain";
import { z } from "zod";

// The path and input pieces the Maity routes share: the project and conversation paths, ids from the
// path, the Idempotency-Key header, and the picking of a service's fields from a parsed input.

export const P = "/api/projects/{owner}/{slug}";
export const C = `${P}/conversations/{conversation_id}`;
// Ids from the path, the Idempotency-Key header and the seq are text() like any input string (no NUL for PostgreSQL).
export const conversationIdSchema = text("a string").min(1, "required").max(100, "at most 100 characters");
/** A participant id of the path: any id, unknown ones answer not_found (hidden = missing). */
export const participantId = text("a string").min(1, "required").max(100, "at most 100 characters");
export const projectInput = z.strictObject(projectRef.shape);
export const conversationInput = z.strictObject({ ...projectRef.shape, conversation_id: conversationIdSchema });
export const noContent = z.null();
/** A message seq of the path (a number over tRPC), bounded by the log's column. */
export { seqParam } from "@maity/domain";
export const idempotencyKey = text("a string").min(1, "1–200 characters").max(200, "1–200 characters").optional();
/** tRPC's infinite queries send `direction`; lists page forward only, so it is accepted and ignored. */
export const direction = z.enum(["forward", "backward"], { error: "forward or backward" }).optional();
/** The fields of the parsed input a service takes (absent ones stay absent), typed by the edge's schema. */
export const pick = <T extends Record<string, unknown>, K extends keyof T & string>(input: T, keys: readonly K[]) =>
  Object.fromEntries(keys.filter((k) => input[k] !== undefined).map((k) => [k, input[k]])) as Pick<T, K>;
