"""The demo's mail: printed on the console as before, and kept so that operators read it on /outbox/
(a demo has no mail server, and a new student's invitation must still reach them)."""

from django.core.mail.backends.console import EmailBackend as ConsoleBackend


class OutboxBackend(ConsoleBackend):
    def send_messages(self, email_messages):
        from .models import OutboxMail  # the backend is imported before the apps are ready

        sent = super().send_messages(email_messages)
        OutboxMail.objects.bulk_create(
            OutboxMail(to=", ".join(message.recipients()), subject=message.subject[:200], body=message.body)
            for message in email_messages)
        return sent
