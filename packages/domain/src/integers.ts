import { z } from "zod";
import { text } from "./text.ts";

// Every integer of the wire lands in, or is compared with, a PostgreSQL `integer` column — the
// log's seq, a read marker, a reply's target, a reaction's message. A value past the column reached
// the database and answered 500 ("value out of range for type integer"). So each integer input is
// bounded by its column at the edge, in the operation's schema, and refused as `invalid` naming
// its field (DESIGN §4); a path's seq that names no position of the log answers like a missing one.

/** The largest PostgreSQL `integer`: the log's seq and every position or count stored with it. */
export const INT_COLUMN_MAX = 2_147_483_647;

const atMost = `at most ${INT_COLUMN_MAX}`;

/** A position in the log (a message's seq) as a JSON number: a whole number from `min` to the column's max. */
export const position = (what = "a message seq", min = 1) =>
  z.number({ error: what }).int(what).min(min, what).max(INT_COLUMN_MAX, atMost);

/** A query's integer: a string over REST, a number over tRPC; both parse, bounded by `max` (the column's by default). */
export const queryInt = (min: number, max = INT_COLUMN_MAX) =>
  z.coerce.number({ error: "an integer" }).int("an integer").min(min, `at least ${min}`).max(max, `at most ${max}`);

/** A seq as text (a path segment): digits within the column, else null — it names no message. */
export function seqOfText(value: string): number | null {
  if (!/^\d{1,10}$/.test(value)) return null;
  const seq = Number(value);
  return seq <= INT_COLUMN_MAX ? seq : null;
}

/**
 * A message seq of a route's path, which tRPC may send as a number: a number must be a position;
 * digits past the column are refused by name too. Other text passes: the service answers it like a
 * missing message (hidden = missing).
 */
export const seqParam = z.union(
  [text("a seq").refine((s) => !/^\d+$/.test(s) || seqOfText(s) !== null, atMost), position("a seq")],
  { error: "a seq" },
);
