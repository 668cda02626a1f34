import { describe, expect, it } from "vitest";
import { BRIEF_MAX_CHARS, briefInput, normalizeBrief } from "../src/brief.ts";

// DESIGN §4b, 004 v1.15: the brief's text as stored, and its input's limit.
describe("the project brief's text", () => {
  it.each([
    [null, null],
    ["", null],
    [" \n\t ", null],
    ["# Brief", "# Brief"],
    ["  indented Markdown\n", "  indented Markdown\n"],
  ])("B-266 %j is stored as %j (only whitespace is no brief; text is kept byte for byte)", (input, stored) => {
    expect(normalizeBrief(input)).toBe(stored);
  });

  it("counts characters, not UTF-16 units: 20,000 emoji pass, 20,001 do not", () => {
    expect(briefInput.safeParse({ brief: "😀".repeat(BRIEF_MAX_CHARS) }).success).toBe(true);
    const refused = briefInput.safeParse({ brief: "😀".repeat(BRIEF_MAX_CHARS + 1) });
    expect(refused.success).toBe(false);
    expect(refused.error?.issues[0]?.path).toEqual(["brief"]);
    expect(briefInput.safeParse({ brief: "a\u0000b" }).success).toBe(false);
  });
});
