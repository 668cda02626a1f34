/** Who is calling, narrowed by the api layer's middleware so services never null-check it. */
export type HumanCaller = { kind: "human"; id: string; handle: string; name: string };
export type AgentCaller = { kind: "agent"; id: string; handle: string; ownerId: string; instanceId: string | null };
export type Caller = HumanCaller | AgentCaller;
