"use client";
import type { AppRouter } from "@maity/api";
import { QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { createTRPCClient, httpBatchLink, httpSubscriptionLink, splitLink } from "@trpc/client";
import { createTRPCContext } from "@trpc/tanstack-react-query";
import { ThemeProvider, ToastProvider, TooltipProvider } from "@maity/ui";
import { type ReactNode, useState } from "react";

export const { TRPCProvider, useTRPC, useTRPCClient } = createTRPCContext<AppRouter>();

export function Providers({ children }: { children: ReactNode }) {
  const [queryClient] = useState(
    () => new QueryClient({ defaultOptions: { queries: { staleTime: 2_000, retry: false } } }),
  );
  // Subscriptions over SSE (the live feed resumes with lastEventId); everything else batched.
  const [trpcClient] = useState(() =>
    createTRPCClient<AppRouter>({
      links: [
        splitLink({
          condition: (op) => op.type === "subscription",
          true: httpSubscriptionLink({ url: "/api/trpc" }),
          false: httpBatchLink({ url: "/api/trpc" }),
        }),
      ],
    }),
  );
  return (
    <QueryClientProvider client={queryClient}>
      <TRPCProvider trpcClient={trpcClient} queryClient={queryClient}>
        <ThemeProvider>
          <TooltipProvider>
            <ToastProvider>{children}</ToastProvider>
          </TooltipProvider>
        </ThemeProvider>
      </TRPCProvider>
    </QueryClientProvider>
  );
}

/** The hub's error message (DESIGN.md §4) from a tRPC error, for showing at the field. */
export function hubErrorOf(
  error: unknown,
): { code: string; message: string; details: { fields?: Record<string, string>; reason?: string } } | null {
  const data = (error as { data?: { hubError?: unknown } } | null)?.data;
  return (data?.hubError as never) ?? null;
}
