"""A Mosquitto broker of one's own on 127.0.0.1 (tests, the load benchmark, a try at home).

It keeps its messages on disk (``persistence``): restarted, it still holds what it had
acknowledged and not yet delivered to a persistent session (the board's).
"""

from __future__ import annotations

import getpass
import shutil
import socket
import subprocess
import tempfile
import time
from pathlib import Path

PLACES = ("/usr/sbin/mosquitto", "/usr/bin/mosquitto")


def mosquitto() -> str | None:
    """The broker's program, None where it is not installed."""
    found = shutil.which("mosquitto")
    return found or next((p for p in PLACES if Path(p).is_file()), None)


def free_port(host: str = "127.0.0.1") -> int:
    """A port free on ``host`` now (the broker's, the board's)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


class LocalBroker:
    """``start``, ``stop`` (a clean stop: it writes its store), ``restart``; ``url``."""

    def __init__(self, folder: Path | str | None = None, port: int | None = None,
                 users: dict[str, str] | None = None, acl: str | None = None,
                 tls: tuple[str, str, str] | None = None) -> None:  # fmt: skip
        """``users``: name -> password (anonymous refused); ``acl``: the access-control file's
        text; ``tls``: (CA, certificate, key) files, the listener then speaks TLS only."""
        program = mosquitto()
        if program is None:
            raise FileNotFoundError("mosquitto is not installed (Debian package mosquitto)")
        self.program = program
        self.folder = Path(folder or tempfile.mkdtemp(prefix="hakam-broker-"))
        self.folder.mkdir(parents=True, exist_ok=True)
        self.port = port or free_port()
        self.conf = self.folder / "mosquitto.conf"
        extra = ""
        if users:
            extra += f"password_file {self.folder}/passwords\n"
            lines = "".join(f"{name}:{password}\n" for name, password in users.items())
            (self.folder / "passwords").write_text(lines)
            subprocess.run(["mosquitto_passwd", "-U", str(self.folder / "passwords")],
                           check=True, capture_output=True)  # fmt: skip
        if acl is not None:
            (self.folder / "acl").write_text(acl)
            extra += f"acl_file {self.folder}/acl\n"
        if tls is not None:
            extra += f"cafile {tls[0]}\ncertfile {tls[1]}\nkeyfile {tls[2]}\n"
        self.tls = tls is not None
        self.conf.write_text(
            f"listener {self.port} 127.0.0.1\n"
            f"allow_anonymous {'false' if users else 'true'}\n"
            "persistence true\n"
            f"persistence_location {self.folder}/\n"
            "max_queued_messages 0\n"  # no limit: a board away misses nothing
            "max_inflight_messages 0\n"
            f"log_dest file {self.folder}/mosquitto.log\n"
            # started by root it would drop to user mosquitto, who cannot write its store here
            f"user {getpass.getuser()}\n" + extra
        )
        self.process: subprocess.Popen | None = None

    @property
    def url(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> LocalBroker:
        self.process = subprocess.Popen(
            [self.program, "-c", str(self.conf)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.process.poll() is not None:
                raise RuntimeError(f"mosquitto exited ({self.process.returncode}); "
                                   f"see {self.folder}/mosquitto.log")  # fmt: skip
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.2).close()
                return self
            except OSError:
                time.sleep(0.05)
        raise RuntimeError(f"mosquitto did not listen on port {self.port} in {timeout} s")

    def stop(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.terminate()
            self.process.wait(10)
        self.process = None

    def restart(self, down_s: float = 0.0) -> None:
        self.stop()
        time.sleep(down_s)
        self.start()

    def __enter__(self) -> LocalBroker:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()
