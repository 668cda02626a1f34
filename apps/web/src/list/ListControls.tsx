"use client";
import { Input, SegmentedControl, Select } from "@maity/ui";
import { useQuery } from "@tanstack/react-query";
import type { ReactNode } from "react";
import { useTRPC } from "../trpc";
import type { Project } from "./types";

/**
 * Above the list: the search box, which chats ("My chats" or with the ones read along,
 * §9.2 observed), and the project filter. Every control has a name a screen reader reads.
 */
export function ListControls(props: {
  filter: Project | null;
  setFilter: (p: Project | null) => void;
  observed: boolean;
  setObserved: (v: boolean) => void;
  search: string;
  setSearch: (v: string) => void;
  newGroup: ReactNode;
}) {
  const trpc = useTRPC();
  const projects = useQuery(trpc.projects.mine.queryOptions());
  const value = props.filter ? `${props.filter.owner}/${props.filter.slug}` : "";
  return (
    <div className="flex flex-col gap-2 border-b border-line p-3">
      <div className="flex items-center justify-between gap-2">
        <h2 className="text-sm font-semibold">Conversations</h2>
        {props.newGroup}
      </div>
      <Input
        type="search"
        label="Search conversations"
        hideLabel
        placeholder="Search by title or person"
        autoComplete="off"
        value={props.search}
        onChange={(e) => props.setSearch(e.target.value)}
        onKeyDown={(e) => {
          if (e.key === "Escape" && props.search) {
            e.preventDefault();
            props.setSearch("");
          }
        }}
        inputClassName="h-9"
      />
      <div className="flex flex-wrap items-center gap-2">
        <SegmentedControl
          aria-label="Which conversations"
          value={props.observed ? "observed" : "mine"}
          onValueChange={(v) => props.setObserved(v === "observed")}
          segments={[
            { value: "mine", label: "My chats" },
            // §9.2/§9.3 observed=true: the chats taken part in, and those read along as an agent's owner.
            { value: "observed", label: "Read along", "aria-label": "Read along" },
          ]}
        />
        <Select
          label="Project filter"
          hideLabel
          className="min-w-0 flex-1"
          value={value}
          onChange={(e) => {
            const [owner, slug] = e.target.value.split("/");
            props.setFilter(owner && slug ? { owner, slug } : null);
          }}
        >
          <option value="">All projects</option>
          {projects.data?.map((p) => (
            <option key={p.id} value={p.full_name}>
              {p.name} ({p.full_name}){p.archived ? " — archived" : ""}
            </option>
          ))}
        </Select>
      </div>
    </div>
  );
}
