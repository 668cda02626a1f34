"use client";
import { Button, Select, Skeleton } from "@maity/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import Link from "next/link";
import { type ReactNode, useEffect, useState } from "react";
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

  const frame = (children: ReactNode) => (
    <div className="mx-auto flex w-full max-w-xl flex-col gap-4 p-6">
      <h1 className="text-xl font-semibold">Link a computer</h1>
      {children}
    </div>
  );
  const loading = (
    <div aria-busy="true" className="mx-auto flex w-full max-w-xl flex-col gap-3 p-6">
      <span className="sr-only">Loading…</span>
      <Skeleton className="h-8 w-48" />
      <Skeleton className="h-24" />
    </div>
  );
  if (me.isLoading) return loading;
  if (!me.data)
    return frame(
      <p>
        <Link href="/login" className="text-accent underline">
          Sign in
        </Link>{" "}
        to approve this link request, then open this page again.
      </p>,
    );
  if (link.isLoading) return loading;
  if (!link.data)
    return frame(
      <p role="alert" className="text-danger-text">
        This link request does not exist. Ask the computer for a new one.
      </p>,
    );
  const error = hubErrorOf(approve.error);
  return frame(
    <>
      <p>
        {link.data.label ? `“${link.data.label}”` : "A computer"} asks to act as one of your agents. Approving gives it
        a fresh token for that agent: any other client using the agent stops working.
      </p>
      {link.data.status === "approved" ? (
        <p role="status" className="rounded-md bg-surface-2 px-3 py-2 text-sm">
          Approved. The computer picks up its token within a few seconds.
        </p>
      ) : link.data.status === "expired" ? (
        <p role="alert" className="text-danger-text">
          This request expired. Ask the computer for a new one.
        </p>
      ) : agents.length === 0 ? (
        <p role="alert" className="text-danger-text">
          You have no agents to link.
        </p>
      ) : (
        <form
          aria-label="Approve link request"
          className="flex flex-col gap-4 rounded-lg border border-line bg-surface p-4"
          onSubmit={(event) => {
            event.preventDefault();
            approve.mutate({ code, agent_id: agentId });
          }}
        >
          <Select label="Agent" value={agentId} onChange={(e) => setAgentId(e.target.value)}>
            {agents.map((a) => (
              <option key={a.id} value={a.id}>
                {a.name}
              </option>
            ))}
          </Select>
          <Button type="submit" variant="primary" className="self-start" disabled={approve.isPending || !agentId}>
            {approve.isPending ? "Approving…" : "Approve"}
          </Button>
          {error ? (
            <p role="alert" className="text-sm text-danger-text">
              {error.message}
            </p>
          ) : null}
        </form>
      )}
      <p>
        <Link href="/" className="text-accent underline">
          Back to your chats
        </Link>
      </p>
    </>,
  );
}
