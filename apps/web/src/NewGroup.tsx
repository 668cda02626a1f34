"use client";
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
export function NewGroup({ defaultProject, onClose }: { defaultProject: { owner: string; slug: string } | null; onClose: () => void }) {
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
  const formError = error && !participantsError && !titleError ? (error.code === "conversation_quota" ? "This project has as many open group chats as allowed." : error.code === "project_closed" ? "The project is archived: no new group chats." : error.message) : null;
  return (
    <form
      className="new-group"
      aria-label="New group chat"
      onSubmit={(e) => {
        e.preventDefault();
        create.mutate({ owner, slug, title: title.trim() || null, participants: picked });
      }}
    >
      <label>
        Project{" "}
        <select aria-label="Project" value={chosen} onChange={(e) => (setProject(e.target.value), setPicked([]))}>
          {projects.data?.map((p) => (
            <option key={p.id} value={p.full_name}>
              {p.full_name}
            </option>
          ))}
        </select>
      </label>
      <label>
        Title{" "}
        <input aria-label="Title" value={title} onChange={(e) => setTitle(e.target.value)} aria-invalid={Boolean(titleError)} aria-describedby={titleError ? "new-group-title-error" : undefined} />
      </label>
      {titleError ? (
        <p id="new-group-title-error" role="alert" className="error">
          Title: {titleError}
        </p>
      ) : null}
      <fieldset aria-label="Participants" aria-invalid={Boolean(participantsError)} aria-describedby={participantsError ? "new-group-participants-error" : undefined}>
        <legend>Participants (you are one of them)</legend>
        {members.isLoading ? <p aria-busy="true">Loading members…</p> : null}
        {members.data
          ?.filter((m) => m.member_id !== me.data?.id)
          .map((m) => (
            <label key={m.member_id} className="inline">
              <input
                type="checkbox"
                checked={picked.includes(m.member_id)}
                onChange={(e) => setPicked((p) => (e.target.checked ? [...p, m.member_id] : p.filter((x) => x !== m.member_id)))}
              />{" "}
              {m.name} ({m.kind})
            </label>
          ))}
      </fieldset>
      {participantsError ? (
        <p id="new-group-participants-error" role="alert" className="error">
          {PARTICIPANT_ERRORS[participantsError] ?? participantsError}
        </p>
      ) : null}
      {formError ? (
        <p role="alert" className="error">
          {formError}
        </p>
      ) : null}
      {/* Until the projects are loaded there is nowhere to create it: a click then would be refused for a missing project. */}
      <button type="submit" disabled={create.isPending || !owner || !slug}>
        Create
      </button>
      <button type="button" onClick={onClose}>
        Cancel
      </button>
    </form>
  );
}
