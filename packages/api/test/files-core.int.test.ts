import { randomBytes } from "node:crypto";
import { existsSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileKeys, localBlobStore, seedDemo } from "@maity/hub";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startApiServer } from "../src/node.ts";
import { handleRest } from "../src/rest/index.ts";
import { SESSION_COOKIE } from "../src/session.ts";
import { ADMIN, BASE, restClient, testHub, trpcBrowser } from "./helpers.ts";

// Files core (B-184 … B-197): the upload pipeline on both surfaces, the signed download, the
// sweep and the local store. Every file is made here (sharp makes the images).

// sharp is a dependency of @maity/hub, which makes the images it stores; the test borrows it from there.
const sharp = createRequire(new URL("../../hub/package.json", import.meta.url))(
  "sharp",
) as typeof import("../../hub/node_modules/sharp/lib/index.js");

const dataDir = await mkdtemp(join(tmpdir(), "maity-files-core-"));
const hub = await testHub({
  limits: { agent: 100_000 },
  files: { store: localBlobStore(join(dataDir, "files")), keys: fileKeys(randomBytes(32)) },
});
const rest = restClient(hub);
afterAll(async () => {
  await hub.close();
  await rm(dataDir, { recursive: true, force: true });
});
const AGENT_UPLOAD = "/api/agent-api/attachments";
const PROJECT_UPLOAD = "/api/projects/maintainer/maity/attachments";
const tokens: Record<string, string> = {};

beforeAll(async () => {
  await seedDemo(hub);
  for (const id of ["agt-a", "hum-maintainer", "hum-guest"])
    tokens[id] = (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: id } })).body.token;
});

interface UploadOptions {
  token?: string | null;
  path?: string;
  query?: string;
  /** Multipart fields sent after the file part. */
  fields?: Record<string, string>;
  headers?: Record<string, string>;
}
async function upload(bytes: Buffer, name: string, options: UploadOptions = {}) {
  const form = new FormData();
  form.append("file", new Blob([new Uint8Array(bytes)]), name);
  for (const [k, v] of Object.entries(options.fields ?? {})) form.append(k, v);
  const token = options.token === undefined ? tokens["agt-a"] : options.token;
  const res = await handleRest(
    hub,
    new Request(`${BASE}${options.path ?? AGENT_UPLOAD}${options.query ?? ""}`, {
      method: "POST",
      headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...(options.headers ?? {}) },
      body: form,
    }),
  );
  return { status: res.status, body: await res.json() };
}

const rows = () => hub.db.attachment.count();
async function blobs(): Promise<number> {
  let n = 0;
  for await (const _ of hub.blobs.list("attachments/")) n++;
  return n;
}
/** The stored bytes, fetched by a signed URL without any token. */
async function download(id: string) {
  const { path } = hub.fileKeys.signedPath(id);
  const res = await handleRest(hub, new Request(`${BASE}${path}`));
  return { res, bytes: Buffer.from(await res.arrayBuffer()) };
}
const solid = (width: number, height: number, alpha?: number) =>
  sharp({
    create: {
      width,
      height,
      channels: alpha === undefined ? 3 : 4,
      background: { r: 40, g: 120, b: 200, ...(alpha === undefined ? {} : { alpha }) },
    },
  });
async function transparentPng(width: number, height: number): Promise<Buffer> {
  const raw = Buffer.alloc(width * height * 4, 200);
  for (let i = 3; i < raw.length; i += 4) raw[i] = (i / 4) % width < width / 2 ? 0 : 255;
  return sharp(raw, { raw: { width, height, channels: 4 } })
    .png()
    .toBuffer();
}
async function animatedGif(): Promise<Buffer> {
  const strip = await sharp({ create: { width: 40, height: 120, channels: 3, background: "#336699" } })
    .raw()
    .toBuffer();
  for (let i = 40 * 40 * 3; i < strip.length; i++) strip[i] = (strip[i] ?? 0) ^ 0xff;
  return sharp(strip, { raw: { width: 40, height: 120, channels: 3, pageHeight: 40 } })
    .gif({ loop: 0, delay: [100, 100, 100] })
    .toBuffer();
}

