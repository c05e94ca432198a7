"""Static checks of an uploaded bot file, before any code of it runs."""

import ast

from django.conf import settings

from arena.core.errors import Conflict, Invalid

from .models import Bot, BotVersion


class BotError(Invalid):
    """A request about a bot that cannot be met; the message says why, for the student."""


class BotConflict(BotError, Conflict):
    """A name the owner already gives another bot of the game (409)."""


class UploadRejected(BotError):
    """An upload that is not a usable bot file."""


def check_bot_name(name: str) -> str:
    """A bot's name without surrounding spaces, or BotError: printable text (no newline or other control
    character: the name is shown everywhere and names the downloaded file) of at most Bot.name's length."""
    limit = Bot._meta.get_field("name").max_length
    name = name.strip()
    if not name:
        raise BotError("give the bot a name")
    if len(name) > limit:
        raise BotError(f"a bot's name has at most {limit} characters")
    if not name.isprintable():
        raise BotError("a bot's name must be printable text: no line breaks, tabs or other control characters")
    return name


def read_upload(file) -> bytes:
    """An uploaded file's bytes, never more than one byte past the limit (check_source rejects those)."""
    return file.read(settings.ARENA_MAX_UPLOAD_BYTES + 1)


def check_source(data: bytes, filename: str) -> str:
    """The source text of an acceptable bot file, or UploadRejected with a clear reason."""
    limit = settings.ARENA_MAX_UPLOAD_BYTES
    longest_name = BotVersion._meta.get_field("filename").max_length
    if len(filename) > longest_name:
        raise UploadRejected(f"the file name is longer than {longest_name} characters: rename the file")
    if not filename.endswith(".py"):
        raise UploadRejected(f"{filename}: upload a Python file (.py)")
    if len(data) > limit:
        raise UploadRejected(f"{filename} is larger than the limit of {limit} bytes")
    if not data.strip():
        raise UploadRejected(f"{filename} is empty")
    try:
        source = data.decode("utf-8-sig")  # editors on Windows may start the file with a byte-order mark
    except UnicodeDecodeError as exc:
        raise UploadRejected(f"{filename} is not UTF-8 text (byte {exc.start} cannot be decoded)") from exc
    try:
        tree = ast.parse(source, filename=filename)
    except SyntaxError as exc:
        raise UploadRejected(f"syntax error in {filename}, line {exc.lineno}: {exc.msg}") from exc
    except ValueError as exc:  # e.g. a NUL byte
        raise UploadRejected(f"{filename} cannot be parsed: {exc}") from exc
    except (RecursionError, MemoryError) as exc:  # e.g. thousands of nested brackets or operators
        raise UploadRejected(f"{filename} nests its code too deeply for Python to compile it") from exc
    if not _defines_act(tree):
        raise UploadRejected(f"{filename} defines neither act(observation) nor a class Bot with an act method")
    return source


def _defines_act(tree: ast.Module) -> bool:
    """The harness's rule (sandbox/harness.py): a module-level act, or a class Bot with an act method."""
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and node.name == "Bot":
            if any(isinstance(item, ast.FunctionDef) and item.name == "act" for item in node.body):
                return True
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == "act":
            return True
        if isinstance(node, ast.Assign) and any(isinstance(t, ast.Name) and t.id == "act" for t in node.targets):
            return True
        if isinstance(node, ast.ImportFrom) and any((alias.asname or alias.name) == "act" for alias in node.names):
            return True
    return False
