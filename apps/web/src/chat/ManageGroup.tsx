"use client";
import {
  CUSTOM_RULES_MAX,
  designatedRole,
  fieldErrorWords,
  GROUP_PARTICIPANTS_MAX,
  type GroupView,
  MAX_AGENT_ROUNDS_LIMIT,
  MAX_AGENT_ROUNDS_UNACCEPTED,
  needsTokenCostAcceptance,
  POLICY_WORDS,
  policyChip,
  REPLY_POLICIES,
  type ReplyPolicy,
} from "@maity/domain";
import {
  Avatar,
  Button,
  Checkbox,
  cn,
  Dialog,
  DialogContent,
  DialogFooter,
  focusRing,
  Input,
  RadioGroup,
  Select,
  Tabs,
  TabsContent,
  TabsList,
  TabsTrigger,
  Textarea,
  Tooltip,
  useToast,
} from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Bot, Settings2 } from "lucide-react";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { hubErrorOf, useTRPC } from "../trpc";
import type { ChatProps } from "./OpenChat";
import { useManager } from "./manager";

type Section = "details" | "people" | "replies";
type HubError = NonNullable<ReturnType<typeof hubErrorOf>>;

/** The hub's refusal in words (§9.2 order of refusals); field codes go to their field instead. */
function refusalWords(error: HubError | null): string | null {
  if (!error) return null;
  if (error.code === "conversation_closed") return "The chat is closed: it takes no changes.";
  if (error.code === "project_closed") return "The project is archived: nobody can be added.";
  if (error.details.reason === "not_a_manager") return "Only the chat's creator or a project admin can change this.";
  if (error.details.reason === "observer") return "You read along here: you cannot change the chat.";
  return error.message;
}
const fieldsOf = (error: unknown): Record<string, string> => {
  const fields = hubErrorOf(error)?.details.fields ?? {};
  return Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, fieldErrorWords(k, v)]));
};

/**
 * Managing a group chat (§9.2 "Who manages", 004 §4, issue 15): the reply-policy chip in the chat's
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
    const member = members.data?.find((m) => m.member_id === id);
    const participant = view.participants.find((p) => p.member_id === id);
    return member?.name ?? participant?.name ?? participant?.handle ?? id;
  };
  const [open, setOpen] = useState(false);
  const [section, setSection] = useState<Section>("details");
  const designated = view.designated_agent_id ? nameFor(view.designated_agent_id) : null;
  const chip = policyChip(view.reply_policy, view.max_agent_rounds, designated);
  // Issue 15: who can lift the round cap, by name — the creator while in the chat, or a project admin.
  // Issue 15: who can change the chat, by name — its creator while in it, and human participants
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
                : `Only ${whoManages} can rename it, change who takes part and how its agents reply. You can leave it.`
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
              <People
                {...props}
                canManage={manager && !closed}
                nameFor={nameFor}
                candidates={(members.data ?? []).filter(
                  (m) => !view.participants.some((p) => p.member_id === m.member_id),
                )}
              />
            </TabsContent>
            <TabsContent value="replies">
              <Replies {...props} canManage={manager && !closed} nameFor={nameFor} whoManages={whoManages} />
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

type Part = ChatProps & { view: GroupView; closed: boolean; archived: boolean; canManage: boolean };

/** Writes a changed view straight into the cache (the chip updates at once), then reads the lists again. */
function useRefresh(props: ChatProps) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  return (view?: GroupView) => {
    const ref = { owner: props.owner, slug: props.slug, conversation_id: props.id };
    if (view) queryClient.setQueryData(trpc.conversations.get.queryKey(ref), view);
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.get.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
  };
}

