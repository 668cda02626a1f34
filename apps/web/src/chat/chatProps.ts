/** Which chat is open and who reads it: what the open chat hands every part of itself. */
export type ChatProps = { owner: string; slug: string; id: string; me: { id: string; kind: string; handle: string } };
