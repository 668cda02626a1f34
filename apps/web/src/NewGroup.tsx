"use client";
import { GROUP_PARTICIPANTS_MAX } from "@maity/domain";
import { fieldErrorWords, PARTICIPANTS_WORDS, pickerVerdict } from "./wording/manage";
import { Avatar, Button, Checkbox, DialogFooter, Input, Select, useToast } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { hubErrorOf, useTRPC } from "./trpc";

/**
 * Create a group chat: title and 2–12 participants (§9.2). The picker lists only the project's active
 * members and refuses before sending what the hub refuses (domain pickerVerdict, the hub's own rule);
 * the hub's answer still shows at the field if it refuses anyway.
 */
export function NewGroup({
  defaultProject,
  onClose,
}: {
  defaultProject: { owner: string; slug: string } | null;
  onClose: () => void;
}) {
  const trpc = useTRPC();
  const router = useRouter();
  const queryClient = useQueryClient();
  const me = useQuery(trpc.auth.me.queryOptions());
  const projects = useQuery(trpc.projects.mine.queryOptions());
  const [project, setProject] = useState(defaultProject ? `${defaultProject.owner}/${defaultProject.slug}` : "");
  const chosen = project || projects.data?.[0]?.full_name || "";
  const [owner = "", slug = ""] = chosen.split("/");
  const members = useQuery({ ...trpc.projects.members.queryOptions({ owner, slug }), enabled: Boolean(owner && slug) });
  const [title, setTitle] = useState("");
  const [picked, setPicked] = useState<string[]>([]);
  const [query, setQuery] = useState("");
  const [tried, setTried] = useState(false);
  const { toast } = useToast();
  const create = useMutation(
    trpc.conversations.create.mutationOptions({
      onError: (e) =>
        toast({ variant: "danger", title: "Could not create the group chat", description: hubErrorOf(e)?.message }),
      onSuccess: (out) => {
        toast({ title: `Created “${out.conversation.title ?? "the group chat"}”` });
        void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
        onClose();
        router.push(`/p/${owner}/${slug}/c/${out.conversation.id}`);
      },
    }),
  );
  const error = hubErrorOf(create.error);
  const hubParticipants = error?.details.fields?.participants;
  const titleError = error?.details.fields?.title;
  // B-300: another Bay's agent comes in only by the hand of the person who brought it.
  const visitorsOfOthers = (members.data?.items ?? []).filter(
    (m) => m.visiting !== null && m.visiting.sponsor.id !== me.data?.id,
  );
  const others = (members.data?.items ?? []).filter(
    (m) => m.member_id !== me.data?.id && !visitorsOfOthers.includes(m),
  );
  const verdict = me.data ? pickerVerdict(me.data.id, picked, members.data?.items ?? []) : ({ ok: true } as const);
  // Too many and "use the direct conversation" show as soon as they are true; too few once Create is tried.
  const refusal = !verdict.ok && (tried || verdict.reason !== "too_few") ? verdict : null;
  const participantsError = refusal
    ? refusal.words
    : hubParticipants
      ? (PARTICIPANTS_WORDS[hubParticipants as keyof typeof PARTICIPANTS_WORDS] ??
        fieldErrorWords("participants", hubParticipants))
      : null;
  const directWith = refusal?.directWith ? others.find((m) => m.member_id === refusal.directWith) : undefined;
  const q = query.trim().toLowerCase();
  const shown = others.filter((m) => !q || m.name.toLowerCase().includes(q) || m.handle.toLowerCase().includes(q));
  const formError =
    error && !hubParticipants && !titleError
      ? error.code === "conversation_quota"
        ? "This project has as many open group chats as allowed."
        : error.code === "project_closed"
          ? "The project is archived: no new group chats."
          : error.message
      : null;
  const pick = (id: string, on: boolean) => {
    create.reset();
    setPicked((p) => (on ? [...p, id] : p.filter((x) => x !== id)));
  };
  return (
    <form
      className="flex flex-col gap-4"
      aria-label="New group chat"
      onSubmit={(e) => {
        e.preventDefault();
        setTried(true);
        if (!verdict.ok) return; // §9.2: refused here, with the reason at the field, nothing sent
        create.mutate({ owner, slug, title: title.trim() || null, participants: picked });
      }}
    >
      <Select
        label="Project"
        value={chosen}
        onChange={(e) => {
          setProject(e.target.value);
          setPicked([]);
          create.reset();
        }}
      >
        {projects.data?.map((p) => (
          <option key={p.id} value={p.full_name}>
            {p.full_name}
          </option>
        ))}
      </Select>
      <Input
        label="Title"
        value={title}
        onChange={(e) => setTitle(e.target.value)}
        error={titleError ? fieldErrorWords("title", titleError) : undefined}
      />
      <fieldset
        aria-label="Participants"
        aria-invalid={Boolean(participantsError)}
        aria-describedby={participantsError ? "new-group-participants-error" : undefined}
        className="flex flex-col gap-2 rounded-md border border-line p-3 aria-[invalid=true]:border-danger"
      >
        <legend className="px-1 text-sm font-medium">Participants (you are one of them)</legend>
        <Input
          label="Search members"
          hideLabel
          type="search"
          placeholder="Search the project's members"
          value={query}
          onChange={(e) => setQuery(e.target.value)}
          hint={`${picked.length} of at most ${GROUP_PARTICIPANTS_MAX - 1} others chosen. Only the project's members are listed.`}
        />
        {members.isLoading ? (
          <p aria-busy="true" className="text-sm text-muted">
            Loading members…
          </p>
        ) : null}
        <div className="grid max-h-56 gap-x-3 gap-y-1 overflow-y-auto sm:grid-cols-2">
          {shown.map((m) => (
            <Checkbox
              key={m.member_id}
              className="min-h-8"
              label={
                <span className="flex items-center gap-2">
                  <Avatar name={m.name} kind={m.kind} size="sm" decorative />
                  <span>
                    {m.name} <span className="text-muted">({m.kind})</span>
                  </span>
                </span>
              }
              checked={picked.includes(m.member_id)}
              onCheckedChange={(checked) => pick(m.member_id, checked === true)}
            />
          ))}
          {members.data && shown.length === 0 ? (
            <p className="text-sm text-muted sm:col-span-2">
              {others.length === 0
                ? "Nobody else is a member of this project yet."
                : "No member of this project matches. Only the project's members can take part."}
            </p>
          ) : null}
          {visitorsOfOthers.length > 0 ? (
            <p className="text-sm text-muted sm:col-span-2">
              Not listed: {visitorsOfOthers.map((m) => m.name).join(", ")} — visiting from another Bay; only the person
              who brought {visitorsOfOthers.length === 1 ? "it" : "them"} can add{" "}
              {visitorsOfOthers.length === 1 ? "it" : "them"} to a chat.
            </p>
          ) : null}
        </div>
      </fieldset>
      {participantsError ? (
        <p id="new-group-participants-error" role="alert" className="text-sm text-danger-text">
          {participantsError}
        </p>
      ) : null}
      {directWith ? (
        <Link
          href={`/p/${owner}/${slug}/c/${directWith.member_id}`}
          onClick={onClose}
          className="-mt-2 text-sm text-accent underline"
        >
          Open your direct conversation with {directWith.name}
        </Link>
      ) : null}
      {formError ? (
        <p role="alert" className="text-sm text-danger-text">
          {formError}
        </p>
      ) : null}
      <DialogFooter>
        <Button onClick={onClose}>Cancel</Button>
        {/* Until the projects are loaded there is nowhere to create it: a click then would be refused for a missing project. */}
        <Button type="submit" variant="primary" disabled={create.isPending || !owner || !slug}>
          Create
        </Button>
      </DialogFooter>
    </form>
  );
}
