"use client";
import type { Message } from "@maity/domain";
import { Button, Switch, Textarea, useToast } from "@maity/ui";
import { useMutation, useQueryClient } from "@tanstack/react-query";
import { Paperclip, SendHorizontal } from "lucide-react";
import { type FormEvent, useEffect, useState } from "react";
import { hubErrorOf, useTRPC } from "../trpc";

export function Composer(props: {
  conversationRef: { owner: string; slug: string; conversation_id: string };
  closed: boolean;
  observer: boolean;
  archived: boolean;
  lead: boolean;
  human: boolean;
  onPosted: (m: Message) => void;
}) {
  const trpc = useTRPC();
  const queryClient = useQueryClient();
  const [body, setBody] = useState("");
  const post = useMutation(
    trpc.messages.post.mutationOptions({
      onSuccess: (m) => {
        setBody("");
        props.onPosted(m.message);
      },
    }),
  );
  // The switch shows the choice at once; the hub's answer (the view's meat_proxy_lead) follows.
  const [lead, setLead] = useState(props.lead);
  useEffect(() => setLead(props.lead), [props.lead]);
  const meat = useMutation(
    trpc.conversations.setMeatProxy.mutationOptions({
      onSuccess: () => void queryClient.invalidateQueries({ queryKey: trpc.conversations.get.pathKey() }),
      onError: () => setLead(props.lead),
    }),
  );
  const toast = useToast();
  const note = "flex items-start gap-2 border-t border-line bg-surface px-4 py-3 text-sm";
  if (props.closed)
    return (
      <p className={note} role="status">
        This chat is closed: its last human left. You can read it; former human participants can still remove messages.
        Start a new group chat to talk again.
      </p>
    );
  if (props.observer)
    return (
      <p className={note} role="status">
        You read along as the owner of an agent in this chat: you cannot post, manage it or remove messages.
      </p>
    );
  const switchOn = lead;
  const submit = (event?: FormEvent) => {
    event?.preventDefault();
    if (body.trim()) post.mutate({ ...props.conversationRef, body });
  };
  const error = hubErrorOf(post.error);
  return (
    <div className="border-t border-line bg-surface px-4 py-3">
      {props.archived ? (
        <p className="mb-2 rounded-md bg-warning-soft px-3 py-2 text-sm" role="status">
          This project is archived: you can still post, leave and remove messages; nobody new can be added.
        </p>
      ) : null}
      <form className="flex flex-col gap-2" onSubmit={submit} aria-label="Composer">
        <Textarea
          label="Message"
          hideLabel
          placeholder="Write a message… (Enter sends, Shift+Enter for a new line)"
          value={body}
          rows={2}
          onChange={(e) => setBody(e.target.value)}
          onKeyDown={(e) => {
            if (e.key === "Enter" && !e.shiftKey) {
              e.preventDefault();
              submit();
            }
          }}
          error={
            error ? (error.details.fields?.body ? `Message: ${error.details.fields.body}` : error.message) : undefined
          }
        />
        <div className="flex flex-wrap items-center gap-2">
          <Button
            variant="ghost"
            size="sm"
            // Honest until attachments exist: it says so rather than opening a picker that leads nowhere.
            onClick={() =>
              toast.toast({
                title: "Attachments are not available yet",
                description: "They come with a later version of the hub.",
              })
            }
          >
            <Paperclip aria-hidden />
            Attach
          </Button>
          {props.human ? (
            <Switch
              label="Meat proxy"
              aria-label="Meat proxy (lead)"
              checked={switchOn}
              onCheckedChange={(checked) => {
                setLead(checked);
                meat.mutate({ ...props.conversationRef, meat_proxy: checked });
              }}
            />
          ) : null}
          <Button
            type="submit"
            variant="primary"
            size="sm"
            className="ml-auto"
            disabled={post.isPending || !body.trim()}
          >
            <SendHorizontal aria-hidden />
            Send
          </Button>
        </div>
      </form>
    </div>
  );
}
