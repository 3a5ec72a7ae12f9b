"""The File agent's writing and folder actions: write_file, create_file, list_directory,
create_directory and delete_file.

Every path goes through the workspace `PathPolicy`: a refusal ("path escapes the workspace: …",
"… is read-only here: …") comes back to the model as an observation. Every write is atomic (the
policy writes a temp file and renames it), and deleting moves to `.trash/`.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from actions.files.common import (
    Encoding,
    body_budget,
    change_file,
    file_policy,
    human_size,
    offered,
    open_text,
    plural,
    split_lines,
)
from agent_runtime.engine.registry import action
from agent_runtime.engine.run_context import ActionContext
from agent_runtime.errors import ActionError, ReadOnlyPathError, SandboxError
from sandbox.paths import PathPolicy

MAX_EDIT_BYTES = 20 << 20  # append/insert rewrite the whole file: past this, write a new file instead
MAX_LISTED = 200


def _summary(text: str) -> str:
    return f"{plural(len(split_lines(text)), 'line')}, {human_size(len(text.encode('utf-8')))}"


def _read_for_edit(policy: PathPolicy, file_path: str) -> tuple[str, Encoding, str]:
    """The whole text of an existing file, its encoding, and a note when rewriting changes bytes."""
    with open_text(policy, file_path) as text_file:
        if text_file.size > MAX_EDIT_BYTES:
            raise ActionError(
                f"{text_file.shown} is {human_size(text_file.size)}, too large to edit in place (the limit is "
                f"{human_size(MAX_EDIT_BYTES)}); write the new part to a new file instead"
            )
        text_file.handle.seek(text_file.encoding.bom)
        data = text_file.handle.read()
        encoding = text_file.encoding
    note = f"; {encoding.note.removeprefix('note: ')}, and is now saved as UTF-8" if encoding.note else ""
    try:
        return data.decode(encoding.codec), encoding, note
    except UnicodeDecodeError:
        note += f"; some bytes were not valid {encoding.codec} and are now the replacement character �"
        return encoding.decode(data), encoding, note


@dataclass
class AttachedText:
    """The exact text the main agent attached to the current file operation (`file_operation(…,
    content=…)`), written by write_attached without the File agent repeating it. None: none."""

    text: str | None = None


def attached_text(ctx: ActionContext) -> AttachedText:
    return ctx.services.get(AttachedText, AttachedText)


@action
async def write_file(
    ctx: ActionContext,
    file_path: str,
    content: str,
    mode: Literal["overwrite", "append", "insert"] = "overwrite",
    line: int | None = None,
) -> str:
    """Write text to a file, atomically. mode="overwrite" replaces the whole file (creating it if
    needed); "append" adds the content at the end, on a new line; "insert" puts the content as
    whole lines before line number `line` (1 = at the top; the number of lines + 1 = at the end).
    Read the file first (read_file with mode="lines") to find the right line number. Missing
    folders are created. Files are saved as UTF-8.

    Args:
        file_path: the file, e.g. "Notebook/01_introduction.md".
        content: the exact text to write (Markdown).
        mode: "overwrite", "append" or "insert".
        line: with mode="insert" only: the line number (from 1) to insert before.
    """
    return await change_file(ctx, file_path, lambda: _write(ctx, file_path, content, mode, line))


@action
async def write_attached(
    ctx: ActionContext,
    file_path: str,
    mode: Literal["overwrite", "append", "insert"] = "overwrite",
    line: int | None = None,
) -> str:
    """Write the text attached to this operation, exactly as attached, without repeating it. It is
    the way to write any text the operation came with. Modes as in write_file: "overwrite" replaces
    the file, "append" adds at the end, "insert" puts it before line number `line`.

    Args:
        file_path: the file, e.g. "Notebook/01_introduction.md".
        mode: "overwrite", "append" or "insert".
        line: with mode="insert" only: the line number (from 1) to insert before.
    """
    text = attached_text(ctx).text
    if text is None:
        raise ActionError(
            "no text is attached to this operation; write text given in the description with write_file"
        )
    return await change_file(ctx, file_path, lambda: _write(ctx, file_path, text, mode, line))


# What a model calls the attached text when it sends it again to write_attached, which takes no text
# (the schema refuses it as "Extra inputs are not permitted", and the model sends it again).
_REPEATED_TEXT = ("content", "attached", "text", "attached_text", "new_text")


def without_repeated_attachment(ctx: ActionContext, arguments: dict[str, object]) -> tuple[dict[str, object], str]:
    """write_attached's arguments without the attached text a model also passed as an argument, and
    what to tell it: passed equal to the attachment (whitespace at the ends aside), it is written
    once; passed different, nothing is written (ActionError naming which text would have been)."""
    repeated = {k: v for k, v in arguments.items() if k in _REPEATED_TEXT and isinstance(v, str)}
    if not repeated:
        return arguments, ""
    attached = attached_text(ctx).text
    rest = {k: v for k, v in arguments.items() if k not in repeated}
    names = " and ".join(repeated)
    if attached is None:
        raise ActionError(
            f"no text is attached to this operation, so write_attached has nothing to write; write the {names} "
            "you passed with write_file(file_path, content)"
        )
    different = [k for k, v in repeated.items() if v.strip() != attached.strip()]
    if different:
        given = repeated[different[0]]
        raise ActionError(
            f"nothing was written: write_attached writes the attached text ({_opening(attached)}), not the text "
            f"you passed as {different[0]} ({_opening(given)}), and the two differ. To write the attached text, call "
            f"write_attached(file_path) without {names}; to write your own text instead, use write_file"
        )
    return rest, (
        f"[note] The text you passed as {names} is the attached text itself: it was written once. write_attached "
        "takes no text: next time pass only file_path (and mode, line)."
    )


def _opening(text: str) -> str:
    first = " ".join(text.split())
    return f"{len(text):,} characters, beginning «{first[:60]}{'…' if len(first) > 60 else ''}»"


def _write(
    ctx: ActionContext,
    file_path: str,
    content: str,
    mode: Literal["overwrite", "append", "insert"],
    line: int | None,
) -> str:
    policy = file_policy(ctx)
    target = policy.check_writable(file_path)  # an escape or a read-only path is refused first
    if mode != "insert" and line is not None:
        raise ActionError(f'line is used only with mode="insert"; with mode={mode!r} leave it out')
    if mode == "insert" and line is None:
        raise ActionError('mode="insert" needs line: the line number (from 1) to insert before')
    if mode != "overwrite" and not content:
        raise ActionError(f"the content is empty: there is nothing to {mode}")
    exists = os.path.lexists(target)
    if mode == "overwrite" or not exists:
        if mode == "insert" and line != 1:
            raise ActionError(
                f"{policy.relative(target)} does not exist, so only line=1 can be used to insert"
            )
        written = policy.replace_text(file_path, content)
        verb = "Wrote" if exists else "Created"
        return f"{verb} {policy.relative(written)} ({_summary(content)})."
    old, _, note = _read_for_edit(policy, file_path)
    if mode == "append":
        new = old + ("\n" if old and not old.endswith("\n") else "") + content
        action_text = f"Appended {_summary(content)} to"
    else:
        assert line is not None
        lines = split_lines(old)
        if not 1 <= line <= len(lines) + 1:
            raise ActionError(
                f"line {line} is out of range: {policy.relative(target)} has {len(lines):,} lines, so line "
                f"must be 1-{len(lines) + 1} ({len(lines) + 1} adds at the end)"
            )
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += "\n"
        piece = content if content.endswith("\n") else content + "\n"
        new = "".join(lines[: line - 1]) + piece + "".join(lines[line - 1 :])
        action_text = f"Inserted {_summary(piece)} before line {line} of"
    written = policy.replace_text(file_path, new)
    return f"{action_text} {policy.relative(written)}; it now has {_summary(new)}{note}."


@action
async def replace_text(
    ctx: ActionContext, file_path: str, old_text: str, new_text: str = "", attached: bool = False
) -> str:
    """Replace one passage of a file, leaving the rest as it is. `old_text` must appear exactly
    once (copy it from read_file or search_in_file, a few words around it if needed to make it
    unique). The replacement is `new_text`, or with attached=True the text attached to this
    operation. An empty replacement removes the passage.

    Args:
        file_path: the file, e.g. "Notebook/03_<chapter>.md".
        old_text: the exact passage to replace, as it is in the file.
        new_text: the text that takes its place.
        attached: True to use the text attached to the operation instead of new_text.
    """
    if attached:
        text = attached_text(ctx).text
        if text is None:
            raise ActionError("no text is attached to this operation; give the replacement as new_text")
        new_text = text
    if not old_text:
        raise ActionError("old_text is empty: give the exact passage to replace")
    return await change_file(ctx, file_path, lambda: _replace(ctx, file_path, old_text, new_text))


def _replace(ctx: ActionContext, file_path: str, old_text: str, new_text: str) -> str:
    policy = file_policy(ctx)
    policy.check_writable(file_path)
    old, _, note = _read_for_edit(policy, file_path)
    count = old.count(old_text)
    if count != 1:
        where = "does not appear" if count == 0 else f"appears {count:,} times"
        raise ActionError(
            f"old_text {where} in {file_path}; copy the passage exactly from the file (search_in_file shows "
            "it), with enough words around it to appear once"
        )
    new = old.replace(old_text, new_text, 1)
    written = policy.replace_text(file_path, new)
    return f"Replaced {_summary(old_text)} with {_summary(new_text)} in {policy.relative(written)}{note}."


@action
async def create_file(ctx: ActionContext, file_path: str, initial_content: str = "") -> str:
    """Create a new file (and any missing folders). Refused if the file already exists: then read
    it, or use write_file to change it.

    Args:
        file_path: the new file, relative to the workspace, e.g. "Notebook/03_<chapter>.md".
        initial_content: the text of the new file (Markdown); empty by default.
    """
    policy = file_policy(ctx)

    def create() -> str:
        created = policy.create_new(file_path, initial_content)
        return f"Created {policy.relative(created)} ({_summary(initial_content)})."

    return await change_file(ctx, file_path, create)


def _is_read_only(policy: PathPolicy, relative: str) -> bool:
    try:
        policy.check_writable(relative)
    except ReadOnlyPathError:
        return True
    except SandboxError:
        return False
    return False


@action
async def list_directory(ctx: ActionContext, directory_path: str = ".") -> str:
    """List a folder: its subfolders and files, with sizes. Subfolders end in "/" with how many
    entries each holds; entries are sorted by name, read-only ones marked. Not recursive:
    file_search finds files in subfolders too.

    Args:
        directory_path: the folder; "." is the workspace itself.
    """
    policy = file_policy(ctx)
    folder = policy.resolve(directory_path)
    where = policy.relative(folder)
    if not os.path.lexists(folder):
        raise ActionError(f"the folder {where} does not exist")
    if not folder.is_dir():
        raise ActionError(f"{where} is a file, not a folder; read it with read_file")
    entries = list(policy.iter_directory(directory_path))
    folder_read_only = _is_read_only(policy, where) if where != "." else False
    lines = [
        f"{'the workspace' if where == '.' else where + '/'} ({plural(len(entries), 'entry', 'entries')}"
        + (", read-only" if folder_read_only else "")
        + ")"
        + (":" if entries else "; it is empty")
    ]
    budget, used = body_budget(ctx), 0
    for entry in entries[:MAX_LISTED]:
        try:
            if entry.is_dir:
                inner = sum(1 for _ in policy.iter_directory(entry.relative))
                text = f"{entry.name}/ ({plural(inner, 'entry', 'entries')})"
            else:
                text = f"{entry.name} ({human_size(entry.path.stat().st_size)})"
        except (OSError, SandboxError):
            text = entry.name + ("/" if entry.is_dir else "")
        if entry.is_symlink:
            text += f" → link to {policy.relative(policy.resolve(entry.relative))}"
        if not folder_read_only and _is_read_only(policy, entry.relative):
            text += " [read-only]"
        if used + len(text) > budget:
            break
        lines.append(text)
        used += len(text) + 1
    if len(lines) - 1 < len(entries):
        narrow = "use file_search to narrow" if offered(ctx, "file_search") else "list a subfolder to narrow"
        lines.append(f"[{len(entries) - len(lines) + 1:,} more entries not shown: {narrow}]")
    return "\n".join(lines)


def _make_folders(policy: PathPolicy, target: Path) -> None:
    """mkdir each missing folder from the workspace root down, each opened without following a
    symlink, so a folder swapped for a link after the policy's check is refused, not followed."""
    flags = os.O_RDONLY | os.O_DIRECTORY | os.O_CLOEXEC
    fd = os.open(policy.root, flags)
    try:
        for name in target.relative_to(policy.root).parts:
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, dir_fd=fd)
            try:
                next_fd = os.open(name, flags | os.O_NOFOLLOW, dir_fd=fd)
            except NotADirectoryError:  # Linux's answer for a symlink here: say what it is
                if stat.S_ISLNK(os.lstat(name, dir_fd=fd).st_mode):
                    raise OSError(errno.ELOOP, "symbolic link") from None
                raise
            os.close(fd)
            fd = next_fd
    finally:
        os.close(fd)


