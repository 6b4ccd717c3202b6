"""Read a bot's Dockerfile before it is built and refuse whatever would reach a network.

A bot's Dockerfile is untrusted. Builds run with no network (``network_mode="none"``),
but Docker itself fetches on a build's behalf: ``ADD https://...`` downloads, a
``FROM`` (or ``COPY --from``) naming an image that is not on the machine pulls it,
a ``# syntax=`` directive pulls a frontend, and BuildKit's ``RUN --network=...`` /
``--mount`` options ask for more than a plain step. ``check_dockerfile`` refuses
each of these with ``DockerfileRefused`` naming the line; ``with_build_label`` adds a
``LABEL`` after every ``FROM`` so the build's own step containers can be found (and
removed at once when a build times out).
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass

__all__ = ["DockerfileRefused", "check_dockerfile", "with_build_label"]

_DIRECTIVE = re.compile(r"^#\s*([a-zA-Z]+)\s*=\s*(.*?)\s*$")
_NAME = r"[A-Za-z_][A-Za-z0-9_]*"
_VARIABLE = re.compile(rf"\$(?:\{{({_NAME})(?::?[-+][^}}]*)?\}}|({_NAME}))")
_URL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*://|^git@")


class DockerfileRefused(ValueError):
    """The Dockerfile asks for something a build may not do; the message names the line."""


@dataclass(frozen=True)
class Instruction:
    """One logical instruction: its first physical line (1-based), keyword, and arguments."""

    line: int
    keyword: str
    arguments: str
    last_line: int


def instructions(text: str) -> list[Instruction]:
    """The Dockerfile's instructions, continuation lines joined and comments dropped."""
    lines = text.splitlines()
    escape = "\\"
    for raw in lines:  # parser directives: only at the very top, before anything else
        directive = _DIRECTIVE.match(raw.strip())
        if directive is None:
            break
        if directive.group(1).lower() == "escape" and directive.group(2) in ("`", "\\"):
            escape = directive.group(2)
    found: list[Instruction] = []
    pending: list[str] = []
    start = 0
    for number, raw in enumerate(lines, start=1):
        stripped = raw.strip()
        if stripped.startswith("#") or (not stripped and not pending):
            continue
        if not pending:
            start = number
        if stripped.endswith(escape):
            pending.append(stripped[:-1])
            continue
        pending.append(stripped)
        keyword, _, arguments = " ".join(pending).strip().partition(" ")
        found.append(Instruction(start, keyword.upper(), arguments.strip(), number))
        pending = []
    if pending:
        keyword, _, arguments = " ".join(pending).strip().partition(" ")
        found.append(Instruction(start, keyword.upper(), arguments.strip(), len(lines)))
    return found


def _expand(value: str, known: Mapping[str, str]) -> str:
    return _VARIABLE.sub(lambda m: known.get(m.group(1) or m.group(2), ""), value)


def _flags_and_words(arguments: str) -> tuple[list[str], list[str]]:
    """``--flag=value`` options and the remaining words (JSON array form understood)."""
    words = arguments.split()
    flags = []
    while words and words[0].startswith("--"):
        flags.append(words.pop(0))
    rest = " ".join(words)
    if rest.startswith("["):
        try:
            parsed = json.loads(rest)
        except ValueError:
            parsed = None
        if isinstance(parsed, list) and all(isinstance(item, str) for item in parsed):
            return flags, parsed
    return flags, words


