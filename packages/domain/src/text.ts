import { z } from "zod";

// A string the hub stores or queries with holds no U+0000 and no unpaired UTF-16
// surrogate. PostgreSQL refuses NUL in text and jsonb (a 500 that leaked its error text), jsonb
// refuses a lone surrogate, and a text column silently turns one into U+FFFD — so they are refused
// at the schema, with the field named, before anything reaches the database.

/** The reason a refused string's field carries (`details.fields`). */
export const TEXT_REFUSED = "no NUL or unpaired surrogate";

// A high surrogate not followed by a low one, or a low one not preceded by a high one. (The regex
// rather than String.prototype.isWellFormed: the dashboard's browsers and the ES2023 lib lack it.)
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Whether a string may be stored: no U+0000 and no unpaired surrogate. */
export const isSafeText = (value: string): boolean => !value.includes("\u0000") && !LONE_SURROGATE.test(value);

/**
 * A string the hub stores or queries with: `z.string` with the rule as its first check, so a
 * refused string names this reason rather than a later length check's. `error` is the message when
 * the value is not a string at all.
 */
export const text = (error?: string) =>
  z.string(error === undefined ? undefined : { error }).refine(isSafeText, TEXT_REFUSED);

/**
 * Nesting a caller's JSON object may have (agent `metadata`): deeper overflowed the call stack of
 * JSON.stringify on the write path, a 500 (found probing metadata 5,000 levels deep).
 */
export const JSON_DEPTH_MAX = 64;
export const JSON_TOO_DEEP = `at most ${JSON_DEPTH_MAX} levels deep`;

/**
 * Why a JSON value (parsed from a request, so acyclic) is refused, and where: the first unsafe
 * string, as the path to it (an unsafe key names the object that holds it: the key itself is not
 * echoed), or the value itself when it nests deeper than JSON_DEPTH_MAX. Null when it is fine.
 * Iterative, and each path built only when refused: a body may nest deeper than the call stack.
 */
export function jsonRefusal(value: unknown): { path: PropertyKey[]; reason: string } | null {
  type Item = { value: unknown; key: PropertyKey | null; parent: Item | null; depth: number };
  const pathOf = (item: Item | null): PropertyKey[] => {
    const path: PropertyKey[] = [];
    for (let at = item; at && at.key !== null; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const stack: Item[] = [{ value, key: null, parent: null, depth: 0 }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const v = item.value;
    if (typeof v === "string") {
      if (!isSafeText(v)) return { path: pathOf(item), reason: TEXT_REFUSED };
      continue;
    }
    if (v === null || typeof v !== "object") continue;
    // Too deep names the whole value: the path to the 65th level says nothing more useful.
    if (item.depth >= JSON_DEPTH_MAX) return { path: [], reason: JSON_TOO_DEEP };
    const depth = item.depth + 1;
    if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: item, depth });
      continue;
    }
    const keys = Object.keys(v);
    if (!keys.every(isSafeText)) return { path: pathOf(item), reason: TEXT_REFUSED };
    for (let i = keys.length - 1; i >= 0; i--) {
      const key = keys[i] as string;
      stack.push({ value: (v as Record<string, unknown>)[key], key, parent: item, depth });
    }
  }
  return null;
}

/**
 * A JSON object a caller sends (agent `metadata`, …): every nested string and key obeys the rule,
 * and it nests at most JSON_DEPTH_MAX levels (the object itself is the first).
 */
export const safeJsonObject = (error: string) =>
  z.record(z.string(), z.unknown(), { error }).superRefine((value, ctx) => {
    const refusal = jsonRefusal(value);
    if (refusal) ctx.addIssue({ code: "custom", message: refusal.reason, path: refusal.path });
  });
