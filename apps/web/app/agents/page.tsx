import { YourAgents } from "../../src/YourAgents";

export default function AgentsPage() {
  return <YourAgents />;
}