@action
async def create_directory(ctx: ActionContext, directory_path: str) -> str:
    """Create a folder, with any missing parent folders. Nothing happens if it already exists.

    Args:
        directory_path: the folder, relative to the workspace, e.g. "Notebook/drafts".
    """
    policy = file_policy(ctx)
    target = policy.check_writable(directory_path)
    where = policy.relative(target)
    if target.is_dir():
        return f"The folder {where}/ already exists."
    if os.path.lexists(target):
        raise ActionError(f"{where} already exists and is a file, not a folder")
    try:
        _make_folders(policy, target)
    except OSError as exc:
        reasons = {
            errno.ENOTDIR: f"a part of {where} is a file, not a folder",
            errno.ELOOP: f"a part of {where} became a symbolic link after the check; refused",
        }
        raise ActionError(
            reasons.get(exc.errno or 0, f"cannot create {where}: {exc.strerror or exc}")
        ) from None
    return f"Created the folder {where}/."


@action
async def delete_file(ctx: ActionContext, file_path: str) -> str:
    """Delete a file or folder by moving it into .trash/ (nothing is lost). It is kept there with a
    timestamp and can be read back if needed.

    Args:
        file_path: the file or folder, e.g. "Notebook/old_draft.md".
    """
    policy = file_policy(ctx)

    def delete() -> str:
        trashed = policy.move_to_trash(file_path)
        return f"Deleted {file_path!r}: it was moved to {policy.relative(trashed)} (nothing is lost)."

    return await change_file(ctx, file_path, delete)
