"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useState } from "react";
import { timeLabel } from "./format";
import { hubErrorOf, useTRPC } from "./trpc";

/**
 * Agent protocol §2 pairing: an owner mints a short-lived, single-use code for one of its agents
 * and types it into the agent's client (`baychat pair <code>`); redeeming it gives the client a
 * fresh token and retires every earlier one of that agent.
 */
export function YourAgents() {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const agents = useQuery({ ...trpc.agents.mine.queryOptions(), enabled: me.data?.kind === "human" });
  const [codes, setCodes] = useState<Record<string, { code: string; expires_at: string }>>({});
  const mint = useMutation(trpc.agents.mintPairingCode.mutationOptions({ onSuccess: (out) => setCodes((c) => ({ ...c, [out.agent_id]: out })) }));
  const error = hubErrorOf(mint.error);

  if (me.isLoading || agents.isLoading) return <main aria-busy="true">Loading…</main>;
  if (!me.data)
    return (
      <main>
        <p>
          <Link href="/login">Sign in</Link> to see your agents.
        </p>
      </main>
    );
  return (
    <main>
      <p>
        <Link href="/">← Your chats</Link>
      </p>
      <h1>Your agents</h1>
      {agents.isError ? <p role="alert">Could not load your agents. Reload to try again.</p> : null}
      {agents.data?.length === 0 ? <p>You have no agents yet.</p> : null}
      <ul className="agents">
        {agents.data?.map((agent) => {
          const code = codes[agent.id];
          return (
            <li key={agent.id}>
              <strong>{agent.name}</strong>
              {agent.description ? <span> — {agent.description}</span> : null}
              <div>
                <button type="button" onClick={() => mint.mutate({ agent_id: agent.id })} disabled={mint.isPending} aria-label={`Pair a client for ${agent.name}`}>
                  Pair a client
                </button>
                {code ? (
                  <p role="status">
                    Pairing code <code>{code.code}</code>, valid once until {timeLabel(code.expires_at)}: run <code>baychat pair {code.code}</code> where the agent runs.
                    Pairing retires the agent's other tokens.
                  </p>
                ) : null}
              </div>
            </li>
          );
        })}
      </ul>
      {error ? (
        <p role="alert" className="error">
          {error.message}
        </p>
      ) : null}
    </main>
  );
}
