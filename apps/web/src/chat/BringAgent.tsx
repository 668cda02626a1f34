"use client";
import { GROUP_PARTICIPANTS_MAX, type Placement } from "@maity/domain";
import { Avatar, Button, Checkbox, cn, RadioGroup, useToast } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRef, useState } from "react";
import { useTRPC } from "../trpc";
import { broughtTerms, sentHome, visitingFrom, visitorBadge, visitorLine } from "../wording/house";
import type { ChatProps } from "./chatProps";
import { fieldsOf, type Part, useFailureToast, useRefresh } from "./manageShared";

// Bringing one's own agent into a group chat (DESIGN §4c, issue 29): into a project of another Bay
// it comes as a visitor — placed by its sponsor only, reading from its placement unless the sponsor
// shares the earlier history, woken by anyone or by its sponsor alone. Its badge says where it is
// from and who brought it; its sponsor takes it out of one chat or sends it home from all of them.

/** The id of the section's heading: where the focus goes once a visitor left the list. */
export const BRING_HEADING = "bring-agent-heading";

/** "from vera · brought by Vera": a visiting agent's badge (the people list says more with `full`). */
export function VisitorBadge(props: { visiting: Placement | undefined; full?: boolean; className?: string }) {
  const words = props.full ? visitorBadge(props.visiting) : visitorLine({ visiting: props.visiting ?? null });
  if (!words) return null;
  return (
    <span
      className={cn(
        "inline-flex max-w-full items-center rounded-md border border-agent bg-agent-soft px-1.5 py-0.5 text-xs text-agent-text",
        props.className,
      )}
    >
      <span className="sr-only">Visitor </span>
      {words}
    </span>
  );
}

/** The "Bring an agent" section of the manage dialog's People tab, for a person taking part. */
export function BringAgent(props: Part) {
  const { owner, slug, id, me, view } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const failed = useFailureToast();
  const refresh = useRefresh(props);
  const human = me.kind === "human";
  const mine = useQuery({ ...trpc.agents.mine.queryOptions(), enabled: human });
  const _members = useQuery(trpc.projects.members.queryOptions({ owner, slug }));
  const [share, setShare] = useState(false);
  const [wake, setWake] = useState<"anyone" | "sponsor">("anyone");
  const from = visitingFrom(owner, mine.data ?? []);
  const agents = (mine.data ?? []).filter((a) => !view.participants.some((p) => p.member_id === a.id));
  const nameOf = (agentId: string) => mine.data?.find((a) => a.id === agentId)?.name ?? agentId;
  const add = useMutation(
    trpc.participants.add.mutationOptions({
      onSuccess: (out, input) => {
        refresh(out);
        void queryClient.invalidateQueries({ queryKey: trpc.projects.members.pathKey() });
        toast({
          title: `${nameOf(input.member_id)} is in the chat`,
          description: from ? broughtTerms(input.share_history === true, input.wake ?? "anyone") : undefined,
        });
      },
      onError: (e, input) => failed(`Could not bring ${nameOf(input.member_id)}`, e),
    }),
  );
  if (!human || view.access !== "participant" || props.closed || props.archived) return null;
  const errors = Object.values(fieldsOf(add.error));
  const full = view.participants.length >= GROUP_PARTICIPANTS_MAX;
  return (
    <section aria-labelledby={BRING_HEADING} className="flex flex-col gap-2 rounded-md border border-line p-3">
      <h3 id={BRING_HEADING} tabIndex={-1} className="text-sm font-semibold outline-none">
        Bring an agent
      </h3>
      {from ? (
        <p className="text-sm text-muted">
          This project is in {owner}'s Bay; your agents are in yours ({from}). One you bring comes as a visitor from
          your Bay: it reads only from now on unless you share the earlier history, and only you can take it out or send
          it home.
        </p>
      ) : !props.canManage ? (
        <p className="text-sm text-muted">
          Your agents belong to this project's Bay: the chat's managers add them like any member.
        </p>
      ) : null}
      {from && agents.length > 0 && !full ? (
        <div className="flex flex-col gap-3">
          <div className="flex flex-col gap-1">
            <Checkbox label="Share the earlier history" checked={share} onCheckedChange={(c) => setShare(c === true)} />
            <p className="text-xs text-muted">It then reads the chat as far back as you do.</p>
          </div>
          <fieldset className="flex flex-col gap-2">
            <legend className="mb-1 text-sm font-medium">Who may wake it</legend>
            <RadioGroup
              label="Who may wake it"
              value={wake}
              onValueChange={(v) => setWake(v === "sponsor" ? "sponsor" : "anyone")}
              options={[
                { value: "anyone", label: "Anyone in the chat", hint: "Messages to it from anyone here wake it." },
                { value: "sponsor", label: "Only me", hint: "Only your messages wake it; it still reads the chat." },
              ]}
            />
          </fieldset>
        </div>
      ) : null}
      {from || props.canManage ? (
        full ? (
          <p className="text-sm text-muted">
            The chat has {GROUP_PARTICIPANTS_MAX} participants, the most a group chat has: someone must leave first.
          </p>
        ) : mine.isSuccess && mine.data.length === 0 ? (
          <p className="text-sm text-muted">
            You have no agents yet: make one on{" "}
            <Link href="/agents" className="text-accent underline">
              Your agents
            </Link>
            .
          </p>
        ) : mine.isSuccess && agents.length === 0 ? (
          <p className="text-sm text-muted">All your agents are in the chat.</p>
        ) : (
          <ul aria-label="Your agents to bring" className="flex flex-col">
            {agents.map((a) => (
              <li key={a.id} className="flex items-center gap-2 py-1 text-sm">
                <Avatar name={a.name} kind="agent" size="sm" decorative />
                <span className="min-w-0 flex-1 break-all">{a.name}</span>
                {/* Never disabled: a button that disables itself under the pointer drops keyboard focus. */}
                <Button
                  size="sm"
                  onClick={() => {
                    if (add.isPending) return;
                    // The hub's defaults are left out, so a plain add stays plain whatever the Bay.
                    add.mutate({
                      owner,
                      slug,
                      conversation_id: id,
                      member_id: a.id,
                      ...(from && share ? { share_history: true } : {}),
                      ...(from && wake === "sponsor" ? { wake } : {}),
                    });
                  }}
                  aria-label={`Bring ${a.name}`}
                >
                  Bring
                </Button>
              </li>
            ))}
          </ul>
        )
      ) : null}
      {errors.length ? (
        <p role="alert" className="text-sm text-danger-text">
          {errors.join(" ")}
        </p>
      ) : null}
    </section>
  );
}

