"""docs/production.md as written, in Debian's own nginx layout.

Step 5's block is taken out of the document (the one under the comment naming this file)
and run with ``sh -e``, on a copy of the packaged ``/etc/nginx`` (``nginx.conf``,
``mime.types``, ``modules-enabled/``, the default site) in a temporary folder: the
document's paths and ports are changed, each by one replacement that must match, and
nothing else, so the document cannot drift from what is tested. Then two server
processes start as ``deploy/systemd/daihinmin@.service`` starts them (its ``ExecStart``,
its instance for ``%i``), and nginx with that configuration serves pages through the
site, the ACME challenges on the plain port, and the 2011 event stream to each process.

Before, the block wrote a ``stream {}`` block into ``sites-available/`` (``nginx -t``:
"stream" directive is not allowed here), and every process took the same 2011 port.
"""

from __future__ import annotations

import asyncio
import os
import re
import shlex
import shutil
import ssl
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest
import websockets

from harness.server import ROOT, Server, free_port
from harness.stack import bindable
from tests.e2e.legacy_client import Legacy
from tests.e2e.test_tls import self_signed
from tests.needs import serve_prod

pytestmark = [pytest.mark.e2e, pytest.mark.needs("nginx", "libnginx-mod-stream")]

DOC = ROOT / "docs" / "production.md"
UNIT = ROOT / "deploy" / "systemd" / "daihinmin@.service"
#: Debian's nginx configuration as packaged.
PACKAGED = Path("/etc/nginx")
PROCESSES = 2
METRICS_TOKEN = "production-doc"


def doc_block() -> str:
    """Step 5's commands: the ``sh`` block under the comment that names this file."""
    found = re.search(
        r"<!-- tests/e2e/test_production_doc\.py runs this block[^\n]*-->\n```sh\n(.*?)```",
        DOC.read_text(),
        re.S,
    )
    assert found, f"{DOC} has no block marked for this test"
    return found[1]


def replaced(text: str, old: str, new: str, count: int = 1) -> str:
    """``text`` with ``old`` (there ``count`` times; 0: at least once) made ``new``."""
    found = text.count(old)
    assert found == count if count else found > 0, f"{old!r} is there {found} times"
    return text.replace(old, new)


def first_process_port() -> int:
    """A first port with the next ones free, and each one's 2011 port (port + offset)."""
    offset = serve_prod().LEGACY_PORT_OFFSET
    for _ in range(100):
        first = free_port()
        ports = [first + i for i in range(PROCESSES)]
        if first + PROCESSES + offset < 65536 and all(
            bindable(p) for p in ports[1:] + [p + offset for p in ports]
        ):
            return first
    raise RuntimeError("no free ports for the processes")


def packaged_nginx(prefix: Path) -> None:
    """Debian's ``/etc/nginx`` as packaged, in ``prefix``: only what names the machine's own
    files changes (the pid, the logs, nginx's temporary files), and the workers' user,
    who must read the test's temporary folders (root's alone)."""
    prefix.mkdir()
    for name in ("nginx.conf", "mime.types"):
        shutil.copy(PACKAGED / name, prefix / name)
    shutil.copytree(PACKAGED / "modules-enabled", prefix / "modules-enabled", symlinks=True)
    for folder in ("conf.d", "sites-available", "sites-enabled", "log"):
        (prefix / folder).mkdir()
    shutil.copy(PACKAGED / "sites-available" / "default", prefix / "sites-available")
    (prefix / "sites-enabled" / "default").symlink_to(prefix / "sites-available" / "default")
    # modules-enabled/50-mod-stream.conf: `load_module modules/…`, relative to the prefix
    (prefix / "modules").symlink_to(serve_prod().STREAM_MODULE.parent)
    conf = (PACKAGED / "nginx.conf").read_text()
    conf = replaced(conf, "/etc/nginx", str(prefix), count=0)
    conf = replaced(conf, "pid /run/nginx.pid;", f"pid {prefix}/nginx.pid;")
    conf = replaced(conf, "/var/log/nginx", f"{prefix}/log", count=0)
    conf = replaced(conf, "user www-data;", "user root;" if os.geteuid() == 0 else "")
    temporary = "".join(
        f"\t{kind}_temp_path {prefix}/{kind};\n"
        for kind in ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
    )
    conf = replaced(conf, "http {\n", "http {\n" + temporary)
    (prefix / "nginx.conf").write_text(conf)


