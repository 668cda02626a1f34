"use client";
import { ConfirmInRow } from "./ConfirmInRow";
import type { MemberEntry } from "@maity/domain";
import { Avatar, Badge, Button, Skeleton, useToast } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { ArrowLeft } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useRef, useState } from "react";
import { AddMember, ProjectSettings } from "./ProjectAdmin";
import { ProjectInvites } from "./ProjectInvites";
import { hubErrorOf, useTRPC } from "./trpc";
import { andList, isAdmin, removalRefusal, sentHome, visitorLine } from "./wording/house";

/**
 * A project's People page (DESIGN §4c), /p/{owner}/{slug}/people: its members, visitors marked
 * with their home Bay and who brought them. An admin (members:admin) adds a person by handle,
 * removes a member, renames the project and shares it with visitors; everyone else reads.
 */
export function ProjectPeople({ owner, slug }: { owner: string; slug: string }) {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const human = me.data?.kind === "human";
  const projects = useQuery({ ...trpc.projects.mine.queryOptions(), enabled: human });
  const members = useQuery({ ...trpc.projects.members.queryOptions({ owner, slug }), enabled: human });
  const project = projects.data?.find((p) => p.owner === owner && p.slug === slug);

  if (me.isLoading || members.isLoading)
    return (
      <div aria-busy="true" className="mx-auto flex w-full max-w-3xl flex-col gap-3 p-4 sm:p-6">
        <span className="sr-only">Loading…</span>
        <Skeleton className="h-8 w-48" />
        <Skeleton className="h-40" />
      </div>
    );
  if (!me.data)
    return (
      <p className="p-6">
        <Link href="/login" className="text-accent underline">
          Sign in
        </Link>{" "}
        to see the project's people.
      </p>
    );
  const items = members.data?.items ?? [];
  const mine = items.find((m) => m.member_id === me.data?.id);
  const admin = Boolean(mine && isAdmin(mine)) && !project?.archived;
  const admins = items.filter((m) => m.kind === "human" && isAdmin(m)).map((m) => m.name);
  return (
    <div className="mx-auto flex w-full max-w-3xl flex-col gap-6 p-4 sm:p-6">
      <div className="flex flex-col gap-2">
        <Button asChild variant="ghost" size="sm" className="-ml-2 self-start">
          <Link href="/">
            <ArrowLeft aria-hidden />
            Back to chats
          </Link>
        </Button>
        <h1 className="text-xl font-semibold break-words">People of {project?.name ?? `${owner}/${slug}`}</h1>
        <p className="text-sm text-muted">
          <span className="break-all">
            {owner}/{slug}
          </span>{" "}
          · the people and agents who may take part in its chats. Being in the project is not being in every chat: a
          chat's manager adds members to it.
        </p>
      </div>
      {members.isError ? (
        <p role="alert" className="text-sm text-danger-text">
          {hubErrorOf(members.error)?.code === "not_found"
            ? "There is no such project, or you are not one of its people."
            : "Could not load the project's people. Reload to try again."}
        </p>
      ) : (
        <section aria-labelledby="members-heading" className="flex flex-col gap-3">
          <h2 id="members-heading" className="text-base font-semibold">
            Members ({items.length})
          </h2>
          {admin ? null : (
            <p className="rounded-md bg-surface-2 px-3 py-2 text-sm">
              {project?.archived
                ? "The project is archived: nobody changes its people."
                : admins.length
                  ? `Only the project's admins (${andList(admins)}) add or remove people, rename it or share it.`
                  : "Only the project's admins add or remove people, rename it or share it."}
            </p>
          )}
          <ul
            aria-label="Members"
            className="flex flex-col divide-y divide-line rounded-lg border border-line bg-surface"
          >
            {items.map((m) => (
              <MemberRow key={m.member_id} owner={owner} slug={slug} member={m} me={me.data?.id ?? ""} admin={admin} />
            ))}
          </ul>
        </section>
      )}
      {admin ? (
        <>
          <AddMember owner={owner} slug={slug} members={items} />
          {/* DESIGN §4c: invite links, for the admins. */}
          <ProjectInvites owner={owner} slug={slug} members={items} />
          <ProjectSettings owner={owner} slug={slug} name={project?.name ?? ""} />
        </>
      ) : null}
    </div>
  );
}

