import { getHub } from "@maity/api";
import { handleRest } from "@maity/api/rest";

export const dynamic = "force-dynamic";
const handler = async (req: Request) => handleRest(await getHub(), req);
export { handler as DELETE, handler as GET, handler as PATCH, handler as POST, handler as PUT };
