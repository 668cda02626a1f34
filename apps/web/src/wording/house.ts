import { HANDLE_PATTERN, type MemberEntry, type Placement } from "@maity/domain";

// The words and small rules of running one's own house (DESIGN §4c): a new project's slug, the
// hub's field refusals as sentences, who is an admin, a visitor's line, the pairing command.
// Pure, table-tested (test/house.test.ts).

/** A handle is at most this long (HANDLE_PATTERN: 1–40 characters). */
const SLUG_MAX = 40;

const LATIN: Record<string, string> = { ß: "ss", æ: "ae", œ: "oe", ø: "o", ł: "l", đ: "d" };

/**
 * The slug a project's name suggests: lowercase letters, digits and dashes, accents dropped, at most
 * 40 characters, starting and ending with a letter or digit — what the hub takes (HANDLE_PATTERN).
 * "Café Menu 2026!" → "cafe-menu-2026"; a name of no letters or digits suggests "".
 */
export function slugFromName(name: string): string {
  const plain = name
    .normalize("NFKD")
    .replace(/\p{M}+/gu, "")
    .toLowerCase()
    // Letters NFKD leaves whole, spelled the way their languages spell them in ASCII.
    .replace(/[ßæœøłđ]/g, (c) => LATIN[c] ?? "")
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");
  return plain.slice(0, SLUG_MAX).replace(/-+$/, "");
}

/** Whether the hub takes `slug` as a slug or handle, so the form says so before sending. */
export const isHandle = (slug: string): boolean => HANDLE_PATTERN.test(slug);

const FIELD_WORDS: Record<string, Record<string, string>> = {
  slug: {
    taken: "Your Bay already has a project with this slug: choose another.",
    invalid: "Only lowercase letters, digits and dashes (1–40), starting and ending with a letter or digit.",
    required: "Choose a slug: it is the project's name in links.",
  },
  name: { required: "Give the project a name." },
  handle: {
    not_found: "Nobody has this handle. Check the spelling: a handle is lowercase, like “guest”.",
    taken: "You already have an agent with this handle: choose another.",
    invalid: "Only lowercase letters, digits and dashes (1–40), starting and ending with a letter or digit.",
    required: "Type the person's handle.",
  },
  member_id: {
    not_found:
      "No agent of this project's Bay has that id: an agent of another Bay comes in as a visitor, brought into a chat by its person.",
  },
};

/**
 * A field refusal of the hub (details.fields) for the People page, New project and New agent, in
 * words: the known codes as sentences, else the hub's own text (its zod messages are sentences,
 * e.g. "lowercase letters, digits and dashes, 1–40 characters").
 */
export function houseFieldWords(field: string, code: string): string {
  const known = FIELD_WORDS[field]?.[code];
  if (known) return known;
  return `${code.charAt(0).toUpperCase()}${code.slice(1)}${code.endsWith(".") ? "" : "."}`;
}

/** DESIGN §4c: who may change a project — its members holding members:admin. */
export const isAdmin = (m: Pick<MemberEntry, "permissions">): boolean => m.permissions.includes("members:admin");

/** A visiting agent's line (B-298): "from other-bay · brought by Nora"; null for anyone else. */
export function visitorLine(m: Pick<MemberEntry, "visiting">): string | null {
  return m.visiting ? `from ${m.visiting.home_bay} · brought by ${m.visiting.sponsor.name}` : null;
}

/**
 * A visiting agent's badge in a chat (DESIGN §4c): its line, then what it reads and who wakes it
 * when narrower than a member's — "from nora · brought by Nora · reads from when it came · wakes for
 * Nora only"; null for anyone else.
 */
export function visitorBadge(visiting: Placement | undefined): string | null {
  if (!visiting) return null;
  const parts = [`from ${visiting.home_bay}`, `brought by ${visiting.sponsor.name}`];
  if (visiting.history === "from_placement") parts.push("reads from when it came");
  if (visiting.wake === "sponsor") parts.push(`wakes for ${visiting.sponsor.name} only`);
  return parts.join(" · ");
}

/**
 * The Bay the signed-in person's agents come from as visitors into a project of Bay `projectBay`,
 * or null when they belong to that Bay (a plain add): the hub says each agent's Bay (agents.mine).
 */
export function visitingFrom(projectBay: string, agents: readonly { bay: string }[]): string | null {
  const bay = agents[0]?.bay;
  return bay === undefined || bay === projectBay ? null : bay;
}

