"use client";
import { listPreview, listTitle, relativeTime } from "../wording/chatView";
import {
  Avatar,
  Badge,
  cn,
  DropdownMenu,
  DropdownMenuContent,
  DropdownMenuItem,
  DropdownMenuSeparator,
  DropdownMenuTrigger,
  focusRing,
  IconButton,
  useToast,
} from "@maity/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Check, Eye, Link2, Lock, MoreHorizontal, Pin, PinOff, SquareArrowOutUpRight, Users } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { memo, type Ref, useCallback, useState } from "react";
import { hubErrorOf, useTRPC } from "../trpc";
import type { ListRow } from "./types";

/**
 * One conversation in the list: avatar, title (§9.3: the agent's name, a group's title
 * or its participants), the preview as the hub cut it, a relative time (the full date on hover),
 * unread and mention badges (observers have none, §9.3), closed and reading-along marks; the pin
 * toggle on hover or focus, and a "…" menu. `row`, `item` and `title` name the parts for the e2e
 * specs; the look is all Tailwind.
 */
// Memoised: scrolling re-renders the list on every frame, and only rows whose item, place or
// state changed need to render again, so 5,000 conversations scroll smoothly.
export const ConversationRow = memo(function ConversationRow(props: {
  item: ListRow;
  current: boolean;
  readerId: string;
  now: Date;
  showProject: boolean;
  index: number;
  /** The row's offset in the list, px (virtualised). */
  start: number;
  measure: Ref<HTMLLIElement>;
}) {
  const { item, current } = props;
  const trpc = useTRPC();
  const router = useRouter();
  const { toast } = useToast();
  const queryClient = useQueryClient();
  const [error, setError] = useState<string | null>(null);
  const ref = { owner: item.owner, slug: item.slug, conversation_id: item.id };
  const done = useCallback(() => {
    setError(null);
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.mine.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.list.pathKey() });
    void queryClient.invalidateQueries({ queryKey: trpc.conversations.get.pathKey() });
  }, [queryClient, trpc]);
  const onPinError = (e: unknown) => {
    const hub = hubErrorOf(e);
    // §9.3: at most 20 pins; the 21st is refused, and the row says so in words.
    setError(
      hub?.details.fields?.pin === "too_many"
        ? "You can pin at most 20 conversations. Unpin one first."
        : (hub?.message ?? "Could not change the pin."),
    );
  };
  const pin = useMutation(trpc.conversations.pin.mutationOptions({ onSuccess: done, onError: onPinError }));
  const unpin = useMutation(trpc.conversations.unpin.mutationOptions({ onSuccess: done, onError: onPinError }));
  const markRead = useMutation(
    trpc.messages.markRead.mutationOptions({
      onSuccess: done,
      onError: (e) =>
        toast({
          title: "Could not mark as read",
          description: hubErrorOf(e)?.message ?? "The hub did not answer.",
          variant: "danger",
        }),
    }),
  );
  const togglePin = () => (item.pinned ? unpin.mutate(ref) : pin.mutate(ref));

  const title = listTitle(item);
  const observer = item.access === "observer";
  const preview = listPreview(item, props.readerId);
  const unread = observer ? 0 : (item.unread ?? 0);
  const mentioned = observer ? 0 : (item.mentions_unread ?? 0);
  const agent = item.kind === "direct" ? item.participants.find((p) => p.kind === "agent") : undefined;
  const when = item.last_message_at ?? (item.kind === "group" ? item.created_at : null);
  const copyLink = async () => {
    const url = new URL(item.href, window.location.origin).href;
    try {
      await navigator.clipboard.writeText(url);
      toast({ title: "Link copied", description: url });
    } catch {
      toast({ title: "Could not copy the link", description: url, variant: "danger" });
    }
  };
  // Shown on hover and keyboard focus; always on touch screens (no hover) and on a pinned row.
  const reveal = "opacity-0 group-hover:opacity-100 group-focus-within:opacity-100 [@media(hover:none)]:opacity-100";

  return (
    <li
      ref={props.measure}
      data-index={props.index}
      style={{ transform: `translateY(${props.start}px)` }}
      className="row group absolute top-0 left-0 w-full px-2 py-px"
    >
      <div
        className={cn(
          "grid grid-cols-[1fr_auto] items-center rounded-md",
          current ? "bg-accent-soft" : "hover:bg-surface-2",
        )}
      >
        <Link
          className={cn(
            "item flex min-w-0 gap-3 rounded-md p-2 no-underline",
            focusRing,
            "focus-visible:outline-offset-0",
          )}
          href={item.href}
          aria-current={current ? "page" : undefined}
        >
          {agent ? (
            <Avatar name={agent.name ?? agent.handle} kind="agent" decorative className="mt-0.5" />
          ) : (
            <span
              aria-hidden
              className="mt-0.5 inline-flex size-8 shrink-0 items-center justify-center rounded-full border border-line bg-surface-2 text-muted"
            >
              <Users className="size-4" />
            </span>
          )}
          <span className="flex min-w-0 flex-1 flex-col gap-0.5">
            <span className="flex min-w-0 items-baseline gap-1.5">
              <span className={cn("title min-w-0 truncate text-sm", unread > 0 ? "font-semibold" : "font-medium")}>
                {title}
              </span>
              {item.closed_at ? (
                <span className="inline-flex shrink-0 items-center gap-0.5 text-xs text-muted">
                  <Lock className="size-3" aria-hidden />
                  closed
                </span>
              ) : null}
              {observer ? (
                <span className="inline-flex shrink-0 items-center gap-0.5 text-xs text-muted">
                  <Eye className="size-3" aria-hidden />
                  reading along
                </span>
              ) : null}
              <span className="flex-1" />
              {when ? (
                <time dateTime={when} title={new Date(when).toLocaleString()} className="shrink-0 text-xs text-muted">
                  {relativeTime(when, props.now)}
                </time>
              ) : null}
            </span>
            <span className="flex min-w-0 items-center gap-2">
              <span
                className={cn(
                  "preview min-w-0 flex-1 truncate text-sm text-muted",
                  (preview.removed || preview.empty) && "italic",
                )}
              >
                {preview.author ? <span className="text-fg/80">{preview.author}: </span> : null}
                {preview.text}
              </span>
              {mentioned > 0 ? (
                <Badge variant="mention">
                  @{mentioned}
                  <span className="sr-only"> {mentioned === 1 ? "mention" : "mentions"}</span>
                </Badge>
              ) : null}
              {unread > 0 ? (
                <Badge variant="count">
                  {unread}
                  <span className="sr-only"> unread</span>
                </Badge>
              ) : null}
            </span>
            {props.showProject && item.project ? (
              <span className="truncate text-xs text-muted">{item.project.full_name}</span>
            ) : null}
          </span>
        </Link>
        <span className="flex flex-col items-center gap-0.5 pr-1">
          <IconButton
            size="icon-sm"
            className={cn("size-7", item.pinned ? "text-accent" : reveal)}
            aria-pressed={item.pinned}
            aria-label={item.pinned ? `Unpin ${title}` : `Pin ${title}`}
            onClick={togglePin}
            icon={<Pin aria-hidden className={item.pinned ? "fill-current" : undefined} />}
          />
          <DropdownMenu modal={false}>
            <DropdownMenuTrigger asChild>
              <IconButton
                size="icon-sm"
                className={cn("size-7 data-[state=open]:opacity-100", reveal)}
                aria-label={`More actions for ${title}`}
                icon={<MoreHorizontal aria-hidden />}
              />
            </DropdownMenuTrigger>
            <DropdownMenuContent align="end">
              <DropdownMenuItem onSelect={() => router.push(item.href)}>
                <SquareArrowOutUpRight aria-hidden />
                Open
              </DropdownMenuItem>
              <DropdownMenuItem onSelect={togglePin}>
                {item.pinned ? <PinOff aria-hidden /> : <Pin aria-hidden />}
                {item.pinned ? "Unpin" : "Pin"}
              </DropdownMenuItem>
              <DropdownMenuItem
                disabled={unread === 0 || !item.last_message}
                onSelect={() => item.last_message && markRead.mutate({ ...ref, seq: item.last_message.seq })}
              >
                <Check aria-hidden />
                Mark as read
              </DropdownMenuItem>
              <DropdownMenuSeparator />
              <DropdownMenuItem onSelect={() => void copyLink()}>
                <Link2 aria-hidden />
                Copy link
              </DropdownMenuItem>
            </DropdownMenuContent>
          </DropdownMenu>
        </span>
      </div>
      {error ? (
        <p role="alert" className="mx-2 my-1 text-sm text-danger-text">
          {error}
        </p>
      ) : null}
    </li>
  );
});
