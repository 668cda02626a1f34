import { randomBytes } from "node:crypto";
import {
  DEVICE_LOGIN_TTL_MS,
  DEVICE_POLL_INTERVAL_SECONDS,
  DEVICE_TOKEN_PREFIX,
  type DeviceLoginOpened,
  type DeviceLoginPoll,
  type deviceLoginInput,
  deviceLoginStatus,
  HubError,
} from "@maity/domain";
import type { Db } from "@maity/db";
import type { z } from "zod";
import type { HumanCaller } from "../access/caller.ts";
import { code, normal } from "../agents/pairing.ts";
import { sha256 } from "../auth/credentials.ts";
import type { LiveBus } from "../delivery/bus.ts";

// Device login (issue 30, DESIGN §4e, B-324), shaped like the reverse link (004 §2): the computer
// opens a request (no token) and polls it with its secret; the person sees the label and the code in
// the dashboard and approves it for one or more of their Bays, or denies it. The approved poll hands
// one `bay_u_` credential per Bay, once; only their SHA-256 are kept. People list and revoke devices.

type Bay = { id: string; name: string };

export function deviceService(db: Db, bus: LiveBus) {
  /** The Bays a person belongs to: their own, and the Bays of the projects they are an active member of. */
  async function baysOf(humanId: string): Promise<Bay[]> {
    const [own, projects] = await Promise.all([
      db.human.findUniqueOrThrow({ where: { id: humanId }, select: { bay: { select: { id: true, handle: true } } } }),
      db.membership.findMany({
        where: { memberId: humanId, status: "active" },
        select: { project: { select: { bay: { select: { id: true, handle: true } } } } },
      }),
    ]);
    const all = [own.bay, ...projects.map((m) => m.project.bay)];
    const seen = new Map(all.map((b) => [b.id, { id: b.id, name: b.handle }]));
    return [...seen.values()];
  }

  /** The request behind an approve code; an unknown code answers like a missing one. */
  async function byCode(approveCode: string) {
    const row = await db.deviceLogin.findUnique({
      where: { codeHash: sha256(normal(approveCode)) },
      select: {
        id: true,
        label: true,
        createdAt: true,
        expiresAt: true,
        approvedAt: true,
        deniedAt: true,
        redeemedAt: true,
        humanId: true,
      },
    });
    if (!row) throw HubError.notFound("login request not found");
    return row;
  }

  /** The request as `person` may reach it: decided by someone else, it is not theirs (hidden = missing). */
  async function reachable(person: HumanCaller, approveCode: string) {
    const row = await byCode(approveCode);
    if (row.humanId !== null && row.humanId !== person.id) throw HubError.notFound("login request not found");
    return row;
  }

  return {
    /** POST /api/device-api/login (no token): a request the person approves at `approveUrl`. */
    async open(data: z.output<typeof deviceLoginInput>, baseUrl: string): Promise<DeviceLoginOpened> {
      const approveCode = code(3);
      const secret = randomBytes(32).toString("base64url");
      const id = `dlg-${randomBytes(12).toString("base64url")}`;
      const expiresAt = new Date(Date.now() + DEVICE_LOGIN_TTL_MS);
      await db.deviceLogin.create({
        data: {
          id,
          codeHash: sha256(normal(approveCode)),
          pollSecretHash: sha256(secret),
          label: data.label ?? null,
          expiresAt,
          bayIds: [],
        },
      });
      // The URL carries the approve code only, never a credential (as the reverse link, B-019).
      return {
        id,
        secret,
        code: approveCode,
        approveUrl: `${baseUrl}/device/${approveCode}`,
        expiresAt: expiresAt.toISOString(),
        pollIntervalSeconds: DEVICE_POLL_INTERVAL_SECONDS,
      };
    },

    /** GET /api/device/{code}: the label, the code and the person's Bays, before deciding. */
    async view(person: HumanCaller, approveCode: string) {
      const row = await reachable(person, approveCode);
      return {
        code: approveCode.toUpperCase(),
        label: row.label,
        status: deviceLoginStatus(row, new Date()),
        created_at: row.createdAt.toISOString(),
        expires_at: row.expiresAt.toISOString(),
        bays: await baysOf(person.id),
      };
    },

    /** POST /api/device/{code}/approve {bays}: once, while open, for Bays the person belongs to. */
    async approve(person: HumanCaller, approveCode: string, bays: string[]) {
      const row = await reachable(person, approveCode);
      const mine = new Set((await baysOf(person.id)).map((b) => b.id));
      const foreign = bays.filter((b) => !mine.has(b));
      if (foreign.length) throw HubError.invalid({ bays: "not_yours" }, "one of these Bays is not one of yours");
      const done = await db.deviceLogin.updateMany({
        where: { id: row.id, approvedAt: null, deniedAt: null, expiresAt: { gt: new Date() } },
        data: { approvedAt: new Date(), humanId: person.id, bayIds: [...new Set(bays)] },
      });
      if (done.count !== 1)
        throw new HubError("conflict", "this login request was decided already or has expired", {
          reason: deviceLoginStatus(row, new Date()),
        });
      return { status: "approved" as const };
    },

    /** POST /api/device/{code}/deny: the computer's next poll says denied. */
    async deny(person: HumanCaller, approveCode: string) {
      const row = await reachable(person, approveCode);
      const done = await db.deviceLogin.updateMany({
        where: { id: row.id, approvedAt: null, deniedAt: null, expiresAt: { gt: new Date() } },
        data: { deniedAt: new Date(), humanId: person.id },
      });
      if (done.count !== 1)
        throw new HubError("conflict", "this login request was decided already or has expired", {
          reason: deviceLoginStatus(row, new Date()),
        });
      return { status: "denied" as const };
    },

    /**
     * POST /api/device-api/login/{id}/poll {secret}: pending, denied, expired; approved once, with a
     * credential per Bay — collecting spends the request (a second poll answers like a missing one).
     */
    async poll(id: string, secret: string, baseUrl: string): Promise<DeviceLoginPoll> {
      const row = await db.deviceLogin.findUnique({
        where: { id },
        select: {
          pollSecretHash: true,
          label: true,
          expiresAt: true,
          approvedAt: true,
          deniedAt: true,
          redeemedAt: true,
          humanId: true,
          bayIds: true,
        },
      });
      if (!row || row.pollSecretHash !== sha256(secret) || row.redeemedAt)
        throw HubError.notFound("login request not found");
      const status = deviceLoginStatus(row, new Date());
      if (status !== "approved" || !row.humanId) return { status: status === "approved" ? "pending" : status };
      const humanId = row.humanId;
      // B-326: the person's own Bay first — the default connection of `maity mcp` — then the rest by name.
      const [found, own] = await Promise.all([
        db.bay.findMany({ where: { id: { in: row.bayIds } }, select: { id: true, handle: true } }),
        db.human.findUniqueOrThrow({ where: { id: humanId }, select: { bayId: true } }),
      ]);
      const bays = found.sort(
        (a, b) => Number(b.id === own.bayId) - Number(a.id === own.bayId) || a.handle.localeCompare(b.handle),
      );
      const credentials = await db.$transaction(async (tx) => {
        const taken = await tx.deviceLogin.updateMany({
          where: { id, redeemedAt: null },
          data: { redeemedAt: new Date() },
        });
        if (taken.count !== 1) return null;
        const device = await tx.device.create({
          data: { id: `dev-${randomBytes(12).toString("base64url")}`, humanId, label: row.label },
          select: { id: true },
        });
        const minted = bays.map((bay) => ({
          bay,
          token: `${DEVICE_TOKEN_PREFIX}${randomBytes(32).toString("base64url")}`,
        }));
        await tx.deviceCredential.createMany({
          data: minted.map((m) => ({ hash: sha256(m.token), deviceId: device.id, bayId: m.bay.id })),
        });
        return minted;
      });
      if (!credentials) throw HubError.notFound("login request not found");
      return {
        status: "approved",
        credentials: credentials.map((c) => ({ bay: { id: c.bay.id, name: c.bay.handle }, baseUrl, token: c.token })),
      };
    },

    /** POST /api/device-api/logout {token} (`maity logout`): the computer signs itself out, every Bay of it. */
    async logout(token: string) {
      const row = token.startsWith(DEVICE_TOKEN_PREFIX)
        ? await db.deviceCredential.findUnique({
            where: { hash: sha256(token) },
            select: { deviceId: true, device: { select: { humanId: true } } },
          })
        : null;
      const done = row
        ? await db.device.updateMany({ where: { id: row.deviceId, revokedAt: null }, data: { revokedAt: new Date() } })
        : { count: 0 };
      if (!row || done.count !== 1) throw HubError.notFound("device not found");
      // Its sessions' open streams end within a second, on every instance (auth watch).
      bus.publish({ type: "credentials", humanId: row.device.humanId });
      return { revoked: true as const };
    },

    /** GET /api/me/devices: the person's signed-in computers, newest first, with the Bays each opens. */
    async list(person: HumanCaller) {
      const devices = await db.device.findMany({
        where: { humanId: person.id, revokedAt: null },
        select: { id: true, label: true, createdAt: true, lastUsedAt: true, credentials: { select: { bayId: true } } },
        orderBy: { createdAt: "desc" },
      });
      const bayIds = [...new Set(devices.flatMap((d) => d.credentials.map((c) => c.bayId)))];
      const bays = new Map(
        (await db.bay.findMany({ where: { id: { in: bayIds } }, select: { id: true, handle: true } })).map((b) => [
          b.id,
          { id: b.id, name: b.handle },
        ]),
      );
      return {
        items: devices.map((d) => ({
          id: d.id,
          label: d.label,
          created_at: d.createdAt.toISOString(),
          last_used_at: d.lastUsedAt?.toISOString() ?? null,
          bays: d.credentials.flatMap((c) => bays.get(c.bayId) ?? []),
        })),
      };
    },

    /** DELETE /api/me/devices/{id}: its credentials stop at once; another's device answers like none. */
    async revoke(person: HumanCaller, deviceId: string) {
      const done = await db.device.updateMany({
        where: { id: deviceId, humanId: person.id, revokedAt: null },
        data: { revokedAt: new Date() },
      });
      if (done.count !== 1) throw HubError.notFound("device not found");
      bus.publish({ type: "credentials", humanId: person.id });
      return { id: deviceId, revoked: true as const };
    },
  };
}
export type DeviceService = ReturnType<typeof deviceService>;
