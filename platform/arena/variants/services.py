"""Creating and deleting course variants; the game checks a variant's options before it is saved."""

from django.conf import settings
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError

from games.core import loads_json

from arena.accounts.access import NotAllowed, teaches
from arena.core.errors import Invalid

from .models import Variant

# Games whose variant is uploaded as a file filling one option; the others take their options as JSON.
FILE_OPTION = {"sortinggame": "deck"}


class VariantRefused(Invalid):
    """A variant that cannot be saved; `problems` maps each field (game, name, config, file) to every problem."""

    def __init__(self, problems: dict[str, list[str]]):
        super().__init__("; ".join(problem for listed in problems.values() for problem in listed))
        self.problems = problems


def create_variant(user, course, *, game: str, name: str, config: dict | None = None, file=None) -> Variant:
    """A new variant of `game` for `course`, from its options (`config`) or an uploaded JSON `file` (which
    fills the game's FILE_OPTION, e.g. a SortingGame deck). Only the course's instructors may add one."""
    if not teaches(user, course):
        raise NotAllowed("only the course's instructors can add variants")
    if (config is None) == (file is None):
        raise VariantRefused({"config": ["give either the options (config) or a file"]})
    if file is not None:
        option = FILE_OPTION.get(game)
        if option is None:
            raise VariantRefused({"file": [f"{game} variants take their options as JSON (config), not a file"]})
        config = {option: read_json_file(file)}
    variant = Variant(course=course, game=game, name=name.strip(), config=config, created_by=user)
    try:
        variant.full_clean()
    except ValidationError as exc:
        # The one error not tied to a field is the unique constraint: a name the course already uses.
        raise VariantRefused({"name" if field == NON_FIELD_ERRORS else field: problems
                              for field, problems in exc.message_dict.items()}) from exc
    variant.save()
    return variant


def delete_variant(user, variant: Variant) -> None:
    """Delete a variant; matches played with it keep their copy of its options."""
    if not teaches(user, variant.course):
        raise NotAllowed("only the course's instructors can delete variants")
    variant.delete()


def read_json_file(file):
    """An uploaded file's JSON content; VariantRefused if it is too large, not UTF-8 or not JSON."""
    limit = settings.ARENA_MAX_VARIANT_BYTES
    data = file.read(limit + 1)
    if len(data) > limit:
        raise VariantRefused({"file": [f"{file.name} is larger than the limit of {limit} bytes"]})
    try:
        text = data.decode("utf-8-sig")  # editors on Windows may start the file with a byte-order mark
    except UnicodeDecodeError as exc:
        raise VariantRefused({"file": [f"{file.name} is not UTF-8 text (byte {exc.start} cannot be decoded)"]}) from exc
    try:
        return loads_json(text)
    except ValueError as exc:  # not JSON, or nested too deeply (JSONTooDeep)
        raise VariantRefused({"file": [f"{file.name} is not valid JSON: {exc}"]}) from exc
