"use client";
import type { MemberEntry } from "@maity/domain";
import { Button, Checkbox, Input, Select, Switch, useToast } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { UserPlus } from "lucide-react";
import { useState } from "react";
import { hubErrorOf, useTRPC } from "./trpc";
import { houseFieldWords, isAdmin } from "./wording/house";

// The People page's admin parts (DESIGN §4c): add a person by handle (or one of one's own agents),
// rename the project, share it with visitors. Only a members:admin person sees them; the hub
// refuses anyone else anyway (403 not_an_admin).

type Ref = { owner: string; slug: string };

const fieldWords = (error: unknown, field: string): string | null => {
  const code = hubErrorOf(error)?.details.fields?.[field];
  return code ? houseFieldWords(field, code) : null;
};
/** The hub's refusal when no field carries it (an archived project, a lost connection). */
const formWords = (error: unknown): string | null => {
  const hub = hubErrorOf(error);
  if (!error) return null;
  if (!hub) return "The hub did not answer. Try again.";
  return hub.details.fields ? null : hub.message;
};

/** Add a person by handle, optionally as an admin; or one of the caller's own agents. */
export function AddMember(props: Ref & { members: readonly MemberEntry[] }) {
  const { owner, slug } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const [handle, setHandle] = useState("");
  const [asAdmin, setAsAdmin] = useState(false);
  const [tried, setTried] = useState(false);
  const reread = () =>
    void queryClient.invalidateQueries({ queryKey: trpc.projects.members.queryKey({ owner, slug }) });
  const add = useMutation(
    trpc.projects.addMember.mutationOptions({
      onSuccess: (out, input) => {
        reread();
        const promoted = props.members.some((m) => m.member_id === out.member_id);
        toast({
          title: promoted ? `${input.handle} is an admin now` : `Added ${input.handle}`,
          description: promoted ? undefined : "Add them to a chat from its Manage dialog.",
        });
        setHandle("");
        setAsAdmin(false);
        setTried(false);
      },
    }),
  );
  const typed = handle.trim().replace(/^@/, "").toLowerCase();
  const existing = props.members.find((m) => m.kind === "human" && m.handle === typed);
  // Adding a member again sets their permissions: only ever to make them an admin, never by accident.
  const already =
    existing && !(asAdmin && !isAdmin(existing))
      ? `${existing.name} is already a member${isAdmin(existing) ? " and an admin" : ""}.`
      : null;
  const local = tried && !typed ? houseFieldWords("handle", "required") : already;
  const handleError = local ?? fieldWords(add.error, "handle");
  return (
    <section aria-labelledby="add-person-heading" className="flex flex-col gap-3">
      <h2 id="add-person-heading" className="text-base font-semibold">
        Add a person
      </h2>
      <form
        aria-label="Add a person"
        className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
        onSubmit={(e) => {
          e.preventDefault();
          setTried(true);
          if (!typed || already || add.isPending) return;
          add.mutate({ owner, slug, handle: typed, ...(asAdmin ? { permissions: ["members:admin" as const] } : {}) });
        }}
      >
        <Input
          label="Handle"
          value={handle}
          autoComplete="off"
          autoCapitalize="none"
          spellCheck={false}
          placeholder="their-handle"
          onChange={(e) => {
            setHandle(e.target.value);
            add.reset();
          }}
          hint="The handle they sign in with. They join the project; a chat's manager adds them to chats."
          error={handleError}
        />
        <Checkbox
          label="Make them an admin too: they add and remove people, rename and share the project"
          checked={asAdmin}
          onCheckedChange={(v) => setAsAdmin(v === true)}
        />
        {formWords(add.error) ? (
          <p role="alert" className="text-sm text-danger-text">
            {formWords(add.error)}
          </p>
        ) : null}
        <Button type="submit" variant="primary" className="self-start">
          <UserPlus aria-hidden />
          {existing && asAdmin && !isAdmin(existing) ? "Make admin" : "Add"}
        </Button>
      </form>
      <AddOwnAgent {...props} />
    </section>
  );
}

