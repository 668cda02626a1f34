"use client";
import { Button, Checkbox, DialogFooter, Input, Select } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { useRouter } from "next/navigation";
import { useState } from "react";
import { hubErrorOf, useTRPC } from "./trpc";

const PARTICIPANT_ERRORS: Record<string, string> = {
  too_few: "Choose at least one other participant.",
  too_many: "A group chat has at most 12 participants, you included.",
  use_direct: "That is your direct conversation with your agent: open it instead.",
  not_a_member: "Everyone must be an active member of the project.",
};

/** Create a group chat: title and 2–12 participants; the hub's refusals show at the field (§9.2). */
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
  const create = useMutation(
    trpc.conversations.create.mutationOptions({
      onSuccess: (out) => {
        void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
        void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
        onClose();
        router.push(`/p/${owner}/${slug}/c/${out.conversation.id}`);
      },
    }),
  );
  const error = hubErrorOf(create.error);
  const participantsError = error?.details.fields?.participants;
  const titleError = error?.details.fields?.title;
  const formError =
    error && !participantsError && !titleError
      ? error.code === "conversation_quota"
        ? "This project has as many open group chats as allowed."
        : error.code === "project_closed"
          ? "The project is archived: no new group chats."
          : error.message
      : null;
  return (
    <form
      className="flex flex-col gap-4"
      aria-label="New group chat"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate({ owner, slug, title: title.trim() || null, participants: picked });
      }}
    >
      <Select
        label="Project"
        value={chosen}
        onChange={(e) => {
          setProject(e.target.value);
          setPicked([]);
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
        error={titleError ? `Title: ${titleError}` : undefined}
      />
      <fieldset
        aria-label="Participants"
        aria-invalid={Boolean(participantsError)}
        aria-describedby={participantsError ? "new-group-participants-error" : undefined}
        className="flex flex-col gap-2 rounded-md border border-line p-3 aria-[invalid=true]:border-danger"
      >
        <legend className="px-1 text-sm font-medium">Participants (you are one of them)</legend>
        {members.isLoading ? (
          <p aria-busy="true" className="text-sm text-muted">
            Loading members…
          </p>
        ) : null}
        <div className="grid max-h-56 gap-2 overflow-y-auto sm:grid-cols-2">
          {members.data
            ?.filter((m) => m.member_id !== me.data?.id)
            .map((m) => (
              <Checkbox
                key={m.member_id}
                label={`${m.name} (${m.kind})`}
                checked={picked.includes(m.member_id)}
                onCheckedChange={(checked) =>
                  setPicked((p) => (checked === true ? [...p, m.member_id] : p.filter((x) => x !== m.member_id)))
                }
              />
            ))}
        </div>
      </fieldset>
      {participantsError ? (
        <p id="new-group-participants-error" role="alert" className="text-sm text-danger-text">
          {PARTICIPANT_ERRORS[participantsError] ?? participantsError}
        </p>
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
