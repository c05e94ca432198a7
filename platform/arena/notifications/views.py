"""The inbox page: newest first, unread in bold; "Mark as read" (a POST: a GET, which a link preview or a
prefetch may send, changes nothing) marks read what the page showed; and the operators' outbox of the mail
sent while no mail server is configured."""

from django.core.paginator import Paginator
from django.contrib.auth.decorators import login_required
from django.core.exceptions import PermissionDenied
from django.shortcuts import redirect, render
from django.utils import timezone
from django.views.decorators.http import require_POST

from .models import OutboxMail, Preference

PAGE = 50


@login_required
def inbox(request):
    notifications = list(request.user.notifications.all()[:PAGE])
    unread = [n.pk for n in notifications if n.read_at is None]
    preference = Preference.objects.filter(user=request.user).first()
    return render(request, "notifications/inbox.html", {
        "notifications": notifications, "unread": set(unread), "email": bool(preference and preference.email),
    })


@login_required
@require_POST
def mark_read(request):
    """Mark read the unread notifications up to `up_to`, the newest the page showed (not one that came since)."""
    up_to = request.POST.get("up_to", "")
    if up_to.isdigit():
        request.user.notifications.filter(pk__lte=int(up_to), read_at=None).update(read_at=timezone.now())
    return redirect("notifications:inbox")


@login_required
@require_POST
def email_preference(request):
    Preference.objects.update_or_create(user=request.user, defaults={"email": request.POST.get("email") == "on"})
    return redirect("notifications:inbox")


@login_required
def outbox(request):
    """Every mail the site sent without a mail server (the demo), newest first: operators only, as the mail
    holds other people's invitation and password links."""
    if not request.user.is_superuser:
        raise PermissionDenied("the outbox is the operators'")
    # Every mail is kept and reachable, page by page (a page number that is not one gives the nearest page).
    mails = Paginator(OutboxMail.objects.all(), PAGE).get_page(request.GET.get("page"))
    return render(request, "notifications/outbox.html", {"mails": mails})
