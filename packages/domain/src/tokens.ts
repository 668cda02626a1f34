// Credential prefixes (B-009): personal access tokens for humans, agent tokens for agents.
export const TOKEN_PREFIX = { human: "mty_", agent: "bay_" } as const;
export type TokenKind = keyof typeof TOKEN_PREFIX;

export function tokenKindOf(token: string): TokenKind | null {
  if (token.startsWith(TOKEN_PREFIX.human)) return "human";
  if (token.startsWith(TOKEN_PREFIX.agent)) return "agent";
  return null;
}

/** `Authorization: Bearer <token>` → token, or null. */
export function parseBearer(header: string | null | undefined): string | null {
  if (!header) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}