describe("B-186 … B-196 the agent upload", () => {
  it("B-189 B-190 B-191 B-195 a 4000×3000 photo with EXIF GPS and orientation 6 is stored upright, 1200×1600, stripped", async () => {
    const photo = await solid(4000, 3000)
      .jpeg({ quality: 95 })
      .withMetadata({ orientation: 6 })
      .withExif({ IFD0: { Make: "Phone" }, IFD3: { GPSLatitudeRef: "N", GPSLatitude: "51/1 30/1 0/1" } })
      .toBuffer();
    const res = await upload(photo, "IMG_0001.jpeg");
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      attachmentId: expect.stringMatching(/^att-[0-9a-z]{10,40}$/),
      size: expect.any(Number),
      mimeType: "image/jpeg",
      thumbhash: expect.any(String),
      fileName: "IMG_0001.jpeg",
    });
    const { bytes } = await download(res.body.attachmentId);
    expect(bytes.length).toBe(res.body.size);
    const meta = await sharp(bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["jpeg", 1200, 1600]);
    expect(meta.exif).toBeUndefined();
    expect(meta.xmp).toBeUndefined();
    expect(meta.icc).toBeUndefined();
    expect(meta.orientation).toBeUndefined();
    expect(bytes.toString("latin1")).not.toContain("Phone");
  });

  it("B-192 a PNG whose transparency is used stays PNG", async () => {
    const res = await upload(await transparentPng(2000, 1000), "logo.png");
    expect(res.status).toBe(201);
    expect([res.body.mimeType, res.body.fileName]).toEqual(["image/png", "logo.png"]);
    const meta = await sharp((await download(res.body.attachmentId)).bytes).metadata();
    expect([meta.format, meta.width, meta.height]).toEqual(["png", 1600, 800]);
  });

  it("B-192 B-195 an opaque PNG becomes a JPEG renamed .jpg", async () => {
    const res = await upload(await solid(2000, 1000, 1).png().toBuffer(), "chart.png");
    expect(res.status).toBe(201);
    expect([res.body.mimeType, res.body.fileName]).toEqual(["image/jpeg", "chart.jpg"]);
  });

  it("B-193 an animated GIF and B-194 a tiny clean JPEG are stored byte for byte", async () => {
    const gif = await animatedGif();
    const g = await upload(gif, "wave.gif");
    expect([g.status, g.body.mimeType, g.body.size]).toEqual([201, "image/gif", gif.length]);
    expect((await download(g.body.attachmentId)).bytes.equals(gif)).toBe(true);
    const tiny = await solid(120, 80).jpeg().toBuffer();
    const t = await upload(tiny, "dot.jpg");
    expect([t.status, t.body.size]).toEqual([201, tiny.length]);
    expect((await download(t.body.attachmentId)).bytes.equals(tiny)).toBe(true);
  });

  it("B-196 original=1 as a query parameter or a multipart field keeps the exact bytes", async () => {
    const photo = await solid(3000, 2000)
      .jpeg()
      .withExif({ IFD0: { Make: "Phone" } })
      .toBuffer();
    const byQuery = await upload(photo, "diagram.jpg", { query: "?original=1" });
    const byField = await upload(photo, "diagram.jpg", { fields: { original: "1" } });
    for (const res of [byQuery, byField]) {
      expect([res.status, res.body.size]).toEqual([201, photo.length]);
      expect((await download(res.body.attachmentId)).bytes.equals(photo)).toBe(true);
    }
  });

  it("B-187 text and CSV are sniffed from the bytes; a file keeps its name", async () => {
    const csv = await upload(Buffer.from("a,b\n1,2\n"), "numbers.csv");
    expect([csv.status, csv.body.mimeType, csv.body.thumbhash]).toEqual([201, "text/csv", null]);
    const pdf = await upload(Buffer.from("%PDF-1.4\n%âãÏÓ\n1 0 obj <<>> endobj\ntrailer <<>>\n%%EOF\n"), "report.pdf");
    expect([pdf.status, pdf.body.mimeType, pdf.body.fileName]).toEqual([201, "application/pdf", "report.pdf"]);
  });
});

