"""`workbench completion bash|zsh|fish`: a shell completion script made from the parser itself,
so every command, subcommand and option the CLI has is completed, and none it lacks.

zsh loads the bash script through its `bashcompinit` (part of zsh), fish gets its own
`complete` lines.
"""

from __future__ import annotations

import argparse
import shlex
from collections.abc import Callable, Iterator

SHELLS = ("bash", "zsh", "fish")


def add_parser(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
    root: Callable[[], argparse.ArgumentParser],
) -> None:
    p = sub.add_parser(
        "completion",
        help="print a shell completion script (bash, zsh or fish)",
        description="Print a completion script for your shell on stdout; save it where your "
        "shell loads completions (see the examples), then open a new shell.",
    )
    p.add_argument("shell", choices=SHELLS, help="the shell to complete for")
    p.set_defaults(func=lambda args: _print(args.shell, root()))


def _print(shell: str, parser: argparse.ArgumentParser) -> int:
    print(script(shell, parser), end="")
    return 0


def _tree(
    parser: argparse.ArgumentParser, path: tuple[str, ...] = ()
) -> Iterator[tuple[tuple[str, ...], list[str], list[tuple[str, str]], list[str]]]:
    """(command path, its subcommands, their help, its options) for every command."""
    subs: list[str] = []
    helps: list[tuple[str, str]] = []
    children = []
    options: list[str] = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            described = {c.dest: c.help or "" for c in action._choices_actions}
            for name, child in action.choices.items():
                subs.append(name)
                helps.append((name, described.get(name, "")))
                children.append((name, child))
        else:
            options.extend(s for s in action.option_strings)
    yield path, subs, helps, options
    for name, child in children:
        yield from _tree(child, (*path, name))


def _bash(parser: argparse.ArgumentParser) -> str:
    subs, opts = [], []
    for path, children, _, options in _tree(parser):
        key = shlex.quote(" ".join(path) or "_")
        subs.append(f"  [{key}]={shlex.quote(' '.join(children))}")
        opts.append(f"  [{key}]={shlex.quote(' '.join(options))}")
    return "\n".join(
        [
            "# bash completion for workbench (workbench completion bash)",
            "declare -A _workbench_subs=(",
            *subs,
            ")",
            "declare -A _workbench_opts=(",
            *opts,
            ")",
            "_workbench() {",
            '  local cur="${COMP_WORDS[COMP_CWORD]}" path="" word i',
            "  for ((i = 1; i < COMP_CWORD; i++)); do",
            '    word="${COMP_WORDS[i]}"',
            '    if [[ " ${_workbench_subs[${path:-_}]} " == *" $word "* ]]; then',
            '      path="${path:+$path }$word"',
            "    fi",
            "  done",
            '  local key="${path:-_}"',
            '  if [[ "$cur" == -* ]]; then',
            '    COMPREPLY=($(compgen -W "${_workbench_opts[$key]}" -- "$cur"))',
            "  else",
            '    COMPREPLY=($(compgen -W "${_workbench_subs[$key]}" -- "$cur"))',
            '    [[ ${#COMPREPLY[@]} -eq 0 ]] && COMPREPLY=($(compgen -f -- "$cur"))',
            "  fi",
            "}",
            "complete -F _workbench workbench attention-workbench",
            "",
        ]
    )


def _fish(parser: argparse.ArgumentParser) -> str:
    lines = ["# fish completion for workbench (workbench completion fish)"]
    for path, _, helps, options in _tree(parser):
        if path:
            words = " ".join(shlex.quote(w) for w in path)
            condition = f"__fish_seen_subcommand_from {shlex.quote(path[-1])}"
            if len(path) > 1:
                condition = f"__fish_seen_subcommand_from {words.split()[0]}; and {condition}"
        else:
            condition = "__fish_use_subcommand"
        for name, text in helps:
            lines.append(
                f"complete -c workbench -f -n {shlex.quote(condition)} -a {shlex.quote(name)} "
                f"-d {shlex.quote(text)}"
            )
        for option in options:
            flag = f"-l {option[2:]}" if option.startswith("--") else f"-s {option[1:]}"
            lines.append(f"complete -c workbench -n {shlex.quote(condition)} {flag}")
    return "\n".join(lines) + "\n"


def script(shell: str, parser: argparse.ArgumentParser) -> str:
    if shell == "fish":
        return _fish(parser)
    bash = _bash(parser)
    if shell == "zsh":
        return "#compdef workbench\nautoload -U +X bashcompinit && bashcompinit\n" + bash
    return bash
