"use client";
import { Button, Dialog, DialogContent, DialogTrigger } from "@maity/ui";
import { useQuery } from "@tanstack/react-query";
import { FolderPlus, Users } from "lucide-react";
import Link from "next/link";
import { useState } from "react";
import type { Project } from "./list/types";
import { NewProject } from "./NewProject";
import { useTRPC } from "./trpc";

/**
 * Under the list's controls (DESIGN §4c): the People page of the project in view (the filter's, or
 * the open chat's) and "New project" — where a person choosing among projects looks for both.
 */
export function ProjectBar({ project }: { project: Project | null }) {
  const trpc = useTRPC();
  const projects = useQuery(trpc.projects.mine.queryOptions());
  const [creating, setCreating] = useState(false);
  const named = project ? projects.data?.find((p) => p.owner === project.owner && p.slug === project.slug) : undefined;
  return (
    <div className="flex items-center gap-2 border-b border-line px-3 py-1.5">
      {project ? (
        <Button asChild variant="ghost" size="sm" className="min-w-0 justify-start px-2">
          <Link href={`/p/${project.owner}/${project.slug}/people`}>
            <Users aria-hidden />
            <span className="truncate">People of {named?.name ?? `${project.owner}/${project.slug}`}</span>
          </Link>
        </Button>
      ) : (
        <p className="min-w-0 px-1 text-xs text-muted">Pick a project to see its people.</p>
      )}
      <Dialog open={creating} onOpenChange={setCreating}>
        <DialogTrigger asChild>
          <Button variant="ghost" size="sm" className="ml-auto px-2">
            <FolderPlus aria-hidden />
            New project
          </Button>
        </DialogTrigger>
        <DialogContent
          title="New project"
          description="A project of your own: its chats, notes and people. You will be its admin."
        >
          <NewProject onClose={() => setCreating(false)} />
        </DialogContent>
      </Dialog>
    </div>
  );
}
