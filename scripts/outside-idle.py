# Idle cost measured from outside, on the shipped server: N agents hold /api/agent-api/ws and N hold
# GET /api/agent-api/updates?wait=25 (re-held as each answers) against `pnpm start` on PostgreSQL; the
# statements are counted by PostgreSQL itself (pg_stat_database: committed + rolled-back
# transactions of the app's database; a statement outside a transaction is one) over 60 s, after
# 35 s for everyone to connect. Needs Debian's python3-websockets and `su postgres` (psql).
#
#   createdb outside_idle; PORT=3417 DATABASE_URL=postgresql://…/outside_idle MAITY_ADMIN_TOKEN=t pnpm start &
#   BASE=http://127.0.0.1:3417 ADMIN=t DBNAME=outside_idle N=100 /usr/bin/python3 scripts/outside-idle.py
import asyncio, json, os, subprocess, sys, time, urllib.request
import websockets

BASE = os.environ["BASE"]; ADMIN = os.environ["ADMIN"]; DB = os.environ["DBNAME"]; N = int(os.environ.get("N", "100"))
def call(method, path, token, body=None):
    req = urllib.request.Request(BASE + path, method=method, data=None if body is None else json.dumps(body).encode(),
                                 headers={"authorization": f"Bearer {token}", "content-type": "application/json"})
    with urllib.request.urlopen(req, timeout=30) as r:
        t = r.read(); return json.loads(t) if t else None
def xacts():
    out = subprocess.check_output(["su", "postgres", "-c", f"psql -tAc \"SELECT xact_commit + xact_rollback FROM pg_stat_database WHERE datname = '{DB}'\""])
    return int(out.strip())

call("POST", "/api/admin/humans", ADMIN, {"handle": "owner", "name": "Owner", "password": "outside-password-1"})
tokens = []
for i in range(2 * N):
    a = call("POST", "/api/admin/agents", ADMIN, {"owner": "owner", "handle": f"idle-{i}", "description": "idle"})
    tokens.append(call("POST", "/api/admin/tokens", ADMIN, {"member_id": a["id"]})["token"])
print(f"{2*N} agents", flush=True)

connected = {"ws": 0, "updates": 0}

async def ws_agent(token, stop):
    url = BASE.replace("http", "ws") + "/api/agent-api/ws"
    async with websockets.connect(url, extra_headers={"authorization": f"Bearer {token}"}) as ws:
        await ws.send(json.dumps({"t": "hello"}))
        assert json.loads(await ws.recv())["t"] == "cursor"
        connected["ws"] += 1
        while not stop.is_set():
            try: await asyncio.wait_for(ws.recv(), 1)
            except asyncio.TimeoutError: pass

async def poll_agent(token, stop):
    loop = asyncio.get_running_loop()
    cursor = None
    while not stop.is_set():
        q = "?wait=25" + (f"&cursor={cursor}" if cursor else "")
        ans = await loop.run_in_executor(None, lambda: call("GET", "/api/agent-api/updates" + q, token))
        if cursor is None: connected["updates"] += 1
        cursor = ans["cursor"]

async def main():
    stop = asyncio.Event()
    tasks = [asyncio.create_task(ws_agent(t, stop)) for t in tokens[:N]]
    import concurrent.futures
    asyncio.get_running_loop().set_default_executor(concurrent.futures.ThreadPoolExecutor(max_workers=N + 8))
    tasks += [asyncio.create_task(poll_agent(t, stop)) for t in tokens[N:]]
    await asyncio.sleep(35)  # everyone connected, first /updates re-held at least once
    failed = [t for t in tasks if t.done() and t.exception()]
    if failed: raise failed[0].exception()
    a, t0 = xacts(), time.time()
    await asyncio.sleep(60)
    b, t1 = xacts(), time.time()
    print(f"idle: {connected['ws']} on /ws + {connected['updates']} on /updates (each re-held every 25 s): {b - a} transactions in {t1 - t0:.0f} s "
          f"= {(b - a) / (t1 - t0):.2f} statements/s (pg_stat_database, the app's database)", flush=True)
    stop.set()
    for t in tasks: t.cancel()
asyncio.run(main())
