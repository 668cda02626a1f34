"use client";
import type { GroupView } from "@maity/domain";
import { policyChip } from "../wording/manage";
import {
  Button,
  cn,
  Dialog,
  DialogContent,
  focusRing,
  Input,
  Tabs,
  TabsContent,
  TabsList,
  TabsTrigger,
  Tooltip,
  useToast,
} from "@maity/ui";
import { useMutation, useQuery } from "@tanstack/react-query";
import { Bot, Settings2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { hubErrorOf, useTRPC } from "../trpc";
import type { ChatProps } from "./chatProps";
import { ManagePeople } from "./ManagePeople";
import { ManageReplies } from "./ManageReplies";
import { fieldsOf, type Part, refusalWords, useFailureToast, useRefresh } from "./manageShared";
import { useManager } from "./manager";

type Section = "details" | "people" | "replies";

/**
 * Managing a group chat (§9.2 "Who manages", 004 §4): the reply-policy chip in the chat's
 * header and one dialog to rename, add and remove people, leave, and set the reply policy. The
 * creator (while a participant) and human participants holding members:admin manage; anyone leaves.
 */
export function ManageGroup(props: ChatProps & { view: GroupView; closed: boolean; archived: boolean }) {
  const { owner, slug, me, view, closed, archived } = props;
  const trpc = useTRPC();
  const members = useQuery(trpc.projects.members.queryOptions({ owner, slug }));
  const { manager, admins } = useManager({
    owner,
    slug,
    me,
    createdBy: view.created_by,
    participant: view.access === "participant",
  });
  const nameFor = (id: string) => {
    const member = members.data?.items.find((m) => m.member_id === id);
    const participant = view.participants.find((p) => p.member_id === id);
    return member?.name ?? participant?.name ?? participant?.handle ?? id;
  };
  const [open, setOpen] = useState(false);
  const [section, setSection] = useState<Section>("details");
  const designated = view.designated_agent_id ? nameFor(view.designated_agent_id) : null;
  const chip = policyChip(view.reply_policy, view.max_agent_rounds, designated);
  // Who can lift the round cap, by name — the creator while in the chat, or a project admin.
  // Who can change the chat, by name — its creator while in it, and human participants
  // holding members:admin (§9.2 "Who manages": an admin outside the chat manages nothing).
  const managers = view.participants
    .filter((p) => p.kind === "human")
    .map((p) => ({
      name: nameFor(p.member_id),
      roles: [
        ...(p.member_id === view.created_by ? ["started the chat"] : []),
        ...(admins.some((a) => a.member_id === p.member_id) ? ["project admin"] : []),
      ],
    }))
    .filter((m) => m.roles.length > 0);
  const whoManages = managers.length
    ? orList(managers.map((m) => `${m.name} (${m.roles.join(", ")})`))
    : "the chat's creator or a project admin";
  const openAt = (s: Section) => {
    setSection(s);
    setOpen(true);
  };
  const chipClass =
    "inline-flex min-h-7 items-center gap-1.5 rounded-full border border-agent bg-agent-soft px-2.5 py-0.5 text-xs font-medium text-agent-text";
  return (
    <div className="flex flex-wrap items-center gap-2">
      {manager && !closed ? (
        <button
          type="button"
          className={cn(chipClass, "cursor-pointer hover:underline", focusRing)}
          onClick={() => openAt("replies")}
          aria-label={`${chip}. Change the reply policy`}
        >
          <Bot className="size-3.5" aria-hidden />
          {chip}
        </button>
      ) : (
        <Tooltip content={`Only ${whoManages} can change this.`}>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: focusable so keyboard users get the tooltip too */}
          <span className={cn(chipClass, focusRing)} tabIndex={0}>
            <Bot className="size-3.5" aria-hidden />
            {chip}
            <span className="sr-only">. Only {whoManages} can change this.</span>
          </span>
        </Tooltip>
      )}
      <Button size="sm" variant="secondary" onClick={() => openAt("details")}>
        <Settings2 aria-hidden />
        Manage
      </Button>
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogContent
          title={`Manage “${view.title ?? "this chat"}”`}
          description={
            closed
              ? "This chat is closed: its last human left, so it takes no new messages, names or people. Start a new one to go on (§9.2)."
              : manager
                ? "Rename it, choose who takes part, and how its agents reply."
                : `Only ${whoManages} can rename it, change who takes part and how its agents reply. You can bring an agent of yours, and leave.`
          }
          className="max-w-xl"
        >
          <Tabs value={section} onValueChange={(v) => setSection(v as Section)} className="flex flex-col gap-4">
            <TabsList aria-label="Manage">
              <TabsTrigger value="details">Details</TabsTrigger>
              <TabsTrigger value="people">People ({view.participants.length})</TabsTrigger>
              <TabsTrigger value="replies">Replies</TabsTrigger>
            </TabsList>
            <TabsContent value="details">
              <Details {...props} canManage={manager && !closed} onLeft={() => setOpen(false)} />
            </TabsContent>
            <TabsContent value="people">
              <ManagePeople
                {...props}
                canManage={manager && !closed}
                nameFor={nameFor}
                // A visitor is placed by its sponsor alone (DESIGN §4c): never among a manager's candidates.
                candidates={(members.data?.items ?? []).filter(
                  (m) => !m.visiting && !view.participants.some((p) => p.member_id === m.member_id),
                )}
              />
            </TabsContent>
            <TabsContent value="replies">
              <ManageReplies {...props} canManage={manager && !closed} nameFor={nameFor} whoManages={whoManages} />
            </TabsContent>
          </Tabs>
          {archived ? (
            <p className="rounded-md bg-warning-soft px-3 py-2 text-sm">
              The project is archived: nobody can be added. Renaming, removing and leaving still work (§9.2).
            </p>
          ) : null}
        </DialogContent>
      </Dialog>
    </div>
  );
}