describe("B-187 B-188 refusals store nothing", () => {
  const refused = async (res: Promise<{ status: number; body: unknown }>, status: number, code: string) => {
    const before = [await rows(), await blobs()];
    const answer = await res;
    expect(answer.status).toBe(status);
    expect(answer.body).toMatchObject({ code, error: expect.any(String) });
    expect([await rows(), await blobs()]).toEqual(before);
    return answer.body as { error: string; code: string };
  };

  it("B-187 PDF bytes named .png → 400 INVALID_UPLOAD naming both", async () => {
    const body = await refused(upload(Buffer.from("%PDF-1.4\n%%EOF\n"), "photo.png"), 400, "INVALID_UPLOAD");
    expect(body.error).toMatch(/\.png.*PDF/);
  });

  it("B-187 an MZ executable renamed .pdf → 415 UNSUPPORTED_FILE_TYPE", async () => {
    const exe = Buffer.concat([Buffer.from("MZ"), Buffer.alloc(200), Buffer.from("PE\0\0")]);
    await refused(upload(exe, "invoice.pdf"), 415, "UNSUPPORTED_FILE_TYPE");
  });

  it("B-188 a 26 MB file → 413 FILE_TOO_LARGE", async () => {
    await refused(upload(Buffer.alloc(26 * 1024 * 1024, 0x61), "big.txt"), 413, "FILE_TOO_LARGE");
  });

  it("B-188 a declared Content-Length over the limit is refused before the body is read", async () => {
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        pulled++;
        controller.enqueue(new Uint8Array(1024));
      },
    });
    const res = await handleRest(
      hub,
      new Request(`${BASE}${AGENT_UPLOAD}`, {
        method: "POST",
        headers: {
          authorization: `Bearer ${tokens["agt-a"]}`,
          "content-type": "multipart/form-data; boundary=x",
          "content-length": String(30 * 1024 * 1024),
        },
        body,
        duplex: "half",
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ code: "FILE_TOO_LARGE" });
    expect(pulled).toBeLessThan(5);
  });

  it("v1.18 a decompression bomb (8000×8000 of one colour) → 413 IMAGE_TOO_LARGE", async () => {
    const bomb = await sharp({
      create: { width: 8000, height: 8000, channels: 3, background: "#ffffff" },
      limitInputPixels: false,
    })
      .png({ compressionLevel: 9 })
      .toBuffer();
    await refused(upload(bomb, "bomb.png"), 413, "IMAGE_TOO_LARGE");
    await refused(upload(bomb, "bomb.png", { query: "?original=1" }), 413, "IMAGE_TOO_LARGE");
  });

  it("B-186 no `file` part, two files, not multipart → 400 INVALID_UPLOAD; no token → 401", async () => {
    const call = (body: BodyInit, headers: Record<string, string> = {}, token = tokens["agt-a"]) =>
      handleRest(
        hub,
        new Request(`${BASE}${AGENT_UPLOAD}`, {
          method: "POST",
          headers: { ...(token ? { authorization: `Bearer ${token}` } : {}), ...headers },
          body,
        }),
      ).then(async (r) => ({ status: r.status, body: await r.json() }));
    const none = new FormData();
    none.append("original", "1");
    await refused(call(none), 400, "INVALID_UPLOAD");
    const two = new FormData();
    two.append("file", new Blob(["one"]), "a.txt");
    two.append("file", new Blob(["two"]), "b.txt");
    await refused(call(two), 400, "INVALID_UPLOAD");
    await refused(call(JSON.stringify({ file: "x" }), { "content-type": "application/json" }), 400, "INVALID_UPLOAD");
    const ok = new FormData();
    ok.append("file", new Blob(["hi"]), "a.txt");
    await refused(call(ok, {}, ""), 401, "UNAUTHORIZED");
  });
});

