import { z } from "zod";

// Issue 13 #3: a string the hub stores or queries with holds no U+0000 and no unpaired UTF-16
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
 * Where a JSON value (parsed from a request, so acyclic) first holds an unsafe string, as the path
 * to it; an unsafe key names the object that holds it (the key itself is not echoed). Null when it
 * holds none. Iterative, and each path built only when refused: a body may nest deeper than the
 * call stack.
 */
export function unsafeTextPath(value: unknown): PropertyKey[] | null {
  type Item = { value: unknown; key: PropertyKey | null; parent: Item | null };
  const pathOf = (item: Item | null): PropertyKey[] => {
    const path: PropertyKey[] = [];
    for (let at = item; at && at.key !== null; at = at.parent) path.push(at.key);
    return path.reverse();
  };
  const stack: Item[] = [{ value, key: null, parent: null }];
  for (let item = stack.pop(); item; item = stack.pop()) {
    const v = item.value;
    if (typeof v === "string") {
      if (!isSafeText(v)) return pathOf(item);
    } else if (Array.isArray(v)) {
      for (let i = v.length - 1; i >= 0; i--) stack.push({ value: v[i], key: i, parent: item });
    } else if (v !== null && typeof v === "object") {
      const keys = Object.keys(v);
      if (!keys.every(isSafeText)) return pathOf(item);
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i] as string;
        stack.push({ value: (v as Record<string, unknown>)[key], key, parent: item });
      }
    }
  }
  return null;
}

/** A JSON object a caller sends (agent `metadata`, …): every nested string and key obeys the rule. */
export const safeJsonObject = (error: string) =>
  z.record(z.string(), z.unknown(), { error }).superRefine((value, ctx) => {
    const path = unsafeTextPath(value);
    if (path) ctx.addIssue({ code: "custom", message: TEXT_REFUSED, path });
  });
