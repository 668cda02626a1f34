import {
  extractiveSummary,
  parseModelSummary,
  type SummaryCore,
  type SummaryMessage,
  summaryPrompt,
} from "@maity/domain";
import OpenAI from "openai";

// What writes a chat's summary (DESIGN §4b "Summary"): the built-in extractive generator (offline,
// deterministic: @maity/domain's rules), or any OpenAI-compatible chat-completions endpoint the
// operator names (MAITY_SUMMARY_URL: Ollama, vLLM, llama.cpp, a hosted API). Either answers the same
// record; the store (summary.ts) checks every citation whichever wrote it.

export interface SummaryGenerator {
  /** Shown on the record: "extractive", or "model:<name>". */
  name: string;
  /** Messages handed in one call: a model's prompt stays small, the rules take more at once. */
  chunk: number;
  generate(previous: SummaryCore | null, messages: SummaryMessage[], signal: AbortSignal): Promise<SummaryCore>;
}

export const extractiveGenerator: SummaryGenerator = {
  name: "extractive",
  chunk: 500,
  generate: async (previous, messages) => extractiveSummary(previous, messages),
};

export interface ModelSettings {
  /** The endpoint's base URL, as the openai client takes it (`http://127.0.0.1:11434/v1`). */
  url: string;
  model: string;
  key?: string | undefined;
  /** One call's limit (default 20 s); a failure is tried once more, then the summary waits. */
  timeoutMs?: number | undefined;
}

export const DEFAULT_SUMMARY_TIMEOUT_MS = 20_000;

/** A model behind an OpenAI-compatible endpoint, asked for JSON of exactly the record's fields. */
export function modelGenerator(settings: ModelSettings): SummaryGenerator {
  const client = new OpenAI({
    baseURL: settings.url,
    apiKey: settings.key ?? "none",
    timeout: settings.timeoutMs ?? DEFAULT_SUMMARY_TIMEOUT_MS,
    maxRetries: 1,
  });
  return {
    name: `model:${settings.model}`,
    chunk: 150,
    async generate(previous, messages, signal) {
      const answer = await client.chat.completions.create(
        {
          model: settings.model,
          messages: summaryPrompt(previous, messages),
          response_format: { type: "json_object" },
          temperature: 0,
        },
        { signal },
      );
      const core = parseModelSummary(answer.choices[0]?.message?.content ?? "");
      if (!core) throw new Error("the model did not answer a summary record (JSON with a narrative)");
      return core;
    },
  };
}
