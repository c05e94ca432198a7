def unread(request):
    """The unread count for the header's Inbox link (signed-in users only)."""
    if not request.user.is_authenticated:
        return {}
    return {"inbox_unread": request.user.notifications.unread().count()}
