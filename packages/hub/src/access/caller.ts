/** Who is calling, narrowed by the api layer's middleware so services never null-check it. */
export type HumanCaller = { kind: "human"; id: string; handle: string; name: string };
export type AgentCaller = {
  kind: "agent";
  id: string;
  handle: string;
  ownerId: string;
  instanceId: string | null;
  /** A terminal session of `ownerId` acting through a device credential (DESIGN §4e), and through which. */
  session?: { name: string; deviceId: string; bayId: string };
};
export type Caller = HumanCaller | AgentCaller;
/**
 * A person through a device credential (`bay_u_`, DESIGN §4e): it opens exactly one Bay (B-324) and
 * acts only as one of the person's named sessions (B-310), each an AgentCaller of its own.
 */
export type DeviceCaller = {
  kind: "device";
  /** The person's member id. */
  id: string;
  handle: string;
  name: string;
  deviceId: string;
  bay: { id: string; name: string };
};
