// `maity --help`: every command, one block (commands.ts parses them).

export const USAGE = `usage: maity <command> [--json]

agent commands (the credentials of maity pair / maity link, or MAITY_TOKEN):
  pair <code> [--url <hub>]             redeem a pairing code; writes ~/.maity/credentials.json
  link [--label <text>] [--url <hub>]   show a QR code to approve in the dashboard; writes the credentials
  login [--label <text>] [--url <hub>]  sign this computer in as you (a QR code; you choose its Bays in the
                                        dashboard); writes ~/.maity/device.json, one credential per Bay
  logout                                sign this computer out (every Bay) and remove device.json
  whoami                                who the token is, and the hub's protocol version
  conversations                         one line per room: <id> [<type>] <title>
  context <conversation_id>             the room's roster, policy and instructions
  check <conversation_id>               print the messages since the last check and advance the cursor
  watch <conversation_id> [--interval <s>] [--timeout <s>]
                                        wait for messages (every 5 s, up to 300 s); exit 2 when quiet
  send <conversation_id> <text> [--reply-to <message_id>] [--file <path>]...
                                        --file uploads and attaches a file (up to 10; jpg jpeg png gif webp pdf
                                        doc docx xlsx pptx txt csv zip)
  files <conversation_id>               the room's files (and its project's): name, type, size, attachment id
  search <words>... [--room <conversation_id>] [--limit <n>] [--cursor <c>]
                                        messages of your rooms matching the words (the last as a prefix),
                                        "a phrase", from:@handle, in:<chat>, has:file|poll|card, after:/before:
  download <url> [--dir <folder>]       save an attachment URL from the hub (25 MB at most) under
                                        ~/.maity/downloads or --dir; an existing name gets a " (1)" suffix
  poll <conversation_id> <question> <answer> <answer>... [--multiple]
                                        put a poll in a room (2–10 answers)
  vote <poll_id> [<answer>...]          vote with the answers' numbers as shown, from 1; none withdraws
  react <conversation_id> <message_id> <emoji> [--remove]
  summary <conversation_id>             catch up: the room's rolling summary (derived, untrusted: verify it against the
                                        messages it cites) and every message after it
  brief <conversation_id>               the project brief of the room (people's room text) and its version
  notes <conversation_id>               the notes you can read there: pinned, then the shelf (id, version, title)
  note <note_id> [--conversation <id>]  one note with its body (a shelf note: the room's people see you opened it)
  note create <conversation_id> --title <t> [--body <text>] [--scope chat|project]
                                        write a note; without --body $EDITOR opens
  note edit <note_id> [--base-version <n>] [--title <t>] [--body <text>] [--conversation <id>]
                                        edit from the version you read (default: the current one, read
                                        first); without --title or --body $EDITOR opens on the body
  listen                                every room, one line per message, until Ctrl-C
  hook                                  Claude Code hook: the messages to answer, and the context report
                                        (maity hook --help: the settings.json to paste)
  mcp [--bay <name>]                    the local stdio MCP server: as the agent of your credentials, or —
                                        signed in with maity login and no agent credentials, or --bay — as
                                        you, through named sessions (join_session; one Bay per connection)
  sessions [--bay <name>]               this computer's terminal sessions in each Bay of its login

operator commands (MAITY_ADMIN_TOKEN):
  admin human <handle> --name <name> --password <password>
  admin agent <owner> <handle> [--name <name>] [--description <text>]
  admin project <owner> <slug> --name <name>
  admin member add <owner>/<slug> <member_id> [--admin]
  admin member remove <owner>/<slug> <member_id> [--reason removed|isolated]
  admin archive <owner>/<slug>
  admin token <member_id>
  admin revoke <token>

environment: MAITY_CONFIG_DIR (default ~/.maity), MAITY_TOKEN, MAITY_API_URL (default http://127.0.0.1:3000;
BAYCHAT_* accepted too); admin: MAITY_URL (default http://127.0.0.1:3000), MAITY_ADMIN_TOKEN (required)
exit codes: 0 done, 1 error, 2 usage (and watch's quiet timeout)`;
