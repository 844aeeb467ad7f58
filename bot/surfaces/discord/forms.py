"""Forms (Discord modals) built from a command's options, and their submissions read back.

A command whose definition has a ``Form`` opens it on Discord when its ``when_missing`` option
is not given (``/tournament register`` with no player). The fields come from the options (see
``bot.command.model.Form``); submitting the form runs the same command through
``SlashRunner.run``: who may run it, ``bind``'s checks, the handler, the reply, the one error
path. The modal's ``custom_id`` is ``pf:form:<command words joined by .>``: it names the
command only, so a form opened before a restart, or by another instance, is still answered
(the modal is not kept in memory: every submission is routed by its ``custom_id``).
"""

from __future__ import annotations

import logging
from collections.abc import Mapping, Sequence
from typing import Any

import discord

from bot.command.model import Command, Form, Opt
from bot.errors import BadOption

log = logging.getLogger(__name__)

PREFIX = "pf:form:"
CHECKS = "checks"
"""The custom id of the checkbox group holding a form's ``yes`` options."""
TITLE_CHARS = 45
LABEL_CHARS = 45
DESCRIPTION_CHARS = 100
TYPED = ".typed"
"""The custom id suffix of a picker's text field (``player.typed``: ``Picker.typed``)."""
PICK_LIMIT = 25
"""Discord's most options in a select."""
MAX_FIELDS = 5


def form_id(command: Command) -> str:
    """The modal's persistent ``custom_id``: ``pf:form:tournament.register``."""
    return PREFIX + ".".join(command.path)


def command_of_form(custom_id: str, commands: Sequence[Command]) -> Command | None:
    """The command a submitted form's ``custom_id`` names (None: not one of ours)."""
    if not custom_id.startswith(PREFIX):
        return None
    path = tuple(custom_id.removeprefix(PREFIX).split("."))
    return next((c for c in commands if c.path == path and c.form is not None), None)


def label_of(opt: Opt) -> str:
    """A field's label: the option's name in words (``on_time`` -> ``On time``)."""
    return opt.name.replace("_", " ").capitalize()[:LABEL_CHARS]


def how_to_give(form: Form, option: str) -> str:
    """How the form gives ``option`` (for the line that says it is missing)."""
    picker = form.picker(option)
    if picker is None:
        return f"give {option} in the form"
    if picker.typed is not None:
        return "pick one in the list or type one in the form"
    return "pick one in the form"


def _form(command: Command) -> Form:
    assert command.form is not None, command.name
    return command.form


def field_layout(command: Command) -> list[tuple[str, tuple[Opt, ...]]]:
    """The form's top-level fields in order: ``(custom_id, options it fills)``.

    Every ``yes`` option goes into one checkbox group (custom id ``checks``), placed where the
    first of them is; every other option is a field of its own, its custom id its name; a
    picker with ``typed`` is followed by its text field (``<option>.typed``). A picker's list
    longer than 25 continues in further lists (``<option>.2``, ...) in the fields left free,
    which this layout does not count (``build_modal``).
    """
    form = _form(command)
    out: list[tuple[str, tuple[Opt, ...]]] = []
    checks = tuple(command.option(n) for n in form.fields if command.option(n).kind == "yes")
    for name in form.fields:
        opt = command.option(name)
        if opt.kind == "yes":
            if opt is checks[0]:
                out.append((CHECKS, checks))
            continue
        out.append((name, (opt,)))
        picker = form.picker(name)
        if picker is not None and picker.typed is not None:
            out.append((name + TYPED, (opt,)))
    return out


def _shown_value(value: Any) -> str | None:
    if value is None or isinstance(value, bool):
        return None
    return str(value)[:4000]


