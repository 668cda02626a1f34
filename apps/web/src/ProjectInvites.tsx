"use client";
import { ConfirmInRow } from "./ConfirmInRow";
import type { Invite, MemberEntry } from "@maity/domain";
import { Badge, Button, cn, Select, useToast } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { Copy, Link2 } from "lucide-react";
import { useRef, useState } from "react";
import { timeLabel } from "./format";
import { hubErrorOf, useTRPC } from "./trpc";
import { INVITE_EXPIRY_CHOICES, INVITE_USES_CHOICES, inviteLink, inviteStatusLabel, inviteUses } from "./wording/house";

// Invite links on the People page (issue 29, DESIGN §4c), for the project's admins: make one (how
// long, how many people), see its link once — the hub keeps only the code's hash — and list and
// revoke the project's invites.

type Ref = { owner: string; slug: string };

/** A date with its time, for the list: an invite lives days, so "today" alone says too little. */
const when = (iso: string) => {
  const date = new Date(iso);
  return `${date.toLocaleDateString()} ${date.toLocaleTimeString([], { hour: "2-digit", minute: "2-digit" })}`;
};

export function ProjectInvites(props: Ref & { members: readonly MemberEntry[] }) {
  const { owner, slug } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const invites = useQuery(trpc.invites.list.queryOptions({ owner, slug }));
  const [hours, setHours] = useState<number>(168);
  const [uses, setUses] = useState<number>(10);
  const [made, setMade] = useState<{ link: string; expires: string; max: number } | null>(null);
  const heading = useRef<HTMLHeadingElement>(null);
  const create = useMutation(
    trpc.invites.create.mutationOptions({
      onSuccess: (out) => {
        void queryClient.invalidateQueries({ queryKey: trpc.invites.list.queryKey({ owner, slug }) });
        setMade({ link: inviteLink(window.location.origin, out.path), expires: out.expires_at, max: out.max_uses });
      },
    }),
  );
  const createError = create.error ? (hubErrorOf(create.error)?.message ?? "The hub did not answer. Try again.") : null;
  const items = invites.data?.items ?? [];
  const nameOf = (id: string) => props.members.find((m) => m.member_id === id)?.name ?? id;
  return (
    <section aria-labelledby="invites-heading" className="flex flex-col gap-3">
      <h2 id="invites-heading" ref={heading} tabIndex={-1} className="text-base font-semibold outline-none">
        Invite links
      </h2>
      <form
        aria-label="Make an invite link"
        className="flex flex-col gap-3 rounded-lg border border-line bg-surface p-4"
        onSubmit={(e) => {
          e.preventDefault();
          if (!create.isPending) create.mutate({ owner, slug, expires_in_hours: hours, max_uses: uses });
        }}
      >
        <p className="text-sm text-muted">
          Anyone with the link joins the project — signing up first if they have no account — until it expires, is used
          up or you revoke it.
        </p>
        <div className="flex flex-wrap items-end gap-3">
          <Select
            label="Works for"
            className="min-w-32 flex-1"
            value={String(hours)}
            onChange={(e) => setHours(Number(e.target.value))}
          >
            {INVITE_EXPIRY_CHOICES.map((c) => (
              <option key={c.hours} value={c.hours}>
                {c.label}
              </option>
            ))}
          </Select>
          <Select
            label="Lets in"
            className="min-w-32 flex-1"
            value={String(uses)}
            onChange={(e) => setUses(Number(e.target.value))}
          >
            {INVITE_USES_CHOICES.map((n) => (
              <option key={n} value={n}>
                {n === 1 ? "1 person" : `${n} people`}
              </option>
            ))}
          </Select>
          <Button type="submit" variant="primary">
            <Link2 aria-hidden />
            {create.isPending ? "Making…" : "Make invite link"}
          </Button>
        </div>
        {createError ? (
          <p role="alert" className="text-sm text-danger-text">
            {createError}
          </p>
        ) : null}
      </form>
      {made ? <NewInvite {...made} onDone={() => setMade(null)} /> : null}
      {invites.isError ? (
        <p role="alert" className="text-sm text-danger-text">
          Could not load the invite links. Reload to try again.
        </p>
      ) : items.length ? (
        <ul
          aria-label="Invite links"
          className="flex flex-col divide-y divide-line rounded-lg border border-line bg-surface"
        >
          {items.map((i) => (
            <InviteRow
              key={i.id}
              owner={owner}
              slug={slug}
              invite={i}
              by={nameOf(i.created_by)}
              onRevoked={() => heading.current?.focus()}
            />
          ))}
        </ul>
      ) : invites.isSuccess ? (
        <p className="text-sm text-muted">No invite links yet.</p>
      ) : null}
    </section>
  );
}

