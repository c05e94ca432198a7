"""A real SMTP server for the tests (aiosmtpd), and reading the links out of the mail it received."""

import email
import email.policy
import re
import socket
import threading
from dataclasses import dataclass

from aiosmtpd.controller import Controller

from platform_helpers import wait_for

LINK = re.compile(r"https?://\S+")


@dataclass(frozen=True)
class ReceivedMail:
    to: tuple[str, ...]
    subject: str
    body: str

    def link(self, containing: str) -> str:
        """The one link of the mail whose URL contains `containing`."""
        links = [url for url in LINK.findall(self.body) if containing in url]
        assert len(links) == 1, f"expected one link with {containing!r} in:\n{self.body}"
        return links[0]


class Mailbox:
    """aiosmtpd's handler: every message delivered to the server, as the recipient's mail client reads it."""

    def __init__(self):
        self.mails: list[ReceivedMail] = []
        self._lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope):
        message = email.message_from_bytes(envelope.content, policy=email.policy.default)
        body = message.get_body(preferencelist=("plain",)).get_content()
        with self._lock:
            self.mails.append(ReceivedMail(tuple(envelope.rcpt_tos), str(message["Subject"]), body))
        return "250 Message accepted for delivery"

    def to(self, address: str) -> list[ReceivedMail]:
        with self._lock:
            return [mail for mail in self.mails if address in mail.to]

    def wait_for(self, address: str, subject: str, timeout: float = 30) -> ReceivedMail:
        """The first mail to `address` whose subject contains `subject`, once it has arrived."""
        return wait_for(lambda: next((m for m in self.to(address) if subject in m.subject), None), timeout,
                        f"a mail to {address} about {subject!r}")


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_smtp_server() -> tuple[Controller, Mailbox]:
    mailbox = Mailbox()
    controller = Controller(mailbox, hostname="127.0.0.1", port=free_port())
    controller.start()
    return controller, mailbox