def build_modal(
    command: Command,
    picks: Mapping[str, Sequence[str]],
    given: Mapping[str, Any],
) -> discord.ui.Modal:
    """The command's form: a field for each of its ``Form.fields`` (see ``field_layout``).

    Args:
        command: a command with a ``Form``.
        picks: the list to pick from, for each picker option.
        given: the options given with the command (they fill the fields in beforehand).
    """
    form = _form(command)
    modal = discord.ui.Modal(title=form.title[:TITLE_CHARS], custom_id=form_id(command))
    layout = field_layout(command)
    for custom_id, opts in layout:
        opt = opts[0]
        item: Any
        if custom_id == CHECKS:
            item = discord.ui.CheckboxGroup(
                custom_id=CHECKS,
                required=False,
                min_values=0,
                max_values=len(opts),
                options=[
                    discord.CheckboxGroupOption(
                        label=label_of(o),
                        value=o.name,
                        description=o.description[:DESCRIPTION_CHARS],
                        default=bool(given.get(o.name, o.default)),
                    )
                    for o in opts
                ],
            )
            label = discord.ui.Label(text="Tick what applies", component=item)
            modal.add_item(label)
            continue
        picker = form.picker(opt.name)
        if picker is not None and custom_id.endswith(TYPED):
            item = discord.ui.TextInput(
                custom_id=custom_id,
                style=discord.TextStyle.short,
                required=False,  # exactly one of the list and this: checked on submit
                max_length=min(opt.max_length or 100, 4000),
            )
            modal.add_item(
                discord.ui.Label(
                    text=picker.typed or label_of(opt),
                    description="Not in the list: type it here and pick nothing there",
                    component=item,
                )
            )
            continue
        if picker is not None:
            names = list(dict.fromkeys(n[:100] for n in picks.get(opt.name, ())))
            chosen = {n.strip().lower() for n in str(given.get(opt.name) or "").split(",")}
            # A select lists 25 at most: the list goes on over several selects (a big room's
            # seated players, a big league's regulars), in the fields the form leaves free.
            room = MAX_FIELDS - (len(layout) - 1)
            chunks = [names[i : i + PICK_LIMIT] for i in range(0, len(names), PICK_LIMIT)]
            chunks = chunks[:room]
            if not chunks and picker.typed is None:
                chunks = [[]]
            for i, chunk in enumerate(chunks):
                text = label_of(opt)
                if len(chunks) > 1:
                    text = f"{text} {i * PICK_LIMIT + 1}-{i * PICK_LIMIT + len(chunk)}"
                # Over several selects, or with a typed alternative: checked on submit.
                required = opt.required and len(chunks) == 1 and picker.typed is None
                select: discord.ui.Select[Any] = discord.ui.Select(
                    custom_id=opt.name if i == 0 else f"{opt.name}.{i + 1}",
                    options=[
                        discord.SelectOption(label=n, value=n, default=n.strip().lower() in chosen)
                        for n in chunk
                    ],
                    min_values=1 if required else 0,
                    max_values=len(chunk) if picker.many else 1,
                    required=required,
                )
                modal.add_item(
                    discord.ui.Label(
                        text=text[:LABEL_CHARS],
                        description=opt.description[:DESCRIPTION_CHARS],
                        component=select,
                    )
                )
            continue
        if opt.kind in ("file", "link"):
            item = discord.ui.FileUpload(
                custom_id=opt.name, required=opt.required, min_values=1, max_values=1
            )
        elif opt.kind == "member":
            item = discord.ui.UserSelect(
                custom_id=opt.name, required=opt.required, min_values=1, max_values=1
            )
        else:
            default = _shown_value(given.get(opt.name, opt.default))
            item = discord.ui.TextInput(
                custom_id=opt.name,
                style=discord.TextStyle.paragraph if opt.lines else discord.TextStyle.short,
                required=opt.required,
                default=default,
                max_length=min(opt.max_length or 100, 4000) if opt.kind == "text" else 40,
            )
        modal.add_item(
            discord.ui.Label(
                text=label_of(opt), description=opt.description[:DESCRIPTION_CHARS], component=item
            )
        )
    modal.stop()  # not kept in memory: the submission is routed by its custom_id (restarts)
    return modal


def _children(components: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    out: list[Mapping[str, Any]] = []
    for comp in components:
        if comp.get("type") == 18 and isinstance(comp.get("component"), Mapping):
            out.append(comp["component"])
        elif comp.get("type") == 1:
            out.extend(_children(comp.get("components") or []))
        elif "custom_id" in comp:
            out.append(comp)
    return out


def read_submission(
    command: Command,
    data: Mapping[str, Any],
    attachment: Any = None,
) -> dict[str, Any]:
    """The options a submitted form gives, by name (a field left empty is not given).

    Args:
        command: the form's command.
        data: the modal submit interaction's ``data`` (``components``, ``resolved``).
        attachment: makes an uploaded file's value (``discord.Attachment``) from its payload.

    Raises:
        BadOption: a picker's value both picked and typed, or a single pick made in two lists.
    """
    form = _form(command)
    fields = {f: command.option(f) for f in form.fields}
    resolved = (data.get("resolved") or {}).get("attachments") or {}
    values: dict[str, Any] = {}
    picked_lists: dict[str, list[str]] = {}
    typed: dict[str, str] = {}
    for comp in _children(data.get("components") or []):
        custom_id = str(comp.get("custom_id") or "")
        base, _, part = custom_id.partition(".")
        if part.isdigit() and form.picker(base) is not None:  # a picker's second select
            picked_lists.setdefault(base, []).extend(str(v) for v in comp.get("values") or [])
            continue
        if "." + part == TYPED and form.picker(base) is not None:  # typed beside the list
            text = " ".join(str(comp.get("value") or "").split())
            if text:
                typed[base] = text
            continue
        if custom_id == CHECKS:
            ticked = set(comp.get("values") or ())
            for name, each in fields.items():
                if each.kind == "yes":
                    values[name] = name in ticked
            continue
        found = fields.get(custom_id)
        if found is None:
            continue  # a field this version of the form does not have
        opt = found
        if opt.kind == "yes":
            values[opt.name] = bool(comp.get("value"))
        elif "values" in comp:
            picked = [str(v) for v in comp.get("values") or []]
            if not picked:
                continue
            if opt.kind in ("file", "link"):
                payload = resolved.get(picked[0])
                if payload is not None and attachment is not None:
                    values[opt.name] = attachment(payload)
            elif opt.kind == "member":
                values[opt.name] = int(picked[0])
            else:
                picked_lists.setdefault(opt.name, []).extend(picked)
        else:
            text = str(comp.get("value") or "").strip()
            if text:
                values[opt.name] = text
    for name, picked in picked_lists.items():
        picked = list(dict.fromkeys(picked))
        picker = form.picker(name)
        if picker is not None and not picker.many and len(picked) > 1:
            raise BadOption(f"{name}: pick one only, not {', '.join(picked)}.")
        if picked:
            values[name] = ", ".join(picked)
    for name, text in typed.items():
        if name in values:
            raise BadOption(
                f"{name}: pick one in the list or type one, not both ({values[name]} and {text})."
            )
        values[name] = text
    return values


__all__ = [
    "CHECKS",
    "PREFIX",
    "TYPED",
    "build_modal",
    "command_of_form",
    "field_layout",
    "form_id",
    "how_to_give",
    "label_of",
    "read_submission",
]
