import { openDatabase, type Database, type DatabaseOptions } from "@maity/db";
import { adminService } from "./admin.ts";
import { authService } from "./auth.ts";
import { LiveBus } from "./bus.ts";
import { conversationService } from "./conversations.ts";
import { groupService } from "./groups.ts";
import { messagesService } from "./messages.ts";

export type { AgentCaller, Caller, HumanCaller } from "./caller.ts";
export { LiveBus, type BusMessage } from "./bus.ts";
export { DEMO_LOGINS, seedDemo } from "./seed.ts";
export { hashPassword, sha256, verifyPassword } from "./credentials.ts";
export { SESSION_TTL_MS } from "./auth.ts";
export { DEFAULT_GROUP_CHAT_QUOTA, type Participation } from "./groups.ts";

export interface HubOptions {
  /** Open group chats per project (§1.7); default DEFAULT_GROUP_CHAT_QUOTA or MAITY_GROUP_CHAT_QUOTA. */
  groupChatQuota?: number;
}

/** The application: services over one database and one live bus. */
export function createHub(database: Database, options: HubOptions = {}) {
  const db = database.prisma;
  const bus = new LiveBus();
  return {
    database,
    db,
    bus,
    admin: adminService(db, bus),
    auth: authService(db),
    conversations: conversationService(db),
    groups: groupService(db, bus, options.groupChatQuota === undefined ? {} : { quota: options.groupChatQuota }),
    messages: messagesService(db, bus),
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

export async function openHub(options: DatabaseOptions & HubOptions): Promise<Hub> {
  return createHub(await openDatabase(options), options);
}