/** One member: name, handle, kind, the admin and visitor marks; for an admin, Remove with a confirmation. */
function MemberRow(props: { owner: string; slug: string; member: MemberEntry; me: string; admin: boolean }) {
  const { owner, slug, member: m } = props;
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const [confirming, setConfirming] = useState(false);
  const removeButton = useRef<HTMLButtonElement>(null);
  const self = m.member_id === props.me;
  // B-307: the person who brought a visitor sends it home (every chat of the project, a line in each).
  const sponsor = m.visiting !== null && m.visiting.sponsor.id === props.me;
  const recall = useMutation(
    trpc.projects.recallVisitor.mutationOptions({
      onSuccess: (out) => {
        void queryClient.invalidateQueries({ queryKey: trpc.projects.members.queryKey({ owner, slug }) });
        void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
        toast({ title: sentHome(m.name, out.rooms_left.length) });
      },
    }),
  );
  const remove = useMutation(
    trpc.projects.removeMember.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.projects.members.queryKey({ owner, slug }) });
        void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
        toast({ title: self ? "You left the project" : `Removed ${m.name}`, description: "They left its chats too." });
        if (self) {
          void queryClient.invalidateQueries({ queryKey: trpc.projects.mine.queryKey() });
          router.push("/");
        }
      },
    }),
  );
  // Keep (or Escape) gives the focus back to Remove, so a keyboard user stays in the row.
  const cancel = () => {
    setConfirming(false);
    remove.reset();
    recall.reset();
    removeButton.current?.focus();
  };
  const refusal = sponsor
    ? recall.error
      ? "It could not be sent home: try again."
      : null
    : removalRefusal(hubErrorOf(remove.error), self);
  const pending = remove.isPending || recall.isPending;
  const visitor = visitorLine(m);
  return (
    <li className="flex flex-col gap-2 px-3 py-2.5">
      <div className="flex items-center gap-3">
        <Avatar name={m.name} kind={m.kind} size="sm" decorative />
        <div className="flex min-w-0 flex-1 flex-col">
          <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <span className="font-medium break-all">{m.name}</span>
            {isAdmin(m) ? <Badge>admin</Badge> : null}
            {self ? <Badge>you</Badge> : null}
          </span>
          <span className="text-xs text-muted">
            <span className="break-all">{m.handle}</span> · {m.kind === "human" ? "person" : "agent"}
          </span>
          {visitor ? <span className="text-xs text-agent-text">Visitor {visitor}</span> : null}
        </div>
        {props.admin || sponsor ? (
          <Button
            ref={removeButton}
            variant="ghost"
            size="sm"
            aria-expanded={confirming}
            onClick={() => (confirming ? cancel() : setConfirming(true))}
            aria-label={sponsor ? `Send ${m.name} home` : self ? "Leave the project" : `Remove ${m.name}`}
          >
            {sponsor ? "Send home" : self ? "Leave" : "Remove"}
          </Button>
        ) : null}
      </div>
      {confirming ? (
        <ConfirmInRow
          legend={sponsor ? `Confirm sending ${m.name} home` : self ? "Confirm leaving" : `Confirm removing ${m.name}`}
          question={
            sponsor
              ? `Send ${m.name} home? It leaves every chat of the project, each told it was sent home; you can bring it again.`
              : self
                ? "Leave the project? You leave every chat of it, and only an admin can add you again."
                : `Remove ${m.name} from the project? They leave every chat of it; an admin can add them again.`
          }
          error={refusal}
          confirm={sponsor ? "Yes, send home" : self ? "Yes, leave" : "Yes, remove"}
          keep={self ? "Stay" : "Keep"}
          pending={pending}
          onConfirm={() => {
            if (sponsor) recall.mutate({ owner, slug, member_id: m.member_id });
            else remove.mutate({ owner, slug, member_id: m.member_id });
          }}
          onCancel={cancel}
        />
      ) : null}
    </li>
  );
}
