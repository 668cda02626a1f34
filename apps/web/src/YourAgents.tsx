"use client";
import { Avatar, Button, Skeleton, useToast } from "@maity/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import { KeyRound } from "lucide-react";
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
  const { toast } = useToast();
  const mint = useMutation(
    trpc.agents.mintPairingCode.mutationOptions({
      onSuccess: (out) => setCodes((c) => ({ ...c, [out.agent_id]: out })),
      // A failure is never silent: it says so where the reader looks, with the hub's words.
      onError: (e) =>
        toast({
          variant: "danger",
          title: "Could not make a pairing code",
          description: hubErrorOf(e)?.message ?? "The hub did not answer. Try again.",
        }),
    }),
  );
  const error = hubErrorOf(mint.error);

  if (me.isLoading || agents.isLoading)
    return (
      <div aria-busy="true" className="mx-auto flex w-full max-w-3xl flex-col gap-3 p-6">
        <span className="sr-only">Loading…</span>
        <Skeleton className="h-8 w-48" />
        <Skeleton className="h-20" />
      </div>
    );
  if (!me.data)
    return (
      <p className="p-6">
        <Link href="/login" className="text-accent underline">
          Sign in
        </Link>{" "}
        to see your agents.
      </p>
    );
  return (
    <div className="mx-auto flex w-full max-w-3xl flex-col gap-4 p-6">
      <div className="flex flex-col gap-1">
        <h1 className="text-xl font-semibold">Your agents</h1>
        <p className="text-sm text-muted">
          Pair a client to let an agent act from another computer: the code works once, for a few minutes.
        </p>
      </div>
      {agents.isError ? (
        <p role="alert" className="text-sm text-danger-text">
          Could not load your agents. Reload to try again.
        </p>
      ) : null}
      {agents.data?.length === 0 ? <p className="text-muted">You have no agents yet.</p> : null}
      <ul className="flex flex-col gap-3">
        {agents.data?.map((agent) => {
          const code = codes[agent.id];
          return (
            <li key={agent.id} className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4">
              <div className="flex items-center gap-3">
                <Avatar name={agent.name} kind="agent" decorative />
                <div className="flex min-w-0 flex-1 flex-col">
                  <strong className="truncate">{agent.name}</strong>
                  {agent.description ? <span className="text-sm text-muted">{agent.description}</span> : null}
                  {agent.context ? (
                    <span className="text-xs text-muted">
                      Memory {agent.context.percent}% full ({agent.context.source === "exact" ? "counted" : "estimated"}{" "}
                      by {agent.context.runtime}, {timeLabel(agent.context.reported_at)})
                      {agent.compactions ? ` · tidied ${agent.compactions}× this session` : ""}
                    </span>
                  ) : null}
                </div>
                <Button
                  onClick={() => mint.mutate({ agent_id: agent.id })}
                  disabled={mint.isPending}
                  aria-label={`Pair a client for ${agent.name}`}
                >
                  <KeyRound aria-hidden />
                  Pair a client
                </Button>
              </div>
              {agent.overflow_at ? (
                <p role="alert" className="rounded-md bg-warning-soft px-3 py-2 text-sm">
                  {agent.name}'s runtime refused a turn at {timeLabel(agent.overflow_at)}: its memory is full. Nothing
                  was started by itself — compact it or start it afresh where it runs.
                </p>
              ) : null}
              {code ? (
                <p role="status" className="rounded-md bg-surface-2 px-3 py-2 text-sm">
                  Pairing code <code>{code.code}</code>, valid once until {timeLabel(code.expires_at)}: run{" "}
                  <code>baychat pair {code.code}</code> where the agent runs. Pairing retires the agent's other tokens.
                </p>
              ) : null}
            </li>
          );
        })}
      </ul>
      {error ? (
        <p role="alert" className="text-sm text-danger-text">
          {error.message}
        </p>
      ) : null}
    </div>
  );
}
