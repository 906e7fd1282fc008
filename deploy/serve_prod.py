"""Serve as production does, on one machine: N server processes behind Debian's nginx.

    python deploy/serve_prod.py --processes 2 --listen 127.0.0.1:8080      (make serve-prod)
    python deploy/serve_prod.py --nginx-site --processes 4 > /etc/nginx/sites-available/daihinmin
    python deploy/serve_prod.py --nginx-stream --processes 4 > /etc/nginx/streams-enabled/daihinmin.conf

It migrates, collects the static files, starts ``python -m daihinmin.serve
--proxy-headers`` on ports ``--first-port`` … with production settings
(``DJANGO_ENV=production``, ``DEBUG`` off), and nginx in the foreground with
``deploy/nginx/daihinmin.conf`` in a main configuration of its own (its pid,
logs and temporary files under ``--run-dir``), so no root and no system nginx
configuration are needed. A server process that exits is started again, as
systemd's ``Restart=always`` does in production; everything stops on SIGTERM or
SIGINT, or when nginx exits.

The 2011 event stream (``LEGACY_WS_PORT``, ``places/realtime/legacy.py``) goes through
nginx's ``stream`` module (Debian: ``libnginx-mod-stream``): nginx listens on
``--legacy-listen`` (the ``--listen`` host and ``LEGACY_WS_PORT``, 8081 by default) and
passes each connection, with a PROXY protocol line naming the client, to one process's
own 2011 port (``--first-legacy-port`` …, by default each process's port +
``LEGACY_PORT_OFFSET`` as ``deploy/systemd/daihinmin@.service`` derives it;
``deploy/nginx/daihinmin-legacy.conf``). ``LEGACY_WS_PORT=0`` opens none. nginx takes a
``stream {}`` block only at the top level of its configuration, outside ``http {}``: for
the system's nginx, ``--nginx-site`` prints the site (``sites-available/``, inside
``http {}``) and ``--nginx-stream`` the stream block, for a file of its own included at
the top level (docs/production.md, step 5).

The UECda port (``UECDA_PORT``, 42485; ``places/uecda/shared.py``) is the first
process's alone, on ``--uecda-listen`` (the ``--listen`` host and ``UECDA_PORT``): it
listens there itself, not behind nginx. A match's clients and its house seats
must meet in one process, and they play by many small round trips, which a proxy
would lengthen; the others have ``UECDA_PORT=0``. ``UECDA_PORT=0`` opens none.

More than one process needs ``REDIS_URL`` (the in-memory channel layer reaches
only its own process) and, in earnest, PostgreSQL (``DATABASE_URL``). On a real
machine, systemd runs the processes instead (``deploy/systemd/daihinmin@.service``)
and the system's nginx the site: docs/operations.md, "Production".
"""

from __future__ import annotations

import argparse
import os
import secrets
import shutil
import signal
import ssl
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from string import Template

ROOT = Path(__file__).resolve().parents[1]
SITE = ROOT / "deploy" / "nginx" / "daihinmin.conf"
LEGACY_SITE = ROOT / "deploy" / "nginx" / "daihinmin-legacy.conf"
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
CHECK_SECONDS = 3  # how long each prerequisite may take to answer before it counts as missing
#: A process's own 2011 port is its HTTP port + this (9001 beside 8001): the default of
#: ``--first-legacy-port``, and what ``deploy/systemd/daihinmin@.service`` adds to its instance.
LEGACY_PORT_OFFSET = 1000
#: Where certbot's webroot plugin writes its http-01 challenges (Debian's default site's root).
ACME_ROOT = Path("/var/www/html")
#: Debian's nginx access log, where an installed site writes (``--nginx-site``).
ACCESS_LOG = Path("/var/log/nginx/access.log")

MAIN = """\
# made by deploy/serve_prod.py: nginx in the foreground, everything under one folder
$load_stream
worker_processes 1;
worker_rlimit_nofile 16384;
pid $run/nginx.pid;
error_log $run/error.log warn;
$user
events { worker_connections 8192; }
http {
    include /etc/nginx/mime.types;
    default_type application/octet-stream;
    client_body_temp_path $run/body;
    proxy_temp_path $run/proxy;
    fastcgi_temp_path $run/fastcgi;
    uwsgi_temp_path $run/uwsgi;
    scgi_temp_path $run/scgi;
    include $run/site.conf;
    access_log $run/access.log daihinmin;  # the site's format: no password, no token
}
$stream
"""
#: Where Debian's libnginx-mod-stream puts the module (nginx -V: --with-stream=dynamic).
STREAM_MODULE = Path("/usr/lib/nginx/modules/ngx_stream_module.so")


