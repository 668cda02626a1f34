import { type ApiServer, startApiServer } from "@maity/api/node";
import { seedDemo } from "@maity/hub";
import { handleMcp } from "../src/http.ts";
import { ADMIN, restClient, testHub } from "../../api/test/helpers.ts";

// A real hub on 127.0.0.1 for the MCP integration tests (as packages/api/test/agent-ws.int.test.ts
// starts one): the demo seed, and bay_ tokens minted by the operator.

export const PROJECT = "/api/projects/maintainer/maity";

export async function startHub() {
  const hub = await testHub({ limits: { agent: 10_000, updates: 10_000, ws: 10_000, preauth: 10_000 } });
  await seedDemo(hub);
  const rest = restClient(hub);
  const mint = async (member: string): Promise<string> =>
    (await rest("POST", "/api/admin/tokens", { token: ADMIN, body: { member_id: member } })).body.token;
  const revoke = async (token: string) => rest("POST", "/api/admin/tokens/revoke", { token: ADMIN, body: { token } });
  const tokens = { agent: await mint("agt-a"), human: await mint("hum-maintainer") };
  const api: ApiServer = await startApiServer(hub, { mcp: handleMcp });
  return {
    hub,
    api,
    rest,
    tokens,
    mint,
    revoke,
    close: async () => {
      await api.close();
      await hub.close();
    },
  };
}
export type TestHub = Awaited<ReturnType<typeof startHub>>;
