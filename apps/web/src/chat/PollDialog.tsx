"use client";
import { type Message, POLL_OPTIONS_MAX, POLL_OPTIONS_MIN } from "@maity/domain";
import { pollOptionsProblem } from "../wording/mediaView";
import {
  Button,
  Checkbox,
  Dialog,
  DialogContent,
  DialogFooter,
  DialogTrigger,
  IconButton,
  Input,
  useToast,
} from "@maity/ui";
import { BarChart3, Plus, X } from "lucide-react";
import { type FormEvent, useState } from "react";
import { hubErrorOf, useTRPCClient } from "../trpc";
import { type ChatRef, createPoll } from "./mediaApi";

/**
 * "Create poll" (v1.12): a question, 2–10 answers (rows added and removed; no two the same — said
 * at the field before the hub is asked), allow multiple. The hub's refusal shows in words.
 */
export function PollDialog(props: { conversationRef: ChatRef; disabled: boolean; onCreated: (m: Message) => void }) {
  const client = useTRPCClient();
  const toast = useToast();
  const [open, setOpen] = useState(false);
  const [question, setQuestion] = useState("");
  const [options, setOptions] = useState(["", ""]);
  const [multiple, setMultiple] = useState(false);
  const [tried, setTried] = useState(false);
  const [busy, setBusy] = useState(false);
  const [hubError, setHubError] = useState<{ message: string; fields: Record<string, string> } | null>(null);
  const reset = () => {
    setQuestion("");
    setOptions(["", ""]);
    setMultiple(false);
    setTried(false);
    setHubError(null);
  };
  const problem = pollOptionsProblem(options);
  const questionProblem = question.trim() ? null : "Question: say what you are asking.";
  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setTried(true);
    if (problem || questionProblem) return;
    setBusy(true);
    setHubError(null);
    try {
      const m = await createPoll(client, props.conversationRef, {
        question: question.trim(),
        options: options.map((o) => o.trim()),
        allow_multiple: multiple,
      });
      props.onCreated(m);
      setOpen(false);
      reset();
    } catch (err) {
      const h = hubErrorOf(err);
      setHubError({ message: h?.message ?? "The hub did not answer.", fields: h?.details.fields ?? {} });
      toast.toast({ title: "Could not create the poll", description: h?.message, variant: "danger" });
    } finally {
      setBusy(false);
    }
  };
  return (
    <Dialog
      open={open}
      onOpenChange={(o) => {
        setOpen(o);
        if (!o) reset();
      }}
    >
      <DialogTrigger asChild>
        <Button variant="ghost" size="sm" disabled={props.disabled}>
          <BarChart3 aria-hidden />
          Create poll
        </Button>
      </DialogTrigger>
      <DialogContent title="Create a poll" description="Everyone in the chat can vote; you can close it later.">
        <form className="flex flex-col gap-3" onSubmit={(e) => void submit(e)} aria-label="Create a poll">
          <Input
            label="Question"
            value={question}
            maxLength={300}
            onChange={(e) => setQuestion(e.target.value)}
            error={(tried && questionProblem) || hubError?.fields.question || undefined}
          />
          <fieldset className="flex flex-col gap-2 border-0 p-0">
            <legend className="mb-1 text-sm font-medium">
              Answers ({POLL_OPTIONS_MIN}–{POLL_OPTIONS_MAX})
            </legend>
            {options.map((o, i) => (
              // biome-ignore lint/suspicious/noArrayIndexKey: rows are positions; the text is their state
              <div key={i} className="flex items-end gap-2">
                <Input
                  label={`Answer ${i + 1}`}
                  value={o}
                  maxLength={200}
                  className="flex-1"
                  onChange={(e) => setOptions((os) => os.map((x, j) => (j === i ? e.target.value : x)))}
                />
                <IconButton
                  aria-label={`Remove answer ${i + 1}`}
                  size="icon-sm"
                  icon={<X aria-hidden />}
                  disabled={options.length <= POLL_OPTIONS_MIN}
                  onClick={() => setOptions((os) => os.filter((_, j) => j !== i))}
                />
              </div>
            ))}
            <Button
              size="sm"
              variant="ghost"
              className="self-start"
              disabled={options.length >= POLL_OPTIONS_MAX}
              onClick={() => setOptions((os) => [...os, ""])}
            >
              <Plus aria-hidden />
              Add an answer
            </Button>
            {(tried || options.every((o) => o.trim())) && problem ? (
              <p role="alert" className="text-sm text-danger-text">
                Answers: {problem}
              </p>
            ) : null}
            {hubError?.fields.options ? (
              <p role="alert" className="text-sm text-danger-text">
                Answers: {hubError.fields.options}
              </p>
            ) : null}
          </fieldset>
          <Checkbox
            label="Allow choosing more than one answer"
            checked={multiple}
            onCheckedChange={(c) => setMultiple(c === true)}
          />
          {hubError && !Object.keys(hubError.fields).length ? (
            <p role="alert" className="text-sm text-danger-text">
              {hubError.message}
            </p>
          ) : null}
          <DialogFooter>
            <Button type="submit" variant="primary" disabled={busy}>
              {busy ? "Creating…" : "Create poll"}
            </Button>
          </DialogFooter>
        </form>
      </DialogContent>
    </Dialog>
  );
}