/** The link just made, shown this once (the hub keeps only its hash), with Copy. */
function NewInvite(props: { link: string; expires: string; max: number; onDone: () => void }) {
  const { toast } = useToast();
  const linkRef = useRef<HTMLElement>(null);
  const copy = async () => {
    try {
      await navigator.clipboard.writeText(props.link);
      toast({ title: "Invite link copied", description: "Send it to the people you invite." });
    } catch {
      // No clipboard (an insecure origin, a refusal): select it, so a keyboard copy takes it.
      const range = document.createRange();
      if (linkRef.current) range.selectNodeContents(linkRef.current);
      window.getSelection()?.removeAllRanges();
      window.getSelection()?.addRange(range);
      toast({ variant: "danger", title: "Could not copy: the link is selected, copy it yourself" });
    }
  };
  return (
    <div role="status" className="flex flex-col gap-2 rounded-md bg-surface-2 px-3 py-3 text-sm">
      <p className="font-medium">
        New invite link · lets in {props.max === 1 ? "1 person" : `${props.max} people`} until{" "}
        {timeLabel(props.expires)}
      </p>
      <div className="flex flex-wrap items-center gap-2">
        <code
          ref={linkRef}
          className={cn(
            "w-full min-w-0 rounded-md border border-line bg-surface px-3 py-2 font-mono text-xs break-all",
            "sm:w-auto sm:flex-1",
          )}
        >
          {props.link}
        </code>
        <Button size="sm" onClick={() => void copy()} aria-label="Copy the invite link">
          <Copy aria-hidden />
          Copy
        </Button>
      </div>
      <p>
        <strong>Shown only now:</strong> Maity keeps no copy of this link. Copy it before you close this; to share
        again, make a new one.
      </p>
      <Button size="sm" variant="ghost" className="self-start" onClick={props.onDone}>
        Done
      </Button>
    </div>
  );
}

/** One invite: made by whom and when, until when, its uses and status; Revoke with a confirmation. */
function InviteRow(props: Ref & { invite: Invite; by: string; onRevoked: () => void }) {
  const { owner, slug, invite: i } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const [confirming, setConfirming] = useState(false);
  const revokeButton = useRef<HTMLButtonElement>(null);
  const revoke = useMutation(
    trpc.invites.revoke.mutationOptions({
      onSuccess: () => {
        setConfirming(false);
        void queryClient.invalidateQueries({ queryKey: trpc.invites.list.queryKey({ owner, slug }) });
        toast({ title: "Invite link revoked", description: "Nobody else joins with it; who joined stays." });
        // The row's Revoke goes away with its status: the focus goes to the section, not the page's top.
        props.onRevoked();
      },
    }),
  );
  const cancel = () => {
    setConfirming(false);
    revoke.reset();
    revokeButton.current?.focus();
  };
  const made = `made ${when(i.created_at)}`;
  const error = revoke.error ? (hubErrorOf(revoke.error)?.message ?? "The hub did not answer. Try again.") : null;
  return (
    <li className="flex flex-col gap-2 px-3 py-2.5">
      <div className="flex items-center gap-3">
        <div className="flex min-w-0 flex-1 flex-col gap-0.5">
          <span className="flex flex-wrap items-center gap-x-2 gap-y-1">
            <span className="font-medium">{inviteUses(i.uses, i.max_uses)}</span>
            <Badge data-status={i.status}>{inviteStatusLabel(i.status)}</Badge>
          </span>
          <span className="text-xs text-muted">
            Made by <span className="break-all">{props.by}</span> ·{" "}
            <time dateTime={i.created_at}>{when(i.created_at)}</time>
            {" · "}
            {i.status === "revoked" && i.revoked_at ? (
              <>
                revoked <time dateTime={i.revoked_at}>{when(i.revoked_at)}</time>
              </>
            ) : (
              <>
                {i.status === "expired" ? "expired" : "expires"}{" "}
                <time dateTime={i.expires_at}>{when(i.expires_at)}</time>
              </>
            )}
          </span>
        </div>
        {i.status === "valid" ? (
          <Button
            ref={revokeButton}
            variant="ghost"
            size="sm"
            aria-expanded={confirming}
            aria-label={`Revoke the invite link ${made}`}
            onClick={() => (confirming ? cancel() : setConfirming(true))}
          >
            Revoke
          </Button>
        ) : null}
      </div>
      {confirming ? (
        <ConfirmInRow
          legend={`Confirm revoking the invite link ${made}`}
          question="Revoke this link? Nobody else can join with it; the people who joined stay."
          error={error}
          confirm="Yes, revoke"
          pending={revoke.isPending}
          onConfirm={() => revoke.mutate({ owner, slug, invite_id: i.id })}
          onCancel={cancel}
        />
      ) : null}
    </li>
  );
}
