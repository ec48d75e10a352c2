"""The broker's address and the topics of a tournament (one place for both sides).

Topics, under ``hakam/<tournament>/tables/<table>/``:

- ``events``: each board event (``hakam.board.tables``), QoS 1;
- ``state``: the table's view, retained, QoS 1 (a board that starts late shows it at once);
- ``replay``: a board that missed events asks the table for them from a ``seq`` on.

A table publishes only under its own id; a broker can enforce it (``docs/board.md``).
"""

from __future__ import annotations

import re
import ssl
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote, urlsplit

ROOT = "hakam"
_NAME = re.compile(r"^[A-Za-z0-9_.-]{1,64}$")


class BrokerError(ValueError):
    """A broker address, table id or tournament name that cannot be used."""


@dataclass(frozen=True)
class Broker:
    """Where the broker is and how to log in: ``mqtt://[USER:PASSWORD@]HOST[:PORT]`` (1883), or
    ``mqtts://`` for TLS (8883)."""

    host: str
    port: int
    tls: bool = False
    username: str | None = None
    password: str | None = None
    ca_file: str | None = None

    @classmethod
    def parse(cls, url: str, ca_file: str | None = None) -> Broker:
        parts = urlsplit(url if "://" in url else f"mqtt://{url}")
        if parts.scheme not in ("mqtt", "mqtts") or not parts.hostname:
            raise BrokerError(f"broker {url!r}: not mqtt://HOST[:PORT] or mqtts://HOST[:PORT]")
        try:
            port = parts.port
        except ValueError:
            raise BrokerError(f"broker {url!r}: the port is not a number from 1 to 65535") from None
        tls = parts.scheme == "mqtts" or ca_file is not None
        user = unquote(parts.username) if parts.username else None
        password = unquote(parts.password) if parts.password else None
        return cls(parts.hostname, port or (8883 if tls else 1883), tls, user, password, ca_file)

    def configure(self, client: Any) -> None:
        """Log-in and TLS on a paho client."""
        if self.username is not None:
            client.username_pw_set(self.username, self.password)
        if self.tls:
            try:
                context = ssl.create_default_context(cafile=self.ca_file)
            except (OSError, ssl.SSLError) as exc:
                why = getattr(exc, "strerror", None) or getattr(exc, "reason", None) or exc
                raise BrokerError(
                    f"--mqtt-ca {self.ca_file}: not a CA certificate ({why})"
                ) from None
            client.tls_set_context(context)

    def __str__(self) -> str:
        return f"{'mqtts' if self.tls else 'mqtt'}://{self.host}:{self.port}"


def check_name(value: str, what: str) -> str:
    """A table id or tournament name: letters, digits, ``_ . -`` (no topic wildcards)."""
    if not _NAME.match(value):
        raise BrokerError(f"{what} {value!r}: use 1-64 letters, digits, '_', '.' or '-'")
    return value


def table_topic(tournament: str, table: str, what: str) -> str:
    return f"{ROOT}/{tournament}/tables/{table}/{what}"


def tables_filter(tournament: str, what: str) -> str:
    """Every table's ``what`` topic of the tournament (a subscription)."""
    return f"{ROOT}/{tournament}/tables/+/{what}"


def table_of(topic: str) -> tuple[str, str] | None:
    """(table, what) of a table topic, None for another topic."""
    parts = topic.split("/")
    if len(parts) != 5 or parts[0] != ROOT or parts[2] != "tables":
        return None
    return parts[3], parts[4]
