import { openDatabase, type Database, type DatabaseOptions } from "@maity/db";
import { adminService } from "./admin.ts";
import { authService } from "./auth.ts";
import { LiveBus } from "./bus.ts";
import { directService } from "./direct.ts";
import type { Caller } from "./caller.ts";
import { groupService } from "./groups.ts";

export type { AgentCaller, Caller, HumanCaller } from "./caller.ts";
export { LiveBus, type BusMessage } from "./bus.ts";
export { DEMO_LOGINS, seedDemo } from "./seed.ts";
export { hashPassword, sha256, verifyPassword } from "./credentials.ts";
export { SESSION_TTL_MS } from "./auth.ts";
export { DEFAULT_GROUP_CHAT_QUOTA, type GroupView } from "./groups.ts";

/** The application: services over one database and one live bus. */
export function createHub(database: Database) {
  const db = database.prisma;
  const bus = new LiveBus();
  return {
    database,
    db,
    bus,
    admin: adminService(db),
    auth: authService(db),
    direct: directService(db, bus),
    groups: groupService(db, bus),
    /** GET …/conversations/{id}: either kind by its id; the answer says which (§9, M-008). */
    async conversation(caller: Caller, ref: unknown, id: string) {
      return id.startsWith("cnv-") ? this.groups.get(caller, ref, id) : this.direct.getDirect(caller, ref, id);
    },
    health() {
      return {
        ok: database.migrations.pending.length === 0,
        database: { engine: database.engine, migrations: { applied: database.migrations.applied, pending: database.migrations.pending } },
      };
    },
    close: () => database.close(),
  };
}
export type Hub = ReturnType<typeof createHub>;

export async function openHub(options: DatabaseOptions): Promise<Hub> {
  return createHub(await openDatabase(options));
}
