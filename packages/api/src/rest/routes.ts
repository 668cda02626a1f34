import { REQUEST_BODY_MAX_BYTES } from "@maity/domain";
import { ACCESS } from "../access.ts";
import { PREAUTH_BODY_MAX_BYTES } from "../body.ts";
import { appRouter } from "../routers/index.ts";
import type { Meta, RestMeta } from "../trpc.ts";

// The REST routes, read off appRouter's procedures: a Maity route (`meta.rest`) or an agent API
// operation (`meta.agent`). Its own module so the adapter and the OpenAPI document both read it.

export type Procedure = { _def: { meta?: Meta } };
export interface RestRoute {
  name: string;
  meta: RestMeta;
  pattern: RegExp;
  keys: string[];
  /** How its refusals are rendered: the Maity routes' or the agent protocol's. */
  style: "maity" | "agent";
  /** Who may call: a member (bearer or session), the operator, anyone, or an agent's token. */
  access: "member" | "admin" | "public" | "agent";
  /** The JSON body's limit: small where no credential is needed. */
  bodyLimit: number;
}

export function restRoutes(): RestRoute[] {
  const procedures = appRouter._def.procedures as unknown as Record<string, Procedure>;
  return Object.entries(procedures).flatMap(([name, procedure]): RestRoute[] => {
    const { rest, agent } = procedure._def.meta ?? {};
    const meta: RestMeta | undefined = agent
      ? {
          method: agent.method,
          path: agent.path,
          summary: agent.summary,
          status: agent.status,
          ...(agent.headers ? { headers: agent.headers } : {}),
          ...(agent.respond ? { respond: agent.respond } : {}),
          ...(agent.body ? { body: agent.body } : {}),
          ...(agent.invalidCode ? { invalidCode: agent.invalidCode } : {}),
          ...(agent.bodyMax ? { bodyMax: agent.bodyMax } : {}),
          responseSchema: agent.output,
        }
      : rest;
    if (!meta) return [];
    const keys: string[] = [];
    const pattern = new RegExp(
      `^${meta.path.replace(/\{(\w+)\}/g, (_, key: string) => {
        keys.push(key);
        return "([^/]+)";
      })}$`,
    );
    // Who may call comes from the one table (access.ts).
    const who = ACCESS[name]?.who ?? [];
    const access =
      who === "anyone"
        ? "public"
        : who.includes("admin")
          ? "admin"
          : who.length === 1 && (who[0] === "agent_token" || who[0] === "device_token")
            ? "agent"
            : "member";
    const bodyLimit = access === "public" ? PREAUTH_BODY_MAX_BYTES : (meta.bodyMax ?? REQUEST_BODY_MAX_BYTES);
    const style = agent || meta.style === "agent" ? "agent" : "maity";
    return [{ name, meta, pattern, keys, style, access, bodyLimit }];
  });
}
