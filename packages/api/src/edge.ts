import { HubError } from "@maity/domain";

// What every HTTP surface refuses before a handler sees the request (issue 13): malformed
// percent-encoding (#4) and cross-site changes riding on the session cookie (#6).

/** A path segment, percent-decoded; malformed encoding is the client's error, named (issue 13 #4), not a 500. */
export function decodeSegment(raw: string, field: string): string {
  try {
    return decodeURIComponent(raw);
  } catch {
    throw HubError.invalid({ [field]: "malformed_percent_encoding" }, `${field}: malformed percent-encoding`);
  }
}
