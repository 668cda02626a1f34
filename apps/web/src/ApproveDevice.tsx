"use client";
import { Button, Checkbox, Skeleton } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import Link from "next/link";
import { type ReactNode, useEffect, useId, useRef, useState } from "react";
import { timeLabel } from "./format";
import { hubErrorOf, useTRPC } from "./trpc";
import { useNow, WithCode } from "./WithCode";
import {
  approvedWords,
  chosenNames,
  DENIED_WORDS,
  DEVICE_NOT_FOUND,
  decisionRefusal,
  defaultBays,
  deviceClosed,
  deviceName,
  expiresWords,
  isPast,
  NO_BAY_CHOSEN,
} from "./wording/devices";

/**
 * Device login (issue 30, DESIGN §4e), /device/{code}: `maity login` printed this page's URL; the
 * person compares the code with the one their terminal shows, ticks the Bays the computer may act
 * as them in, and approves or denies. The computer's poll then collects one credential per Bay;
 * nothing on this page ever shows one (as the reverse link's /link/{code}, B-019).
 */
export function ApproveDevice({ code }: { code: string }) {
  const trpc = useTRPC();
  const me = useQuery(trpc.auth.me.queryOptions());
  const view = useQuery({ ...trpc.devices.view.queryOptions({ code }), enabled: me.data?.kind === "human" });
  const now = useNow(15_000);
  // What this page decided: the result stays in words even after the request's status moves on.
  const [decided, setDecided] = useState<string | null>(null);

  const frame = (children: ReactNode) => (
    <div className="mx-auto flex w-full max-w-md flex-col gap-5 px-4 py-8 sm:py-12">
      <h1 className="text-xl font-semibold">Sign in a computer</h1>
      {children}
    </div>
  );
  const back = (
    <p className="flex flex-wrap gap-x-4 gap-y-2">
      <Link href="/agents#devices" className="text-accent underline">
        Your devices
      </Link>
      <Link href="/" className="text-accent underline">
        Back to your chats
      </Link>
    </p>
  );
  if (me.isLoading || view.isLoading)
    return (
      <div aria-busy="true" className="mx-auto flex w-full max-w-md flex-col gap-3 px-4 py-8">
        <span className="sr-only">Loading…</span>
        <Skeleton className="h-8 w-56" />
        <Skeleton className="h-40" />
      </div>
    );
  if (!me.data)
    return frame(
      <p>
        <Link href="/login" className="text-accent underline">
          Sign in
        </Link>{" "}
        to approve this computer, then open this page again.
      </p>,
    );
  if (me.data.kind !== "human") return frame(<p role="alert">Only a person signs a computer in.</p>);
  if (decided) return frame(<Decided words={decided}>{back}</Decided>);
  if (!view.data) {
    const missing = hubErrorOf(view.error)?.code === "not_found";
    return frame(
      <>
        <p role="alert" className={missing ? "" : "text-danger-text"}>
          {missing ? <WithCode text={DEVICE_NOT_FOUND} /> : "Could not reach the hub. Reload to try again."}
        </p>
        {back}
      </>,
    );
  }
  const request = view.data;
  const closed = deviceClosed(request.status) ?? (isPast(request.expires_at, now) ? deviceClosed("expired") : null);
  if (closed)
    return frame(
      <>
        <p role="alert">
          <WithCode text={closed} />
        </p>
        {back}
      </>,
    );
  return frame(
    <>
      <div className="flex flex-col gap-1">
        <p className="text-lg font-medium break-words">{deviceName(request.label)}</p>
        <p className="text-sm text-muted">
          asks to act as you: its coding terminals take part in your Bays' chats under your name. Approve only a
          computer you are signing in yourself.
        </p>
      </div>
      <div className="flex flex-col gap-1 rounded-lg border border-line bg-surface p-4">
        <p className="text-sm" id="device-code-hint">
          Check that your terminal shows this code:
        </p>
        <p
          aria-describedby="device-code-hint"
          className="font-mono text-2xl font-semibold tracking-widest break-all sm:text-3xl"
          data-testid="device-code"
        >
          {request.code}
        </p>
        <p className="text-sm text-muted">
          {expiresWords(request.expires_at, now)} (at{" "}
          <time dateTime={request.expires_at}>{timeLabel(request.expires_at)}</time>). If the codes differ, deny.
        </p>
      </div>
      <Decide code={code} label={request.label} bays={request.bays} me={me.data.handle} onDecided={setDecided} />
      {back}
    </>,
  );
}

