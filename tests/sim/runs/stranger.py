"""Another process on the host trying to run code on a cluster (run by test_pool_security in a
subprocess): ``python -m tests.sim.runs.stranger SCHEDULER ADDR... [--credentials FILE]``.

Tries ``os.getpid`` through a Client of the scheduler and through the ``run`` handler of every
other address (the workers and their nannies, which run what they are sent), each way it can:
the address as given with no credentials, over tcp:// instead of tls://, with fresh temporary
credentials of its own (checking the server's certificate or not), with no certificate, and
(the control) with the credentials in FILE. Prints one JSON object:
attempt -> the pid it got, or the error."""

import asyncio
import json
import os
import ssl
import sys

from distributed import Client
from distributed.core import rpc
from distributed.protocol.pickle import dumps
from distributed.security import Security

#: each attempt's hang guard: idle the 30 attempts (controls that run code, strangers refused)
#: take ~1 s in all
TIMEOUT = 5


class Unchecking(Security):
    """Accepts any server's certificate, and shows its own only if it has one: what is left to
    stop it is the server's check of the client."""

    def get_connection_args(self, role):
        if self.tls_client_cert:
            ctx = super().get_connection_args(role)["ssl_context"]
        else:
            ctx = ssl.create_default_context()
        ctx.check_hostname = False
        ctx.verify_mode = ssl.CERT_NONE
        return {"ssl_context": ctx, "require_encryption": True, "extra_conn_args": {}}


def with_scheme(address: str, scheme: str) -> str:
    return scheme + "://" + address.split("://", 1)[1]


def submit(address: str, security) -> str:
    with Client(address, security=security, timeout=TIMEOUT) as client:
        return str(client.submit(os.getpid, pure=False).result(timeout=TIMEOUT))


def run_handler(address: str, security) -> str:
    args = security.get_connection_args("client") if security else {}

    async def go():
        async with rpc(address, connection_args=args, timeout=TIMEOUT) as server:
            reply = await server.run(function=dumps(os.getpid))
            return reply

    reply = asyncio.run(asyncio.wait_for(go(), 2 * TIMEOUT))
    if not isinstance(reply, dict) or reply.get("status") != "OK":
        raise RuntimeError(f"refused: {reply}")
    return str(reply["result"])


def attempt(what, address, security) -> str:
    try:
        return what(address, security)
    except BaseException as e:  # anything but a pid is a failure to run code
        return f"error: {type(e).__name__}: {' '.join(str(e).split())[:200]}"


if __name__ == "__main__":
    args = sys.argv[1:]
    credentials = None
    if "--credentials" in args:
        at = args.index("--credentials")
        with open(args[at + 1]) as f:
            credentials = Security(**json.load(f))
        del args[at:at + 2]
    scheduler, others = args[0], args[1:]
    stranger = Security.temporary()
    stranger_unchecking = Unchecking(**{k: getattr(stranger, k) for k in (
        "tls_ca_file", "tls_client_cert", "tls_client_key")})
    out = {}
    for name, address in [("scheduler", scheduler)] + [(f"server {a}", a) for a in others]:
        what = submit if name == "scheduler" else run_handler
        out[f"{name} as given"] = attempt(what, address, None)
        out[f"{name} over tcp"] = attempt(what, with_scheme(address, "tcp"), None)
        out[f"{name} with other credentials"] = attempt(what, address, stranger)
        out[f"{name} with other credentials, any server"] = attempt(what, address,
                                                                   stranger_unchecking)
        out[f"{name} with no certificate, any server"] = attempt(what, address, Unchecking())
        if credentials is not None:
            out[f"{name} with the run's credentials"] = attempt(what, address, credentials)
    print(json.dumps(out))