function useFailureToast() {
  const { toast } = useToast();
  return (what: string, error: unknown) =>
    toast({
      variant: "danger",
      title: what,
      description: refusalWords(hubErrorOf(error)) ?? "The hub did not answer. Try again.",
    });
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

function People(
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
        {view.participants.map((p) => (
          <li key={p.member_id} className="flex items-center gap-2 px-3 py-2 text-sm">
            <Avatar name={nameFor(p.member_id)} kind={p.kind} size="sm" decorative />
            <span className="min-w-0 flex-1 truncate">
              {nameFor(p.member_id)}
              <span className="text-muted">
                {" "}
                ({p.kind}
                {p.member_id === me.id ? ", you" : ""}
                {p.member_id === view.created_by ? ", started the chat" : ""})
              </span>
            </span>
            {props.canManage && p.member_id !== me.id ? (
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
        ))}
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
    </>
  );
}

function Replies(props: Part & { nameFor: (id: string) => string; whoManages: string }) {
  const { owner, slug, id, view, nameFor } = props;
  const trpc = useTRPC();
  const { toast } = useToast();
  const failed = useFailureToast();
  const refresh = useRefresh(props);
  const [policy, setPolicy] = useState<ReplyPolicy>(view.reply_policy);
  const [agent, setAgent] = useState(view.designated_agent_id ?? "");
  const [rounds, setRounds] = useState(String(view.max_agent_rounds));
  const [accepted, setAccepted] = useState(false);
  const [rules, setRules] = useState(view.custom_rules ?? "");
  const [local, setLocal] = useState<Record<string, string>>({});
  const save = useMutation(
    trpc.conversations.update.mutationOptions({
      onSuccess: (out) => {
        refresh(out);
        setAccepted(false);
        toast({ title: "Reply policy saved", description: policyChip(out.reply_policy, out.max_agent_rounds, null) });
      },
      onError: (e) => failed("Could not save the reply policy", e),
    }),
  );
  // A fresh view (after a save or a live change) is what the form starts from.
  useEffect(() => {
    setPolicy(view.reply_policy);
    setAgent(view.designated_agent_id ?? "");
    setRounds(String(view.max_agent_rounds));
    setRules(view.custom_rules ?? "");
  }, [view.reply_policy, view.designated_agent_id, view.max_agent_rounds, view.custom_rules]);
  const role = designatedRole(policy);
  const agents = view.participants.filter((p) => p.kind === "agent");
  const roundsNumber = Number(rounds);
  const needsAcceptance =
    Number.isInteger(roundsNumber) && needsTokenCostAcceptance(roundsNumber, view.max_agent_rounds);
  const errors = { ...fieldsOf(save.error), ...local };
  if (!props.canManage)
    return (
      <div className="flex flex-col gap-2 text-sm">
        <p>
          <span className="font-medium">{POLICY_WORDS[view.reply_policy].label}:</span>{" "}
          {POLICY_WORDS[view.reply_policy].help}
        </p>
        {view.designated_agent_id ? (
          <p>
            <span className="font-medium">{designatedRole(view.reply_policy)?.label ?? "Agent"}:</span>{" "}
            {nameFor(view.designated_agent_id)}
          </p>
        ) : null}
        <p>
          <span className="font-medium">Round cap:</span> {view.max_agent_rounds} agent replies in a row, then the
          agents wait for a person.
        </p>
        {view.custom_rules ? (
          <p className="whitespace-pre-wrap">
            <span className="font-medium">Custom rules:</span> {view.custom_rules}
          </p>
        ) : null}
        <p className="text-muted">Only {props.whoManages} can change this.</p>
      </div>
    );
  return (
    <form
      aria-label="Reply policy"
      className="flex flex-col gap-4"
      onSubmit={(e) => {
        e.preventDefault();
        // 004 §4 / B-067: refuse here what the hub would refuse, with the reason at the field.
        const next: Record<string, string> = {};
        if (!Number.isInteger(roundsNumber) || roundsNumber < 0 || roundsNumber > MAX_AGENT_ROUNDS_LIMIT)
          next.max_agent_rounds = fieldErrorWords(
            "max_agent_rounds",
            `a whole number from 0 to ${MAX_AGENT_ROUNDS_LIMIT}`,
          );
        else if (needsAcceptance && !accepted)
          next.max_agent_rounds = fieldErrorWords("max_agent_rounds", "needs_accept_token_cost");
        if (role?.required && !agent) next.designated_agent_id = fieldErrorWords("designated_agent_id", "required");
        setLocal(next);
        if (Object.keys(next).length || save.isPending) return;
        save.reset();
        save.mutate({
          owner,
          slug,
          conversation_id: id,
          reply_policy: policy,
          ...(role ? { designated_agent_id: agent || null } : {}),
          max_agent_rounds: roundsNumber,
          ...(needsAcceptance ? { accept_token_cost: true } : {}),
          custom_rules: rules.trim() ? rules : null,
        });
      }}
    >
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-sm font-medium">Who answers people's messages</legend>
        <RadioGroup
          label="Reply policy"
          value={policy}
          onValueChange={(v) => setPolicy(v as ReplyPolicy)}
          options={REPLY_POLICIES.map((p) => ({ value: p, label: POLICY_WORDS[p].label, hint: POLICY_WORDS[p].help }))}
        />
        <p className="text-xs text-muted">An @mention always reaches the agent mentioned, whatever the policy.</p>
      </fieldset>
      {role ? (
        <Select
          label={role.required ? role.label : `${role.label} (optional)`}
          value={agent}
          onChange={(e) => setAgent(e.target.value)}
          error={errors.designated_agent_id}
          hint={agents.length === 0 ? "No agent takes part yet: add one under People first." : undefined}
        >
          <option value="">{role.required ? "Choose an agent" : "None"}</option>
          {agents.map((a) => (
            <option key={a.member_id} value={a.member_id}>
              {nameFor(a.member_id)}
            </option>
          ))}
        </Select>
      ) : null}
      <Input
        label="Round cap (agent replies in a row)"
        type="number"
        inputMode="numeric"
        min={0}
        max={MAX_AGENT_ROUNDS_LIMIT}
        value={rounds}
        onChange={(e) => setRounds(e.target.value)}
        hint={`0–${MAX_AGENT_ROUNDS_LIMIT}. After that many agent replies with no person in between, the agents wait for a person. Above ${MAX_AGENT_ROUNDS_UNACCEPTED} costs more tokens and needs your acceptance.`}
        error={errors.max_agent_rounds}
        className="max-w-xs"
      />
      {needsAcceptance ? (
        <Checkbox
          label={`I accept the token cost: up to ${roundsNumber} agent replies in a row, each a model run someone pays for.`}
          checked={accepted}
          onCheckedChange={(c) => setAccepted(c === true)}
        />
      ) : null}
      <Textarea
        label="Custom rules (optional)"
        value={rules}
        onChange={(e) => setRules(e.target.value)}
        maxLength={CUSTOM_RULES_MAX}
        rows={4}
        hint={`Added word for word to every agent's instructions in this chat. ${rules.length}/${CUSTOM_RULES_MAX} characters.`}
        error={errors.custom_rules}
      />
      {save.error && Object.keys(fieldsOf(save.error)).length === 0 ? (
        <p role="alert" className="text-sm text-danger-text">
          {refusalWords(hubErrorOf(save.error))}
        </p>
      ) : null}
      <DialogFooter>
        <Button type="submit" variant="primary">
          Save reply policy
        </Button>
      </DialogFooter>
    </form>
  );
}

/** "a", "a or b", "a, b or c". */
const orList = (items: readonly string[]): string =>
  items.length <= 1 ? (items[0] ?? "") : `${items.slice(0, -1).join(", ")} or ${items.at(-1)}`;
