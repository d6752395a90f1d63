"""The email sender (an adapter behind `transport.Sender`): one message, plain text plus a
simple HTML part, over SMTP with STARTTLS or TLS (or neither, on a private network the owner
allowed). smtplib is blocking, so the exchange runs in a worker thread; the caller's total
deadline (`delivery.send_channel`) bounds it, and every socket operation also times out at the
deadline. It connects to the address resolved and checked for this send and verifies TLS for
the host's name (pinned, like every other channel)."""

from __future__ import annotations

import html
import smtplib
import ssl
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from typing import Any

import anyio

from ...kernel.i18n import DEFAULT_LANGUAGE, LANGUAGE_TAGS
from ...reminders.channels import Channel
from ...reminders.headers import one_line
from ...reminders.message import Message, message_of
from ...reminders.transport import SendContext, SendFailed, resolve_host
from ..outbound import tls_context


def email_of(channel: Channel, message: Message) -> EmailMessage:
    email = EmailMessage()
    email["Subject"] = one_line(message.subject)
    email["From"] = str(channel.config["from"])
    email["To"] = str(channel.config["to"])
    email["Date"] = formatdate(usegmt=True)  # RFC 5322 §3.6: a message has its origination date
    email["Message-ID"] = make_msgid(domain="mesq")
    # The language the words are in (RFC 3282; `lang` on the HTML part): a mail client picks the
    # glyphs of Han characters by it, and draws Chinese in Japanese forms without it.
    tag = LANGUAGE_TAGS.get(message.say.language, LANGUAGE_TAGS[DEFAULT_LANGUAGE])
    email.set_content(message.text + "\n")
    due = f"<p>{html.escape(message.say.gettext('Due: %(when)s', when=message.due))}</p>" if message.due else ""
    email.add_alternative(
        f'<html lang="{tag}"><body><h2>{html.escape(message.title)}</h2>{due}'
        f'<p><a href="{html.escape(message.link)}">{html.escape(message.link_words)}</a></p></body></html>',
        subtype="html",
    )
    email["Content-Language"] = tag  # after the parts are made: making them moves Content-* headers into them
    return email


def _exchange(channel: Channel, host: str, address: str, port: int, email: EmailMessage, deadline: float) -> None:
    security = channel.config.get("security", "starttls")
    context: ssl.SSLContext = tls_context()
    try:
        if security == "tls":
            client: smtplib.SMTP = smtplib.SMTP_SSL(timeout=deadline, context=context)
        else:
            client = smtplib.SMTP(timeout=deadline)
        # TLS (SMTP_SSL's wrap at connect, starttls) checks self._host, the name; the socket goes
        # to the checked address
        client._host = host  # type: ignore[attr-defined]
        client.connect(address, port)
        with client:
            client.ehlo()
            if security == "starttls":
                client.starttls(context=context)
                client.ehlo()
            user = str(channel.config.get("user") or "")
            if user:
                client.login(user, channel.secret)
            client.send_message(email)
    except smtplib.SMTPAuthenticationError:
        raise SendFailed("the SMTP server refused the user name or password") from None
    except smtplib.SMTPNotSupportedError:
        raise SendFailed("the SMTP server does not offer STARTTLS") from None
    except smtplib.SMTPRecipientsRefused:
        raise SendFailed("the SMTP server refused the To address") from None
    except smtplib.SMTPResponseException as refused:
        raise SendFailed("the SMTP server answered %(smtp_code)s", smtp_code=refused.smtp_code) from None
    except ssl.SSLError:
        raise SendFailed("the SMTP server's TLS certificate could not be verified") from None
    except (smtplib.SMTPException, OSError) as failed:
        if isinstance(failed, TimeoutError):
            raise
        raise SendFailed("could not connect to the SMTP server") from None


async def send_email(channel: Channel, payload: dict[str, Any], context: SendContext) -> None:
    host, _, port_text = channel.url.removeprefix("smtp://").rpartition(":")
    port = int(port_text)
    address = await resolve_host(host, port, context)
    email = email_of(channel, message_of(payload, context.public_url, context.language))
    await anyio.to_thread.run_sync(_exchange, channel, host, address, port, email, context.deadline,
                                   abandon_on_cancel=True)  # fmt: skip
