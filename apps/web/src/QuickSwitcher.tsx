"use client";
import { Avatar, Badge, cn, Dialog, DialogContent, focusRing } from "@maity/ui";
import { useQuery } from "@tanstack/react-query";
import { Command, defaultFilter } from "cmdk";
import { Bot, MessagesSquare, Search, TextSearch } from "lucide-react";
import { useRouter } from "next/navigation";
import { useEffect, useRef, useState } from "react";
import { itemTitle } from "./format";
import { openSearch } from "./search/bus";
import { useTRPC } from "./trpc";

/** The entry that hands what was typed to message search (DESIGN §4d); always offered, always last. */
const SEARCH_MESSAGES = "search-messages";

const PAGES = [
  { href: "/", label: "Chats", icon: <MessagesSquare aria-hidden /> },
  { href: "/agents", label: "Your agents", icon: <Bot aria-hidden /> },
];

/** Ctrl+K on Windows and Linux, ⌘K on a Mac: what the trigger says matches what works. */
function useShortcutLabel(): string {
  const [label, setLabel] = useState("Ctrl K");
  useEffect(() => {
    if (/Mac|iPhone|iPad/.test(navigator.platform)) setLabel("⌘K");
  }, []);
  return label;
}

/**
 * The quick switcher, so every chat is reached from the keyboard: Ctrl/Cmd+K anywhere (or the
 * header's button) opens a dialog with a combobox over the caller's conversations
 * (conversations.mine, the first 200, in the list's order) and the pages; typing filters fuzzily by
 * title, participant and project, Enter opens, Esc closes (Radix Dialog), and focus returns where
 * it was. What is typed can also go to message search ("Search messages for …", DESIGN §4d).
 */
