import { HubError } from "@maity/domain";
import type { Caller, DeviceCaller } from "@maity/hub";

// Which credentials each operation accepts: one table for tRPC and REST (the procedures' middleware
// in trpc.ts and the REST adapter, before the body is read), and the table docs/api.md shows
// (`pnpm docs:access` prints it). A person's operation refuses an agent token with `humans_only`;
// an agent API operation answers a person's credential like none (401, B-010/B-011); an operator
// route is hidden (404) without MAITY_ADMIN_TOKEN. An operation missing here is refused (fail closed).

/** How a caller came: the dashboard's session cookie, a person's mty_ token, an agent's bay_ token, the operator's bearer. */
export type CredentialKind = "session" | "human_token" | "agent_token" | "device_token" | "admin";

export interface Access {
  /** The credentials the operation accepts; "anyone" needs none (a login, a pairing, a signed download). */
  who: readonly CredentialKind[] | "anyone";
  /** Why an agent token is refused (the refusal's message), or where the hub refuses it itself. */
  why?: string;
}

const anyone: Access = { who: "anyone" };
const admin: Access = { who: ["admin"] };
/** The agent API (004): a bay_ agent token and nothing else. */
const agent: Access = { who: ["agent_token"] };
/** The Maity routes of §9 are a member's, an agent's token included (002 §9: agents read and post there). */
const members: Access = { who: ["session", "human_token", "agent_token"] };
/** A person's operation; `why` tells an agent where its own is. */
const people = (why?: string): Access => ({ who: ["session", "human_token"], ...(why === undefined ? {} : { why }) });
/**
 * A member's operation that the spec gives people only, refused by the hub after its visibility
 * check (hidden = missing comes first: an agent outside the project gets not_found, not humans_only).
 */
const peopleAfterVisibility = (why: string): Access => ({ who: members.who, why });

const AGENT_API = "an agent uses the agent API (/api/agent-api)";
/** The device API (DESIGN §4e): a person's `bay_u_` device credential, acting through named sessions (B-310, B-312). */
const device: Access = { who: ["device_token"] };