/**
 * Its sponsor's controls beside a visitor (B-307): take it out of this chat (the usual removal, which
 * works for the sponsor even reading along), or send it home from every chat of the project,
 * confirmed in place.
 */
export function VisitorActions(props: ChatProps & { memberId: string; name: string; onGone?: () => void }) {
  const { owner, slug, id, memberId, name } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const failed = useFailureToast();
  const refresh = useRefresh(props);
  const [confirming, setConfirming] = useState(false);
  const sendButton = useRef<HTMLButtonElement>(null);
  const yesButton = useRef<HTMLButtonElement>(null);
  const gone = () => {
    refresh();
    void queryClient.invalidateQueries({ queryKey: trpc.projects.members.pathKey() });
    // The row leaves the list: the focus goes to the section a keyboard user is in.
    if (props.onGone) requestAnimationFrame(props.onGone);
  };
  const takeOut = useMutation(
    trpc.participants.remove.mutationOptions({
      onSuccess: () => {
        gone();
        toast({
          title: `${name} left this chat`,
          description: "It stays a member of the project; bring it again any time.",
        });
      },
      onError: (e) => failed(`Could not take ${name} out`, e),
    }),
  );
  const recall = useMutation(
    trpc.projects.recallVisitor.mutationOptions({
      onSuccess: (out) => {
        gone();
        toast({ title: sentHome(name, out.rooms_left.length) });
      },
      onError: (e) => failed(`Could not send ${name} home`, e),
    }),
  );
  const cancel = () => {
    setConfirming(false);
    requestAnimationFrame(() => sendButton.current?.focus());
  };
  if (confirming)
    return (
      <fieldset className="flex basis-full flex-wrap items-center gap-2 rounded-md bg-warning-soft px-2 py-1.5">
        <legend className="sr-only">Confirm sending {name} home</legend>
        <span className="text-sm">
          Send {name} home? It leaves every chat of {owner}/{slug} and is no longer a member.
        </span>
        <Button
          variant="danger"
          size="sm"
          ref={yesButton}
          onClick={() => {
            if (!recall.isPending) recall.mutate({ owner, slug, member_id: memberId });
          }}
        >
          Yes, send home
        </Button>
        <Button size="sm" onClick={cancel}>
          Keep it
        </Button>
      </fieldset>
    );
  return (
    <span className="flex flex-wrap gap-1">
      <Button
        variant="ghost"
        size="sm"
        onClick={() => {
          if (!takeOut.isPending) takeOut.mutate({ owner, slug, conversation_id: id, member_id: memberId });
        }}
      >
        Take out of this chat<span className="sr-only"> ({name})</span>
      </Button>
      <Button
        ref={sendButton}
        variant="ghost"
        size="sm"
        onClick={() => {
          setConfirming(true);
          requestAnimationFrame(() => yesButton.current?.focus());
        }}
      >
        Send home…<span className="sr-only"> ({name})</span>
      </Button>
    </span>
  );
}
