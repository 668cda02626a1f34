"use client";
import { Button, cn, Dialog, DialogContent, DialogTrigger, Skeleton } from "@maity/ui";
import { useQuery } from "@tanstack/react-query";
import { ArrowLeft, MessagesSquare, Plus } from "lucide-react";
import Link from "next/link";
import { useRouter } from "next/navigation";
import { useEffect, useState } from "react";
import { OpenChat } from "./chat/OpenChat";
import { ConversationList, useMyList } from "./list/ConversationList";
import { ListControls } from "./list/ListControls";
import type { Project } from "./list/types";
import { useOpenChat } from "./live";
import { NewGroup } from "./NewGroup";
import { ProjectBar } from "./ProjectBar";
import { useTRPC } from "./trpc";

export type { Open } from "./list/types";

/**
 * Keeps `ref` exactly as tall as the window below its top edge (the header may wrap on a phone, the
 * offline banner comes and goes), so the list and the chat scroll inside it, not the page.
 */
/**
 * The dashboard: the chat list beside the open chat (M-006), rendered once by the (chats) layout
 * so the list survives moving between chats; the open chat comes from the route. Below `md` the
 * two are screens of their own, so a phone shows one at a time: "/" the list, a chat route the
 * chat with "Back to chats".
 */
export function Dashboard() {
  const trpc = useTRPC();
  const router = useRouter();
  const open = useOpenChat();
  const me = useQuery(trpc.auth.me.queryOptions());
  useEffect(() => {
    if (me.isSuccess && !me.data) router.replace("/login");
  }, [me.isSuccess, me.data, router]);

  const [filter, setFilter] = useState<Project | null>(null);
  const [observed, setObserved] = useState(false);
  const [search, setSearch] = useState("");
  const [creating, setCreating] = useState(false);
  // A fast first screen: the list is asked for together with auth.me (one batched
  // request), not after it answers; the list below reads the same query from the cache.
  useMyList(observed, filter === null);

  if (me.isLoading) return <DashboardSkeleton />;
  if (me.isError) return <p className="m-6 text-danger-text">Could not reach the hub. Reload to try again.</p>;
  if (!me.data) return <p className="m-6 text-muted">Redirecting to sign in…</p>;
  return (
    <div className="flex min-h-0 flex-1 flex-col md:grid md:grid-cols-[minmax(280px,360px)_1fr] md:grid-rows-[minmax(0,1fr)]">
      <nav
        aria-label="Conversations"
        className={cn("min-h-0 flex-1 flex-col border-line bg-surface md:flex md:border-r", open ? "hidden" : "flex")}
      >
        <ListControls
          filter={filter}
          setFilter={setFilter}
          observed={observed}
          setObserved={setObserved}
          search={search}
          setSearch={setSearch}
          newGroup={
            <Dialog open={creating} onOpenChange={setCreating}>
              <DialogTrigger asChild>
                <Button variant="primary" size="sm">
                  <Plus aria-hidden />
                  New group chat
                </Button>
              </DialogTrigger>
              <DialogContent
                title="New group chat"
                description="A title and the people and agents to talk with; you are one of them."
              >
                <NewGroup defaultProject={filter ?? open} onClose={() => setCreating(false)} />
              </DialogContent>
            </Dialog>
          }
        />
        {/* DESIGN §4c: the project in view's People page, and New project. */}
        <ProjectBar project={filter ?? (open ? { owner: open.owner, slug: open.slug } : null)} />
        <ConversationList filter={filter} observed={observed} search={search} open={open} readerId={me.data.id} />
      </nav>
      <section
        aria-label="Open conversation"
        className={cn("min-h-0 min-w-0 flex-1 flex-col bg-bg md:flex", open ? "flex" : "hidden")}
      >
        {open ? (
          <>
            <div className="border-b border-line bg-surface px-2 py-1.5 md:hidden">
              <Button asChild variant="ghost" size="sm">
                <Link href="/">
                  <ArrowLeft aria-hidden />
                  Back to chats
                </Link>
              </Button>
            </div>
            <OpenChat key={`${open.owner}/${open.slug}/${open.id}`} {...open} me={me.data} />
          </>
        ) : (
          <div className="m-auto flex max-w-sm flex-col items-center gap-3 p-8 text-center text-muted">
            <MessagesSquare className="size-10" aria-hidden />
            <p>Pick a conversation on the left, or start a new group chat.</p>
            <p className="text-xs">Alt+↑ and Alt+↓ move between chats.</p>
          </div>
        )}
      </section>
    </div>
  );
}

function DashboardSkeleton() {
  return (
    <div aria-busy="true" className="grid flex-1 gap-4 p-4 md:grid-cols-[minmax(280px,360px)_1fr]">
      <span className="sr-only">Loading…</span>
      <div className="flex flex-col gap-3">
        {[0, 1, 2, 3, 4].map((i) => (
          <Skeleton key={i} className="h-14" />
        ))}
      </div>
      <Skeleton className="hidden h-64 md:block" />
    </div>
  );
}
