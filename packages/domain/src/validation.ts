import type { z } from "zod";
import { HubError } from "./errors.ts";

function valueAt(input: unknown, path: PropertyKey[]): unknown {
  let value = input;
  for (const key of path) {
    if (value === null || typeof value !== "object") return undefined;
    if (!Object.hasOwn(value, key)) return undefined;
    value = (value as Record<PropertyKey, unknown>)[key];
  }
  return value;
}

/** zod issues → `details.fields`: the first problem of each field, named by its path. */
export function fieldsOf(error: z.ZodError, input?: unknown): Record<string, string> {
  // A Map, then own properties: a field named `__proto__` or `constructor` is named like any other
  // (assigning `fields["__proto__"]` set the prototype, and `constructor` read Object's: unnamed refusals).
  const fields = new Map<string, string>();
  for (const issue of error.issues) {
    if (issue.code === "unrecognized_keys") {
      // Unknown fields are refused by name, never silently dropped.
      for (const key of issue.keys) {
        const name = [...issue.path, key].join(".");
        if (!fields.has(name)) fields.set(name, "unknown_field");
      }
      continue;
    }
    const name = issue.path.length ? issue.path.join(".") : "body";
    if (fields.has(name)) continue;
    // zod 4 does not carry the input on an issue: look it up, so a missing field says "required".
    const missing = issue.code === "invalid_type" && valueAt(input, issue.path) === undefined;
    fields.set(name, missing ? "required" : issue.message);
  }
  return Object.fromEntries(fields);
}

/** Parse or refuse whole with the fields named (DESIGN.md §4). */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw HubError.invalid(fieldsOf(result.error, input));
  return result.data;
}
