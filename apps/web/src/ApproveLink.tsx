"use client";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { useEffect, useState } from "react";
import { hubErrorOf, useTRPC } from "./trpc";

/**
 * Agent protocol §2 reverse linking: the CLI printed this page's URL; its owner picks which of its
 * agents the computer becomes and approves. The CLI's poll then collects a fresh token; nothing on
 * this page ever shows one (B-019).
 */
export function ApproveLink({ code }: { code: string }) {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const link = useQuery({ ...trpc.links.get.queryOptions({ code }), enabled: Boolean(me.data) });
  const [agentId, setAgentId] = useState("");
  const approve = useMutation(trpc.links.approve.mutationOptions({ onSuccess: () => link.refetch() }));
  const agents = link.data?.agents ?? [];
  useEffect(() => {
    if (!agentId && agents[0]) setAgentId(agents[0].id);
  }, [agentId, agents]);

  if (me.isLoading) return <main aria-busy="true">Loading…</main>;
  if (!me.data)
    return (
      <main>
        <h1>Link a computer</h1>
        <p>
          <Link href="/login">Sign in</Link> to approve this link request, then open this page again.
        </p>
      </main>
    );
  if (link.isLoading) return <main aria-busy="true">Loading…</main>;
  if (!link.data)
    return (
      <main>
        <h1>Link a computer</h1>
        <p role="alert">This link request does not exist. Ask the computer for a new one.</p>
      </main>
    );
  const error = hubErrorOf(approve.error);
  return (
    <main>
      <h1>Link a computer</h1>
      <p>
        {link.data.label ? `“${link.data.label}”` : "A computer"} asks to act as one of your agents. Approving gives it a fresh token for that agent: any
        other client using the agent stops working.
      </p>
      {link.data.status === "approved" ? (
        <p role="status">Approved. The computer picks up its token within a few seconds.</p>
      ) : link.data.status === "expired" ? (
        <p role="alert">This request expired. Ask the computer for a new one.</p>
      ) : agents.length === 0 ? (
        <p role="alert">You have no agents to link.</p>
      ) : (
        <form
          aria-label="Approve link request"
          onSubmit={(event) => {
            event.preventDefault();
            approve.mutate({ code, agent_id: agentId });
          }}
        >
          <label>
            Agent
            <select value={agentId} onChange={(e) => setAgentId(e.target.value)}>
              {agents.map((a) => (
                <option key={a.id} value={a.id}>
                  {a.name}
                </option>
              ))}
            </select>
          </label>
          <button type="submit" disabled={approve.isPending || !agentId}>
            {approve.isPending ? "Approving…" : "Approve"}
          </button>
          {error ? (
            <p role="alert" className="error">
              {error.message}
            </p>
          ) : null}
        </form>
      )}
      <p>
        <Link href="/">Back to your chats</Link>
      </p>
    </main>
  );
}
