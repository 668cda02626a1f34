import { describe, expect, it } from "vitest";
import { bandOf, compareListKeys, decodeListCursor, encodeListCursor, type ListKey, pageAfter } from "../src/index.ts";

describe("bandOf (§9.3 Pinned: pinned+unread, unread, pinned, rest)", () => {
  it.each([
    [{ pinned: true, unread: 2 }, 0],
    [{ pinned: false, unread: 1 }, 1],
    [{ pinned: true, unread: 0 }, 2],
    [{ pinned: false, unread: 0 }, 3],
    [{ pinned: true, unread: null }, 2], // an observer's null counts as none
    [{ pinned: false, unread: null }, 3],
  ])("%j → band %i", (item, band) => {
    expect(bandOf(item)).toBe(band);
  });
});

const key = (id: string, band: ListKey["band"], activity: string, project = "maintainer/maity"): ListKey => ({
  id,
  band,
  activity,
  project,
});

describe("list order (§9.3): bands, then newest activity, then project.full_name, then id", () => {
  it("orders the spec's cases", () => {
    const keys = [
      key("quiet-pinned", 2, "2026-10-21T13:00:00Z"),
      key("new-unpinned", 1, "2026-10-21T12:00:00Z"),
      key("new-pinned", 0, "2026-10-21T11:00:00Z"),
      key("rest-newer", 3, "2026-10-21T14:00:00Z"),
      key("rest-older", 3, "2026-10-21T10:00:00Z"),
      key("agt-a", 3, "2026-10-21T10:00:00Z", "alice/lab"),
      key("agt-b", 3, "2026-10-21T10:00:00Z", "alice/lab"),
    ];
    expect([...keys].sort(compareListKeys).map((k) => `${k.project}:${k.id}`)).toEqual([
      "maintainer/maity:new-pinned",
      "maintainer/maity:new-unpinned",
      "maintainer/maity:quiet-pinned",
      "maintainer/maity:rest-newer",
      "alice/lab:agt-a",
      "alice/lab:agt-b",
      "maintainer/maity:rest-older",
    ]);
  });
});

describe("list cursor (§1.4: an encoded key, stable while new messages arrive)", () => {
  it("round-trips and refuses garbage", () => {
    const k = key("cnv-0007", 1, "2026-10-21T13:30:00Z");
    expect(decodeListCursor(encodeListCursor(k))).toEqual(k);
    for (const bad of [
      "",
      "nope",
      Buffer.from("[9,1,2,3]").toString("base64url"),
      Buffer.from('{"a":1}').toString("base64url"),
    ]) {
      expect(decodeListCursor(bad)).toBeNull();
    }
  });

  it("pages without repeating or losing an item when one rises to the top between pages", () => {
    const items = ["a", "b", "c", "d", "e"].map((id, i) => key(id, 3, `2026-10-21T1${9 - i}:00:00Z`));
    const first = pageAfter(items, (k) => k, 2, null);
    expect(first.items.map((k) => k.id)).toEqual(["a", "b"]);
    // A new message in "d" moves it to the top (already past the cursor): the next page goes on with "c", "e".
    const moved = items.map((k) => (k.id === "d" ? { ...k, activity: "2026-10-22T00:00:00Z" } : k));
    const second = pageAfter(moved, (k) => k, 2, first.next);
    expect(second.items.map((k) => k.id)).toEqual(["c", "e"]);
    expect(second.next).toBeNull();
  });
});
