"""The rule for new usernames, so that no name can pass for another one.

A username is normalised to NFKC (full-width "ＡＬＩＣＥ" becomes "ALICE"), then refused when it
- mixes scripts (Latin "alice" with a Cyrillic "а"): digits and punctuation belong to every script;
- is written in a script other than Latin with letters that all look like Latin ones (Cyrillic "аа");
- equals an existing username once both are normalised by `username_key`, the one comparison of usernames
  everywhere (registration, the sign-in limits).
Confusable and script data come from the maintained `confusable_homoglyphs` package (Unicode's tables).
"""

import unicodedata

from confusable_homoglyphs import confusables
from confusable_homoglyphs.categories import unique_aliases
from django.contrib.auth import get_user_model
from django.contrib.auth.validators import UnicodeUsernameValidator
from django.core.exceptions import ValidationError

MAX_LENGTH = 150  # Django's User.username
# The longest text that can spell a username: NFKC composes at most a few characters into one (a Hangul
# syllable from three jamo), so no longer text normalises to MAX_LENGTH characters. Longer text is never
# normalised: NFKC makes one U+FDFA 18 characters, and a 1 MiB name cost the sign-in limit 0.4 s.
LONGEST_SPELLING = 4 * MAX_LENGTH


def username_key(name: str) -> str:
    """What makes two usernames the same: NFKC, then case folded (and NFKC again, as folding may undo it), so
    that "ｂob", "𝐛ob", "BOB" and "bob" are one name to every check. A text longer than any spelling of a
    username is its own key, which no username's key equals."""
    if len(name) > LONGEST_SPELLING:
        return name
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())


def clean_username(name: str) -> str:
    """The normalised username, or ValidationError saying why it is refused."""
    if len(name) > LONGEST_SPELLING:
        raise ValidationError(f"a username has at most {MAX_LENGTH} characters")
    name = unicodedata.normalize("NFKC", name)
    # Normalising can lengthen a name or change its characters: check the form of the result.
    UnicodeUsernameValidator()(name)
    if len(name) > MAX_LENGTH:
        raise ValidationError(f"a username has at most {MAX_LENGTH} characters")
    if confusables.is_mixed_script(name):
        raise ValidationError("a username must not mix alphabets (e.g. Latin with Cyrillic letters)")
    scripts = unique_aliases(name) - {"COMMON"}
    if scripts and scripts != {"LATIN"} and confusables.is_confusable(name, preferred_aliases=["latin"]):
        raise ValidationError("this username looks like a different one written in Latin letters")
    key = username_key(name)
    # Every name compared by its key: the database's case-insensitive match knows neither NFKC nor full folding
    # ("STRASSE" and "straße"). Registration is rate limited, and a scan of names is milliseconds at 10,000.
    if any(username_key(taken) == key for taken in get_user_model().objects.values_list("username", flat=True)
           .iterator()):
        raise ValidationError("that username is taken")
    return name