function Details(props: Part & { onLeft: () => void }) {
  const { owner, slug, id, me, view } = props;
  const trpc = useTRPC();
  const router = useRouter();
  const { toast } = useToast();
  const failed = useFailureToast();
  const refresh = useRefresh(props);
  const ref = { owner, slug, conversation_id: id };
  const [title, setTitle] = useState(view.title ?? "");
  const [confirming, setConfirming] = useState(false);
  const rename = useMutation(
    trpc.conversations.update.mutationOptions({
      onSuccess: (out) => {
        refresh(out);
        toast({ title: out.title ? `Renamed to “${out.title}”` : "The title is removed" });
      },
      onError: (e) => failed("Could not rename the chat", e),
    }),
  );
  const leave = useMutation(
    trpc.participants.remove.mutationOptions({
      onSuccess: () => {
        refresh();
        toast({ title: `You left “${view.title ?? "the chat"}”` });
        props.onLeft();
        router.push("/");
      },
      onError: (e) => failed("Could not leave the chat", e),
    }),
  );
  const otherHumans = view.participants.filter((p) => p.kind === "human" && p.member_id !== me.id).length;
  const titleError = fieldsOf(rename.error).title;
  return (
    <>
      {props.canManage ? (
        <form
          aria-label="Rename"
          className="flex flex-wrap items-end gap-2"
          onSubmit={(e) => {
            e.preventDefault();
            if (rename.isPending) return;
            rename.mutate({ ...ref, title: title.trim() || null });
          }}
        >
          <Input
            label="Title"
            value={title}
            onChange={(e) => setTitle(e.target.value)}
            maxLength={200}
            className="min-w-48 flex-1"
            hint="Up to 200 characters; empty shows the participants' names."
            error={titleError}
          />
          {/* Never disabled: a button that disables itself under the pointer drops keyboard focus out of the dialog. */}
          <Button type="submit" variant="primary">
            Rename
          </Button>
        </form>
      ) : (
        <p className="text-sm">
          <span className="font-medium">Title:</span> {view.title ?? "none (the participants' names show)"}
        </p>
      )}
      <section aria-labelledby="leave-heading" className="flex flex-col gap-2 rounded-md border border-line p-3">
        <h3 id="leave-heading" className="text-sm font-semibold">
          Leave this chat
        </h3>
        <p className="text-sm text-muted">
          You stop reading it and it leaves your list; a manager can add you again.
          {otherHumans === 0 && !props.closed ? " You are its last human: leaving closes it for good (§9.2)." : null}
        </p>
        {confirming ? (
          <fieldset className="flex flex-wrap items-center gap-2">
            <legend className="sr-only">Confirm leaving</legend>
            <span className="text-sm font-medium">Leave “{view.title ?? "this chat"}”?</span>
            <Button
              variant="danger"
              size="sm"
              disabled={leave.isPending}
              onClick={() => leave.mutate({ ...ref, member_id: me.id })}
            >
              Yes, leave
            </Button>
            <Button size="sm" onClick={() => setConfirming(false)}>
              Stay
            </Button>
          </fieldset>
        ) : (
          <Button variant="danger" size="sm" className="self-start" onClick={() => setConfirming(true)}>
            Leave…
          </Button>
        )}
        {leave.error ? (
          <p role="alert" className="text-sm text-danger-text">
            {refusalWords(hubErrorOf(leave.error))}
          </p>
        ) : null}
      </section>
    </>
  );
}

/** "a", "a or b", "a, b or c". */
const orList = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
