import { getHub } from "@maity/api";
import { handleAgentApi } from "@maity/api/agent";
import { handleRest } from "@maity/api/rest";

export const dynamic = "force-dynamic";
// The agent protocol lives under /api/agent-api; every other path is a Maity route.
const handler = async (req: Request) => {
  const hub = await getHub();
  return new URL(req.url).pathname.startsWith("/api/agent-api/") ? handleAgentApi(hub, req) : handleRest(hub, req);
};
export { handler as DELETE, handler as GET, handler as PATCH, handler as POST, handler as PUT };
