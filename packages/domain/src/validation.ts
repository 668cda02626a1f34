import type { z } from "zod";
import { HubError } from "./errors.ts";

/** zod issues → `details.fields`: the first problem of each field, named by its path. */
export function fieldsOf(error: z.ZodError): Record<string, string> {
  const fields: Record<string, string> = {};
  for (const issue of error.issues) {
    const name = issue.path.length ? issue.path.join(".") : "body";
    if (fields[name]) continue;
    fields[name] = issue.code === "invalid_type" && issue.input === undefined ? "required" : issue.message;
  }
  return fields;
}

/** Parse or refuse whole with the fields named (DESIGN.md §4). */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown): z.infer<S> {
  const result = schema.safeParse(input);
  if (!result.success) throw HubError.invalid(fieldsOf(result.error));
  return result.data;
}
