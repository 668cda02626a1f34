# Two app instances on one PostgreSQL, measured from outside on the shipped server (`pnpm start`
# twice on one DATABASE_URL): login failures are counted once for both (10 per handle, the 11th
# refused on either), and a token revoked through one instance closes a /ws held on the other
# (close 4001), timed here. Needs Debian's python3-websockets.
#
#   createdb outside_two
#   PORT=3418 DATABASE_URL=postgresql://…/outside_two MAITY_ADMIN_TOKEN=t pnpm start &
#   PORT=3419 DATABASE_URL=postgresql://…/outside_two MAITY_ADMIN_TOKEN=t pnpm start &
#   A=http://127.0.0.1:3418 B=http://127.0.0.1:3419 ADMIN=t /usr/bin/python3 scripts/outside-two-instances.py
import asyncio, json, os, time, urllib.error, urllib.request
import websockets

A, B, ADMIN = os.environ["A"], os.environ["B"], os.environ["ADMIN"]

def call(base, method, path, token=None, body=None, headers=None):
    h = {"content-type": "application/json", **(headers or {})}
    if token: h["authorization"] = f"Bearer {token}"
    req = urllib.request.Request(base + path, method=method, data=None if body is None else json.dumps(body).encode(), headers=h)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            t = r.read(); return r.status, (json.loads(t) if t else None)
    except urllib.error.HTTPError as e:
        t = e.read(); return e.code, (json.loads(t) if t else None)

def login(base, password):
    return call(base, "POST", "/api/trpc/auth.login", body={"handle": "target", "password": password}, headers={"origin": base})[0]

call(A, "POST", "/api/admin/humans", ADMIN, {"handle": "target", "name": "Target", "password": "the-right-password"})
failures = [login(A if i % 2 == 0 else B, "a-wrong-password") for i in range(10)]
print("10 wrong passwords, alternating A and B:", failures, flush=True)
eleventh = {"A": login(A, "the-right-password"), "B": login(B, "the-right-password")}
print("the 11th attempt, with the right password:", eleventh, flush=True)
ok_logins = failures == [401] * 10 and eleventh == {"A": 429, "B": 429}

agent = call(A, "POST", "/api/admin/agents", ADMIN, {"owner": "target", "handle": "watcher", "description": "holds a socket"})[1]
token = call(A, "POST", "/api/admin/tokens", ADMIN, {"member_id": agent["id"]})[1]["token"]

async def revoke_across():
    closes = []
    for _ in range(5):
        async with websockets.connect(B.replace("http", "ws") + "/api/agent-api/ws",
                                      extra_headers={"authorization": f"Bearer {token}"}) as ws:
            await ws.send(json.dumps({"t": "hello"}))
            first = json.loads(await ws.recv())
            assert first["t"] == "cursor", first
            t0 = time.perf_counter()
            loop = asyncio.get_running_loop()
            await loop.run_in_executor(None, lambda: call(A, "POST", "/api/admin/tokens/revoke", ADMIN, {"token": token}))
            try:
                while True: await asyncio.wait_for(ws.recv(), 5)
            except websockets.ConnectionClosed as e:
                closes.append((e.rcvd.code if e.rcvd else None, round((time.perf_counter() - t0) * 1000, 1)))
            except asyncio.TimeoutError:
                closes.append((None, None))
        return closes  # the token is revoked now: one measurement per token

results = []
for i in range(5):
    agent_i = call(A, "POST", "/api/admin/agents", ADMIN, {"owner": "target", "handle": f"watcher-{i}", "description": "socket"})[1]
    token = call(A, "POST", "/api/admin/tokens", ADMIN, {"member_id": agent_i["id"]})[1]["token"]
    results += asyncio.run(revoke_across())
print("revoked through A, /ws held on B closed with (code, ms after the revoke was sent):", results, flush=True)
ok_revoke = all(code == 4001 and ms is not None and ms < 1000 for code, ms in results)
print("PASS" if ok_logins and ok_revoke else "FAIL")