TLS = """\
    ssl_certificate $certificate;
    ssl_certificate_key $key;
    ssl_protocols TLSv1.2 TLSv1.3;
    ssl_session_cache shared:daihinmin_tls:10m;
    add_header Strict-Transport-Security "max-age=31536000" always;
"""
# With TLS, plain HTTP only sends browsers and bots to https:// (a bot must then use wss://),
# except the certificate authority's http-01 challenges, which renew the certificate.
TO_HTTPS = """
server {
    listen $port;
    server_name _;
    access_log $access_log daihinmin;
    location /.well-known/acme-challenge/ {
        root $acme_root;
    }
    location / {
        return 301 https://$$host$$request_uri;
    }
}
"""


def nginx_site(
    ports: list[int],
    listen: str,
    static_root: Path,
    tls: tuple[Path, Path] | None = None,
    plain_port: int | None = None,
    acme_root: Path = ACME_ROOT,
    access_log: Path = ACCESS_LOG,
) -> str:
    """The site of ``deploy/nginx/daihinmin.conf`` for these server processes.

    With ``tls`` (certificate, key) the site listens with TLS on ``listen`` (https://,
    wss://) and, given ``plain_port``, sends plain HTTP there to https://, but for the
    ACME challenges under ``acme_root`` (``certbot renew`` with ``--webroot``). Requests
    go to ``access_log``, a password or token of a query string redacted.
    """
    upstreams = "\n".join(f"    server 127.0.0.1:{p} max_fails=0;" for p in ports)
    tls_lines, redirect = "", ""
    if tls is not None:
        certificate, key = tls
        listen = f"{listen} ssl"
        tls_lines = Template(TLS).substitute(certificate=certificate, key=key)
        if plain_port is not None:
            redirect = Template(TO_HTTPS).substitute(
                port=plain_port, acme_root=acme_root, access_log=access_log
            )
    site = Template(SITE.read_text()).substitute(
        upstreams=upstreams,
        listen=listen,
        static_root=str(static_root),
        tls=tls_lines,
        access_log=access_log,
    )
    return site + redirect


def legacy_site(ports: list[int], listen: str) -> str:
    """The 2011 stream's ``stream`` block (``deploy/nginx/daihinmin-legacy.conf``)."""
    upstreams = "\n".join(f"        server 127.0.0.1:{p} max_fails=0;" for p in ports)
    return Template(LEGACY_SITE.read_text()).substitute(upstreams=upstreams, listen=listen)


def stream_module_line(nginx: str) -> str | None:
    """The line that loads nginx's stream module ("" when it is built in), or None when
    this nginx has none (Debian's needs the package libnginx-mod-stream)."""
    built = subprocess.run([nginx, "-V"], capture_output=True, text=True).stderr
    if "--with-stream=dynamic" not in built:
        return "" if "--with-stream" in built else None
    return f"load_module {STREAM_MODULE};" if STREAM_MODULE.exists() else None


def production_env(base: dict[str, str]) -> dict[str, str]:
    """The processes' settings: production, whatever the caller's DEBUG."""
    env = {**base, "DJANGO_ENV": "production", "DEBUG": "0", "PYTHONUNBUFFERED": "1"}
    env.pop("DJANGO_SETTINGS_MODULE", None)
    # each process is given its side ports (below): PORT, the site's port of make run,
    # moves them in development only (daihinmin/ports.py)
    env.pop("PORT", None)
    if not env.get("SECRET_KEY"):
        print("serve_prod: no SECRET_KEY: a random one (sessions end with this run)", flush=True)
        env["SECRET_KEY"] = secrets.token_urlsafe(48)
    return env


def missing_prerequisite(env: dict[str, str], nginx: str, legacy: bool) -> str | None:
    """What stops the server from starting, in one line, or None.

    Checked before anything starts, each within seconds: without it a missing database
    showed as a dozen pool warnings over half a minute and two stacked tracebacks.
    """
    if not (Path(nginx).is_file() and os.access(nginx, os.X_OK)):
        return f"nginx not found at {nginx} (Debian: apt-get install nginx; or set NGINX)"
    if legacy and stream_module_line(nginx) is None:
        return (
            "nginx has no stream module for the 2011 event stream "
            "(Debian: apt-get install libnginx-mod-stream; or LEGACY_WS_PORT=0 for none)"
        )
    if env.get("REDIS_URL"):
        import redis

        client = redis.Redis.from_url(
            env["REDIS_URL"], socket_connect_timeout=CHECK_SECONDS, socket_timeout=CHECK_SECONDS
        )
        try:
            client.ping()
        except redis.RedisError as error:
            return f"Redis at REDIS_URL does not answer ({error})"
        finally:
            client.close()
    if env.get("DATABASE_URL"):
        import dj_database_url
        import psycopg

        db = dj_database_url.parse(env["DATABASE_URL"])
        if "postgresql" not in db["ENGINE"]:
            return None  # a SQLite file: the migration makes it
        where = f"PostgreSQL database {db['NAME']!r} at {db['HOST'] or 'the local socket'}"
        try:
            psycopg.connect(
                host=db["HOST"] or None,
                port=db["PORT"] or None,
                dbname=db["NAME"],
                user=db["USER"] or None,
                password=db["PASSWORD"] or None,
                connect_timeout=CHECK_SECONDS,
            ).close()
        except psycopg.Error as error:
            reason = " ".join(str(error).split())
            return f"{where} cannot be reached ({reason})"
    return None