/** What a newly brought visitor reads and who wakes it, for the toast that says it came. */
export function broughtTerms(shareHistory: boolean, wake: "anyone" | "sponsor"): string {
  const reads = shareHistory ? "It reads the earlier messages too" : "It reads only from now on";
  const wakes = wake === "sponsor" ? "only your messages wake it" : "anyone in the chat may wake it";
  return `A visitor from your Bay. ${reads}; ${wakes}.`;
}

/** The toast of a recall (B-307): "vera/scout was sent home from 2 chats". */
export function sentHome(name: string, rooms: number): string {
  if (rooms === 0) return `${name} was sent home`;
  return `${name} was sent home from ${rooms} ${rooms === 1 ? "chat" : "chats"}`;
}

/** "Nora", "Nora and Omar", "Nora, Omar and Pia": who can change the project, for a non-admin. */
export function andList(names: readonly string[]): string {
  if (names.length <= 1) return names[0] ?? "";
  return `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`;
}

/**
 * Why a removal was refused, in words: the last admin (409 last_admin) stays, since a project always
 * keeps one person who can change it.
 */
export function removalRefusal(
  error: { code: string; message: string; details: { reason?: string } } | null,
  self: boolean,
): string | null {
  if (!error) return null;
  if (error.details.reason === "last_admin")
    return self
      ? "You are the project's only admin, and a project always keeps one: add someone as an admin first, then leave."
      : "This is the project's only admin, and a project always keeps one: make someone else an admin first.";
  if (error.details.reason === "not_an_admin") return "Only the project's admins can remove people.";
  return error.message;
}

/** The command that pairs a client (agent protocol §2): run where the agent runs. */
export const pairCommand = (code: string, origin: string): string => `maity pair ${code} --url ${origin}`;

// Invite links (issue 29, DESIGN §4c): the choices when making one, its status in words, the
// sentences of a link that no longer lets anyone in, and the sign-up form's refusals.

/** How long a new invite works: the hub takes 1–720 hours. */
export const INVITE_EXPIRY_CHOICES = [
  { hours: 24, label: "1 day" },
  { hours: 168, label: "7 days" },
  { hours: 720, label: "30 days" },
] as const;
/** How many people a new invite lets in: the hub takes 1–1,000. */
export const INVITE_USES_CHOICES = [1, 10, 100] as const;

export type InviteState = "valid" | "expired" | "spent" | "revoked";

/** An invite's status chip: "spent" reads "used up". */
export const inviteStatusLabel = (status: InviteState): string => (status === "spent" ? "used up" : status);

/** The full link to share: this dashboard's origin and the hub's path ("/invite/<code>"). */
export const inviteLink = (origin: string, path: string): string => `${origin.replace(/\/+$/, "")}${path}`;

/** "1 of 10 used": an invite's uses. */
export const inviteUses = (uses: number, max: number): string => `${uses} of ${max} used`;

/**
 * Why a link lets nobody in, in one sentence that names no project: its status (preview) or the
 * reason of a refused accept or sign-up (409 invite_expired, invite_spent, invite_revoked). Null
 * while it is valid or for another reason.
 */
export function inviteClosed(statusOrReason: string | undefined | null): string | null {
  switch (statusOrReason) {
    case "expired":
    case "invite_expired":
      return "This invite has expired — ask the project's people for a new one.";
    case "spent":
    case "invite_spent":
      return "This invite has been used up — ask the project's people for a new one.";
    case "revoked":
    case "invite_revoked":
      return "This invite was revoked — ask the project's people for a new one.";
    default:
      return null;
  }
}

/** A wrong code (404): the same words for any, never a project's name. */
export const INVITE_NOT_VALID = "This invite link is not valid. Check that you copied all of it.";

const SIGNUP_WORDS: Record<string, Record<string, string>> = {
  handle: {
    taken: "Somebody already has this handle: choose another.",
    required: "Choose a handle: you sign in with it.",
  },
  name: { required: "Tell us your name: people see it beside your messages." },
  password: { required: "Choose a password of at least 8 characters." },
};

/** A sign-up field's refusal (details.fields) in words; else the hub's own text as a sentence. */
export function signupFieldWords(field: string, code: string): string {
  return SIGNUP_WORDS[field]?.[code] ?? houseFieldWords(field, code);
}