/** One of the caller's own agents into the project (an agent of the project's Bay, DESIGN §4c). */
function AddOwnAgent(props: Ref & { members: readonly MemberEntry[] }) {
  const { owner, slug } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const agents = useQuery(trpc.agents.mine.queryOptions());
  // DESIGN §4c: only the project's own Bay's agents join here; another Bay's come as visitors, each
  // brought into a chat by its sponsor ("Bring an agent").
  const candidates = (agents.data ?? []).filter(
    (a) => a.bay === owner && !props.members.some((m) => m.member_id === a.id),
  );
  const [picked, setPicked] = useState("");
  const chosen = candidates.some((a) => a.id === picked) ? picked : (candidates[0]?.id ?? "");
  const add = useMutation(
    trpc.projects.addMember.mutationOptions({
      onSuccess: (out) => {
        void queryClient.invalidateQueries({ queryKey: trpc.projects.members.queryKey({ owner, slug }) });
        const name = agents.data?.find((a) => a.id === out.member_id)?.name ?? "the agent";
        toast({ title: `Added ${name}`, description: "It has a direct chat with you in this project now." });
      },
    }),
  );
  if (!candidates.length) return null;
  return (
    <form
      aria-label="Add one of your agents"
      className="flex flex-wrap items-end gap-2 rounded-lg border border-line bg-surface p-4"
      onSubmit={(e) => {
        e.preventDefault();
        if (chosen && !add.isPending) add.mutate({ owner, slug, member_id: chosen });
      }}
    >
      <Select
        label="Your agent"
        className="min-w-48 flex-1"
        value={chosen}
        onChange={(e) => {
          setPicked(e.target.value);
          add.reset();
        }}
        error={fieldWords(add.error, "member_id") ?? formWords(add.error)}
      >
        {candidates.map((a) => (
          <option key={a.id} value={a.id}>
            {a.name}
          </option>
        ))}
      </Select>
      <Button type="submit">Add agent</Button>
    </form>
  );
}

/** Rename the project and share it with visitors (DESIGN §4b, §4c); the switch's state from projects.get. */
export function ProjectSettings(props: Ref & { name: string }) {
  const { owner, slug } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const sharingKey = trpc.projects.get.queryKey({ owner, slug });
  const sharing = useQuery(trpc.projects.get.queryOptions({ owner, slug }));
  // null: the field shows the project's name; a string: the person's edit.
  const [draft, setDraft] = useState<string | null>(null);
  const name = draft ?? props.name;
  const update = useMutation(
    trpc.projects.update.mutationOptions({
      onSuccess: (project, input) => {
        queryClient.setQueryData(sharingKey, project);
        void queryClient.invalidateQueries({ queryKey: trpc.projects.mine.queryKey() });
        if (input.name !== undefined) {
          setDraft(null);
          toast({ title: `Renamed to “${project.name}”` });
        } else
          toast({
            title: project.share_with_visitors ? "Shared with visiting agents" : "No longer shared with visitors",
          });
      },
    }),
  );
  const shared = sharing.data?.share_with_visitors ?? false;
  const nameError = fieldWords(update.error, "name");
  return (
    <section aria-labelledby="project-settings-heading" className="flex flex-col gap-3">
      <h2 id="project-settings-heading" className="text-base font-semibold">
        The project
      </h2>
      <div className="flex flex-col gap-4 rounded-lg border border-line bg-surface p-4">
        <form
          aria-label="Rename the project"
          className="flex flex-col gap-1.5"
          onSubmit={(e) => {
            e.preventDefault();
            if (!update.isPending) update.mutate({ owner, slug, name: name.trim() });
          }}
        >
          {/* The hint under the row, so the button lines up with the field. */}
          <div className="flex flex-wrap items-end gap-2">
            <Input
              label="Project name"
              className="min-w-48 flex-1"
              value={name}
              maxLength={120}
              aria-describedby={nameError ? "rename-hint rename-error" : "rename-hint"}
              aria-invalid={Boolean(nameError)}
              onChange={(e) => {
                setDraft(e.target.value);
                update.reset();
              }}
            />
            <Button type="submit" variant="primary">
              Rename
            </Button>
          </div>
          <p id="rename-hint" className="text-xs text-muted">
            Renaming keeps its slug, its links and the brief's version.
          </p>
          {nameError ? (
            <p id="rename-error" role="alert" className="text-sm text-danger-text">
              {nameError}
            </p>
          ) : null}
        </form>
        <div className="flex flex-col gap-1.5 border-t border-line pt-4">
          <Switch
            label="Share with visiting agents"
            checked={shared}
            // Only until its state is known; while a change is on its way the switch keeps the focus.
            disabled={!sharing.data}
            aria-describedby="share-explained"
            onCheckedChange={(v) => {
              if (!update.isPending) update.mutate({ owner, slug, share_with_visitors: v === true });
            }}
          />
          <p id="share-explained" className="text-sm text-muted">
            {shared ? "On: " : "Off: "}an agent of another Bay that someone brings into a chat here
            {shared
              ? " reads the project's brief, its notes (read-only: it never writes one) and its library."
              : " reads only the chats it is in — not the brief, the notes or the library."}
          </p>
          {sharing.isError ? (
            <p role="alert" className="text-sm text-danger-text">
              Could not read whether the project is shared. Reload to try again.
            </p>
          ) : null}
          {formWords(update.error) ? (
            <p role="alert" className="text-sm text-danger-text">
              {formWords(update.error)}
            </p>
          ) : null}
        </div>
      </div>
    </section>
  );
}
