import type { LiveEvent } from "@maity/domain";

/**
 * The page's one live feed, handed on to whatever shows what an event names (the open chat, the
 * lists): typed LiveEvents from the feed's subscription, listeners called in order of subscribing.
 */
export interface LiveBus {
  emit(event: LiveEvent): void;
  /** Calls `listener` for every event from now; returns the unsubscribe. */
  listen(listener: (event: LiveEvent) => void): () => void;
}

export function createLiveBus(): LiveBus {
  const listeners = new Set<(event: LiveEvent) => void>();
  return {
    emit(event) {
      for (const listener of [...listeners]) listener(event);
    },
    listen(listener) {
      listeners.add(listener);
      return () => {
        listeners.delete(listener);
      };
    },
  };
}