def wait_for(url: str, processes: list[subprocess.Popen], seconds: float = 60) -> None:
    deadline = time.monotonic() + seconds
    # only whether it answers: the certificate may be one the machine does not trust yet
    context = ssl._create_unverified_context() if url.startswith("https:") else None
    while time.monotonic() < deadline:
        try:
            with urllib.request.urlopen(url, timeout=1, context=context) as response:
                if response.status == 200:
                    return
        except OSError:
            pass
        if any(p.poll() is not None for p in processes):
            raise SystemExit(f"serve_prod: a process exited before {url} answered")
        time.sleep(0.1)
    raise SystemExit(f"serve_prod: {url} did not answer within {seconds:g} s")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--processes", type=int, default=2, help="server processes (default 2)")
    parser.add_argument("--listen", default="127.0.0.1:8080", help="nginx's address")
    parser.add_argument("--first-port", type=int, default=8001, help="the first process's port")
    parser.add_argument(
        "--legacy-listen",
        help="nginx's address for the 2011 event stream (default: --listen's host, "
        "port LEGACY_WS_PORT or 8081; LEGACY_WS_PORT=0: none)",
    )
    parser.add_argument(
        "--first-legacy-port",
        type=int,
        help="the first process's own 2011 port (default: --first-port + 1000)",
    )
    parser.add_argument(
        "--uecda-listen",
        help="the first process's address for UECda clients (default: --listen's host, "
        "port UECDA_PORT or 42485; UECDA_PORT=0: none)",
    )
    parser.add_argument("--run-dir", type=Path, help="nginx's pid, logs and temporary files")
    parser.add_argument(
        "--nginx-site", action="store_true", help="print the site (inside http {}) and exit"
    )
    parser.add_argument(
        "--nginx-stream",
        action="store_true",
        help="print the 2011 event stream's stream {} block (nginx.conf's top level) and exit",
    )
    parser.add_argument("--tls-certificate", type=Path, help="serve https:// and wss://")
    parser.add_argument("--tls-key", type=Path, help="the certificate's private key")
    parser.add_argument(
        "--plain-port", type=int, default=80, help="with --nginx-site and TLS: redirects to https"
    )
    parser.add_argument(
        "--acme-root",
        type=Path,
        default=ACME_ROOT,
        help=f"with --nginx-site and TLS: the webroot of /.well-known/acme-challenge/ on the "
        f"plain port (default {ACME_ROOT})",
    )
    parser.add_argument(
        "--nginx", default=os.environ.get("NGINX", NGINX), help=f"nginx's binary (default {NGINX})"
    )
    args = parser.parse_args(argv)
    ports = [args.first_port + i for i in range(args.processes)]
    static_root = ROOT / "staticfiles"
    if bool(args.tls_certificate) != bool(args.tls_key):
        parser.error("--tls-certificate and --tls-key go together")
    tls = (args.tls_certificate, args.tls_key) if args.tls_certificate else None
    public_legacy = int(os.environ.get("LEGACY_WS_PORT", "").strip() or "8081")
    host = args.listen.rpartition(":")[0]
    # the stream beside the site: on its host, or on every address as `--listen 443` is
    legacy_listen = args.legacy_listen or ""
    if not legacy_listen and public_legacy:
        legacy_listen = f"{host}:{public_legacy}" if host else str(public_legacy)
    first_legacy = args.first_legacy_port or args.first_port + LEGACY_PORT_OFFSET
    public_uecda = os.environ.get("UECDA_PORT", "42485").strip() or "0"
    uecda_listen = args.uecda_listen or (
        f"{host or '127.0.0.1'}:{public_uecda}" if public_uecda != "0" else ""
    )
    legacy_ports = [first_legacy + i for i in range(args.processes)] if legacy_listen else []
    if args.nginx_site:
        print(
            nginx_site(ports, args.listen, static_root, tls, args.plain_port, args.acme_root),
            end="",
        )
        return 0
    if args.nginx_stream:
        if not legacy_listen:
            parser.error("--nginx-stream: LEGACY_WS_PORT=0 asks for no 2011 event stream")
        print(legacy_site(legacy_ports, legacy_listen), end="")
        return 0
    if args.processes > 1 and not os.environ.get("REDIS_URL"):
        print(
            "serve_prod: several processes meet only through Redis: set REDIS_URL", file=sys.stderr
        )
        return 2
    problem = missing_prerequisite(dict(os.environ), args.nginx, legacy=bool(legacy_listen))
    if problem:
        print(f"serve_prod: cannot start: {problem}", file=sys.stderr)
        return 2
    env = production_env(dict(os.environ))
    python = sys.executable
    for command in (["migrate", "--noinput"], ["collectstatic", "--noinput", "-v0"]):
        subprocess.run([python, "manage.py", *command], cwd=ROOT, env=env, check=True)

    run = args.run_dir or Path(tempfile.mkdtemp(prefix="daihinmin-nginx-"))
    run.mkdir(parents=True, exist_ok=True)
    site = nginx_site(ports, args.listen, static_root, tls, access_log=run / "access.log")
    (run / "site.conf").write_text(site)
    user = "user root;" if os.geteuid() == 0 else ""  # workers that can read the checkout
    load_stream = (stream_module_line(args.nginx) or "") if legacy_listen else ""
    stream = legacy_site(legacy_ports, legacy_listen) if legacy_listen else ""
    (run / "nginx.conf").write_text(
        Template(MAIN).substitute(run=str(run), user=user, load_stream=load_stream, stream=stream)
    )
    legacy_of = dict(zip(ports, legacy_ports, strict=False))

    def server(port: int) -> subprocess.Popen:
        command = ["-m", "daihinmin.serve", "--proxy-headers", "-b", "127.0.0.1", "-p", str(port)]
        # each process its own 2011 port, behind nginx's stream proxy (PROXY lines)
        legacy = {"LEGACY_WS_PORT": str(legacy_of.get(port, 0)), "LEGACY_WS_PROXY_PROTOCOL": "1"}
        # the UECda port: the first process's, on the public address itself
        uecda_host, _, uecda_port = uecda_listen.rpartition(":")
        owner = port == ports[0] and uecda_listen
        uecda = {"UECDA_HOST": uecda_host, "UECDA_PORT": uecda_port} if owner else {}
        # every process tells a practice's user where the owner listens
        told = {"UECDA_PUBLIC_PORT": env.get("UECDA_PUBLIC_PORT") or uecda_port or "0"}
        process = subprocess.Popen(
            [python, *command, "daihinmin.asgi:application"],
            cwd=ROOT,
            env={**env, **legacy, "UECDA_PORT": "0", **told, **uecda},
        )
        (run / f"server-{port}.pid").write_text(f"{process.pid}\n")  # who serves which port
        return process

    servers = {port: server(port) for port in ports}
    stopping = False

    def stop(*_args) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    nginx: subprocess.Popen | None = None
    try:
        for port in ports:
            wait_for(f"http://127.0.0.1:{port}/healthz", list(servers.values()))
        nginx = subprocess.Popen([args.nginx, "-c", str(run / "nginx.conf"), "-g", "daemon off;"])
        scheme = "https" if tls else "http"
        wait_for(f"{scheme}://{args.listen}/healthz", [nginx])
        legacy_note = f", the 2011 event stream on {legacy_listen}" if legacy_listen else ""
        legacy_note += f", UECda on {uecda_listen}" if uecda_listen else ""
        print(
            f"serve_prod: {scheme}://{args.listen}/ on {len(ports)} processes{legacy_note} ({run})",
            flush=True,
        )
        while not stopping and nginx.poll() is None:
            for port, process in servers.items():
                if process.poll() is not None:  # as systemd's Restart=always would
                    print(
                        f"serve_prod: the process on {port} exited ({process.returncode}): "
                        "starting it again",
                        flush=True,
                    )
                    servers[port] = server(port)
            time.sleep(0.2)
    finally:
        everything = [p for p in (nginx, *servers.values()) if p is not None]
        for p in everything:
            if p.poll() is None:
                p.terminate()
        for p in everything:
            try:
                p.wait(15)
            except subprocess.TimeoutExpired:
                p.kill()
    return 0 if stopping else 1


if __name__ == "__main__":
    sys.exit(main())
