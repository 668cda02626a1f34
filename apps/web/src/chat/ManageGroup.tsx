"use client";
import { Button, cn, focusRing, Input, Select } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { hubErrorOf, useTRPC } from "../trpc";
import type { ChatProps } from "./OpenChat";

export function ManageGroup(
  props: ChatProps & {
    view: {
      id: string;
      title: string | null;
      created_by: string;
      participants: { member_id: string; handle: string; kind: string }[];
    };
    closed: boolean;
    archived: boolean;
  },
) {
  const { owner, slug, id, me, view } = props;
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const ref = { owner, slug, conversation_id: id };
  const members = useQuery(trpc.projects.members.queryOptions({ owner, slug }));
  const admin = members.data?.find((m) => m.member_id === me.id)?.permissions.includes("members:admin") ?? false;
  const manager = me.kind === "human" && (view.created_by === me.id || admin);
  const refresh = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.get.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
  };
  const [title, setTitle] = useState(view.title ?? "");
  const [adding, setAdding] = useState("");
  const rename = useMutation(trpc.conversations.update.mutationOptions({ onSuccess: refresh }));
  const add = useMutation(
    trpc.participants.add.mutationOptions({
      onSuccess: () => {
        setAdding("");
        refresh();
      },
    }),
  );
  const remove = useMutation(trpc.participants.remove.mutationOptions({ onSuccess: refresh }));
  const leave = useMutation(
    trpc.participants.remove.mutationOptions({
      onSuccess: () => {
        refresh();
        router.push("/");
      },
    }),
  );
  const inChat = new Set(view.participants.map((p) => p.member_id));
  const candidates = (members.data ?? []).filter((m) => !inChat.has(m.member_id));
  const errorOf = (e: unknown) => {
    const hub = hubErrorOf(e);
    return hub
      ? hub.details.fields
        ? Object.entries(hub.details.fields)
            .map(([k, v]) => `${k}: ${v}`)
            .join(", ")
        : hub.message
      : null;
  };
  return (
    <details className="group rounded-md border border-line">
      <summary
        className={cn("cursor-pointer rounded-md px-3 py-1.5 text-sm font-medium text-muted hover:text-fg", focusRing)}
      >
        Manage this chat
      </summary>
      <div className="flex flex-col gap-4 border-t border-line p-3">
        {manager && !props.closed ? (
          <>
            <form
              aria-label="Rename"
              className="flex flex-wrap items-end gap-2"
              onSubmit={(e) => {
                e.preventDefault();
                rename.mutate({ ...ref, title: title.trim() || null });
              }}
            >
              <Input
                label="Title"
                value={title}
                onChange={(e) => setTitle(e.target.value)}
                maxLength={200}
                className="min-w-48 flex-1"
                error={rename.error ? errorOf(rename.error) : undefined}
              />
              <Button type="submit" size="md">
                Rename
              </Button>
            </form>
            {props.archived ? (
              <p className="text-sm text-muted">The project is archived: nobody can be added.</p>
            ) : (
              <form
                aria-label="Add participant"
                className="flex flex-wrap items-end gap-2"
                onSubmit={(e) => {
                  e.preventDefault();
                  if (adding) add.mutate({ ...ref, member_id: adding });
                }}
              >
                <Select
                  label="Member to add"
                  hint="Everyone in a group chat writes to whoever is or will later be in it: someone you add can read the history."
                  value={adding}
                  onChange={(e) => setAdding(e.target.value)}
                  className="min-w-48 flex-1"
                  error={add.error ? errorOf(add.error) : undefined}
                >
                  <option value="">Choose a member</option>
                  {candidates.map((m) => (
                    <option key={m.member_id} value={m.member_id}>
                      {m.name} ({m.kind})
                    </option>
                  ))}
                </Select>
                <Button type="submit" disabled={!adding}>
                  Add
                </Button>
              </form>
            )}
            <ul aria-label="Remove participants" className="flex flex-col gap-1">
              {view.participants
                .filter((p) => p.member_id !== me.id)
                .map((p) => (
                  <li key={p.member_id} className="flex items-center justify-between gap-2 text-sm">
                    {p.handle}
                    <Button
                      variant="ghost"
                      size="sm"
                      onClick={() => remove.mutate({ ...ref, member_id: p.member_id })}
                      aria-label={`Remove ${p.handle}`}
                    >
                      Remove
                    </Button>
                  </li>
                ))}
            </ul>
            {remove.error ? (
              <p role="alert" className="text-sm text-danger-text">
                {errorOf(remove.error)}
              </p>
            ) : null}
          </>
        ) : (
          <p className="text-sm text-muted">
            {props.closed
              ? "The chat is closed."
              : "Only the chat's creator and project admins rename it and change who is in it."}
          </p>
        )}
        <div>
          <Button variant="danger" size="sm" onClick={() => leave.mutate({ ...ref, member_id: me.id })}>
            Leave this chat
          </Button>
          {leave.error ? (
            <p role="alert" className="mt-2 text-sm text-danger-text">
              {errorOf(leave.error)}
            </p>
          ) : null}
        </div>
      </div>
    </details>
  );
}
