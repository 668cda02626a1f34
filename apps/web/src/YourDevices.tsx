"use client";
import { ConfirmInRow } from "./ConfirmInRow";
import type { AppRouter } from "@maity/api";
import { Button, useToast } from "@maity/ui";
import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import type { inferRouterOutputs } from "@trpc/server";
import { Laptop } from "lucide-react";
import { useRef, useState } from "react";
import { ListSection } from "./ListSection";
import { hubErrorOf, useTRPC } from "./trpc";
import { useNow, WithCode } from "./WithCode";
import { deviceBays, deviceName, deviceTimes, NO_DEVICES, signedOutWords, signOutQuestion } from "./wording/devices";

type Device = inferRouterOutputs<AppRouter>["devices"]["list"]["items"][number];

/**
 * Your devices (issue 30, DESIGN §4e): the computers signed in as you with `maity login`, the Bays
 * each acts in, and Sign out, confirmed in the row. A section of "Your agents" rather than a page of
 * its own: a device's terminals join as sessions, agents of yours, next to the agents paired on that
 * page — and the header stays two links wide at a phone's 390 px. /agents#devices opens it.
 */
export function YourDevices() {
  const trpc = useTRPC();
  const devices = useQuery(trpc.devices.list.queryOptions());
  const heading = useRef<HTMLHeadingElement>(null);
  const now = useNow();
  const items = devices.data?.items ?? [];
  return (
    <ListSection
      id="devices"
      title="Your devices"
      intro="Computers signed in as you: their coding terminals take part in your Bays' chats under your name."
      heading={heading}
      query={devices}
      what="devices"
      empty={NO_DEVICES}
      count={items.length}
    >
      {items.map((d) => (
        <DeviceRow key={d.id} device={d} now={now} onSignedOut={() => heading.current?.focus()} />
      ))}
    </ListSection>
  );
}

/** One computer: its name, the Bays it acts in, when it signed in and was last used; Sign out, confirmed. */
function DeviceRow(props: { device: Device; now: Date; onSignedOut: () => void }) {
  const { device: d } = props;
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const [confirming, setConfirming] = useState(false);
  const signOutButton = useRef<HTMLButtonElement>(null);
  const name = deviceName(d.label);
  const revoke = useMutation(
    trpc.devices.revoke.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.devices.list.queryKey() });
        toast({ title: signedOutWords(d.label), description: "Its terminals stopped acting as you." });
        // The row goes away: the focus goes to the section, not the page's top.
        props.onSignedOut();
      },
    }),
  );
  // Keep (or Escape) gives the focus back to Sign out, so a keyboard user stays in the row.
  const cancel = () => {
    setConfirming(false);
    revoke.reset();
    signOutButton.current?.focus();
  };
  const error = revoke.error
    ? hubErrorOf(revoke.error)?.code === "not_found"
      ? "This computer is signed out already. Reload to see your devices."
      : (hubErrorOf(revoke.error)?.message ?? "The hub did not answer. Try again.")
    : null;
  return (
    <li className="flex flex-col gap-2 px-3 py-2.5">
      <div className="flex items-center gap-3">
        <Laptop aria-hidden className="size-5 shrink-0 text-muted" />
        <div className="flex min-w-0 flex-1 flex-col gap-0.5">
          <span className="font-medium break-words">{name}</span>
          <span className="text-sm break-words">{deviceBays(d.bays)}</span>
          <span className="text-xs text-muted" title={new Date(d.created_at).toLocaleString()}>
            {deviceTimes(d, props.now)}
          </span>
        </div>
        <Button
          ref={signOutButton}
          variant="ghost"
          size="sm"
          aria-expanded={confirming}
          aria-label={`Sign out ${name}`}
          onClick={() => (confirming ? cancel() : setConfirming(true))}
        >
          Sign out
        </Button>
      </div>
      {confirming ? (
        <ConfirmInRow
          legend={`Confirm signing out ${name}`}
          question={<WithCode text={signOutQuestion(d.label)} />}
          error={error}
          confirm="Yes, sign out"
          pending={revoke.isPending}
          onConfirm={() => revoke.mutate({ device_id: d.id })}
          onCancel={cancel}
        />
      ) : null}
    </li>
  );
}
