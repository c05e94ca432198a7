"""The pages of the games on offer (their guides and example bots), of the site's other guides, and of the
courses' variants."""

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_POST
from games import get_game

from arena.accounts.access import attended_course
from arena.accounts.views import render_course_page
from arena.core.errors import NotAllowed
from arena.core.downloads import python_download
from arena.grading.selectors import starters

from . import game_docs, services as variant_services
from .forms import VariantForm


def _guide_or_404(game: str) -> game_docs.GameGuide:
    try:
        return game_docs.guide(game)
    except game_docs.NoGuide:
        raise Http404("no such game")


def game_guide(request, game):
    """A game's bot guide: rules as implemented, observation, actions, an example bot, its rule book."""
    found = _guide_or_404(game)
    return render(request, "variants/game_guide.html", {
        "guide": found, "starters": starters(request.user, game),
        "all_guides": [(name, get_game(name).title) for name in game_docs.games_with_guides()]})


def site_doc(request, slug):
    """One of the documents the site sends people to (game_docs.SITE_DOCS), as a page."""
    try:
        doc, html = game_docs.site_doc(slug)
    except game_docs.NoGuide:
        raise Http404("no such guide") from None
    if doc.staff_only and not request.user.is_staff:
        raise NotAllowed(f"{doc.title} is for the site's operators.")
    return render(request, "variants/site_doc.html", {"doc": doc, "html": html})


def game_example(request, game):
    """The guide's example bot as a file to save and upload."""
    found = _guide_or_404(game)
    return python_download(found.example_source, found.example_name)


@login_required
@require_POST
def new_variant(request, pk):
    course = attended_course(request.user, pk)
    form = VariantForm(request.POST, request.FILES)
    if not form.is_valid():
        messages.error(request, "Choose the game, a name and a file.")
        return render_course_page(request, course, variant_form=form)
    try:
        variant = variant_services.create_variant(request.user, course, **form.cleaned_data)
    except variant_services.VariantRefused as exc:
        messages.error(request, "Variant refused, nothing was saved (choose the corrected file again):")
        for problems in exc.problems.values():
            for problem in problems:
                messages.error(request, problem)
        return render_course_page(request, course, variant_form=form)
    messages.success(request, f"Variant {variant.name} added: challenges can now choose it.")
    return redirect("accounts:course", course.pk)


@login_required
@require_POST
def delete_variant(request, pk, variant_pk):
    course = attended_course(request.user, pk)
    variant = get_object_or_404(course.variants, pk=variant_pk)
    variant_services.delete_variant(request.user, variant)
    messages.success(request, f"Variant {variant.name} deleted; matches played with it keep its rules.")
    return redirect("accounts:course", course.pk)
