"use client";
import { GROUP_PARTICIPANTS_MAX } from "@maity/domain";
import { Avatar, Button, Input, useToast } from "@maity/ui";
import { useMutation } from "@tanstack/react-query";
import { useState } from "react";
import { useTRPC } from "../trpc";
import { BRING_HEADING, BringAgent, VisitorActions, VisitorBadge } from "./BringAgent";
import { fieldsOf, type Part, useFailureToast, useRefresh } from "./manageShared";
import { SessionBadge } from "./SessionBadge";

// The manage dialog's People section (§9.2): add and remove participants, by name; visitors marked
// with their Bay and sponsor, who takes them out or sends them home; one's own agents brought in.

export function ManagePeople(
  props: Part & {
    nameFor: (id: string) => string;
    candidates: { member_id: string; name: string; kind: "human" | "agent"; handle: string }[];
  },
) {
  const { owner, slug, id, me, view, nameFor } = props;
  const trpc = useTRPC();
  const { toast } = useToast();
  const failed = useFailureToast();
  const refresh = useRefresh(props);
  const ref = { owner, slug, conversation_id: id };
  const [query, setQuery] = useState("");
  const add = useMutation(
    trpc.participants.add.mutationOptions({
      onSuccess: (out, input) => {
        refresh(out);
        toast({
          title: `Added ${nameFor(input.member_id)}`,
          description: "They can read the earlier messages: everyone writes to whoever is or will be in the chat.",
        });
      },
      onError: (e) => failed("Could not add the member", e),
    }),
  );
  const remove = useMutation(
    trpc.participants.remove.mutationOptions({
      onSuccess: (_, input) => {
        refresh();
        toast({ title: `Removed ${nameFor(input.member_id)}` });
      },
      onError: (e) => failed("Could not remove the participant", e),
    }),
  );
  const full = view.participants.length >= GROUP_PARTICIPANTS_MAX;
  const q = query.trim().toLowerCase();
  const matches = props.candidates.filter(
    (m) => !q || m.name.toLowerCase().includes(q) || m.handle.toLowerCase().includes(q),
  );
  const addError = fieldsOf(add.error).member_id;
  return (
    <>
      <ul aria-label="Participants" className="flex flex-col divide-y divide-line rounded-md border border-line">
        {view.participants.map((p) => {
          const sponsored = p.kind === "agent" && p.visiting?.sponsor.id === me.id;
          return (
            <li key={p.member_id} className="flex flex-wrap items-center gap-x-2 gap-y-1 px-3 py-2 text-sm">
              <Avatar name={nameFor(p.member_id)} kind={p.kind} size="sm" decorative />
              <span className="flex min-w-0 flex-1 basis-40 flex-col items-start gap-0.5">
                <span className="max-w-full truncate">
                  {nameFor(p.member_id)}
                  <span className="text-muted">
                    {" "}
                    ({p.kind}
                    {p.member_id === me.id ? ", you" : ""}
                    {p.member_id === view.created_by ? ", started the chat" : ""})
                  </span>
                </span>
                <VisitorBadge visiting={p.visiting} full />
                <SessionBadge session={p.session} />
              </span>
              {sponsored ? (
                <VisitorActions
                  {...props}
                  memberId={p.member_id}
                  name={nameFor(p.member_id)}
                  onGone={() => document.getElementById(BRING_HEADING)?.focus()}
                />
              ) : props.canManage && p.member_id !== me.id ? (
                <Button
                  variant="ghost"
                  size="sm"
                  disabled={remove.isPending}
                  onClick={() => remove.mutate({ ...ref, member_id: p.member_id })}
                  aria-label={`Remove ${nameFor(p.member_id)}`}
                >
                  Remove
                </Button>
              ) : null}
            </li>
          );
        })}
      </ul>
      {props.canManage && !props.archived ? (
        <section aria-labelledby="add-heading" className="flex flex-col gap-2">
          <h3 id="add-heading" className="text-sm font-semibold">
            Add a member
          </h3>
          {full ? (
            <p className="text-sm text-muted">
              The chat has {GROUP_PARTICIPANTS_MAX} participants, the most a group chat has: remove someone first.
            </p>
          ) : (
            <>
              <Input
                label="Search the project's members"
                hideLabel
                placeholder="Search the project's members"
                type="search"
                value={query}
                onChange={(e) => setQuery(e.target.value)}
                hint="Someone you add can read the earlier messages too."
                error={addError}
              />
              <ul aria-label="Members to add" className="flex max-h-48 flex-col overflow-y-auto">
                {matches.map((m) => (
                  <li key={m.member_id} className="flex items-center gap-2 py-1 text-sm">
                    <Avatar name={m.name} kind={m.kind} size="sm" decorative />
                    <span className="min-w-0 flex-1 truncate">
                      {m.name} <span className="text-muted">({m.kind})</span>
                    </span>
                    <Button
                      size="sm"
                      disabled={add.isPending}
                      onClick={() => add.mutate({ ...ref, member_id: m.member_id })}
                      aria-label={`Add ${m.name}`}
                    >
                      Add
                    </Button>
                  </li>
                ))}
                {matches.length === 0 ? (
                  <li className="py-1 text-sm text-muted">
                    {props.candidates.length === 0
                      ? "Every member of the project is in the chat."
                      : "No member of the project matches. Only the project's members can take part."}
                  </li>
                ) : null}
              </ul>
            </>
          )}
        </section>
      ) : null}
      <BringAgent {...props} />
    </>
  );
}
