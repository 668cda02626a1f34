"use client";
import { cva } from "class-variance-authority";
import { X } from "lucide-react";
import { Toast as ToastPrimitive } from "radix-ui";
import { createContext, type ReactNode, useCallback, useContext, useMemo, useState } from "react";
import { cn, focusRing } from "./cn";

export type ToastOptions = {
  title: ReactNode;
  description?: ReactNode;
  variant?: "default" | "danger";
  durationMs?: number;
};
type Shown = ToastOptions & { id: number; open: boolean };

const ToastContext = createContext<{ toast: (options: ToastOptions) => void } | null>(null);

const toastVariants = cva(
  "grid grid-cols-[1fr_auto] items-start gap-x-3 gap-y-1 rounded-lg border bg-surface p-4 text-fg shadow-lg",
  {
    variants: { variant: { default: "border-line", danger: "border-danger border-l-4" } },
    defaultVariants: { variant: "default" },
  },
);

/**
 * Holds the toasts of the page. Radix announces each one politely to screen readers, pauses it on
 * hover and focus, and F8 moves focus to the viewport; a failure toast stays longer (8 s).
 */
export function ToastProvider({ children }: { children: ReactNode }) {
  const [toasts, setToasts] = useState<Shown[]>([]);
  const toast = useCallback((options: ToastOptions) => {
    setToasts((current) => [...current.slice(-2), { ...options, id: Date.now() + Math.random(), open: true }]);
  }, []);
  const value = useMemo(() => ({ toast }), [toast]);
  const close = (id: number) => setToasts((current) => current.map((t) => (t.id === id ? { ...t, open: false } : t)));
  // Removed once Radix has finished closing it, so the exit is not cut short.
  const drop = (id: number) => setToasts((current) => current.filter((t) => t.id !== id));
  return (
    <ToastContext.Provider value={value}>
      <ToastPrimitive.Provider swipeDirection="right">
        {children}
        {toasts.map((t) => (
          <ToastPrimitive.Root
            key={t.id}
            open={t.open}
            duration={t.durationMs ?? (t.variant === "danger" ? 8_000 : 5_000)}
            type={t.variant === "danger" ? "foreground" : "background"}
            onOpenChange={(open) => {
              if (open) return;
              close(t.id);
              setTimeout(() => drop(t.id), 200);
            }}
            // An open toast is the topmost Radix layer and would take Esc from the dialog under it: unless
            // focus is in a toast, Esc closes the topmost open dialog and the toast stays.
            onEscapeKeyDown={(event) => {
              if (document.activeElement?.closest("[data-toast]")) return;
              const dialog = Array.from(document.querySelectorAll('[role="dialog"][data-state="open"]')).at(-1);
              if (!dialog) return;
              event.preventDefault();
              dialog.querySelector<HTMLElement>("[data-dialog-close]")?.click();
            }}
            data-toast=""
            className={toastVariants({ variant: t.variant })}
          >
            <ToastPrimitive.Title className="text-sm font-semibold">{t.title}</ToastPrimitive.Title>
            <ToastPrimitive.Close
              aria-label="Dismiss"
              className={cn("row-span-2 rounded-sm p-0.5 text-muted hover:text-fg", focusRing)}
            >
              <X className="size-4" aria-hidden />
            </ToastPrimitive.Close>
            {t.description ? (
              <ToastPrimitive.Description className="text-sm text-muted">{t.description}</ToastPrimitive.Description>
            ) : null}
          </ToastPrimitive.Root>
        ))}
        <ToastPrimitive.Viewport className="fixed right-0 bottom-0 z-[60] m-0 flex w-full max-w-sm list-none flex-col gap-2 p-4 outline-none" />
      </ToastPrimitive.Provider>
    </ToastContext.Provider>
  );
}

/** `toast({ title, description, variant })` from anywhere under ToastProvider. */
export function useToast() {
  const context = useContext(ToastContext);
  if (!context) throw new Error("useToast needs a <ToastProvider> above it");
  return context;
}
