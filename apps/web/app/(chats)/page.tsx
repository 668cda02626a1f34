// The list alone: the (chats) layout renders it, so one list stays mounted across chats.
export default function Home() {
  return null;
}