def check_dockerfile(
    text: str,
    *,
    build_args: Mapping[str, str],
    allowed_images: frozenset[str],
    image_is_local: Callable[[str], bool],
) -> None:
    """Raise ``DockerfileRefused`` (naming the line) if building ``text`` would fetch
    anything: a URL source, an image not on this machine, a syntax frontend, a
    ``RUN`` option. ``allowed_images`` (the arena's base image) and the file's own
    stages are always fine; any other image must pass ``image_is_local``."""
    for raw in text.splitlines():
        directive = _DIRECTIVE.match(raw.strip())
        if directive is None:
            break
        if directive.group(1).lower() == "syntax":
            raise DockerfileRefused(
                f"Dockerfile: the parser directive '{raw.strip()}' would fetch a frontend "
                "image; builds never reach a network")
    arguments: dict[str, str] = {}
    stages: set[str] = set()
    stage_count = 0
    known: dict[str, str] = {}

    def check_image(line: int, what: str, image: str) -> None:
        if not image:
            raise DockerfileRefused(f"Dockerfile line {line}: {what} names no image once its "
                                    "variables are filled in (declare ARG BASE_IMAGE before "
                                    "the first FROM)")
        if "$" in image:
            raise DockerfileRefused(f"Dockerfile line {line}: {what} names an image that "
                                    f"cannot be told before building ({image!r})")
        if (image.lower() in stages or image in allowed_images or image == "scratch"
                or (image.isdigit() and int(image) < stage_count)):
            return
        if not image_is_local(image):
            raise DockerfileRefused(
                f"Dockerfile line {line}: {what} {image} is not an image on this machine, "
                "and builds never pull one (nor start from another bot's image); start "
                "from ${BASE_IMAGE} (the arena's base image)")

    for step in instructions(text):
        where = f"Dockerfile line {step.line}"
        if step.keyword == "ARG":
            name, has_default, default = step.arguments.partition("=")
            name = name.strip()
            scope = known if stage_count else arguments
            inherited = _expand(default.strip().strip('"'), scope) if has_default else (
                arguments.get(name, ""))
            scope[name] = build_args.get(name, inherited)
        elif step.keyword == "FROM":
            flags, words = _flags_and_words(step.arguments)
            if flags:
                raise DockerfileRefused(f"{where}: FROM options ({' '.join(flags)}) are "
                                        "refused; they may make Docker pull an image")
            if not words:
                raise DockerfileRefused(f"{where}: FROM names no image")
            check_image(step.line, "FROM", _expand(words[0], arguments))
            known = {}
            if len(words) >= 3 and words[1].upper() == "AS":
                stages.add(words[2].lower())
            stage_count += 1
        elif step.keyword == "ENV":
            for name, value in re.findall(r'([A-Za-z_][A-Za-z0-9_]*)=("[^"]*"|\S*)',
                                          step.arguments):
                known[name] = _expand(value.strip('"'), known)
        elif step.keyword in ("ADD", "COPY"):
            flags, words = _flags_and_words(step.arguments)
            for flag in flags:
                if flag.startswith("--from="):
                    check_image(step.line, f"{step.keyword} --from", flag.split("=", 1)[1])
            for source in words[:-1]:
                unknown = [m.group(1) or m.group(2) for m in _VARIABLE.finditer(source)
                           if (m.group(1) or m.group(2)) not in known]
                if unknown:
                    raise DockerfileRefused(
                        f"{where}: {step.keyword} source {source} uses ${unknown[0]}, which "
                        "cannot be told before building; name the file itself")
                expanded = _expand(source, known)
                if _URL.match(expanded) or _URL.match(source):
                    raise DockerfileRefused(
                        f"{where}: {step.keyword} from {expanded} is refused: builds never "
                        "reach a network; put the file in the bot's folder and COPY it")
        elif step.keyword == "RUN":
            flags, _ = _flags_and_words(step.arguments)
            if flags:
                raise DockerfileRefused(
                    f"{where}: RUN options ({' '.join(flags)}) are refused: build steps run "
                    "with no network and no extra mounts")


def with_build_label(text: str, label: str) -> str:
    """``text`` with ``LABEL <label>`` after every ``FROM``: each later step's
    container carries it (for finding them when a build must be stopped)."""
    ends = {step.last_line for step in instructions(text) if step.keyword == "FROM"}
    out = []
    for number, line in enumerate(text.splitlines(), start=1):
        out.append(line)
        if number in ends:
            out.append(f"LABEL {label}")
    return "\n".join(out) + "\n"
