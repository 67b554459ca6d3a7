"""One to three examples per command, shown at the end of its `--help` (a command that brings
its own epilog keeps it)."""

from __future__ import annotations

EXAMPLES: dict[str, tuple[str, ...]] = {
    "": (
        "workbench",
        "workbench bench --model sim-70b-gqa --model sim-70b-mla --prompt-tokens 32K",
        "workbench doctor my-gw --model deepseek-chat",
    ),
    "gui": ("workbench gui", "workbench gui --lang zh_CN", "workbench gui --demo sweep"),
    "bench": (
        "workbench bench --model sim-70b-gqa --model sim-70b-mla --prompt-tokens 32K",
        "workbench bench --provider my-gw --model deepseek-chat --prompt-tokens 1K,8K,32K "
        "--repeats 3 --output runs/today",
        "workbench bench --model sim-70b-gqa --json -q > run.json",
        "workbench bench --base-url http://127.0.0.1:4000/v1 --protocol anthropic "
        "--api-key-env ANTHROPIC_API_KEY --model claude-sonnet-4-5",
    ),
    "serve-local": (
        "workbench serve-local --port 8000",
        "workbench serve-local --port 8000 --api-key-env LOCAL_KEY --time-scale 0.1",
    ),
    "models": (
        "workbench models",
        "workbench models --base-url http://127.0.0.1:8000/v1 --json",
        "workbench models --base-url http://127.0.0.1:4000/v1 --protocol anthropic "
        "--api-key-env ANTHROPIC_API_KEY",
    ),
    "kernels": (
        "workbench kernels --variant gqa --variant mla --kv 4096,32768",
        "workbench kernels --analytic --variant mla --kv 131072",
    ),
    "doctor": (
        "workbench doctor my-gw --model deepseek-chat",
        "workbench doctor --base-url https://gateway.example/v1 --api-key-env MY_KEY --json",
        "workbench doctor --base-url https://gateway.example/v1 --protocol responses",
    ),
    "providers": ("workbench providers", "workbench providers list --json"),
    "providers list": ("workbench providers list", "workbench providers list --json"),
    "providers show": ("workbench providers show my-gw",),
    "providers remove": ("workbench providers remove my-gw",),
    "providers add": (
        "workbench providers add my-gw --base-url https://gateway.example/v1 "
        "--api-key-env MY_KEY --model deepseek-chat",
    ),
    "providers export": ("workbench providers export", "workbench providers export team.toml"),
    "import": ("workbench import ~ --dry-run", "workbench import benchmark_config.json"),
    "history": ("workbench history list", "workbench history show 3f2a --json"),
    "summary": (
        "workbench summary --last --pdf summary.pdf",
        "workbench summary --run 3f2a --png summary.png --baseline sim-70b-gqa",
    ),
    "install-desktop": ("workbench install-desktop", "workbench install-desktop --uninstall"),
    "completion": (
        "workbench completion bash > ~/.local/share/bash-completion/completions/workbench",
        "workbench completion zsh > ~/.zfunc/_workbench",
        "workbench completion fish > ~/.config/fish/completions/workbench.fish",
    ),
}


def epilog(command: str) -> str | None:
    """The examples block for `command` ("providers add"; "" the top level), or None."""
    lines = EXAMPLES.get(command)
    if not lines:
        return None
    return "examples:\n" + "\n".join(f"  {line}" for line in lines)
