"""The `workbench` command: one entry point for the app and its headless faces."""

from __future__ import annotations

import argparse
import importlib
import os
import sys
import textwrap
from collections.abc import Sequence
from typing import Any, NoReturn

from workbench import __version__
from workbench.commands import examples, gui
from workbench.core.foundation.terminal import safe_console


class _Formatter(argparse.HelpFormatter):
    """Help that shows each option's default and keeps the line breaks of examples."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        lines = []
        for line in text.splitlines():
            lead = indent + line[: len(line) - len(line.lstrip())]
            body = " ".join(line.split())
            # a wrapped example line continues indented, so each example stays one item
            more = lead + "    " if line.startswith(" ") else lead
            lines.append(textwrap.fill(body, width, initial_indent=lead, subsequent_indent=more))
        return "\n".join(lines)

    def _get_help_string(self, action: argparse.Action) -> str | None:
        text = action.help or ""
        default = action.default
        if (
            not action.option_strings
            or default is None
            or default is False
            or default == argparse.SUPPRESS
            or default in ([], ())
            or "default" in text
            or action.help == argparse.SUPPRESS
        ):
            return action.help
        return f"{text} (default: %(default)s)".strip()


class _Parser(argparse.ArgumentParser):
    """argparse with the project's bad-input rule: exit 2, and the message names the fix."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("formatter_class", _Formatter)
        super().__init__(*args, **kwargs)

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(
            2,
            f"{self.prog}: error: {message}\n"
            f"Fix: correct the command line; `{self.prog} --help` lists every option.\n",
        )

    def parse_known_args(  # type: ignore[override]
        self, args: Sequence[str] | None = None, namespace: argparse.Namespace | None = None
    ) -> tuple[argparse.Namespace, list[str]]:
        known, extras = super().parse_known_args(args, namespace)
        # the innermost command parses first: its parser names the command in a later error
        if not hasattr(known, "parser_"):
            known.parser_ = self
        return known, extras


# each command's module under workbench.commands, in the order `workbench --help` lists them;
# a module may add more than one command (import_results: import-results and history)
COMMAND_MODULES = {
    "bench": "bench",
    "serve-local": "serve",
    "models": "models",
    "kernels": "kernels",
    "doctor": "doctor",
    "providers": "providers",
    "import": "import_providers",
    "import-results": "import_results",
    "history": "import_results",
    "summary": "summary",
    "install-desktop": "install_desktop",
    "completion": "completion",
}


def build_parser(window_only: bool = False, only: str | None = None) -> argparse.ArgumentParser:
    """Every command's parser; `window_only` builds just `gui`'s, so opening the window does not
    import the headless commands (the engine, the SDK's helpers: ~0.4 s before the first paint).
    `only` (a name in COMMAND_MODULES) builds `gui`'s and that command's: its module alone is
    imported (`workbench history list` needs none of bench's engine: ~0.3 s of CPU a start)."""
    parser = _Parser(
        prog="workbench",
        description="Attention Workbench: compare LLMs behind OpenAI-compatible APIs and see "
        "why one decodes faster. With no subcommand it opens the desktop app (or, with no "
        "display, runs the default comparison headless).",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    parser.add_argument(
        "--self-test",
        action="store_true",
        help="check this install (resources, a two-pane comparison in the window offscreen, "
        "CSV export) and exit 0 when it works; `workbench --self-test --help` for options",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    gui.add_parser(sub)
    if only is not None:
        _add_headless_commands(sub, [COMMAND_MODULES[only]])
    elif not window_only:
        _add_headless_commands(sub, list(dict.fromkeys(COMMAND_MODULES.values())))
    parser.epilog = examples.epilog("")
    _add_examples(parser)
    return parser


def _add_headless_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser], modules: list[str]
) -> None:
    for name in modules:
        module = importlib.import_module(f"workbench.commands.{name}")
        if name == "completion":  # it lists every command: it is given the whole parser's maker
            module.add_parser(sub, build_parser)
        else:
            module.add_parser(sub)


def _add_examples(parser: argparse.ArgumentParser, path: tuple[str, ...] = ()) -> None:
    """Every command's examples as its epilog (a command with its own epilog keeps it)."""
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, child in action.choices.items():
                if child.epilog is None:
                    child.epilog = examples.epilog(" ".join((*path, name)))
                _add_examples(child, (*path, name))