describe("the Maity upload: POST /api/projects/{owner}/{slug}/attachments", () => {
  it("B-186 a member uploads (mty_ bearer) → 201 with the stored file's fields", async () => {
    const res = await upload(await solid(2000, 1000, 1).png().toBuffer(), "chart.png", {
      path: PROJECT_UPLOAD,
      token: tokens["hum-maintainer"],
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      id: expect.stringMatching(/^att-/),
      file_name: "chart.jpg",
      size: expect.any(Number),
      mime_type: "image/jpeg",
      type: "image",
      thumbhash: expect.any(String),
      width: 1600,
      height: 800,
    });
    const row = await hub.db.attachment.findUniqueOrThrow({ where: { id: res.body.id } });
    expect([row.uploaderId, row.eventSeq, row.libraryProjectId]).toEqual(["hum-maintainer", null, null]);
  });

  it("refusals in the Maity style: 415, and a stranger's project answers 404", async () => {
    const exe = Buffer.concat([Buffer.from("MZ"), Buffer.alloc(64)]);
    const res = await upload(exe, "a.pdf", { path: PROJECT_UPLOAD, token: tokens["hum-maintainer"] });
    expect(res.status).toBe(415);
    expect(res.body.error).toMatchObject({ code: "unsupported_media_type" });
    const other = await upload(Buffer.from("hi"), "a.txt", {
      path: "/api/projects/maintainer/nope/attachments",
      token: tokens["hum-maintainer"],
    });
    expect([other.status, other.body.error.code]).toEqual([404, "not_found"]);
  });

  it("CSRF: a cookie-borne multipart upload must carry the hub's own Origin", async () => {
    const cookie = `${SESSION_COOKIE}=not-a-session`;
    const cross = await upload(Buffer.from("hi"), "a.txt", {
      path: PROJECT_UPLOAD,
      token: null,
      headers: { cookie, origin: "https://evil.example" },
    });
    expect([cross.status, cross.body.error.details.reason]).toEqual([403, "cross_site"]);
    const noOrigin = await upload(Buffer.from("hi"), "a.txt", {
      path: PROJECT_UPLOAD,
      token: null,
      headers: { cookie, "sec-fetch-site": "same-origin" },
    });
    expect(noOrigin.status).toBe(415);
    // Same origin: past the CSRF rule, to the session check (this cookie is no session).
    const same = await upload(Buffer.from("hi"), "a.txt", {
      path: PROJECT_UPLOAD,
      token: null,
      headers: { cookie, origin: BASE },
    });
    expect(same.status).toBe(401);
  });

  it("B-186 the dashboard's upload: a real session cookie from the hub's own origin → 201", async () => {
    const browser = trpcBrowser(hub);
    expect((await browser.mutation("auth.login", { handle: "guest", password: "guest-demo" })).status).toBe(200);
    const cookie = browser.cookie() ?? "";
    expect(cookie).toContain(SESSION_COOKIE);
    const res = await upload(Buffer.from("from the dashboard\n"), "notes.txt", {
      path: PROJECT_UPLOAD,
      token: null,
      headers: { cookie, origin: BASE },
    });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({ file_name: "notes.txt", mime_type: "text/plain", type: "file", thumbhash: null });
    const row = await hub.db.attachment.findUniqueOrThrow({ where: { id: res.body.id }, select: { uploaderId: true } });
    expect(row.uploaderId).toBe("hum-guest");
  });

  it("the upload routes are REST only: tRPC does not serve them", async () => {
    const caller = (await import("../src/routers/index.ts")).appRouter.createCaller({
      hub,
      caller: { kind: "human", id: "hum-maintainer", handle: "maintainer", name: "M" },
      session: null,
      resHeaders: new Headers(),
      secure: false,
      admin: "hidden",
    });
    await expect(caller.files.upload({ owner: "maintainer", slug: "maity" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});

describe("B-184 B-185 the signed download", () => {
  let id = "";
  const name = "Quartalsbericht – Ünïcødé (final).pdf";
  beforeAll(async () => {
    const res = await upload(Buffer.from("%PDF-1.4\n%%EOF\n"), name);
    expect(res.status).toBe(201);
    id = res.body.attachmentId;
  });

  it("B-185 fetchable without a token; B-184 Content-Disposition carries the name (RFC 6266) and safe headers", async () => {
    const { res, bytes } = await download(id);
    expect(res.status).toBe(200);
    expect(bytes.toString()).toBe("%PDF-1.4\n%%EOF\n");
    expect(res.headers.get("content-type")).toBe("application/pdf");
    expect(res.headers.get("content-length")).toBe(String(bytes.length));
    const disposition = res.headers.get("content-disposition") ?? "";
    expect(disposition.startsWith("attachment; ")).toBe(true);
    expect(disposition).toContain(
      `filename*=UTF-8''${encodeURIComponent(name).replace(/[()]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`,
    );
    expect(disposition).toMatch(/filename="Quartalsbericht _ _n_c_d_ \(final\).pdf"/);
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(res.headers.get("content-security-policy")).toBe("sandbox");
    const maxAge = Number(/max-age=(\d+)/.exec(res.headers.get("cache-control") ?? "")?.[1]);
    expect(res.headers.get("cache-control")).toMatch(/^private, /);
    expect(maxAge).toBeGreaterThan(3500);
    expect(maxAge).toBeLessThanOrEqual(3600);
  });

  it("an image is served inline", async () => {
    const res = await upload(await solid(50, 50).png().toBuffer(), "dot.png");
    expect((await download(res.body.attachmentId)).res.headers.get("content-disposition")).toMatch(/^inline; /);
  });

  it("B-184 the name never appears in the row's readable fields", async () => {
    const row = await hub.db.attachment.findUniqueOrThrow({ where: { id } });
    const { nameCipher, ...readable } = row;
    expect(JSON.stringify(readable)).not.toContain("Quartal");
    expect(nameCipher).not.toContain("Quartal");
    expect(hub.fileKeys.decryptName(nameCipher)).toBe(name);
  });

  it("B-185 expired, one character changed, unknown → 404 in the agent style, all alike", async () => {
    const answers = [];
    const expired = hub.fileKeys.signedPath(id, new Date(Date.now() - 3601_000)).path;
    const good = hub.fileKeys.signedPath(id).path;
    const flipped = good.replace(/sig=(.)/, (_, c: string) => `sig=${c === "A" ? "B" : "A"}`);
    const otherId = good.replace(id, `${id.slice(0, -1)}${id.endsWith("a") ? "b" : "a"}`);
    for (const path of [expired, flipped, otherId, `/api/files/${id}`, `/api/files/att-unknown0000?exp=1&sig=x`]) {
      const res = await handleRest(hub, new Request(`${BASE}${path}`));
      answers.push([res.status, await res.json()]);
    }
    for (const answer of answers) expect(answer).toEqual(answers[0]);
    expect(answers[0]?.[0]).toBe(404);
    expect(answers[0]?.[1]).toMatchObject({ code: "NOT_FOUND" });
  });

  it("B-185 B-186 through the real Node server: a download without a token, an upload", async () => {
    const server = await startApiServer(hub);
    try {
      const res = await fetch(`${server.url}${hub.fileKeys.signedPath(id).path}`);
      expect(res.status).toBe(200);
      expect(res.headers.get("content-disposition")).toContain("filename*=UTF-8''");
      expect(await res.text()).toBe("%PDF-1.4\n%%EOF\n");
      // An upload through the same server: the multipart body streams through the Node dispatch.
      const form = new FormData();
      form.append("file", new Blob(["through node\n"]), "node.txt");
      const up = await fetch(`${server.url}${AGENT_UPLOAD}?original=1`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens["agt-a"]}` },
        body: form,
      });
      expect(up.status).toBe(201);
      const uploaded = (await up.json()) as { attachmentId: string };
      expect((await download(uploaded.attachmentId)).bytes.toString()).toBe("through node\n");
      const url = hub.files.signedUrl(id, server.url);
      expect(url.url.startsWith(`${server.url}/api/files/${id}?exp=`)).toBe(true);
      expect((await fetch(url.url)).status).toBe(200);
    } finally {
      await server.close();
    }
  });

  it("§8.7 deleteBytes tombstones the row, deletes the bytes; the URL then answers 404", async () => {
    const row = await hub.db.attachment.findUniqueOrThrow({ where: { id }, select: { blobKey: true } });
    await hub.files.deleteBytes([id]);
    expect((await hub.db.attachment.findUniqueOrThrow({ where: { id } })).deletedAt).not.toBeNull();
    expect(await hub.blobs.get(row.blobKey)).toBeNull();
    expect(await hub.files.open(id)).toBeNull();
    expect((await download(id)).res.status).toBe(404);
  });
});

describe("the local store and the sweep", () => {
  it("the bytes live on disk under the data folder", async () => {
    const res = await upload(Buffer.from("on disk\n"), "note.txt");
    const path = join(dataDir, "files", "attachments", res.body.attachmentId);
    expect(existsSync(path)).toBe(true);
    expect(readFileSync(path, "utf8")).toBe("on disk\n");
  });

  it("B-197 an upload never sent is deleted after 24 h, bytes and row; a younger one and a sent one stay", async () => {
    const old = (await upload(Buffer.from("old\n"), "old.txt")).body.attachmentId as string;
    const young = (await upload(Buffer.from("young\n"), "young.txt")).body.attachmentId as string;
    const sent = (await upload(Buffer.from("sent\n"), "sent.txt")).body.attachmentId as string;
    const dayAgo = new Date(Date.now() - 25 * 3600 * 1000);
    await hub.db.attachment.updateMany({ where: { id: { in: [old, sent] } }, data: { createdAt: dayAgo } });
    await hub.db.attachment.update({ where: { id: sent }, data: { eventSeq: 1, position: 0 } });
    await hub.files.sweep();
    expect(await hub.db.attachment.findUnique({ where: { id: old } })).toBeNull();
    expect(existsSync(join(dataDir, "files", "attachments", old))).toBe(false);
    expect(await hub.files.open(young)).not.toBeNull();
    expect(await hub.files.open(sent)).not.toBeNull();
  });

  it("B-197 a blob no row names is an orphan once an hour old", async () => {
    await hub.blobs.put("attachments/att-orphan000000", Buffer.from("lost"), 4, "text/plain");
    const kept = (await upload(Buffer.from("kept\n"), "kept.txt")).body.attachmentId as string;
    await hub.files.sweep(new Date(Date.now() + 30 * 60 * 1000));
    expect(await hub.blobs.get("attachments/att-orphan000000")).not.toBeNull();
    const result = await hub.files.sweep(new Date(Date.now() + 2 * 3600 * 1000));
    expect(result.orphans).toBeGreaterThanOrEqual(1);
    expect(await hub.blobs.get("attachments/att-orphan000000")).toBeNull();
    expect(await hub.files.open(kept)).not.toBeNull();
  });
});

describe("the OpenAPI document", () => {
  it("B-186 documents the uploads as multipart and the signed download as bytes", async () => {
    const doc = (await rest("GET", "/api/openapi.json")).body;
    const agent = doc.paths["/api/agent-api/attachments"].post;
    expect(Object.keys(agent.requestBody.content)).toEqual(["multipart/form-data"]);
    expect(agent.requestBody.content["multipart/form-data"].schema.required).toEqual(["file"]);
    expect(agent.parameters).toContainEqual(expect.objectContaining({ name: "original", in: "query" }));
    expect(Object.keys(agent.responses["201"].content)).toEqual(["application/json"]);
    const maity = doc.paths["/api/projects/{owner}/{slug}/attachments"].post;
    expect(Object.keys(maity.requestBody.content)).toEqual(["multipart/form-data"]);
    const download = doc.paths["/api/files/{id}"].get;
    expect(Object.keys(download.responses["200"].content)).toEqual(["application/octet-stream"]);
    expect(download.security).toEqual([]);
  });
});

describe("uploads feed the send (files-messages)", () => {
  it("B-186 B-181 an agent's upload is sent on a message and read back with a signed URL that serves it", async () => {
    const made = await rest("POST", "/api/projects/maintainer/maity/conversations", {
      token: tokens["hum-maintainer"],
      body: { title: "Files", participants: ["agt-a", "hum-guest"] },
    });
    expect(made.status).toBe(201);
    const key = (
      await hub.db.conversation.findFirstOrThrow({ where: { publicId: made.body.id }, select: { id: true } })
    ).id;
    const up = await upload(await solid(2000, 1000, 1).png().toBuffer(), "chart.png");
    expect(up.status).toBe(201);
    const sent = await handleRest(
      hub,
      new Request(`${BASE}/api/agent-api/conversations/${key}/messages`, {
        method: "POST",
        headers: { authorization: `Bearer ${tokens["agt-a"]}`, "content-type": "application/json" },
        body: JSON.stringify({ content: "the chart", attachments: [{ attachmentId: up.body.attachmentId }] }),
      }),
    );
    expect(sent.status).toBe(201);
    const message = await sent.json();
    const [attachment] = message.metadata.attachments;
    expect(attachment).toMatchObject({ attachmentId: up.body.attachmentId, type: "image", mimeType: "image/jpeg" });
    const res = await handleRest(hub, new Request(new URL(attachment.attachmentUrl, BASE)));
    expect(res.status).toBe(200);
    expect(res.headers.get("content-disposition")).toContain("chart.jpg");
  });
});
