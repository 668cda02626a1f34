import { randomBytes } from "node:crypto";
import {
  HubError,
  humanId,
  type Invite,
  type inviteCreateFields,
  inviteStatus,
  type ProjectRef,
  type signupInput,
} from "@maity/domain";
import type { Db, Tx } from "@maity/db";
import type { z } from "zod";
import type { HumanCaller } from "../access/caller.ts";
import { adminProject as adminProjectOf } from "../access/resolve.ts";
import { sha256 } from "../auth/credentials.ts";
import type { authService } from "../auth/service.ts";

// Invites and sign-up (issue 29, DESIGN §4c). A project's admins make, list and revoke invite
// links; anyone holding a valid code sees where it leads and, signed in, joins; without an account
// they sign up with it (the password and login-limit rules of every person) and join in the same
// transaction. `signup` says whether people may also sign up without an invite (MAITY_SIGNUP).

export type SignupMode = "invite" | "open";

type Auth = ReturnType<typeof authService>;
type Row = {
  id: string;
  projectId: string;
  createdBy: string;
  createdAt: Date;
  expiresAt: Date;
  maxUses: number;
  uses: number;
  revokedAt: Date | null;
};

const view = (r: Row, now = Date.now()): Invite => ({
  id: r.id,
  created_by: r.createdBy,
  created_at: r.createdAt.toISOString(),
  expires_at: r.expiresAt.toISOString(),
  max_uses: r.maxUses,
  uses: r.uses,
  revoked_at: r.revokedAt?.toISOString() ?? null,
  status: inviteStatus(r, now),
});

/** A wrong code says nothing — not that the project exists, nor that the code ever did. */
const noInvite = () => HubError.notFound("no such invite");
/** A right code that lets nobody in any more says why, and nothing of the project. */
const spentInvite = (status: string) =>
  new HubError("conflict", `this invite is ${status}: ask the project for a new one`, { reason: `invite_${status}` });

const ROW = {
  id: true,
  projectId: true,
  createdBy: true,
  createdAt: true,
  expiresAt: true,
  maxUses: true,
  uses: true,
  revokedAt: true,
} as const;

