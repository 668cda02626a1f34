"use client";
import { Button, Textarea, useToast } from "@maity/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { hubErrorOf, useTRPC } from "./trpc";
import { houseFieldWords } from "./wording/house";

/** Change what one's agent is for (DESIGN §4c, PATCH /api/agents/{id}), in place on Your agents. */
export function AgentDescription(props: { agentId: string; name: string; description: string; onDone: () => void }) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const { toast } = useToast();
  const [text, setText] = useState(props.description);
  const save = useMutation(
    trpc.agents.update.mutationOptions({
      onSuccess: () => {
        void queryClient.invalidateQueries({ queryKey: trpc.agents.mine.queryKey() });
        toast({ title: `Saved what ${props.name} is for` });
        props.onDone();
      },
    }),
  );
  const hub = hubErrorOf(save.error);
  const code = hub?.details.fields?.description;
  return (
    <form
      aria-label={`What ${props.name} is for`}
      className="flex flex-col gap-2"
      onSubmit={(e) => {
        e.preventDefault();
        if (!save.isPending) save.mutate({ agent_id: props.agentId, description: text.trim() });
      }}
      onKeyDown={(e) => {
        if (e.key === "Escape") props.onDone();
      }}
    >
      <Textarea
        label="What it is for"
        value={text}
        maxLength={2000}
        rows={3}
        autoFocus
        onChange={(e) => setText(e.target.value)}
        error={code ? houseFieldWords("description", code) : hub ? hub.message : save.error ? "Try again." : null}
      />
      <div className="flex flex-wrap gap-2">
        <Button type="submit" size="sm" variant="primary">
          {save.isPending ? "Saving…" : "Save"}
        </Button>
        <Button size="sm" variant="ghost" onClick={props.onDone}>
          Cancel
        </Button>
      </div>
    </form>
  );
}
