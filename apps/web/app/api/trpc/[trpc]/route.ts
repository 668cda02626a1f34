import { getHub, handleTrpc } from "@maity/api";

export const dynamic = "force-dynamic";
const handler = async (req: Request) => handleTrpc(await getHub(), req);
export { handler as GET, handler as POST };