def unit_process(port: int, env: dict[str, str], log: Path) -> subprocess.Popen:
    """The server process of ``daihinmin@PORT``, started as the unit starts it."""
    unit = UNIT.read_text()
    settings = dict(
        line.split("=", 1) for line in re.findall(r"^Environment=(.*)$", unit, re.M)
    )  # the unit's Environment=, below its EnvironmentFile= (the test's env)
    command = re.search(r"^ExecStart=(.*)$", unit, re.M)[1]
    command = command.replace("%i", str(port)).replace("$$", "$")
    command = replaced(command, "/srv/daihinmin", str(ROOT), count=0)
    assert re.search(r"^WorkingDirectory=/srv/daihinmin$", unit, re.M)
    with open(log, "ab") as out:
        return subprocess.Popen(
            shlex.split(command),
            cwd=ROOT,
            env={**settings, **env},
            stdout=out,
            stderr=subprocess.STDOUT,
        )


def wait_for(url: str, processes: list[subprocess.Popen], log: Path, **options) -> None:
    deadline = time.monotonic() + 120  # a loaded machine starts Django slowly
    while True:
        try:
            if httpx.get(url, timeout=2, **options).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        for p in processes:
            assert p.poll() is None, f"exited ({p.returncode}): {log.read_text()[-3000:]}"
        assert time.monotonic() < deadline, f"{url} did not answer: {log.read_text()[-3000:]}"
        time.sleep(0.2)


def gauge(port: int, name: str) -> int:
    text = httpx.get(
        f"http://127.0.0.1:{port}/metrics",
        headers={"Authorization": f"Bearer {METRICS_TOKEN}"},
        timeout=10,
    ).text
    return int(float(re.search(rf"^{name} (\S+)$", text, re.M)[1]))


@pytest.fixture
def server(tmp_path):
    """The test's database (and Redis prefix); its own daphne stays off."""
    s = Server(tmp_path)
    yield s
    s.stop()


@pytest.fixture
def started():
    """What the test starts, stopped at its end."""
    processes: list[subprocess.Popen] = []
    yield processes
    for p in processes:
        if p.poll() is None:
            p.terminate()
    for p in processes:
        try:
            p.wait(15)
        except subprocess.TimeoutExpired:
            p.kill()