export function QuickSwitcher() {
  const trpc = useTRPC();
  const router = useRouter();
  const [open, setOpen] = useState(false);
  const shortcut = useShortcutLabel();
  const input = useRef<HTMLInputElement>(null);
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if ((e.ctrlKey || e.metaKey) && !e.altKey && !e.shiftKey && e.key.toLowerCase() === "k") {
        e.preventDefault();
        setOpen((o) => !o);
      }
    };
    window.addEventListener("keydown", onKey);
    return () => window.removeEventListener("keydown", onKey);
  }, []);
  const chats = useQuery({ ...trpc.conversations.mine.queryOptions({ limit: 200 }), enabled: open });
  const go = (href: string) => {
    setOpen(false);
    router.push(href);
  };
  // What is typed, so "Search messages for …" can carry it to the header's search.
  const [typed, setTyped] = useState("");
  useEffect(() => {
    if (open) setTyped("");
  }, [open]);
  const toSearch = useRef<string | null>(null);
  const searchMessages = () => {
    toSearch.current = typed.trim();
    setOpen(false);
  };
  return (
    <>
      <button
        type="button"
        onClick={() => setOpen(true)}
        aria-keyshortcuts="Control+K Meta+K"
        className={cn(
          "inline-flex h-8 items-center gap-2 rounded-md border border-line-strong bg-surface px-2.5 text-sm text-muted hover:text-fg sm:min-w-56",
          focusRing,
        )}
      >
        <Search className="size-4" aria-hidden />
        <span className="max-sm:sr-only">Search or jump to…</span>
        <kbd className="ml-auto rounded border border-line px-1.5 text-xs font-medium max-sm:hidden">{shortcut}</kbd>
      </button>
      <Dialog open={open} onOpenChange={setOpen}>
        <DialogContent
          title="Search or jump to"
          description={null}
          className="top-[15%] max-w-xl translate-y-0 gap-2 p-3"
          // The combobox takes focus, not the dialog's Close button that comes first.
          onOpenAutoFocus={(e) => {
            e.preventDefault();
            input.current?.focus();
          }}
          // Off to message search: focus goes to its field, not back to the trigger.
          onCloseAutoFocus={(e) => {
            const q = toSearch.current;
            if (q === null) return;
            toSearch.current = null;
            e.preventDefault();
            openSearch({ q });
          }}
        >
          <Command
            label="Search or jump to"
            // Match the words a reader sees (title, names, project), not the ids that make values unique.
            // "Search messages for …" matches whatever is typed, below every chat and page that matches.
            filter={(value, search, keywords) =>
              value === SEARCH_MESSAGES ? 1e-6 : defaultFilter((keywords ?? []).join(" "), search)
            }
            className="flex flex-col gap-2"
          >
            <Command.Input
              ref={input}
              value={typed}
              onValueChange={setTyped}
              placeholder="Type a chat's title, a person or a page"
              className={cn(
                "h-10 w-full rounded-md border border-line-strong bg-surface px-3 text-sm text-fg placeholder:text-muted",
                focusRing,
              )}
            />
            <Command.List label="Chats and pages" className="max-h-[min(60dvh,24rem)] overflow-y-auto">
              <Command.Empty className="px-3 py-6 text-center text-sm text-muted">Nothing matches.</Command.Empty>
              {chats.isLoading ? (
                <Command.Loading>
                  <p className="px-3 py-2 text-sm text-muted">Loading your chats…</p>
                </Command.Loading>
              ) : null}
              {chats.isError ? (
                <p role="alert" className="px-3 py-2 text-sm text-danger-text">
                  Could not load your chats. Close and try again.
                </p>
              ) : null}
              <Command.Group heading="Chats" className={groupClass}>
                {chats.data?.items.map((item) => {
                  const title = itemTitle(item);
                  const key = `${item.project.full_name}/${item.id}`;
                  const agent = item.kind === "direct";
                  return (
                    <Command.Item
                      key={key}
                      value={key}
                      keywords={[
                        title,
                        item.project.full_name,
                        ...item.participants.flatMap((p) => [p.handle, p.name ?? ""]),
                      ]}
                      onSelect={() => go(`/p/${item.project.owner}/${item.project.slug}/c/${item.id}`)}
                      className={itemClass}
                    >
                      <Avatar name={title} kind={agent ? "agent" : "human"} size="sm" decorative />
                      <span className="flex min-w-0 flex-1 flex-col">
                        <span className="truncate font-medium">{title}</span>
                        <span className="truncate text-xs text-muted">{item.project.full_name}</span>
                      </span>
                      {item.mentions_unread ? <Badge variant="mention">{item.mentions_unread} @</Badge> : null}
                      {item.unread ? <Badge variant="count">{item.unread} unread</Badge> : null}
                    </Command.Item>
                  );
                })}
              </Command.Group>
              <Command.Group heading="Pages" className={groupClass}>
                {PAGES.map((p) => (
                  <Command.Item
                    key={p.href}
                    value={`page:${p.href}`}
                    keywords={[p.label, "page"]}
                    onSelect={() => go(p.href)}
                    className={itemClass}
                  >
                    <span className="grid size-6 place-items-center text-muted [&_svg]:size-4">{p.icon}</span>
                    <span className="flex-1 font-medium">{p.label}</span>
                  </Command.Item>
                ))}
              </Command.Group>
              {typed.trim() ? (
                <Command.Group heading="Messages" className={groupClass}>
                  <Command.Item value={SEARCH_MESSAGES} onSelect={searchMessages} className={itemClass}>
                    <span className="grid size-6 place-items-center text-muted [&_svg]:size-4">
                      <TextSearch aria-hidden />
                    </span>
                    <span className="min-w-0 flex-1 truncate font-medium">Search messages for “{typed.trim()}”</span>
                  </Command.Item>
                </Command.Group>
              ) : null}
            </Command.List>
          </Command>
          <p className="px-1 text-xs text-muted">↑ ↓ to move, Enter to open, Esc to close.</p>
        </DialogContent>
      </Dialog>
    </>
  );
}

const groupClass =
  "[&_[cmdk-group-heading]]:px-2 [&_[cmdk-group-heading]]:pt-2 [&_[cmdk-group-heading]]:pb-1 [&_[cmdk-group-heading]]:text-xs [&_[cmdk-group-heading]]:font-semibold [&_[cmdk-group-heading]]:text-muted";
const itemClass =
  "flex cursor-pointer items-center gap-2 rounded-md px-2 py-1.5 text-sm data-[selected=true]:bg-accent-soft data-[selected=true]:text-fg";