DEFAULT_COMPARISON = [
    "bench",
    "--model",
    "sim-llama-3-70b",
    "--model",
    "sim-deepseek-v3",
    "--prompt-tokens",
    "32K",
]


def gui_main(argv: Sequence[str] | None = None) -> int:
    """The windowed launcher (`attention-workbench`): always the app, never the headless run."""
    args_list = list(sys.argv[1:] if argv is None else argv)
    problem = gui.window_problem()
    if problem is not None:
        # a windowed launcher may have no console to print to; the message is for a terminal
        print(f"error: cannot open the window: {problem[1]}", file=sys.stderr)
        return problem[0]
    return main(["gui", *args_list])


def _unknown_leading_flags(args: Sequence[str]) -> list[str]:
    """Flags before any command that the window (what `workbench --flag` opens) does not know."""
    window = argparse.ArgumentParser(add_help=False)
    gui.add_gui_args(window)
    known = {*window._option_string_actions, "-h", "--help", "--version"}
    unknown = []
    for arg in args:
        if not arg.startswith("-") or arg.lstrip("-").replace(".", "", 1).isdigit():
            continue  # a command, an option's value, or a negative number
        if arg.split("=", 1)[0] not in known:
            unknown.append(arg)
    return unknown


def _refuse_leading_flags(flags: Sequence[str]) -> int:
    print(
        f"usage: workbench [-h] [--version] [--self-test] COMMAND ...\n"
        f"workbench: error: unknown option {' '.join(flags)} before any command\n"
        f"Fix: put a command's options after the command (`workbench bench {flags[0]}`); "
        f"`workbench --help` lists the commands and `workbench gui --help` the window's "
        f"options.",
        file=sys.stderr,
    )
    return 2


def _refuse_undecodable(args: Sequence[str]) -> int | None:
    """Exit 2 for an argument that is not UTF-8 text. Python keeps such bytes as lone
    surrogates, which failed deep in a request or a file write (a traceback after the CSV
    header was written), so they are refused before anything starts."""
    for number, arg in enumerate(args, 1):
        try:
            arg.encode("utf-8")
        except UnicodeEncodeError:
            raw = arg.encode("utf-8", "surrogateescape" if _escaped(arg) else "backslashreplace")
            shown = ascii(raw)[2:-1]
            print(
                f"workbench: error: argument {number} ({shown[:100]}) is not valid UTF-8 text\n"
                "Fix: retype it in UTF-8 (a terminal set to another encoding sends other "
                "bytes: e.g. LANG=C.UTF-8)",
                file=sys.stderr,
            )
            return 2
    return None


def _escaped(arg: str) -> bool:
    """Every lone surrogate is one of the bytes surrogateescape keeps (U+DC80..U+DCFF)."""
    return all(not 0xD800 <= ord(c) <= 0xDFFF or 0xDC80 <= ord(c) <= 0xDCFF for c in arg)


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    refused = _refuse_undecodable(args_list)
    if refused is not None:
        return refused
    if args_list and args_list[0] == "--self-test":
        from workbench import selftest

        return selftest.main(args_list[1:])
    # checked before choosing the window or the headless default, which would drop them
    leading = args_list and args_list[0].startswith("-") and args_list[0] != "--version"
    unknown = _unknown_leading_flags(args_list) if leading else []
    if unknown:
        return _refuse_leading_flags(unknown)
    if not args_list or (
        args_list[0].startswith("--") and args_list[0] not in ("--help", "-h", "--version")
    ):
        problem = gui.window_problem()
        if problem is None:
            args_list = ["gui", *args_list]
        elif getattr(sys, "frozen", False):
            # the packaged app is the window: say why there is none and stop (Qt would abort)
            print(f"error: cannot open the window: {problem[1]}", file=sys.stderr)
            return problem[0]
        else:
            # no screen: say so, then run the headless default instead (a GQA and an MLA
            # model at a 32K prompt on the built-in provider, table and CSV)
            print(
                f"No window: {problem[1]}\nRunning the headless comparison instead.\n",
                file=sys.stderr,
            )
            args_list = DEFAULT_COMPARISON
    safe_console()
    # the window and `--version` need no other command: their start does not import those
    first = args_list[0] if args_list else ""
    parser = build_parser(
        window_only=first in ("gui", "--version"),
        only=first if first in COMMAND_MODULES else None,
    )
    args, extras = parser.parse_known_args(args_list)
    if extras:
        args.parser_.error(f"unrecognized arguments: {' '.join(extras)}")
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args))
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # `workbench history list | head`: the reader left, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
