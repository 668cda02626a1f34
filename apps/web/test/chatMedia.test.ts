import { describe, expect, it } from "vitest";
import {
  attachRefusal,
  calendarIcs,
  icsEscape,
  icsFileName,
  icsFold,
  icsUtc,
  imageBox,
  peopleWords,
  pollOptionsProblem,
  sizeWords,
  uploadErrorWords,
} from "../src/wording/mediaView";
import type { Named } from "../src/wording/chatView";
import { UPLOAD_EXTENSIONS } from "@maity/domain";

describe("dashboard media: sizes and images (§8.7 size, width, height)", () => {
  it.each([
    [0, "0 bytes"],
    [1, "1 byte"],
    [1023, "1023 bytes"],
    [1024, "1 KB"],
    [1536, "1.5 KB"],
    [200 * 1024, "200 KB"],
    [25 * 1024 * 1024, "25 MB"],
    [3 * 1024 ** 3, "3 GB"],
  ])("%i bytes is %s", (bytes, words) => expect(sizeWords(bytes)).toBe(words));

  it.each([
    [4000, 3000, 320, { width: 320, height: 240 }],
    [1200, 1600, 320, { width: 240, height: 320 }],
    [100, 50, 320, { width: 100, height: 50 }], // never enlarged
    [null, 50, 320, null],
    [0, 0, 320, null],
  ])("imageBox(%s, %s, %s)", (w, h, max, box) => expect(imageBox(w, h, max)).toEqual(box));
});

describe("dashboard media: what the composer refuses before the hub does (B-188, OQ-B-12)", () => {
  const cap = 25 * 1024 * 1024;
  it.each([
    [{ name: "a.png", size: 10 }, 0, null],
    [{ name: "a.PDF", size: 10 }, 9, null],
    [{ name: "a.png", size: 10 }, 10, "At most 10 files a message: a.png was not added."],
    [{ name: "tool.exe", size: 10 }, 0, "tool.exe: this type of file is not allowed"],
    [{ name: "noext", size: 10 }, 0, "noext: this type of file is not allowed"],
    [{ name: "big.pdf", size: cap + 1 }, 0, "big.pdf is too large: 25 MB, at most 25 MB."],
  ])("%o with %i attached", (file, n, words) => {
    const got = attachRefusal(file, n, cap, 10, UPLOAD_EXTENSIONS);
    if (words === null) expect(got).toBeNull();
    else expect(got).toContain(words);
  });
  it.each([
    [413, null, "big.pdf is too large for the hub."],
    [415, null, "big.pdf: this type of file is not allowed."],
    [0, null, "big.pdf could not be uploaded: the hub could not be reached."],
    [400, "file: the name's extension does not match", "big.pdf could not be uploaded: file: the name's extension"],
  ])("upload refused with %i", (status, message, words) =>
    expect(uploadErrorWords("big.pdf", status, message)).toContain(words),
  );
});

describe("dashboard media: the poll dialog (v1.12: 2–10 distinct answers)", () => {
  it.each([
    [["Yes", "No"], null],
    [["Yes"], "at least 2"],
    [["Yes", " "], "needs some words"],
    [["Yes", "yes "], "Two answers say the same thing: “yes”"],
    [Array.from({ length: 11 }, (_, i) => `o${i}`), "at most 10"],
  ])("%o", (options, problem) => {
    const got = pollOptionsProblem(options);
    if (problem === null) expect(got).toBeNull();
    else expect(got).toContain(problem);
  });
});

describe("dashboard media: names for reactions and voters (names, never ids)", () => {
  const human = (member_id: string, name: string): [string, Named] => [
    member_id,
    { member_id, kind: "human", name, owner_id: null },
  ];
  const people = new Map<string, Named>([human("m1", "Ana"), human("m2", "Ben"), human("m3", "Cy")]);
  it.each([
    [[], "nobody"],
    [["m1"], "Ana"],
    [["m1", "me"], "Ana and you"],
    [["m1", "m2", "m3"], "Ana, Ben and Cy"],
    [["m1", "m2", "m3", "m9"], "Ana, Ben and 2 others"],
  ])("%o", (ids, words) => expect(peopleWords(ids, people, "me", ids.length > 3 ? 2 : 5)).toBe(words));
});