export const ACCESS: Record<string, Access> = {
  health: anyone,
  "admin.createHuman": admin,
  "admin.createAgent": admin,
  "admin.createProject": admin,
  "admin.addMember": admin,
  "admin.removeMember": admin,
  "admin.archiveProject": admin,
  "admin.mintToken": admin,
  "admin.revokeToken": admin,
  "agent.me": agent,
  "agent.conversations": agent,
  "agent.context": agent,
  "agent.project": agent,
  "agent.contextReport": agent,
  "agent.summary": agent,
  "agent.notes": agent,
  "agent.noteCreate": agent,
  "agent.noteGet": agent,
  "agent.notePatch": agent,
  "agent.messages": agent,
  "agent.send": agent,
  "agent.typing": agent,
  "agent.files": agent,
  "agent.fileLink": agent,
  "agent.agents": agent,
  "agent.search": agent,
  "search.messages": people("an agent searches its rooms with GET /api/agent-api/search"),
  "agent.contact": agent,
  "agent.updates": agent,
  "agent.webhookSet": agent,
  "agent.webhookGet": agent,
  "agent.webhookRemove": agent,
  "agent.upload": agent,
  // B-010: the pairing routes are how an agent gets its token; a budget per address guards them.
  "agent.pair": anyone,
  "agent.link": anyone,
  "agent.linkPoll": anyone,
  "agent.pollCreate": agent,
  "agent.joinSessionGroup": agent,
  "agent.pollVote": agent,
  "agent.pollGet": agent,
  "agent.react": agent,
  "agent.unreact": agent,
  "library.list": members,
  "library.add": members,
  "library.remove": members,
  "attachments.get": members,
  "attachments.content": members,
  "files.upload": people(`${AGENT_API}: POST /api/agent-api/attachments uploads an agent's file`),
  // B-185: the URL's signature is the credential.
  "files.download": anyone,
  "auth.me": anyone,
  "auth.login": anyone,
  "auth.logout": people(),
  // Issue 29: anyone signs up (with an invite, unless MAITY_SIGNUP=open) and reads where a code leads.
  "auth.signup": anyone,
  "invites.preview": anyone,
  "devices.open": anyone,
  "devices.poll": anyone,
  "devices.logout": anyone,
  "devices.view": people("a person signs their own computer in (DESIGN §4e)"),
  "devices.approve": people("a person signs their own computer in (DESIGN §4e)"),
  "devices.deny": people("a person signs their own computer in (DESIGN §4e)"),
  "devices.list": people("a person's devices are theirs (DESIGN §4e)"),
  "devices.revoke": people("a person's devices are theirs (DESIGN §4e)"),
  "invites.accept": people("a person joins a project with an invite"),
  "invites.create": peopleAfterVisibility("a project's people invite (DESIGN §4c)"),
  "invites.list": peopleAfterVisibility("a project's people invite (DESIGN §4c)"),
  "invites.revoke": peopleAfterVisibility("a project's people invite (DESIGN §4c)"),
  "projects.mine": members,
  "projects.names": members,
  "projects.get": members,
  "projects.create": people("a project is made by a person, in their Bay (DESIGN §4c)"),
  "projects.members": members,
  "projects.addMember": peopleAfterVisibility("a project's people add its members (DESIGN §4c)"),
  "projects.removeMember": peopleAfterVisibility("a project's people remove its members (DESIGN §4c)"),
  "projects.recallVisitor": people("a visitor is sent home by the person who brought it (DESIGN §4c)"),
  "projects.brief": peopleAfterVisibility("the brief is people's; an agent is handed it with its messages (004 v1.15)"),
  "projects.setBrief": peopleAfterVisibility("the brief is written by people (004 v1.15)"),
  "projects.update": peopleAfterVisibility(
    "a project's people name it and choose what visitors read (DESIGN §4b, §4c)",
  ),
  "summary.get": peopleAfterVisibility("agents read the summary through the agent API (004 §6)"),
  "notes.list": peopleAfterVisibility("agents read notes through the agent API (004 v1.17)"),
  "notes.create": peopleAfterVisibility("agents write notes through the agent API (004 v1.17)"),
  "notes.chatList": peopleAfterVisibility("agents read notes through the agent API (004 v1.17)"),
  "notes.chatCreate": peopleAfterVisibility("agents write notes through the agent API (004 v1.17)"),
  "notes.get": peopleAfterVisibility("agents read notes through the agent API (004 v1.17)"),
  "notes.update": peopleAfterVisibility("agents edit notes through the agent API, and never pin (004 v1.17)"),
  "notes.remove": peopleAfterVisibility("people delete notes (DESIGN §4b)"),
  "live.feed": members,
  "conversations.list": members,
  "conversations.mine": peopleAfterVisibility("an agent reads the list of its project (§9.4)"),
  "conversations.get": members,
  "conversations.create": peopleAfterVisibility("only a human creates a group chat (§9.2, M-085)"),
  "conversations.update": members,
  "conversations.pin": peopleAfterVisibility("pins are a human's own (M-188)"),
  "conversations.unpin": peopleAfterVisibility("pins are a human's own (M-188)"),
  "conversations.setMeatProxy": peopleAfterVisibility("the meat-proxy mode is a human's own"),
  "participants.add": members,
  "participants.update": members,
  "participants.remove": members,
  "messages.list": members,
  "messages.post": members,
  "messages.routing": members,
  "messages.typing": people(`${AGENT_API}: POST /api/agent-api/conversations/{id}/typing`),
  "messages.markRead": people(`${AGENT_API}: reading a room's messages there marks them read`),
  "messages.redact": peopleAfterVisibility("no agent redacts (§8.5)"),
  "events.list": members,
  "events.post": members,
  "polls.create": people(`${AGENT_API}: POST /api/agent-api/polls`),
  "polls.vote": members,
  "polls.close": peopleAfterVisibility("only people close a poll (OQ-B-25)"),
  "polls.get": members,
  "reactions.add": members,
  "reactions.remove": members,
  "agents.mine": people(),
  "agents.create": people("a person makes their own agents (DESIGN §4c)"),
  "agents.update": people("an agent's owner changes what it is for (DESIGN §4c)"),
  "agents.mintPairingCode": people(),
  "links.get": people(),
  "links.approve": people(),
  "sessions.join": device,
  "sessions.list": device,
  "sessions.end": device,
  "sessions.groups": device,
  "sessions.createGroup": device,
  "sessions.requestApproval": device,
  "sessions.awaitApproval": device,
  "sessions.listen": device,
  "sessions.deliveryStatus": device,
  "sessions.stopListening": device,
  "sessions.context": device,
  "sessions.updates": device,
  "sessions.handoffs": device,
  "sessions.reportHandoff": device,
  "mySessions.list": people("a person's terminal sessions are theirs (DESIGN §4e)"),
  "mySessions.freshStart": people("a fresh start is the session's person's alone (B-289)"),
  "mySessions.latestFreshStart": people("a fresh start is the session's person's alone (B-289)"),
  "mySessions.update": people("a session's person decides its fresh starts (B-289)"),
  "approvals.get": people("a session asks its approval of a person (DESIGN §4e)"),
  "approvals.decide": people("only the person an approval asks decides it (B-313)"),
};