/** The Bays to tick, Approve and Deny. */
function Decide(props: {
  code: string;
  label: string | null;
  bays: { id: string; name: string }[];
  me: string;
  onDecided: (words: string) => void;
}) {
  const { code, bays } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [chosen, setChosen] = useState<string[]>(() => defaultBays(bays));
  const hintId = useId();
  const done = () => {
    void queryClient.invalidateQueries({ queryKey: trpc.devices.view.queryKey({ code }) });
    void queryClient.invalidateQueries({ queryKey: trpc.devices.list.queryKey() });
  };
  const approve = useMutation(
    trpc.devices.approve.mutationOptions({
      onSuccess: () => {
        props.onDecided(approvedWords(props.label, chosenNames(bays, chosen)));
        done();
      },
    }),
  );
  const deny = useMutation(
    trpc.devices.deny.mutationOptions({
      onSuccess: () => {
        props.onDecided(DENIED_WORDS);
        done();
      },
    }),
  );
  const pending = approve.isPending || deny.isPending;
  const none = chosen.length === 0;
  const refusal = decisionRefusal(hubErrorOf(approve.error ?? deny.error));
  const failed = (approve.error ?? deny.error) && !refusal ? "The hub did not answer. Try again." : null;
  if (bays.length === 0)
    return (
      <p role="alert" className="text-danger-text">
        You belong to no Bay the computer could act in.
      </p>
    );
  return (
    <form
      aria-label="Sign this computer in"
      className="flex flex-col gap-4 rounded-lg border border-line bg-surface p-4"
      onSubmit={(event) => {
        event.preventDefault();
        // Never disabled: the button keeps the focus of whoever pressed it, and says why it waits.
        if (pending || none) return;
        deny.reset();
        approve.mutate({ code, bays: chosen });
      }}
    >
      <fieldset className="flex flex-col gap-2">
        <legend className="mb-1 text-sm font-medium">Let it act as you in</legend>
        {bays.map((bay) => (
          <Checkbox
            key={bay.id}
            label={
              <>
                <span className="break-all">{bay.name}</span>
                {bay.name === props.me ? <span className="text-muted"> (your own Bay)</span> : null}
              </>
            }
            checked={chosen.includes(bay.id)}
            onCheckedChange={(on) =>
              setChosen((c) =>
                on === true ? [...c.filter((id) => id !== bay.id), bay.id] : c.filter((id) => id !== bay.id),
              )
            }
          />
        ))}
      </fieldset>
      <p id={hintId} role="status" className={none ? "text-sm text-danger-text" : "text-sm text-muted"}>
        {none ? NO_BAY_CHOSEN : "It gets one credential per Bay you tick; you can sign it out later."}
      </p>
      {refusal || failed ? (
        <p role="alert" className="text-sm text-danger-text">
          <WithCode text={refusal ?? failed ?? ""} />
        </p>
      ) : null}
      <div className="flex flex-wrap gap-2">
        <Button
          type="submit"
          variant="primary"
          className="aria-disabled:cursor-not-allowed aria-disabled:opacity-50"
          aria-disabled={pending || none}
          aria-describedby={hintId}
        >
          {approve.isPending ? "Approving…" : "Approve"}
        </Button>
        <Button
          type="button"
          aria-disabled={pending}
          onClick={() => {
            if (pending) return;
            approve.reset();
            deny.mutate({ code });
          }}
        >
          {deny.isPending ? "Denying…" : "Deny"}
        </Button>
      </div>
    </form>
  );
}

/** The result, focused so a keyboard or screen reader user hears it where the form was. */
function Decided({ words, children }: { words: string; children: ReactNode }) {
  const ref = useRef<HTMLParagraphElement>(null);
  useEffect(() => ref.current?.focus(), []);
  return (
    <>
      <p ref={ref} tabIndex={-1} role="status" className="rounded-md bg-surface-2 px-3 py-2 outline-none">
        {words}
      </p>
      {children}
    </>
  );
}
