// The list alone: the (chats) layout renders it (issue 15, one list across chats).
export default function Home() {
  return null;
}
