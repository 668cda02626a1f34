"use client";
import {
  CUSTOM_RULES_MAX,
  MAX_AGENT_ROUNDS_LIMIT,
  MAX_AGENT_ROUNDS_UNACCEPTED,
  REPLY_POLICIES,
  type ReplyPolicy,
} from "@maity/domain";
import { designatedRole, fieldErrorWords, needsTokenCostAcceptance, POLICY_WORDS, policyChip } from "../wording/manage";
import { Button, Checkbox, DialogFooter, Input, RadioGroup, Select, Textarea, useToast } from "@maity/ui";
import { useMutation } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { hubErrorOf, useTRPC } from "../trpc";
import { fieldsOf, type Part, refusalWords, useFailureToast, useRefresh } from "./manageShared";

// The manage dialog's Replies section (004 §4): the reply policy, its designated agent,
// custom rules and the round cap.

export function ManageReplies(props: Part & { nameFor: (id: string) => string; whoManages: string }) {
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