export function invitesService(db: Db, auth: Auth, options: { signup?: SignupMode } = {}) {
  const signupMode = options.signup ?? "invite";

  const adminProject = (caller: HumanCaller, ref: ProjectRef) => adminProjectOf(db, caller, ref, "manages its invites");

  /**
   * Takes one use of the invite in `tx`, under its row's lock: the project joined, or the refusal
   * (a wrong code not_found; expired, spent or revoked a conflict naming which). A person already a
   * member spends nothing.
   */
  async function useInvite(tx: Tx, code: string, memberId: string) {
    const [row] = await tx.$queryRawUnsafe<
      { id: string; project_id: string; expires_at: Date; max_uses: number; uses: number; revoked_at: Date | null }[]
    >(
      "SELECT id, project_id, expires_at, max_uses, uses, revoked_at FROM invites WHERE code_hash = $1 FOR UPDATE",
      sha256(code),
    );
    if (!row) throw noInvite();
    const status = inviteStatus(
      {
        expiresAt: new Date(row.expires_at),
        maxUses: Number(row.max_uses),
        uses: Number(row.uses),
        revokedAt: row.revoked_at === null ? null : new Date(row.revoked_at),
      },
      Date.now(),
    );
    const project = await tx.project.findUniqueOrThrow({
      where: { id: row.project_id },
      select: { id: true, slug: true, name: true, archivedAt: true, bay: { select: { handle: true } } },
    });
    const ref = { owner: project.bay.handle, slug: project.slug, name: project.name };
    const member = await tx.membership.findFirst({
      where: { projectId: project.id, memberId, status: "active" },
      select: { id: true },
    });
    if (member) return { project: ref, joined: false };
    if (status !== "valid") throw spentInvite(status);
    if (project.archivedAt) throw new HubError("project_closed", "the project is archived");
    await tx.membership.upsert({
      where: { projectId_memberId: { projectId: project.id, memberId } },
      create: { projectId: project.id, memberId, memberKind: "human", permissions: [] },
      update: { status: "active", endedAt: null, permissions: [] },
    });
    await tx.invite.update({ where: { id: row.id }, data: { uses: { increment: 1 } } });
    return { project: ref, joined: true };
  }

  return {
    /** POST …/invites (members:admin): the code and the link's path, shown this once. */
    async create(caller: HumanCaller, ref: ProjectRef, input: z.output<typeof inviteCreateFields>) {
      const project = await adminProject(caller, ref);
      const code = `inv_${randomBytes(18).toString("base64url")}`;
      const now = new Date();
      const row = await db.invite.create({
        data: {
          id: `inv-${randomBytes(8).toString("hex")}`,
          projectId: project.id,
          codeHash: sha256(code),
          createdBy: caller.id,
          createdAt: now,
          expiresAt: new Date(now.getTime() + input.expires_in_hours * 3_600_000),
          maxUses: input.max_uses,
        },
        select: ROW,
      });
      return { ...view(row), code, path: `/invite/${code}` };
    },

    /** GET …/invites (members:admin): newest first, never a code. */
    async list(caller: HumanCaller, ref: ProjectRef): Promise<Invite[]> {
      const project = await adminProject(caller, ref);
      const rows = await db.invite.findMany({
        where: { projectId: project.id },
        orderBy: { createdAt: "desc" },
        take: 200,
        select: ROW,
      });
      const now = Date.now();
      return rows.map((r) => view(r, now));
    },

    /** DELETE …/invites/{id} (members:admin): revoked at once; revoking twice keeps the first time. */
    async revoke(caller: HumanCaller, ref: ProjectRef, inviteId: string): Promise<Invite> {
      const project = await adminProject(caller, ref);
      const found = await db.invite.findFirst({ where: { id: inviteId, projectId: project.id }, select: ROW });
      if (!found) throw HubError.notFound("no such invite");
      if (found.revokedAt) return view(found);
      return view(await db.invite.update({ where: { id: inviteId }, data: { revokedAt: new Date() }, select: ROW }));
    },

    /** GET /api/invites/{code} (anyone): where a valid code leads; the status alone for one that is not. */
    async preview(code: string) {
      const row = await db.invite.findUnique({ where: { codeHash: sha256(code) }, select: ROW });
      if (!row) throw noInvite();
      const status = inviteStatus(row, Date.now());
      if (status !== "valid") return { status, project: null };
      const project = await db.project.findUniqueOrThrow({
        where: { id: row.projectId },
        select: { slug: true, name: true, bay: { select: { handle: true } } },
      });
      return { status, project: { owner: project.bay.handle, slug: project.slug, name: project.name } };
    },

    /** POST /api/invites/{code}/accept: the signed-in person joins (a member already: nothing spent). */
    accept(caller: HumanCaller, code: string) {
      return db.$transaction((tx) => useInvite(tx, code, caller.id));
    },

    /**
     * POST /api/auth/signup: a person of their own new Bay (as the operator makes one), with a
     * session; with an invite they join its project in the same transaction — a spent or wrong
     * invite creates no account. Without one only when MAITY_SIGNUP is open.
     */
    async signup(input: z.output<typeof signupInput>, client: { address?: string | null } = {}) {
      if (input.invite === undefined && signupMode !== "open")
        throw HubError.forbidden("invite_only", "this hub lets people sign up with an invite only");
      // A wrong or spent invite is refused before the password is hashed (it costs the hub nothing).
      if (input.invite !== undefined) {
        const preview = await this.preview(input.invite);
        if (preview.status !== "valid") throw spentInvite(preview.status);
      }
      const taken = await db.human.findUnique({ where: { handle: input.handle }, select: { id: true } });
      if (taken) throw HubError.invalid({ handle: "taken" }, "that handle is taken");
      const passwordHash = await auth.signupHash(input.password, client);
      const id = humanId(input.handle);
      const joined = await db
        .$transaction(async (tx) => {
          const bay = await tx.bay.findUnique({ where: { handle: input.handle }, select: { id: true } });
          if (bay) throw HubError.invalid({ handle: "taken" }, "that handle is taken");
          await tx.bay.create({ data: { id: `bay-${input.handle}`, handle: input.handle } });
          await tx.human.create({
            data: { id, handle: input.handle, displayName: input.name, passwordHash, bayId: `bay-${input.handle}` },
          });
          return input.invite === undefined ? null : (await useInvite(tx, input.invite, id)).project;
        })
        .catch((error: unknown) => {
          // Two sign-ups with one handle at once: the second meets the first's row.
          if ((error as { code?: string })?.code === "P2002")
            throw HubError.invalid({ handle: "taken" }, "that handle is taken");
          throw error;
        });
      const human: HumanCaller = { kind: "human", id, handle: input.handle, name: input.name };
      const session = await auth.openSession(human);
      return { session, view: { id, handle: input.handle, name: input.name, project: joined } };
    },
  };
}

export type InvitesService = ReturnType<typeof invitesService>;