describe("dashboard media: the calendar card's .ics (RFC 5545)", () => {
  it.each([
    ["a,b;c\\d", "a\\,b\\;c\\\\d"],
    ["line 1\nline 2\r\nline 3", "line 1\\nline 2\\nline 3"],
    ["plain", "plain"],
  ])("TEXT escaping (§3.3.11) of %j", (raw, escaped) => expect(icsEscape(raw)).toBe(escaped));

  it("folds at 75 octets with CRLF + space, never splitting a UTF-8 sequence (§3.1)", () => {
    expect(icsFold("short")).toBe("short");
    const long = `SUMMARY:${"x".repeat(100)}`;
    const folded = icsFold(long);
    const parts = folded.split("\r\n");
    expect(parts[0]).toHaveLength(75);
    expect(parts[1]?.startsWith(" ")).toBe(true);
    expect(parts.map((p, i) => (i ? p.slice(1) : p)).join("")).toBe(long);
    const emoji = `SUMMARY:${"é".repeat(80)}`; // 2 octets each
    for (const p of icsFold(emoji).split("\r\n")) expect(new TextEncoder().encode(p).length).toBeLessThanOrEqual(75);
    expect(
      icsFold(emoji)
        .split("\r\n")
        .map((p, i) => (i ? p.slice(1) : p))
        .join(""),
    ).toBe(emoji);
  });

  it.each([
    ["2026-12-05T14:00:00Z", "20261205T140000Z"],
    ["2026-12-05T15:30:00+01:00", "20261205T143000Z"],
  ])("UTC date-time (§3.3.5) of %s", (iso, utc) => expect(icsUtc(iso)).toBe(utc));

  it("one VEVENT with UID, DTSTAMP, DTSTART/DTEND in UTC, CRLF endings, escaped text", () => {
    const ics = calendarIcs(
      {
        title: "Release 0.2, go/no-go; final",
        start: "2026-12-07T10:00:00+01:00",
        end: "2026-12-07T10:30:00+01:00",
        location: "Room 4, floor 2",
        attendees: [{ name: "Ana Lopez", address: "ana@example.com" }, { address: "ben@example.com" }],
        notes: "Bring the numbers.\nAnd the plan.",
      },
      "msg-42@maity",
      new Date("2026-12-05T12:00:00Z"),
    );
    expect(ics.endsWith("\r\n")).toBe(true);
    expect(ics.replace(/\r\n/gu, "")).not.toMatch(/[\r\n]/u);
    const lines = ics.split("\r\n");
    expect(lines.slice(0, 2)).toEqual(["BEGIN:VCALENDAR", "VERSION:2.0"]);
    expect(lines).toContain("UID:msg-42@maity");
    expect(lines).toContain("DTSTAMP:20261205T120000Z");
    expect(lines).toContain("DTSTART:20261207T090000Z");
    expect(lines).toContain("DTEND:20261207T093000Z");
    expect(lines).toContain("SUMMARY:Release 0.2\\, go/no-go\\; final");
    expect(lines).toContain("LOCATION:Room 4\\, floor 2");
    expect(lines).toContain("DESCRIPTION:Bring the numbers.\\nAnd the plan.");
    expect(lines).toContain('ATTENDEE;CN="Ana Lopez":mailto:ana@example.com');
    expect(lines).toContain("ATTENDEE:mailto:ben@example.com");
    expect(lines.filter((l) => l === "BEGIN:VEVENT")).toHaveLength(1);
    expect(lines.at(-2)).toBe("END:VCALENDAR");
  });

  it("without an end: an hour after the start; without a start: now", () => {
    const now = new Date("2026-12-05T12:00:00Z");
    const a = calendarIcs({ start: "2026-12-07T09:00:00Z" }, "u", now).split("\r\n");
    expect(a).toContain("DTEND:20261207T100000Z");
    expect(a).toContain("SUMMARY:Event");
    const b = calendarIcs({ title: "Standup" }, "u", now).split("\r\n");
    expect(b).toContain("DTSTART:20261205T120000Z");
    expect(b).toContain("DTEND:20261205T130000Z");
  });

  it.each([
    ["Release 0.2: go/no-go", "Release-02-gono-go.ics"],
    [undefined, "event.ics"],
    ["***", "event.ics"],
  ])("file name of %j", (title, name) => expect(icsFileName(title)).toBe(name));
});
