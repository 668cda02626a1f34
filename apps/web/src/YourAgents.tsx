"use client";
import type { AppRouter } from "@maity/api";
import { Avatar, Button, Skeleton, useToast } from "@maity/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { KeyRound, Pencil, Plus } from "lucide-react";
import Link from "next/link";
import { useEffect, useRef, useState } from "react";
import { AgentDescription } from "./AgentDescription";
import { timeLabel } from "./format";
import { NewAgent } from "./NewAgent";
import { PairingCode } from "./PairingCode";
import { hubErrorOf, useTRPC } from "./trpc";
import { YourDevices } from "./YourDevices";
import { YourSessions } from "./YourSessions";

/**
 * Agent protocol §2 pairing: an owner mints a short-lived, single-use code for one of its agents
 * and types it into the agent's client (`maity pair <code> --url <hub>`); redeeming it gives the
 * client a fresh token and retires every earlier one of that agent. DESIGN §4c: people make their
 * own agents here and change what each is for. DESIGN §4e: below them, the computers signed in as
 * the person (YourDevices) and the sessions their terminals joined as (YourSessions).
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
  const [adding, setAdding] = useState(false);
  const newAgentButton = useRef<HTMLButtonElement>(null);

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
      <div className="flex flex-wrap items-start gap-3">
        <div className="flex min-w-0 flex-1 basis-64 flex-col gap-1">
          <h1 className="text-xl font-semibold">Your agents</h1>
          <p className="text-sm text-muted">
            Pair a client to let an agent act from another computer: the code works once, for a few minutes.
          </p>
        </div>
        {adding ? null : (
          <Button ref={newAgentButton} variant="primary" onClick={() => setAdding(true)}>
            <Plus aria-hidden />
            New agent
          </Button>
        )}
      </div>
      {adding ? (
        <NewAgent
          me={me.data.handle}
          onDone={() => {
            setAdding(false);
            // Back to the button that opened it, for a keyboard user.
            requestAnimationFrame(() => newAgentButton.current?.focus());
          }}
        />
      ) : null}
      {agents.isError ? (
        <p role="alert" className="text-sm text-danger-text">
          Could not load your agents. Reload to try again.
        </p>
      ) : null}
      {agents.data?.length === 0 ? <p className="text-muted">You have no agents yet.</p> : null}
      <ul className="flex flex-col gap-3" aria-label="Your agents">
        {agents.data?.map((agent) => (
          <AgentRow
            key={agent.id}
            agent={agent}
            code={codes[agent.id]}
            onPair={() => {
              // Never disabled while minting: the button keeps the focus of whoever pressed it.
              if (!mint.isPending) mint.mutate({ agent_id: agent.id });
            }}
          />
        ))}
      </ul>
      {error ? (
        <p role="alert" className="text-sm text-danger-text">
          {error.message}
        </p>
      ) : null}
      {/* DESIGN §4e: the computers signed in as you (`maity login`) — their terminals join as sessions, agents of yours. */}
      {me.data.kind === "human" ? <YourDevices /> : null}
      {/* DESIGN §4e: those terminals' named sessions — where each runs, and a fresh start with a handoff. */}
      {me.data.kind === "human" ? <YourSessions /> : null}
    </div>
  );
}

type OwnAgent = inferRouterOutputs<AppRouter>["agents"]["mine"][number];

/** One agent: its name, what it is for (editable, DESIGN §4c), its memory, and pairing a client. */
function AgentRow(props: {
  agent: OwnAgent;
  code: { code: string; expires_at: string } | undefined;
  onPair: () => void;
}) {
  const { agent, code } = props;
  const [editing, setEditing] = useState(false);
  const measured = agent.context?.source === "exact" ? "counted" : "estimated";
  const editButton = useRef<HTMLButtonElement>(null);
  const [wasEditing, setWasEditing] = useState(false);
  // Closing the editor gives the focus back to Edit, for a keyboard user.
  useEffect(() => {
    if (wasEditing && !editing) editButton.current?.focus();
    setWasEditing(editing);
  }, [editing, wasEditing]);
  return (
    <li className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4">
      <div className="flex flex-wrap items-center gap-3">
        <div className="flex min-w-0 flex-1 basis-56 items-center gap-3">
          <Avatar name={agent.name} kind="agent" decorative />
          <div className="flex min-w-0 flex-1 flex-col">
            <strong className="break-all">{agent.name}</strong>
            {agent.description && !editing ? <span className="text-sm text-muted">{agent.description}</span> : null}
            {agent.context ? (
              <span className="text-xs text-muted">
                Memory {agent.context.percent}% full ({measured} by {agent.context.runtime},{" "}
                {timeLabel(agent.context.reported_at)})
                {agent.compactions ? ` · tidied ${agent.compactions}× this session` : ""}
              </span>
            ) : null}
          </div>
        </div>
        <div className="flex flex-wrap gap-2">
          {editing ? null : (
            <Button
              ref={editButton}
              variant="ghost"
              onClick={() => setEditing(true)}
              aria-label={`Edit what ${agent.name} is for`}
            >
              <Pencil aria-hidden />
              Edit
            </Button>
          )}
          <Button onClick={props.onPair} aria-label={`Pair a client for ${agent.name}`}>
            <KeyRound aria-hidden />
            Pair a client
          </Button>
        </div>
      </div>
      {editing ? (
        <AgentDescription
          agentId={agent.id}
          name={agent.name}
          description={agent.description}
          onDone={() => setEditing(false)}
        />
      ) : null}
      {agent.overflow_at ? (
        <p role="alert" className="rounded-md bg-warning-soft px-3 py-2 text-sm">
          {agent.name}'s runtime refused a turn at {timeLabel(agent.overflow_at)}: its memory is full. Nothing was
          started by itself — compact it or start it afresh where it runs.
        </p>
      ) : null}
      {code ? <PairingCode name={agent.name} code={code.code} expiresAt={code.expires_at} /> : null}
    </li>
  );
}