async def test_the_documents_nginx_steps_pass_nginx_t_and_serve_two_processes(
    tmp_path, server, started
):
    prefix = tmp_path / "etc-nginx"
    packaged_nginx(prefix)
    certificate, key = self_signed(tmp_path)
    webroot = tmp_path / "www"
    (webroot / ".well-known" / "acme-challenge").mkdir(parents=True)
    (webroot / ".well-known" / "acme-challenge" / "a-token").write_text("the token's answer")
    https, plain, legacy = free_port(), free_port(), free_port()
    first = first_process_port()
    ports = [first + i for i in range(PROCESSES)]
    nginx = serve_prod().NGINX

    script = doc_block()
    script = replaced(script, "cd /srv/daihinmin", f"cd {ROOT}")
    script = replaced(
        script, "/etc/letsencrypt/live/contest.example/fullchain.pem", str(certificate)
    )
    script = replaced(script, "/etc/letsencrypt/live/contest.example/privkey.pem", str(key))
    script = replaced(
        script,
        "--listen 443",
        f"--listen 127.0.0.1:{https} --plain-port {plain} --acme-root {webroot} "
        f"--first-port {first}",
    )
    script = replaced(
        script, "--legacy-listen 8081", f"--legacy-listen 127.0.0.1:{legacy} --first-port {first}"
    )
    script = replaced(script, "--processes 2", f"--processes {PROCESSES}", count=2)
    script = replaced(
        script,
        "nginx -t && systemctl reload nginx",
        f"{nginx} -t -p {prefix}/ -c {prefix}/nginx.conf",
    )
    script = replaced(script, "/etc/nginx", str(prefix), count=0)
    environment = {k: v for k, v in os.environ.items() if k != "LEGACY_WS_PORT"}
    done = subprocess.run(
        ["sh", "-e", "-c", script], env=environment, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert "test is successful" in done.stderr  # nginx -t
    assert not (prefix / "sites-enabled" / "default").exists()
    conf = (prefix / "nginx.conf").read_text()
    assert conf.count(f"include {prefix}/streams-enabled/*.conf;") == 1
    assert conf.rstrip().endswith(f"include {prefix}/streams-enabled/*.conf;")  # top level

    # the settings of step 3's /etc/daihinmin/env, on the test's database
    env = {
        **server.env,
        "DJANGO_ENV": "production",
        "DEBUG": "0",
        "SECRET_KEY": "a-production-doc-secret-key-of-some-length-0123456789",
        "ALLOWED_HOSTS": "127.0.0.1",
        "HTTPS": "1",
        "METRICS_TOKEN": METRICS_TOKEN,
    }
    env.pop("LEGACY_WS_PORT")  # not in /etc/daihinmin/env: the unit gives each its own
    collected = subprocess.run(
        [sys.executable, "manage.py", "collectstatic", "--noinput", "-v0"],
        cwd=ROOT, env=env, capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert collected.returncode == 0, collected.stderr
    log = tmp_path / "processes.log"
    started.extend(unit_process(port, env, log) for port in ports)
    for port in ports:
        wait_for(f"http://127.0.0.1:{port}/healthz", started, log)
    started.append(
        subprocess.Popen(
            [nginx, "-p", f"{prefix}/", "-c", f"{prefix}/nginx.conf", "-g", "daemon off;"],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    )
    trusted = ssl.create_default_context(cafile=str(certificate))
    site = f"https://127.0.0.1:{https}"
    wait_for(f"{site}/healthz", started, log, verify=trusted)

    with httpx.Client(base_url=site, verify=trusted, timeout=10) as client:
        assert client.get("/healthz").json()["database"] == "ok"
        assert client.get("/").status_code == 200
        assert client.get("/static/css/site.css").headers["server"].startswith("nginx")
    with httpx.Client(base_url=f"http://127.0.0.1:{plain}", timeout=10) as client:
        challenge = client.get("/.well-known/acme-challenge/a-token")
        assert (challenge.status_code, challenge.text) == (200, "the token's answer")
        elsewhere = client.get("/places/")
        assert elsewhere.status_code == 301
        assert elsewhere.headers["location"] == "https://127.0.0.1/places/"

    # sockets of each kind through nginx until each process holds one (least_conn spreads
    # them, but Debian's nginx has a worker a core, each counting its own connections)
    secure, old = [], []
    try:
        for _ in range(10):
            secure.append(await websockets.connect(f"wss://127.0.0.1:{https}/", ssl=trusted))
            old.append(await Legacy.connect(legacy))
            assert old[-1].head.startswith(b"HTTP/1.1 101 Web Socket Protocol Handshake\r\n")
            await asyncio.sleep(0.5)  # the processes count them
            held = [
                (gauge(p, "daihinmin_open_sockets"), gauge(p, "daihinmin_legacy_sockets"))
                for p in ports
            ]
            if all(legacy_held >= 1 and total - legacy_held >= 1 for total, legacy_held in held):
                break
        assert all(legacy_held >= 1 and total - legacy_held >= 1 for total, legacy_held in held)
        assert sum(total for total, _ in held) == len(secure) + len(old), held
    finally:
        for s in secure:
            await s.close()
        for client in old:
            client.close()
