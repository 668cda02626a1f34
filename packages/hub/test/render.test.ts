import { describe, expect, it } from "vitest";
import { ephemeralFileKeys } from "../src/files/keys.ts";
import { agentAttachmentMetadata, attachmentsOf, cardOf, signAgentMessage, signerOf } from "../src/files/render.ts";

// Stored cards and files are parsed with the wire schemas (never cast); the agent metadata
// carries no name, and each reader's copy is signed afresh (B-181…B-185).

const image = {
  id: "att-0123456789ab",
  type: "image" as const,
  mime_type: "image/png",
  size: 120,
  thumbhash: "abc",
  width: 2,
  height: 1,
};
const pdf = { ...image, id: "att-ba9876543210", type: "file" as const, mime_type: "application/pdf", thumbhash: null };

describe("stored values parse or render as none", () => {
  it.each([
    [
      { type: "card.email", payload: { subject: "x" } },
      { type: "card.email", payload: { subject: "x" } },
    ],
    [null, null],
    [{ type: 7, payload: {} }, null],
    [{ type: "card.email", payload: "x" }, null],
    ["card", null],
  ])("cardOf(%j) → %j", (stored, card) => {
    expect(cardOf(stored)).toEqual(card);
  });

  it.each([
    [
      [image, pdf],
      [image, pdf],
    ],
    [null, []],
    [[{ id: "att-x" }], []],
    [{ 0: image }, []],
  ])("attachmentsOf(%j) → %j", (stored, files) => {
    expect(attachmentsOf(stored)).toEqual(files);
  });
});

describe("B-181 B-182 B-185 the agent metadata", () => {
  it("lists the files in order with the legacy mirror, no name, no URL until signed", () => {
    expect(agentAttachmentMetadata({ topic: "x" }, [pdf, image])).toEqual({
      topic: "x",
      attachments: [
        { attachmentId: pdf.id, type: "file", mimeType: "application/pdf", sizeBytes: 120 },
        { attachmentId: image.id, type: "image", mimeType: "image/png", sizeBytes: 120 },
      ],
      attachmentId: pdf.id,
    });
    expect(agentAttachmentMetadata(null, [])).toBeNull();
  });

  it("signs each file and the mirror for one reader on its base URL; a message without files is unchanged", () => {
    const keys = ephemeralFileKeys();
    const sign = signerOf(keys, "https://hub.example.org/");
    const message = { metadata: agentAttachmentMetadata(null, [image, pdf]) };
    const signed = signAgentMessage(message, sign);
    const files = signed.metadata?.attachments as { attachmentId: string; attachmentUrl: string }[];
    for (const f of files) {
      const u = new URL(f.attachmentUrl);
      expect(u.origin + u.pathname).toBe(`https://hub.example.org/api/files/${f.attachmentId}`);
      expect(keys.verify(f.attachmentId, u.searchParams.get("exp") ?? "", u.searchParams.get("sig") ?? "")).toBe(true);
    }
    expect(signed.metadata?.attachmentUrl).toBe(files[0]?.attachmentUrl);
    expect(message.metadata).not.toHaveProperty("attachmentUrl");
    const plain = { metadata: { topic: "x" } };
    expect(signAgentMessage(plain, sign)).toBe(plain);
  });
});