/** The credential a caller came with. */
export function credentialKind(caller: Caller, bySession: boolean): CredentialKind {
  if (caller.kind === "agent") return "agent_token";
  return bySession ? "session" : "human_token";
}

/** What the table answers a caller of operation `name` (null: let it through). */
export function accessRefusal(
  name: string,
  who: {
    caller: Caller | null;
    session: string | null;
    admin: "ok" | "hidden" | "unauthenticated";
    device?: DeviceCaller | null | undefined;
  },
): HubError | null {
  const entry = ACCESS[name];
  if (!entry) return HubError.notFound("no such procedure");
  if (entry.who === "anyone") return null;
  // B-312: the device API answers any other credential (an agent's bay_ included) like none.
  if (entry.who.includes("device_token") && who.device) return null;
  if (entry.who.includes("admin")) {
    if (who.admin === "hidden") return HubError.notFound("no such route");
    return who.admin === "ok" ? null : HubError.unauthenticated();
  }
  if (!who.caller) return HubError.unauthenticated();
  if (entry.who.length === 1 && entry.who[0] === "device_token") return HubError.unauthenticated();
  const kind = credentialKind(who.caller, who.session !== null);
  if (entry.who.includes(kind)) return null;
  // B-010/B-011: the agent API answers a person's credential exactly like none.
  if (!entry.who.includes("session") && !entry.who.includes("human_token")) return HubError.unauthenticated();
  return HubError.forbidden("humans_only", kind === "agent_token" ? entry.why : undefined);
}

const KIND_WORDS: Record<CredentialKind, string> = {
  session: "session",
  human_token: "person's token",
  agent_token: "agent token",
  device_token: "device credential",
  admin: "operator",
};

/** The table as Markdown (docs/api.md), one row per operation; `routeOf` names its REST route, if any. */
export function accessTable(routeOf: (name: string) => string = () => ""): string {
  const rows = Object.entries(ACCESS).map(([name, entry]) => {
    const who = entry.who === "anyone" ? "anyone" : entry.who.map((k) => KIND_WORDS[k]).join(", ");
    const agentRefused = entry.who !== "anyone" && !entry.who.includes("agent_token") && !entry.who.includes("admin");
    const note = entry.why
      ? entry.who !== "anyone" && entry.who.includes("agent_token") && entry.why
        ? `agent token: humans_only from the hub after the visibility check — ${entry.why}`
        : `agent token: humans_only — ${entry.why}`
      : agentRefused && entry.who.includes("session")
        ? "agent token: humans_only"
        : entry.who !== "anyone" && entry.who.includes("device_token")
          ? "any other credential: 401, as none (B-312)"
          : "";
    const route = routeOf(name);
    return `| \`${name}\` | ${route ? `\`${route}\`` : "tRPC only"} | ${who} | ${note} |`;
  });
  return ["| operation | REST route | accepts | refused |", "| --- | --- | --- | --- |", ...rows].join("\n");
}
